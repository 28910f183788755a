"""Averaging (``average=``) of the second-order learners against the naive average of the oracles' iterates.

The reference is the plain O(d)-per-round average: the NumPy transcription of
:mod:`oracles.second_order` run on every prefix of the stream, its mean vector
after each round summed from the first averaged round on.
"""

import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import second_order as oracle

import olearn
from olearn.exceptions import ModelFormatError
from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron

CASES = [
    (AROW, {"r": 0.5}),
    (AROW, {"r": 2.0, "covariance": "diag", "fit_intercept": True}),
    (NAROW, {"b": 2.0, "fit_intercept": True}),
    (NAROW, {"b": 2.0, "covariance": "diag"}),
    (SecondOrderPerceptron, {"a": 0.5}),
    (CW, {"eta": 0.8, "covariance": "full"}),
    (CW, {"eta": 0.7}),
    (AdaGrad, {"eta": 0.5, "delta": 0.1, "fit_intercept": True}),
]
IDS = [cls.__name__ + "-" + ",".join(f"{k}={v}" for k, v in params.items()) for cls, params in CASES]


def _naive_average(cls, params, X, y, first, sample_weight=None):
    """The mean of the oracle's (coef, intercept) after rounds first..n, one oracle run per prefix."""
    iterates = []
    for t in range(first, len(y) + 1):
        weights = None if sample_weight is None else sample_weight[:t]
        trace = oracle.for_estimator(cls.__name__, params, X[:t], y[:t], sample_weight=weights)
        iterates.append(np.append(trace.coef, trace.intercept))
    return np.mean(iterates, axis=0)


def _close(actual, expected, rtol=1e-8):
    expected = np.asarray(expected, dtype=float)
    assert_allclose(actual, expected, rtol=rtol, atol=1e-10 * max(1.0, float(np.max(np.abs(expected), initial=0.0))))


