"""AdaGrad with delta = 0 divides by sqrt(G_i): a round whose c^2 x_i^2 underflows to 0 on a fresh coordinate is refused.

Before, it raised ZeroDivisionError in the middle of the update, with the model half changed. The
reference is a learner given only the rows before the refused one.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from olearn import AdaGrad
from olearn.exceptions import NotFittedError, PartialUpdateError

X = np.array([[1.0, 0.0, 0.5], [0.3, 1e-170, 0.0], [1.0, 1.0, 1.0]])
y = np.array([1, -1, 1])


def _same(a, b):
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.accumulator_, b.accumulator_)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_a_batch_stops_at_the_row_and_keeps_the_rows_before(fit_intercept):
    est = AdaGrad(delta=0.0, fit_intercept=fit_intercept)
    with pytest.raises(PartialUpdateError, match="at row 1") as caught:
        est.partial_fit(X, y, classes=[-1, 1])
    assert caught.value.rows_kept == 1
    _same(est, AdaGrad(delta=0.0, fit_intercept=fit_intercept).partial_fit(X[:1], y[:1], classes=[-1, 1]))


def test_one_example_is_refused_and_leaves_the_model_unchanged():
    est = AdaGrad(delta=0.0).partial_fit(X[:1], y[:1], classes=[-1, 1])
    with pytest.raises(FloatingPointError, match="unchanged"):
        est.learn_one({0: 0.3, 1: 1e-170}, -1)
    _same(est, AdaGrad(delta=0.0).partial_fit(X[:1], y[:1], classes=[-1, 1]))


def test_a_weight_whose_square_underflows_is_refused_on_a_fresh_coordinate():
    est = AdaGrad(delta=0.0)
    with pytest.raises(PartialUpdateError, match="at row 0"):
        est.partial_fit(X[:1], y[:1], classes=[-1, 1], sample_weight=[1e-170])
    # refused at its first row, the fresh learner is left unfitted, as before the call
    with pytest.raises(NotFittedError):
        est.coef_


def test_with_delta_the_tiny_feature_is_learned_as_the_formula_says():
    est = AdaGrad(eta=1.0, delta=1.0).partial_fit(X[1:2], y[1:2], classes=[-1, 1])
    # one round from w = 0: hinge loss 1, w_i = eta y x_i / (delta + |x_i|)
    assert_array_equal(est.coef_[0], -X[1] / (1.0 + np.abs(X[1])))
