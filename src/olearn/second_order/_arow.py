r"""AROW: adaptive regularization of weight vectors (Crammer, Kulesza & Dredze 2009)."""

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_AROW
from .._params import POSITIVE_FINITE
from ._base import COVARIANCES, SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class AROW(PlattCalibrated, SecondOrderClassifier):
    r"""AROW, with a full or a diagonal covariance.

    Crammer, Kulesza & Dredze, *Adaptive Regularization of Weight Vectors*,
    NIPS 2009, Fig. 1. The learner keeps a mean :math:`w` (``coef_``) and a
    covariance :math:`\Sigma` (``covariance_``), starting from :math:`w_1 = 0`,
    :math:`\Sigma_1 = I`. On round t, with :math:`m_t = w_t \cdot x_t`,
    :math:`\chi_t = x_t^\top \Sigma_t x_t` and the hinge loss
    :math:`\ell_t = \max(0, 1 - y_t m_t)`,

    .. math:: \beta_t = \frac{1}{\chi_t + r}, \quad \alpha_t = \ell_t \beta_t, \quad
        w_{t+1} = w_t + \alpha_t y_t \Sigma_t x_t, \quad
        \Sigma_{t+1} = \Sigma_t - \beta_t \Sigma_t x_t x_t^\top \Sigma_t .

    :math:`\alpha_t` is PA-II's step :math:`\ell/(s + \frac{1}{2C})` with the
    squared norm :math:`s = \chi_t` measured in the :math:`\Sigma_t` geometry
    and :math:`\frac{1}{2C} = r`, i.e. ``C = 1 / (2 r)``: the first update from
    :math:`\Sigma_1 = I` is exactly PA-II's with that C. A small r is an
    aggressive learner, as a large C is.

    ``covariance="full"`` makes rank-one updates: O(d^2) time per round and
    (d + 1)^2 floats of memory (8 MB at d = 1,000; 800 MB at d = 10,000). A
    feature never seen before enters with variance 1 and no correlation (its
    row and column of the identity), and the matrix is copied once to grow,
    which costs as much as one update.

    ``covariance="diag"`` keeps :math:`\Sigma = \mathrm{diag}(s)` and costs
    O(nnz(x)) per round. Its covariance update is the diagonal of the
    precision update,
    :math:`\Sigma_{t+1}^{-1} = \Sigma_t^{-1} + \mathrm{diag}(x_t x_t^\top)/r`,
    i.e. :math:`s_i \leftarrow s_i / (1 + s_i x_{t,i}^2 / r)` (the
    :math:`D_t = \mathrm{diag}(A_t)` of Orabona & Crammer, NIPS 2010,
    Sec. 4.3); the mean step is this paper's, the one above with
    :math:`\chi_t = \sum_i s_i x_{t,i}^2`. (The AROW paper's own diagonal
    variant keeps the diagonal of the full update instead,
    :math:`s_i - \beta_t s_i^2 x_{t,i}^2`; both equal the full update on rows
    with a single non-zero.)

    **Which paper each variant is.** Both covariances are Crammer, Kulesza &
    Dredze 2009's learner (its Fig. 1 and mean step); ``"diag"`` borrows only
    Orabona & Crammer's diagonal precision. Neither is Orabona & Crammer's
    own AROW, the instance of their Fig. 1 that Sec. 4.2 (full) and Sec. 4.3
    (diagonal) bound: that learner is :class:`~olearn.second_order.Fig1AROW`,
    and Sec. 4.3's bound does not hold for this one (186 updates against
    174.7 on a witness stream, ``tests/second_order/test_fig1_arow.py``).

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). AROW's round minimizes (Crammer, Kulesza & Dredze 2009, Sec. 3, the objective C)
    :math:`D_{KL}(N(w,\Sigma)\,\|\,N(w_t,\Sigma_t)) + \lambda_1\ell^2_h(y_t, w\cdot x_t)
    + \lambda_2 x_t^\top\Sigma x_t` with :math:`\lambda_1 = \lambda_2 = 1/(2r)`; an
    example of weight c multiplies its two terms by c, i.e. takes ``r / c`` for
    r: :math:`\beta_t = 1/(\chi_t + r/c)`, :math:`\alpha_t = \ell_t\beta_t` and
    :math:`\Sigma_{t+1}^{-1} = \Sigma_t^{-1} + (c/r)\, x_t x_t^\top` (the
    diagonal of that increment with ``covariance="diag"``). c = 0 leaves the
    model unchanged (only the round counter moves), and so does a c so small
    that ``c / (2r)`` underflows to 0. Two rounds on the same
    example are not one round of weight 2 (the second sees the updated
    margin and covariance).

    With ``fit_intercept=True`` the constant feature 1 has its own mean and
    variance entries and counts in :math:`\chi_t`. ``olearn.run`` records
    :math:`\alpha_t` as the round's tau.

    Parameters
    ----------
    r : float, default=1.0
        The paper's regularization r > 0 (``C = 1 / (2 r)`` of PA-II).
    covariance : {"full", "diag"}, default="full"
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
        The weights averaged are the mean vectors :math:`\mu`.
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>
    calibration : None or "platt", default=None
        As in :class:`~olearn.PAClassifier`: class probabilities learned online
        from the scores (beyond the source texts); not with ``average``.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.second_order import AROW
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0]])
    >>> clf = AROW(r=1.0).partial_fit(X, [1, -1])
    >>> clf.coef_               # alpha_1 = 1/2, then alpha_2 = 1.5/2.5
    array([[ 0.2, -0.6]])
    >>> clf.covariance_
    array([[ 0.4, -0.2],
           [-0.2,  0.6]])
    """

    _weight_and_copies = (
        "a weight c is one round with r / c, while c copies are c rounds, each seeing the margin and "
        "covariance the last one left"
    )

    _constraints = {"r": POSITIVE_FINITE, "covariance": COVARIANCES}

    def __init__(self, r=1.0, covariance="full", fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.r = r
        self.covariance = covariance
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.class_weight = class_weight
        self.n_bits = n_bits
        self.calibration = calibration

    def _rule(self):
        return RULE_AROW, self.r, 0.0