@pytest.mark.parametrize(("average", "weighted"), [(True, False), (9, True)], ids=["all-rounds", "from-9-weighted"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_average_matches_the_naive_average(cls, params, layout, average, weighted, make_stream):
    X, y = make_stream(36, 6, density=0.4, seed=13)
    c = np.where(np.arange(len(y)) % 5 == 0, 0.0, np.linspace(0.5, 2.5, len(y))) if weighted else None
    data = sp.csr_matrix(X) if layout == "csr" else X
    est = cls(**params, average=average)
    res = olearn.run(est, data, y, sample_weight=c)
    expected = _naive_average(cls, est.get_params(), X, y, int(average), c)
    _close(est.coef_.ravel(), expected[:-1])
    _close(est.intercept_, expected[-1:])
    _close(est.decision_function(data), X @ expected[:-1] + expected[-1])
    # run scores each round with the current weights, as the unaveraged learner does
    plain = olearn.run(cls(**params), data, y, sample_weight=c)
    assert_array_equal(res.scores, plain.scores)
    assert not np.allclose(est.coef_, cls(**params).partial_fit(data, y, sample_weight=c).coef_)


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_average_with_features_that_appear_late(cls, params, make_stream):
    """learn_one on dicts: the running sum grows with the weights while averaging."""
    X, y = make_stream(30, 5, density=0.6, seed=14)
    X[:12, 2:] = 0.0
    rows = [{j: v for j, v in enumerate(x) if v != 0.0} for x in X]
    est, plain = cls(**params, average=True), cls(**params)
    predictions = [est.predict_learn_one(x, label) for x, label in zip(rows, y)]
    expected = _naive_average(cls, est.get_params(), X, y, 1)
    _close(est.coef_.ravel(), expected[:-1])
    # predict_learn_one predicts with the current weights
    assert predictions == [plain.predict_learn_one(x, label) for x, label in zip(rows, y)]
    assert not np.allclose(est.decision_function(X), plain.decision_function(X))


@pytest.mark.parametrize(("cls", "params"), CASES[:5], ids=IDS[:5])
def test_before_the_first_averaged_round_the_current_weights_predict(cls, params, make_stream):
    X, y = make_stream(20, 4, seed=15)
    est = cls(**params, average=25).partial_fit(X, y)
    assert_array_equal(est.coef_, cls(**params).partial_fit(X, y).coef_)
    est.partial_fit(X, y)  # rounds 21..40: 25..40 are averaged
    expected = _naive_average(cls, est.get_params(), np.vstack([X, X]), np.append(y, y), 25)
    _close(est.coef_.ravel(), expected[:-1])


@pytest.mark.parametrize("first", ["a", "b"])
@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_average_follows_a_change_of_the_positive_class(cls, params, first, make_stream):
    """A stream showing one class first: when the other comes, the encoding may flip (it does when "a", the
    first of the sorted classes, came first and was taken as +1), and the average with it."""
    X, y = make_stream(30, 4, seed=16)
    labels = np.where(y == 1, "a", "b")
    labels[0], labels[1] = first, "b" if first == "a" else "a"
    late = cls(**params, average=True).partial_fit(X[:1], labels[:1]).partial_fit(X[1:], labels[1:])
    declared = cls(**params, average=True).partial_fit(X, labels, classes=["a", "b"])
    _close(late.coef_, declared.coef_, rtol=1e-12)
    assert_array_equal(late.predict(X), declared.predict(X))


@pytest.mark.parametrize(("before", "after"), [(True, False), (False, True), (True, 5)])
def test_changing_average_midway_is_refused(before, after, make_stream):
    X, y = make_stream(20, 4, seed=17)
    est = AROW(average=before).partial_fit(X[:10], y[:10])
    w, coef = est._w.copy(), est.coef_
    est.set_params(average=after)
    with pytest.raises(ValueError, match="average"):
        est.partial_fit(X[10:], y[10:])
    est.set_params(average=before)
    assert_array_equal(est._w, w)
    assert_array_equal(est.coef_, coef)
    # fit starts over with it
    est.set_params(average=after).fit(X, y)
    assert est._learned_average_start() == int(after)


@pytest.mark.parametrize("bad", [-1, 2.5, "yes", None])
def test_bad_average_is_refused(bad, make_stream):
    X, y = make_stream(5, 2, seed=18)
    est = AROW(average=bad)
    with pytest.raises(ValueError, match="average"):
        est.partial_fit(X, y)
    assert not est._is_started()


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_the_average_is_saved_and_loaded(cls, params, make_stream, tmp_path):
    X, y = make_stream(40, 4, seed=19)
    est = cls(**params, average=5).partial_fit(X[:25], y[:25])
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    est.partial_fit(X[25:], y[25:])
    loaded.partial_fit(X[25:], y[25:])
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.intercept_, est.intercept_)


def _without(path, *names):
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            if not any(name.startswith(n) for n in names):
                archive.writestr(name, content)


def test_a_saved_average_is_checked(make_stream, tmp_path):
    X, y = make_stream(20, 3, seed=20)
    est = AROW(average=True).partial_fit(X, y)
    path = tmp_path / "m.npz"
    for missing in (("average_count",), ("average_count", "average_sum")):
        est.save(path)
        _without(path, *missing)
        with pytest.raises(ModelFormatError, match="average"):
            olearn.load(path)
    # the first averaged round saved must be the hyperparameter's: save runs the checks of load
    est._avg_count[1] = 4
    with pytest.raises(ModelFormatError, match="not saved, the file would not load: .*starts averaging at round 4"):
        est.save(path)
    # a model saved without averaging has no average arrays
    plain = AROW().partial_fit(X, y)
    plain.save(path)
    assert_array_equal(olearn.load(path).coef_, plain.coef_)


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_a_running_sum_that_would_overflow_refuses_the_example(covariance):
    """U + (j - 1) dw beyond the floating-point range: the example is refused and the model left as it was.

    (AdaGrad moves a coordinate by up to eta, any finite number, so its running sum can outgrow w.)
    """
    X = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.0]])
    cases = [AdaGrad(eta=1e307, average=True), AROW(covariance=covariance, average=True)]
    for est in cases:
        est.partial_fit(X[:2], [1, -1])
        est._avg_sum[0] = 1.7e308
        if isinstance(est, AROW):
            est._w[0] = -1e307  # a loss of about 1e307 on x = (1, 0), y = +1: dw_0 about 5e306 > 0
        before = {k: np.array(v, copy=True) for k, v in vars(est).items() if isinstance(v, np.ndarray)}
        with pytest.raises(FloatingPointError, match="overflowed"):
            est.learn_one(X[2], 1)
        for key, value in before.items():
            assert_array_equal(getattr(est, key), value)
        # without the huge running sum the same example is learned
        est._avg_sum[0] = 0.0
        est.learn_one(X[2], 1)
        assert np.isfinite(est.coef_).all()
