"""Synthetic streams from the experiments of the source papers."""

import numpy as np

from ._checks import check_int, check_real

_MEAN = np.array([1.0, 1.0])
# Crammer et al. give the covariance as diag(0.2, 2); read as variances.
_STD = np.sqrt(np.array([0.2, 2.0]))


def make_pa_paper_stream(
    n_samples=4000, instance_noise=0.0, label_noise=0.0, random_state=None, return_clean=False
):
    r"""Two-dimensional Gaussian classes of the Passive-Aggressive paper's synthetic experiment.

    Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online
    Passive-Aggressive Algorithms", JMLR 7 (2006), Sec. 10: each label is
    +1 or -1 with probability 1/2; the instance is drawn from a Gaussian with
    mean :math:`y\,(1, 1)` and covariance :math:`\mathrm{diag}(0.2, 2)` (the
    diagonal entries read as variances, i.e. standard deviations
    :math:`\sqrt{0.2}` and :math:`\sqrt{2}`). Then

    * instance noise (Sec. 10.1): a vector drawn from a zero-mean Gaussian
      "with a covariance matrix :math:`\sigma I`" is added to every
      instance, :math:`\sigma` = ``instance_noise``; :math:`\sigma` is the
      *variance* of each coordinate of the noise (standard deviation
      :math:`\sqrt\sigma`), as the text writes it;
    * label noise: each label is flipped independently with probability
      ``label_noise``.

    The random draws happen in a fixed order (labels, instances, instance
    noise, flips) whatever the noise levels, so one ``random_state`` gives
    the same clean stream at every noise level.

    Parameters
    ----------
    n_samples : int, default 4000
        Number of rounds (the paper uses 4000).
    instance_noise : float, default 0.0
        :math:`\sigma` of the covariance :math:`\sigma I` of the added
        instance noise (its variance per coordinate), >= 0. The paper varies
        it from 0 to 2.
    label_noise : float, default 0.0
        Probability of flipping each label, in [0, 1].
    random_state : None, int or numpy.random.Generator
        Seed for ``numpy.random.default_rng``.
    return_clean : bool, default False
        Also return the labels before flipping.

    Returns
    -------
    X : ndarray of float64 of shape (n_samples, 2)
    y : ndarray of int64 of shape (n_samples,)
        Labels in {-1, +1}, after label noise.
    y_clean : ndarray of int64 of shape (n_samples,)
        Only with ``return_clean=True``: the labels before label noise
        (those that generated the instances).

    Examples
    --------
    >>> from olearn.data import make_pa_paper_stream
    >>> X, y, y_clean = make_pa_paper_stream(
    ...     5, instance_noise=0.5, label_noise=0.1, random_state=0, return_clean=True)
    >>> X.shape, y.dtype, sorted(set(y.tolist()) | set(y_clean.tolist()))
    ((5, 2), dtype('int64'), [-1, 1])
    >>> X2, y2 = make_pa_paper_stream(5, instance_noise=0.5, label_noise=0.1, random_state=0)
    >>> bool((X == X2).all() and (y == y2).all())
    True
    """
    n_samples = check_int("n_samples", n_samples, 1)
    instance_noise = check_real("instance_noise", instance_noise, 0.0)
    label_noise = check_real("label_noise", label_noise, 0.0, 1.0)
    rng = np.random.default_rng(random_state)
    y_clean = np.where(rng.random(n_samples) < 0.5, -1, 1).astype(np.int64)
    X = y_clean[:, None] * _MEAN + rng.standard_normal((n_samples, 2)) * _STD
    X += np.sqrt(instance_noise) * rng.standard_normal((n_samples, 2))
    y = np.where(rng.random(n_samples) < label_noise, -y_clean, y_clean)
    return (X, y, y_clean) if return_clean else (X, y)

