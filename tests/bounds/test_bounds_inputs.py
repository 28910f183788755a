"""Bad inputs to the bound functions get errors that say what is wrong."""

import math

import numpy as np
import pytest

from olearn.bounds import (
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
)

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
Y = np.array([1, -1, 1])
U = np.array([1.0, -1.0])
ALL = [
    (novikoff_bound, {}),
    (perceptron_bound, {}),
    (pa_separable_bound, {}),
    (pa_unit_norm_bound, {}),
    (pa1_mistake_bound, {"C": 1.0}),
    (pa2_loss_bound, {"C": 1.0}),
]


@pytest.mark.parametrize("fn, kw", ALL)
def test_shape_mismatch(fn, kw):
    with pytest.raises(ValueError, match="X has 3 rows but y has 2 labels"):
        fn(X, Y[:2], U, **kw)
    with pytest.raises(ValueError, match="2-d"):
        fn(X[0], Y, U, **kw)


@pytest.mark.parametrize("fn, kw", ALL)
def test_labels_must_be_binary(fn, kw):
    with pytest.raises(ValueError, match="3 classes"):
        fn(X, [0, 1, 2], U, **kw)
    with pytest.raises(ValueError, match="single class 'a'"):
        fn(X, ["a", "a", "a"], U, **kw)


@pytest.mark.parametrize("fn, kw", ALL)
def test_u_must_fit_the_features(fn, kw):
    with pytest.raises(ValueError, match="u has 3 entries; expected 2"):
        fn(X, Y, [1.0, 2.0, 3.0], **kw)
    with pytest.raises(ValueError, match=r"expected 3 \(X's features plus 1 for the intercept"):
        fn(X, Y, U, fit_intercept=True, **kw)
    with pytest.raises(ValueError, match=r"u\[1\] is nan"):
        fn(X, Y, [1.0, np.nan], **kw)
    with pytest.raises(ValueError, match="1-d"):
        fn(X, Y, [[1.0, 2.0]], **kw)


@pytest.mark.parametrize("fn, kw", ALL)
def test_X_must_be_finite_and_nonempty(fn, kw):
    bad = X.copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="row 2, column 1"):
        fn(bad, Y, U, **kw)
    with pytest.raises(ValueError, match="no rows"):
        fn(np.zeros((0, 2)), [], U, **kw)


@pytest.mark.parametrize("fn", [pa1_mistake_bound, pa2_loss_bound])
@pytest.mark.parametrize("C", [0, -1.0, None, "1", math.nan, True])
def test_C_must_be_positive(fn, C):
    with pytest.raises(ValueError, match="C must be a number > 0"):
        fn(X, Y, U, C=C)


def test_mistakes_mask_is_checked():
    with pytest.raises(ValueError, match="one entry per row"):
        perceptron_bound(X, Y, U, mistakes=[True, False])
    with pytest.raises(ValueError, match="boolean mask"):
        perceptron_bound(X, Y, U, mistakes=[0.5, 1.0, 0.0])
    # 0/1 integers are read as a mask
    assert perceptron_bound(X, Y, U, mistakes=[1, 0, 0]) == perceptron_bound(X, Y, U, mistakes=[True, False, False])
