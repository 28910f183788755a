"""bound_report for multi-prototype PA (Crammer et al. 2006, Sec. 7): rows against a NumPy transcription."""

import numpy as np
import pytest
from sklearn.base import clone

from olearn import run
from olearn.bounds import bound_report
from olearn.multiclass import MIRA, BlockFeatureMap, PAMulticlass

K, D = 3, 4


def _stream(n=150, seed=0, margin=0.0, noise=0.0):
    """Rows labelled by the best of K random prototypes (gap >= margin), a fraction ``noise`` relabelled."""
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(K, D))
    X = rng.normal(size=(6 * n, D)) / np.sqrt(D)
    top = np.sort(X @ P.T, axis=1)
    X = X[top[:, -1] - top[:, -2] >= margin][:n]
    y = np.argmax(X @ P.T, axis=1)
    flip = rng.random(y.size) < noise
    y[flip] = rng.integers(0, K, flip.sum())
    return X, np.array(["ant", "bee", "cat"])[y]


def _by_hand(X, y, U, fit_intercept):
    """R^2 = 2 max ||x_t||^2, ||U||^2 and U's multiclass hinge losses, in plain NumPy."""
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    classes = sorted(set(y.tolist()))
    scores = Z @ U.T
    hinge = []
    for t, label in enumerate(y):
        a = classes.index(label)
        rival = max(scores[t, b] for b in range(len(classes)) if b != a)
        hinge.append(max(0.0, 1.0 - (scores[t, a] - rival)))
    return 2.0 * max(float(z @ z) for z in Z), float((U**2).sum()), np.array(hinge), len(classes)


def _report(est, X, y, **kw):
    est = clone(est)
    return bound_report(est, X, y, run(est, X, y), **kw)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_pa1_row_is_thm4_with_one_mistake_per_class(fit_intercept):
    X, y = _stream(noise=0.15)
    C = 0.3
    est = PAMulticlass(variant="pa1", C=C, fit_intercept=fit_intercept)
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    assert row.theorem == "Crammer et al. 2006, Sec. 7 with Thm. 4 (multiclass PA-I)"
    assert row.u.shape == (K, D + fit_intercept)
    r2, u2, hinge, k = _by_hand(X, y, row.u, fit_intercept)
    assert row.bound == pytest.approx(max(r2, 1 / C) * (u2 + 2 * C * hinge.sum()) + k, rel=1e-10)
    assert row.competitor_loss == pytest.approx(hinge.sum(), rel=1e-10)
    assert row.u_norm == pytest.approx(np.sqrt(u2))
    assert row.quantity == "mistakes" and row.measured == res.n_mistakes
    assert row.holds and row.measured <= row.bound


def test_pa2_row_is_thm5():
    X, y = _stream(noise=0.15, seed=1)
    C = 0.3
    est = PAMulticlass(variant="pa2", C=C)
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    assert row.theorem == "Crammer et al. 2006, Sec. 7 with Thm. 5 (multiclass PA-II)"
    r2, u2, hinge, _ = _by_hand(X, y, row.u, False)
    assert row.bound == pytest.approx((r2 + 1 / (2 * C)) * (u2 + 2 * C * (hinge**2).sum()), rel=1e-10)
    assert row.competitor_loss == pytest.approx((hinge**2).sum(), rel=1e-10)
    assert row.quantity == "sum of squared losses"
    assert row.measured == pytest.approx(np.sum(res.losses**2), rel=1e-12)
    assert row.holds and row.measured <= row.bound


def test_pa_row_is_corollary_8_on_a_separable_stream():
    X, y = _stream(margin=0.3, seed=2)
    est = PAMulticlass(variant="pa")
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    assert row.theorem == "Crammer et al. 2006, Cor. 8 (multiclass PA, separable)"
    r2, u2, hinge, _ = _by_hand(X, y, row.u, False)
    assert hinge.max() == 0.0  # the default U separates with margin >= 1, as the corollary assumes
    assert row.bound == pytest.approx(r2 * u2, rel=1e-10)
    assert row.measured == pytest.approx(np.sum(res.losses**2), rel=1e-12)
    assert row.holds and row.measured <= row.bound


def test_pa_on_an_inseparable_stream_is_left_out():
    X, y = _stream(noise=0.3, seed=3)
    report = _report(PAMulticlass(variant="pa"), X, y)
    assert report.rows == ()
    assert [t for t, _ in report.skipped] == ["Crammer et al. 2006, Cor. 8 (multiclass PA, separable)"]


def test_a_given_U_is_used_and_checked():
    X, y = _stream(noise=0.1, seed=4)
    U = np.arange(K * D, dtype=float).reshape(K, D) / 10
    (row,) = _report(PAMulticlass(variant="pa1", C=2.0), X, y, u=U).rows
    r2, u2, hinge, k = _by_hand(X, y, U, False)
    assert np.array_equal(row.u, U)
    assert row.bound == pytest.approx(max(r2, 0.5) * (u2 + 4.0 * hinge.sum()) + k, rel=1e-10)
    report = _report(PAMulticlass(variant="pa"), X, y, u=U)
    assert report.rows == () and "u_(y_t).x_t - max_(r != y_t) u_r.x_t >= 1" in report.skipped[0][1]
    with pytest.raises(ValueError, match="shape"):
        _report(PAMulticlass(), X, y, u=np.zeros((K, D + 1)))


def test_the_default_U_is_near_the_best_scaling():
    X, y = _stream(noise=0.15, seed=5)
    est = PAMulticlass(variant="pa1", C=0.3)
    (row,) = _report(est, X, y).rows
    for s in (0.9, 1.1):
        scaled = _report(est, X, y, u=s * row.u).rows[0]
        assert row.bound <= scaled.bound * (1 + 1e-9)


def test_other_multiclass_learners_are_refused():
    X, y = _stream(n=30)
    with pytest.raises(TypeError, match="got MIRA"):
        _report(MIRA(), X, y)
    for est, reason in [
        (PAMulticlass(kernel="rbf"), "linear learner"),
        (PAMulticlass(budget=5, kernel="linear"), "linear learner"),
        (PAMulticlass(feature_map=BlockFeatureMap(["ant", "bee", "cat"], D)), "feature_map"),
        (PAMulticlass(class_weight={"ant": 2.0}), "class_weight"),
    ]:
        with pytest.raises(ValueError, match=reason):
            _report(est, X, y)
