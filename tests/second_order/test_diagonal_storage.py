"""A diagonal covariance is stored beside the mean, interleaved in one array (``SecondOrderClassifier._ws``).

The mean and the variances the kernels move must stay the ones the learner
predicts with and saves, through growth, a flip of the label encoding,
pickling, copying and loading: a stale copy would go on learning unseen.
The values are checked against the NumPy transcriptions of the papers.
"""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from oracles import second_order as oracle

import olearn
from olearn.second_order import AROW, CW, NAROW, AdaGrad

LEARNERS = {
    "AdaGrad": lambda: AdaGrad(eta=0.5),
    "AdaGrad-intercept": lambda: AdaGrad(eta=0.3, delta=0.0, fit_intercept=True),
    "AROW-diag": lambda: AROW(r=0.5, covariance="diag", fit_intercept=True),
    "CW-diag": lambda: CW(eta=0.8, covariance="diag"),
    "NAROW-diag": lambda: NAROW(b=2.0, covariance="diag"),
}


def _saved(est, path):
    est.save(path)
    return olearn.load(path)


# each makes a copy of a learner, given a file it may use
COPIES = {
    "pickle": lambda est, path: pickle.loads(pickle.dumps(est)),
    "deepcopy": lambda est, path: copy.deepcopy(est),
    "save-load": _saved,
}


def _assert_one_array(est):
    """Only ``_ws`` is stored; the mean and the variances are its columns."""
    stored = est.__dict__
    assert "_w" not in stored and "_cov" not in stored
    ws = stored["_ws"]
    assert ws.dtype == np.float64 and ws.ndim == 2 and ws.shape[1] == 2 and ws.flags.c_contiguous
    assert np.shares_memory(est._w, ws) and np.shares_memory(est._cov, ws)


def _covariance_of(est):
    return est.accumulator_ if isinstance(est, AdaGrad) else est.covariance_


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("name", LEARNERS)
def test_a_copy_taken_mid_stream_learns_on_as_the_paper_says(name, how, make_stream, tmp_path):
    X, y = make_stream(90, 6, density=0.6, seed=8)
    X[:40, 4:] = 0.0  # two features appear after the copy: the copy's arrays must grow
    y[:5] = 1  # the first negative label comes after the copy: the copy's encoding flips
    est = LEARNERS[name]()
    for x, label in zip(X[:4], y[:4]):
        est.learn_one({j: v for j, v in enumerate(x) if v != 0.0}, label)
    _assert_one_array(est)
    est = COPIES[how](est, tmp_path / "model.olearn")
    _assert_one_array(est)
    for x, label in zip(X[4:40], y[4:40]):
        est.learn_one({j: v for j, v in enumerate(x) if v != 0.0}, label)
    est.partial_fit(sp.csr_matrix(X[40:]), y[40:])
    _assert_one_array(est)
    trace = oracle.for_estimator(type(est).__name__, est.get_params(), X, y)
    assert_allclose(est.coef_.ravel(), trace.coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, [trace.intercept], rtol=1e-9, atol=1e-12)
    assert_allclose(_covariance_of(est), trace.covariance, rtol=1e-9, atol=1e-12)


def test_the_mean_of_a_diagonal_learner_cannot_be_replaced_apart_from_its_variances(make_stream):
    X, y = make_stream(10, 3)
    est = AdaGrad().partial_fit(X, y)
    with pytest.raises(AttributeError, match="_ws"):
        est._w = np.zeros(4)
    with pytest.raises(AttributeError, match="_ws"):
        est._cov = np.zeros(4)


def test_a_full_covariance_is_stored_as_before(make_stream):
    X, y = make_stream(10, 3)
    est = AROW(covariance="full").partial_fit(X, y)
    assert "_ws" not in est.__dict__ and est.__dict__["_cov"].shape == (4, 4) and est.__dict__["_w"].shape == (4,)
