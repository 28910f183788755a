"""make_pa_paper_stream: the distribution of Crammer et al. (2006), Sec. 10."""

import numpy as np
import pytest

from olearn.data import make_pa_paper_stream

N = 200_000


def test_shapes_types_defaults():
    X, y = make_pa_paper_stream(random_state=0)
    assert X.shape == (4000, 2) and X.dtype == np.float64
    assert y.shape == (4000,) and set(np.unique(y).tolist()) == {-1, 1}


def test_seeded_reproducibility():
    a = make_pa_paper_stream(500, 0.3, 0.1, random_state=7, return_clean=True)
    b = make_pa_paper_stream(500, 0.3, 0.1, random_state=7, return_clean=True)
    c = make_pa_paper_stream(500, 0.3, 0.1, random_state=8, return_clean=True)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    # a Generator is accepted too
    X, _ = make_pa_paper_stream(5, random_state=np.random.default_rng(7))
    assert X.shape == (5, 2)


def test_same_seed_same_clean_stream_at_every_noise_level():
    X0, y0, c0 = make_pa_paper_stream(1000, 0.0, 0.0, random_state=3, return_clean=True)
    X1, y1, c1 = make_pa_paper_stream(1000, 0.5, 0.2, random_state=3, return_clean=True)
    np.testing.assert_array_equal(c0, c1)
    np.testing.assert_array_equal(y0, c0)
    assert not np.array_equal(X0, X1)


def test_class_balance_means_and_variances():
    X, y = make_pa_paper_stream(N, random_state=1)
    p = np.mean(y == 1)
    assert abs(p - 0.5) < 4 * np.sqrt(0.25 / N)
    for label in (-1, 1):
        Xc = X[y == label]
        n = Xc.shape[0]
        mean, var = Xc.mean(axis=0), Xc.var(axis=0)
        # mean error sd = sqrt(var / n); variance error sd ~ var * sqrt(2 / n)
        np.testing.assert_array_less(np.abs(mean - label * np.ones(2)), 5 * np.sqrt(np.array([0.2, 2.0]) / n))
        np.testing.assert_array_less(np.abs(var - [0.2, 2.0]), 5 * np.array([0.2, 2.0]) * np.sqrt(2 / n))
        # the two coordinates are independent (diagonal covariance)
        assert abs(np.corrcoef(Xc.T)[0, 1]) < 5 / np.sqrt(n)


def test_instance_noise_adds_isotropic_variance():
    """Sec. 10.1: the noise has covariance sigma I, so sigma adds to each coordinate's variance."""
    sigma = 0.7
    X, y = make_pa_paper_stream(N, instance_noise=sigma, random_state=2)
    Xc = X[y == 1]
    expected = np.array([0.2, 2.0]) + sigma
    np.testing.assert_array_less(np.abs(Xc.var(axis=0) - expected), 5 * expected * np.sqrt(2 / Xc.shape[0]))
    np.testing.assert_array_less(np.abs(Xc.mean(axis=0) - 1.0), 5 * np.sqrt(expected / Xc.shape[0]))


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.3, 1.0])
def test_label_noise_flip_rate(rate):
    X, y, clean = make_pa_paper_stream(N, label_noise=rate, random_state=4, return_clean=True)
    flipped = np.mean(y != clean)
    assert abs(flipped - rate) <= 5 * np.sqrt(rate * (1 - rate) / N)
    assert np.all((y == clean) | (y == -clean))
    # instances follow the clean labels
    assert abs(X[clean == 1].mean() - 1.0) < 0.02 and abs(X[clean == -1].mean() + 1.0) < 0.02


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n_samples": 0}, ValueError),
        ({"n_samples": 2.5}, TypeError),
        ({"instance_noise": -0.1}, ValueError),
        ({"instance_noise": float("inf")}, ValueError),
        ({"label_noise": 1.5}, ValueError),
        ({"label_noise": -0.01}, ValueError),
        ({"label_noise": float("nan")}, ValueError),
        ({"label_noise": "0.1"}, TypeError),
    ],
)
def test_argument_validation(kwargs, error):
    with pytest.raises(error):
        make_pa_paper_stream(**kwargs)
