"""Fuzz campaigns: Winnow on the n-simplex, the Eq. (28) dual update, delayed projected OGD.

Each input is a short stream with entries from tiny to near the float limit. A learner
either learns it (finite weights; Winnow's on the simplex; OGD's iterates feasible) or
refuses a row with a FloatingPointError naming it and keeps its state exactly.
"""

import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

VALUES = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([0.0, 1e-300, -1e-300, 1e150, -1e150, 1e200, -1e200, 1e308, -1e308]),
)


def _settings(n_examples):
    return settings(max_examples=n_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _stream(draw_rows, d):
    return st.lists(st.lists(VALUES, min_size=d, max_size=d), min_size=1, max_size=draw_rows)


def _state(est):
    return est.theta_.copy(), est.coef_.copy()


def _learn_or_refuse(est, X, y):
    """Learn row by row; a refused row leaves the model exactly as it was."""
    for x, label in zip(X, y):
        before = _state(est)
        try:
            est.partial_fit(x[None, :], [label])
        except FloatingPointError as err:
            assert "row 0" in str(err) or "on this example" in str(err) or "overflow" in str(err), err
            after = _state(est)
            assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
        assert np.isfinite(est.coef_).all()


def campaign_winnow_simplex(n_examples, seed_value):
    from olearn.quasi_additive import Winnow

    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(rows=_stream(8, 3), labels=st.lists(st.sampled_from([-1, 1]), min_size=8, max_size=8),
           C=st.sampled_from([1e-3, 1.0, 50.0]), intercept=st.booleans())
    def check(rows, labels, C, intercept):
        nonlocal count
        count += 1
        X = np.array(rows, dtype=float)
        est = Winnow(balanced=False, C=C, fit_intercept=intercept, n_features=3)
        est.partial_fit(np.zeros((1, 3)), [1], classes=[-1, 1])
        _learn_or_refuse(est, X, labels[: len(X)])
        w = np.append(est.coef_.ravel(), est.intercept_ if intercept else [])
        assert (w >= 0).all() and abs(w.sum() - 1.0) < 1e-9

    check()
    return count


def campaign_winnow_simplex_one_class_first(n_examples, seed_value):
    """A stream that shows one class first, learned without ``classes``: the model of the final encoding."""
    from olearn.exceptions import NotFittedError
    from olearn.quasi_additive import Winnow

    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(rows=_stream(8, 3), n_first=st.integers(1, 7), first=st.sampled_from(["a", "b"]),
           C=st.sampled_from([1e-3, 1.0, 50.0]), intercept=st.booleans())
    def check(rows, n_first, first, C, intercept):
        nonlocal count
        count += 1
        X = np.array(rows, dtype=float)
        labels = [first] * n_first + ["b" if first == "a" else "a", first] * 4
        labels = labels[: len(X)]
        late = Winnow(balanced=False, C=C, fit_intercept=intercept, n_features=3)
        known = Winnow(balanced=False, C=C, fit_intercept=intercept, n_features=3)
        known.partial_fit(np.zeros((0, 3)), [], classes=["a", "b"])
        refused = False
        for x, label in zip(X, labels):
            for est in (late, known):
                try:
                    est.learn_one(x, label)
                except FloatingPointError:
                    refused = True
        try:
            coef = late.coef_
        except NotFittedError:
            # every row was refused: a refused first call leaves the learner unstarted
            assert refused
            return
        w = np.append(coef.ravel(), late.intercept_ if intercept else [])
        assert np.isfinite(w).all() and (w >= 0).all() and abs(w.sum() - 1.0) < 1e-9
        if not refused and len(late.classes_) == 2:
            assert np.array_equal(late.theta_, known.theta_)

    check()
    return count


def campaign_dual_aggressive(n_examples, seed_value):
    from olearn.dual import DualAscent

    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(rows=_stream(8, 3), labels=st.lists(st.sampled_from([-1, 1]), min_size=8, max_size=8),
           regularizer=st.sampled_from(["l2", "entropy", "pnorm"]), C=st.sampled_from([1e-3, 1.0, 50.0]))
    def check(rows, labels, regularizer, C):
        nonlocal count
        count += 1
        X = np.array(rows, dtype=float)
        est = DualAscent(regularizer=regularizer, p=3.0, update="aggressive", C=C, n_features=3)
        est.partial_fit(np.zeros((1, 3)), [1], classes=[-1, 1])
        _learn_or_refuse(est, X, labels[: len(X)])
        assert np.isfinite(est.dual_objective_).all()

    check()
    return count


def campaign_delayed_ogd(n_examples, seed_value):
    from olearn.oco import L1Ball, L2Ball, ProjectedOGD, Simplex

    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(rows=_stream(30, 3), delay=st.integers(0, 5), rate=st.sampled_from(["current", "gradient"]),
           schedule=st.sampled_from(["sqrt", "inverse", "constant"]), kind=st.integers(0, 2))
    def check(rows, delay, rate, schedule, kind):
        nonlocal count
        count += 1
        G = np.clip(np.array(rows, dtype=float), -1e150, 1e150)
        domain = (L2Ball(3), Simplex(3), L1Ball(3, radius=2.0))[kind]
        res = ProjectedOGD(domain, delay=delay, delayed_rate=rate, schedule=schedule).run(G)
        assert all(domain.contains(x, atol=1e-6) for x in res.points)
        assert np.isfinite(res.points).all()

    check()
    return count


def test_winnow_simplex_campaign(campaign):
    assert campaign("fuzz.test_dual_winnow_ogd:campaign_winnow_simplex", 60) >= 60


def test_winnow_simplex_one_class_first_campaign(campaign):
    assert campaign("fuzz.test_dual_winnow_ogd:campaign_winnow_simplex_one_class_first", 60) >= 60


def test_dual_aggressive_campaign(campaign):
    assert campaign("fuzz.test_dual_winnow_ogd:campaign_dual_aggressive", 60) >= 60


def test_delayed_ogd_campaign(campaign):
    assert campaign("fuzz.test_dual_winnow_ogd:campaign_delayed_ogd", 60) >= 60
