"""Fuzz: importance weights and averages of the second-order, quasi-additive and dual-ascent learners.

On streams of extreme entries and extreme weights, every example either is
learned (the current and the averaged weights stay finite) or is refused with
a FloatingPointError that leaves the model, its average included, exactly as
it was. A weight of 0 never changes the weights.
"""

import numpy as np

_ENTRIES = (0.0, 1e-300, -1e-300, 1e-150, 1.0, -1.0, 3.5, 1e150, -1e150, 1e300, -1e300)
_WEIGHTS = (0.0, 1e-300, 1e-8, 0.5, 1.0, 2.0, 1e8, 1e150, 1e300)


def _learners():
    from olearn.dual import DualAscent
    from olearn.quasi_additive import PNorm, Winnow
    from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron

    return (
        lambda avg: AROW(average=avg),
        lambda avg: AROW(covariance="diag", fit_intercept=True, average=avg),
        lambda avg: NAROW(b=2.0, average=avg),
        lambda avg: NAROW(covariance="diag", average=avg),
        lambda avg: SecondOrderPerceptron(a=0.5, average=avg),
        lambda avg: CW(average=avg),
        lambda avg: AdaGrad(average=avg),
        lambda avg: Winnow(average=avg),
        lambda avg: Winnow(balanced=False, n_features=3, average=avg),
        lambda avg: PNorm(p=3.0, average=avg),
        lambda avg: PNorm(p=2.5, aggressive=True, average=avg),
        lambda avg: DualAscent(update="aggressive", average=avg),
        lambda avg: DualAscent(regularizer="entropy", update="last-k", k=2, average=avg),
    )


def _state(est):
    return {k: np.array(v, copy=True) for k, v in vars(est).items() if isinstance(v, np.ndarray)}


def campaign_weighted_extreme_streams(n_examples, seed):
    from hypothesis import given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    learners = _learners()

    @hypothesis_seed(seed)
    @settings(max_examples=n_examples, deadline=None, database=None)
    @given(
        which=st.integers(0, len(learners) - 1),
        average=st.sampled_from([False, True, 3]),
        rows=st.lists(st.lists(st.sampled_from(_ENTRIES), min_size=3, max_size=3), min_size=1, max_size=10),
        labels=st.lists(st.sampled_from([-1, 1]), min_size=10, max_size=10),
        weights=st.lists(st.sampled_from(_WEIGHTS), min_size=10, max_size=10),
    )
    def check(which, average, rows, labels, weights):
        est = learners[which](average)
        est.partial_fit(np.eye(3), [1, -1, 1], classes=[-1, 1])
        for x, label, weight in zip(np.array(rows, dtype=float), labels, weights):
            before = _state(est)
            weights_before = np.array(est._w, copy=True)
            try:
                est.learn_one(x, label, sample_weight=weight)
            except FloatingPointError:
                after = _state(est)
                assert before.keys() == after.keys()
                assert all(np.array_equal(before[k], after[k]) for k in before)
                continue
            if weight == 0.0:
                assert np.array_equal(est._w, weights_before)
            assert np.isfinite(est._w).all()
            assert np.isfinite(est.coef_).all() and np.isfinite(est.intercept_).all()

    check()
    return n_examples


def test_weighted_extreme_streams(campaign, request):
    factor = request.config.getoption("--fuzz-long") or 1.0
    assert campaign("fuzz.test_second_order_weights_average:campaign_weighted_extreme_streams", 200,
                    seed=0) == int(200 * factor)
