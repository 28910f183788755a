"""A batch of names the learner knows, all of plain numbers (a service's steady state), is converted by the
service into rows in the learner's canonical form (int32 columns, each row's in increasing order), which the
learner's check takes as they are, and is learned bit for bit as ``partial_fit`` learns its dicts."""

import copy

import numpy as np
import pytest

from olearn._validation import check_X
from olearn.cli._learners import make_estimator, task_of
from olearn.serve._model import ServedModel
from olearn.serve._requests import Examples, Limits, read_labelled

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()

STARTING = [{"a": 0.5, "b": -1.0, "c": 2.0, "d": 1.0}, {"d": -0.5, "c": 1.5, "b": 0.25, "a": -2.0}]
# the keys out of the order of their columns, integers among the floats
BATCH = [{"d": 2.0, "a": 0.5}, {"c": -1, "b": 1.5, "a": 0.25}, {"b": -0.75}, {"d": 1.0, "c": 3.0, "b": -2.0, "a": 1}]
LABELS = {"binary": ([1, -1], [1, -1, -1, 1]), "multiclass": (["x", "y"], ["y", "x", "y", "x"]),
          "regression": ([0.5, -1.0], [1.5, -0.25, 2.0, 0.0])}


def _started(algo):
    est = make_estimator(algo, {})
    est.partial_fit(STARTING, LABELS[task_of(algo)][0])
    return est


def test_a_known_batch_comes_as_the_learners_canonical_rows():
    model = ServedModel(_started("pa1"))
    vocabulary = model.estimator.vocabulary_
    rows = model._known_matrix(Examples(BATCH, BATCH, None, None, True))
    # each row's (column, value) pairs in column order, from the vocabulary by hand
    want = [sorted((vocabulary[name], float(value)) for name, value in x.items()) for x in BATCH]
    assert rows.shape == (len(BATCH), model.estimator.n_features_in_)
    assert rows.indices.dtype == np.int32 and rows.data.dtype == np.float64
    got = [list(zip(rows.indices[lo:hi].tolist(), rows.data[lo:hi].tolist()))
           for lo, hi in zip(rows.indptr[:-1], rows.indptr[1:])]
    assert got == want
    checked = check_X(rows)
    assert checked.indices is rows.indices and checked.data is rows.data  # taken as they are, not rebuilt


@pytest.mark.parametrize("algo", ["pa1", "pa1-multiclass", "pa1-regression"])
def test_a_known_batch_learns_what_partial_fit_learns_from_its_dicts(algo):
    served, offline = ServedModel(_started(algo)), _started(algo)
    labels = LABELS[task_of(algo)][1]
    before = copy.deepcopy(offline)
    served.apply("learn", read_labelled({"x": BATCH, "y": labels}, Limits()))
    offline.partial_fit(BATCH, labels)
    assert_same_model(served.estimator, offline)
    learned, started = offline._get_state()[0], before._get_state()[0]
    assert any(not np.array_equal(learned[name], started[name]) for name in learned)  # the batch was learned
