"""Fuzz: Orabona & Crammer's aggressive p-norm and the diagonal NAROW on extreme streams.

Every example either is learned (finite weights and scores) or is refused with a
FloatingPointError that leaves the model exactly as it was before it.
"""

import numpy as np

_ENTRIES = (0.0, 1e-300, -1e-300, 1e-150, 1.0, -1.0, 3.5, 1e150, -1e150, 1e300, -1e300)


def _learners():
    from olearn.quasi_additive import PNorm
    from olearn.second_order import NAROW

    return (
        lambda R, p: PNorm(p=p, aggressive=True, R=R),
        lambda R, p: PNorm(p=p, aggressive=True, R=R, fit_intercept=True),
        lambda R, p: NAROW(b=R, covariance="diag"),
        lambda R, p: NAROW(b=R, covariance="diag", fit_intercept=True),
    )


def _state(est):
    return {k: np.array(v, copy=True) for k, v in vars(est).items() if isinstance(v, np.ndarray)}


def campaign_extreme_streams(n_examples, seed):
    from hypothesis import given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    learners = _learners()

    @hypothesis_seed(seed)
    @settings(max_examples=n_examples, deadline=None, database=None)
    @given(
        which=st.integers(0, len(learners) - 1),
        R=st.sampled_from([1e-8, 0.5, 1.4, 3.0, 1e8]),
        p=st.sampled_from([2.0, 3.0, 17.0]),
        rows=st.lists(st.lists(st.sampled_from(_ENTRIES), min_size=3, max_size=3), min_size=1, max_size=12),
        labels=st.lists(st.sampled_from([-1, 1]), min_size=12, max_size=12),
    )
    def check(which, R, p, rows, labels):
        est = learners[which](R, p)
        est.partial_fit(np.eye(3), [1, -1, 1], classes=[-1, 1])
        for x, label in zip(np.array(rows, dtype=float), labels):
            before = _state(est)
            try:
                est.learn_one(x, label)
            except FloatingPointError:
                after = _state(est)
                assert before.keys() == after.keys()
                assert all(np.array_equal(before[k], after[k]) for k in before)
                continue
            assert np.isfinite(est.coef_).all()
            assert np.isfinite(est.decision_function(np.eye(3))).all()

    check()
    return n_examples


def test_extreme_streams(campaign, request):
    factor = request.config.getoption("--fuzz-long") or 1.0
    assert campaign("fuzz.test_orabona2010_learners:campaign_extreme_streams", 150, seed=0) == int(150 * factor)
