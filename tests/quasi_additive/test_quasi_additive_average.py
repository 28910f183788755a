"""Averaging (``average=``) of Winnow, the p-norm algorithms and DualAscent against the naive average.

What is averaged is w = g(theta), the vector that predicts. The reference is
the plain mean of the oracles' w after each round (:mod:`oracles.quasi_additive`
records them; :mod:`oracles.dual` is run on every prefix).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import dual as dual_oracle
from oracles import quasi_additive as oracle

import olearn
from olearn.dual import DualAscent
from olearn.quasi_additive import PNorm, Winnow

LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix}
QA_CASES = [
    ("winnow", lambda **kw: Winnow(C=0.7, fit_intercept=True, **kw),
     lambda X, y, c: oracle.winnow(X, y, 0.7, True, c)),
    ("winnow-simplex", lambda **kw: Winnow(C=0.5, balanced=False, n_features=6, **kw),
     lambda X, y, c: oracle.winnow_simplex(X, y, 0.5, False, c)),
    ("pnorm", lambda **kw: PNorm(p=3.0, C=0.4, **kw), lambda X, y, c: oracle.pnorm(X, y, 3.0, 0.4, False, c)),
    ("pnorm-2", lambda **kw: PNorm(p=2.0, fit_intercept=True, **kw),
     lambda X, y, c: oracle.pnorm(X, y, 2.0, 1.0, True, c)),
    ("pnorm-aggressive", lambda **kw: PNorm(p=2.5, aggressive=True, R=1.2, fit_intercept=True, **kw),
     lambda X, y, c: oracle.aggressive_pnorm(X, y, 2.5, 1.2, True, c)),
]


def _coef(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _stream(make_stream, n=50, d=6, seed=21):
    X, y = make_stream(n, d, density=0.5, seed=seed)
    X[:, -1] += 0.3  # every feature from the first row: the entropic prior counts the same n as the oracle's
    return X, y


def _sample_weight(n, weighted):
    return np.where(np.arange(n) % 4 == 0, 0.0, np.linspace(0.5, 2.5, n)) if weighted else None


@pytest.mark.parametrize(("average", "weighted"), [(True, False), (9, True)], ids=["all-rounds", "from-9-weighted"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize(("make", "reference"), [case[1:] for case in QA_CASES], ids=[case[0] for case in QA_CASES])
def test_average_matches_the_naive_average(make, reference, layout, average, weighted, make_stream):
    X, y = _stream(make_stream)
    c = _sample_weight(len(y), weighted)
    est = make(average=average)
    res = olearn.run(est, LAYOUTS[layout](X), y, sample_weight=c)
    trace = reference(X, y, c)
    expected = np.mean(trace.weights[int(average) - 1:], axis=0)
    if not est.fit_intercept:
        expected = np.append(expected, 0.0)
    assert_allclose(_coef(est), expected, rtol=1e-9, atol=1e-12)
    assert_allclose(est.decision_function(LAYOUTS[layout](X)), X @ expected[:-1] + expected[-1], rtol=1e-9, atol=1e-12)
    assert_array_equal(res.scores, olearn.run(make(), LAYOUTS[layout](X), y, sample_weight=c).scores)
    assert not np.allclose(_coef(est), _coef(make().partial_fit(X, y, sample_weight=c)))


DUAL_CASES = [
    {"regularizer": "l2", "update": "conservative", "C": 0.4},
    {"regularizer": "entropy", "update": "aggressive", "C": 0.8, "gamma": 0.7, "fit_intercept": True},
    {"regularizer": "pnorm", "p": 3.0, "update": "last-k", "k": 3, "C": 0.8},
    {"regularizer": "l2", "update": "all", "C": 0.5, "gamma": 1.3},
]


@pytest.mark.parametrize("case", DUAL_CASES, ids=lambda case: f"{case['regularizer']}-{case['update']}")
def test_dual_ascent_average_matches_the_naive_average(case, make_stream):
    X, y = make_stream(16, 4, density=0.7, seed=22)
    X[:, -1] += 0.4
    c = _sample_weight(len(y), True)
    est = DualAscent(**case, average=3)
    olearn.run(est, sp.csr_matrix(X), y, sample_weight=c)
    iterates = []
    for t in range(3, len(y) + 1):
        trace = dual_oracle.dual_ascent(X[:t], y[:t], **case, sample_weight=c[:t])
        iterates.append(np.append(trace.coef, trace.intercept))
    exact = case["update"] in ("conservative", "aggressive")
    rtol, atol = (1e-10, 1e-13) if exact else (1e-5, 1e-7)
    assert_allclose(_coef(est), np.mean(iterates, axis=0), rtol=rtol, atol=atol)


def test_winnow_average_takes_the_prior_of_new_features(make_stream):
    """A new feature enters the entropic prior and rescales w between rounds; the average sees every w_t.

    The conservative balanced Winnow makes the same mistakes whatever the
    number of zero coordinates (they only scale w), so w_t is the oracle's on
    the columns seen by round t.
    """
    X, y = make_stream(40, 6, density=0.6, seed=23)
    X[:10, 2:] = 0.0
    X[:20, 4:] = 0.0
    est = Winnow(C=0.8, average=True)
    for x, label in zip(X, y):
        est.learn_one({j: v for j, v in enumerate(x) if v != 0.0}, label)
    iterates = []
    for t in range(1, len(y) + 1):
        seen = 1 + max(np.flatnonzero(np.any(X[:t] != 0.0, axis=0)))
        coef = oracle.winnow(X[:t, :seen], y[:t], 0.8).coef
        iterates.append(np.append(coef, np.zeros(6 - seen)))
    assert_allclose(est.coef_.ravel(), np.mean(iterates, axis=0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("balanced", [True, False])
def test_average_follows_a_late_second_class(balanced, make_stream):
    """Plain Winnow learns the other encoding's model (and its average) while one class is known."""
    X, y = _stream(make_stream, n=30, seed=24)
    y[:6] = -1
    late = Winnow(C=0.6, balanced=balanced, n_features=6, average=True)
    late.partial_fit(X[:6], y[:6]).partial_fit(X[6:], y[6:])
    declared = Winnow(C=0.6, balanced=balanced, n_features=6, average=True).partial_fit(X, y, classes=[-1, 1])
    assert_allclose(_coef(late), _coef(declared), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("name", "make"), [(case[0], case[1]) for case in QA_CASES]
                         + [("dual-last-k", lambda **kw: DualAscent(update="last-k", k=3, **kw))])
