"""A pipeline whose learner stops part way through a batch (an overflow) stays as if it had learned only the rows before.

The learners keep the updates of the rows before an overflow
(:class:`olearn.exceptions.PartialUpdateError`, ``rows_kept``). The reference
here is an independent second pipeline that learns the same history and then
only those rows: the stopped pipeline must predict, transform and save like it,
and keep learning like it.
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn import AROW, PAClassifier, PAMulticlass, PARegressor, Perceptron, Winnow
from olearn.exceptions import PartialUpdateError
from olearn.preprocessing import MaxAbsScaler

# the learner first sees "a" at 1e-300, so MaxAbsScaler maps a later a = 1e-10 to 1e290: ||x||^2 overflows there
HISTORY = [({"a": 1e-300, "z": 1.0}, 1), ({"z": -1.0, "y": 0.5}, 0)]
BATCH = [({"b": 1.0, "z": 0.3}, 1), ({"c": 2.0, "z": -0.2}, 0), ({"d": 1.0, "a": 1e-10}, 1), ({"e": 3.0}, 0)]
PROBES = [{"a": 1e-301, "b": 0.5, "c": -1.0, "z": 0.7}, {"y": 1.0, "c": 0.25}, {"d": 1.0, "e": 1.0, "z": -2.0}]
LATER = [({"b": -1.0, "d": 0.5, "z": 0.1}, 0), ({"c": 1.0, "e": -0.5}, 1), ({"f": 1.0, "z": 1.0}, 1)]

LEARNERS = {
    "PAClassifier": lambda: PAClassifier(variant="pa1", C=1.0),
    "Perceptron": Perceptron,
    "AROW": lambda: AROW(r=1.0),
    "Winnow": Winnow,
    "PAMulticlass": PAMulticlass,
    "PARegressor": lambda: PARegressor(epsilon=0.0),
}


def _labels(name, rows):
    if name == "PARegressor":
        return [2.0 * y - 1.0 for _, y in rows]
    if name == "Winnow":
        return [1 if y else -1 for _, y in rows]
    return [y for _, y in rows]


def _pipeline(name, history=True):
    pipe = MaxAbsScaler() | LEARNERS[name]()
    if history:
        X = [x for x, _ in HISTORY]
        pipe.partial_fit(X, _labels(name, HISTORY), **_classes(name))
    return pipe


def _classes(name):
    return {} if name in ("PARegressor",) else {"classes": sorted(set(_labels(name, HISTORY + BATCH)))}


def _outputs(pipe):
    learner = pipe.steps[-1][1]
    scores = (learner.predict if isinstance(learner, PARegressor) else pipe.decision_function)(PROBES)
    return np.asarray(scores, dtype=float), [pipe.transform_one(x) for x in PROBES]


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_the_pipeline_equals_one_that_learned_only_the_rows_before_the_overflow(name, tmp_path):
    # the rows from the overflow on bring names d and e (and Winnow's entropic weights depend on the width)
    X, y = [x for x, _ in BATCH], _labels(name, BATCH)
    stopped = _pipeline(name)
    with pytest.raises(PartialUpdateError, match="overflow") as caught:
        stopped.partial_fit(X, y)
    assert caught.value.rows_kept == 2

    prefix = _pipeline(name)
    prefix.partial_fit(X[:2], y[:2])
    assert stopped.feature_map_ == prefix.feature_map_
    assert stopped.n_features_in_ == prefix.n_features_in_
    (s_scores, s_rows), (p_scores, p_rows) = _outputs(stopped), _outputs(prefix)
    assert_allclose(s_scores, p_scores, rtol=1e-12, atol=0)
    assert s_rows == p_rows

    # it saves (the names and widths agree) and loads to the same model
    loaded = olearn.load(stopped.save(tmp_path / "stopped.npz"))
    assert_array_equal(_outputs(loaded)[0], s_scores)

    # and keeps learning as the reference does
    later_X, later_y = [x for x, _ in LATER], _labels(name, LATER)
    stopped.partial_fit(later_X, later_y)
    prefix.partial_fit(later_X, later_y)
    assert stopped.feature_map_ == prefix.feature_map_
    assert_allclose(_outputs(stopped)[0], _outputs(prefix)[0], rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["PAClassifier", "AROW"])
def test_an_overflow_at_the_first_row_leaves_the_pipeline_as_it_was(name):
    pipe = _pipeline(name)
    before = _outputs(pipe), pipe.feature_map_.vocabulary(), pipe.n_features_in_
    with pytest.raises(PartialUpdateError) as caught:
        pipe.partial_fit([{"new": 1.0, "a": 1e-10}, {"b": 1.0}], _labels(name, BATCH[:2]))
    assert caught.value.rows_kept == 0
    scores, rows = _outputs(pipe)
    assert_array_equal(scores, before[0][0])
    assert rows == before[0][1]
    assert (pipe.feature_map_.vocabulary(), pipe.n_features_in_) == before[1:]


def test_rows_given_as_an_iterator_are_kept_too():
    y = _labels("PAClassifier", BATCH)
    stopped = _pipeline("PAClassifier")
    with pytest.raises(PartialUpdateError):
        stopped.partial_fit(iter([x for x, _ in BATCH]), y)
    prefix = _pipeline("PAClassifier")
    prefix.partial_fit([x for x, _ in BATCH[:2]], y[:2])
    assert stopped.feature_map_ == prefix.feature_map_
    assert_array_equal(_outputs(stopped)[0], _outputs(prefix)[0])


def test_olearn_run_through_a_pipeline_keeps_the_same_rows():
    X, y = [x for x, _ in BATCH], _labels("PAClassifier", BATCH)
    stopped = _pipeline("PAClassifier")
    with pytest.raises(PartialUpdateError):
        olearn.run(stopped, X, y)
    prefix = _pipeline("PAClassifier")
    prefix.partial_fit(X[:2], y[:2])
    assert stopped.feature_map_ == prefix.feature_map_
    assert_array_equal(_outputs(stopped)[0], _outputs(prefix)[0])


def test_the_error_pickles_with_its_count():
    err = pickle.loads(pickle.dumps(PartialUpdateError("at row 4", rows_kept=4)))
    assert (str(err), err.rows_kept, isinstance(err, FloatingPointError)) == ("at row 4", 4, True)


@pytest.mark.parametrize("make", [lambda: PAClassifier(), lambda: AROW(), lambda: PAMulticlass()])
def test_a_learner_alone_reports_how_many_rows_it_kept(make):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1e200, 1e200], [1.0, 1.0]])
    est = make()
    with pytest.raises(PartialUpdateError, match="row 2") as caught:
        est.partial_fit(X, [1, 0, 1, 0], classes=[0, 1])
    reference = make().partial_fit(X[:2], [1, 0], classes=[0, 1])
    assert caught.value.rows_kept == 2
    assert_array_equal(est.decision_function(X[[0, 1, 3]]), reference.decision_function(X[[0, 1, 3]]))