def test_the_average_is_saved_and_loaded(name, make, make_stream, tmp_path):
    X, y = _stream(make_stream, n=30, seed=25)
    est = make(average=4).partial_fit(X[:18], y[:18])
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    est.partial_fit(X[18:], y[18:])
    loaded.partial_fit(X[18:], y[18:])
    assert_array_equal(_coef(loaded), _coef(est))


def test_the_other_encodings_average_is_saved_and_loaded(make_stream, tmp_path):
    X, y = _stream(make_stream, n=20, seed=26)
    y[:5] = -1
    est = Winnow(balanced=False, n_features=6, average=True).partial_fit(X[:5], y[:5])
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    est.partial_fit(X[5:], y[5:])
    loaded.partial_fit(X[5:], y[5:])
    assert_array_equal(_coef(loaded), _coef(est))


@pytest.mark.parametrize("make", [
    lambda: PNorm(p=3.0, average=True),
    lambda: PNorm(p=3.0, aggressive=True, average=True),
    lambda: DualAscent(regularizer="pnorm", p=3.0, update="aggressive", average=True),
    lambda: DualAscent(regularizer="pnorm", p=3.0, update="last-k", k=2, average=True),
], ids=["pnorm", "pnorm-aggressive", "dual-aggressive", "dual-last-k"])
def test_a_running_sum_that_would_overflow_refuses_the_example(make):
    """U + (j - 1) dw beyond the floating-point range: the example is refused and the model left as it was.

    A learned theta keeps |w| far below the range; a model file may hold larger
    weights (here w_0 = -1e307 with theta_0 = -1e150, so that relinking moves
    w_0 by about 1e307).
    """
    X = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.0]])
    est = make().partial_fit(X[:2], [-1, 1])
    est._avg_sum[0] = 1.7e308
    est._w[0], est._theta[0] = -1e307, -1e150
    before = {k: np.array(v, copy=True) for k, v in vars(est).items() if isinstance(v, np.ndarray)}
    with pytest.raises(FloatingPointError, match="overflowed"):
        est.learn_one(X[2], 1)
    for key, value in before.items():
        assert_array_equal(getattr(est, key), value)
    est._avg_sum[0] = 0.0
    est.learn_one(X[2], 1)
    assert np.isfinite(est.coef_).all()
