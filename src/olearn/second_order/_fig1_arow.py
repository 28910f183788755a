r"""The AROW variant of Orabona & Crammer (NIPS 2010), Sec. 4.2 (full matrix) and Sec. 4.3 (diagonal)."""

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_FIG1_AROW
from .._params import POSITIVE_FINITE
from ._base import COVARIANCES, SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class Fig1AROW(PlattCalibrated, SecondOrderClassifier):
    r"""Orabona & Crammer's AROW: their Fig. 1 with a fixed r, Sec. 4.2 (``"full"``) and Sec. 4.3 (``"diag"``).

    Orabona & Crammer, *New Adaptive Algorithms for Online Classification*,
    NIPS 2010. Fig. 1 is the algorithm of time-varying potentials
    :math:`f_t`: :math:`\theta_1 = 0`, predict with
    :math:`w_t = \nabla f_t^*(\theta_t)`, and on a round with a positive hinge
    loss :math:`\ell_t(w_t) = \max(0, 1 - y_t\, w_t\cdot x_t)` set
    :math:`\theta_{t+1} = \theta_t + \eta_t y_t x_t` (:math:`\eta_t = 1`).

    * **Sec. 4.2** (``covariance="full"``):
      :math:`f_t(x) = \tfrac12 x^\top A_t x`, :math:`A_0 = I`,
      :math:`A_t = A_{t-1} + x_t x_t^\top / r`, so
      :math:`w_t = A_t^{-1}\theta_t` and, with
      :math:`\chi_t = x_t^\top A_{t-1}^{-1} x_t` and
      :math:`m_t = y_t x_t^\top A_{t-1}^{-1}\theta_t`, the margin of the round is
      :math:`y_t\, w_t\cdot x_t = m_t r / (r + \chi_t)`; the text's
      "aggressive version" updates while that is below 1. Its conservative
      version (updates on mistakes only) is the Second-Order Perceptron.
    * **Sec. 4.3** (``covariance="diag"``): the same with
      :math:`f_t(x) = \tfrac12 x^\top D_t x`, :math:`D_t = \mathrm{diag}(A_t)`:
      :math:`D_t = D_{t-1} + \mathrm{diag}(x_t^2)/r`, :math:`w_t = D_t^{-1}\theta_t`.

    As the text's bounds count them (:math:`M \cup U`), :math:`A_t` keeps
    :math:`x_t` only on the update rounds, as in SOP: on the other rounds
    :math:`A_t = A_{t-1}`.

    This is not the AROW paper's learner (Crammer, Kulesza & Dredze 2009,
    :class:`~olearn.second_order.AROW`): that one starts from
    :math:`\Sigma_1 = I` with the precision :math:`I + \sum x x^\top / r` as
    here, but decides on :math:`y_t m_t < 1` and takes PA-II's step
    :math:`\ell_t/(\chi_t + r)` along :math:`\Sigma_t x_t`, where Fig. 1's
    mean is :math:`A_t^{-1}\theta_t` itself (Sec. 4.2: "with a minor
    difference"). On a witness stream (``tests/bounds/test_diagonal_arow_report.py``,
    r = 10) ``AROW(covariance="diag")`` makes 186 updates, above the Sec. 4.3
    bound of 174.7 for its flags, while this learner makes 63, within its
    own bound of 75.3. The bounds are
    :func:`olearn.bounds.orabona2010_arow_bound` and
    :func:`olearn.bounds.orabona2010_diagonal_arow_bound`, both reported by
    :func:`olearn.bounds.bound_report` and ``olearn run --bound``
    (``--algo fig1-arow-full``, ``fig1-arow``).

    olearn keeps :math:`w = A_{t-1}^{-1}\theta_t` (``coef_``) and
    :math:`\Sigma = A_{t-1}^{-1}` (``covariance_``), and runs the round as
    NAROW's with :math:`1/r_t = 1/r` (see :class:`~olearn.second_order.NAROW`
    for the Sherman-Morrison form of the full matrix and the per-coordinate
    form of the diagonal); ``olearn.run`` records the round's loss
    :math:`\ell_t(w_t)`, and ``taus != 0`` (or ``losses > 0``) are the update
    rounds. The full matrix's prediction :math:`\mathrm{sign}(m_t)` is the
    text's. **Departure** (``"diag"``, as NAROW's): the prediction
    (``decision_function``, ``run``'s scores and mistakes) is
    :math:`x_t^\top D_{t-1}^{-1}\theta_t`, the stored ``coef_``; the text's
    :math:`x_t^\top D_t^{-1}\theta_t` may differ in sign, so ``n_mistakes``
    is not always the text's M. The updates, and the model, are the text's.

    **Importance weights** are NAROW's: an example of weight c counts c times,
    :math:`\theta \mathrel{+}= c\, y_t x_t` and
    :math:`A_t = A_{t-1} + c\, x_t x_t^\top / r` (beyond the paper).

    Parameters
    ----------
    r : float, default=1.0
        The text's r > 0: the precision grows by :math:`x_t x_t^\top / r`.
    covariance : {"full", "diag"}, default="full"
        Sec. 4.2 (full matrix, O(d^2) per round) or Sec. 4.3 (diagonal, O(nnz(x))).
    fit_intercept, n_features
        As in :class:`~olearn.second_order.NAROW`.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>
    calibration
        As in :class:`~olearn.second_order.NAROW`.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.second_order import Fig1AROW
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0]])
    >>> clf = Fig1AROW(r=2.0).partial_fit(X, [1, -1])
    >>> clf.coef_ * 11   # A_2 = I + (x1 x1' + x2 x2')/2, theta = x1 - x2: A_2^-1 theta = (2, -8)/11
    array([[ 2., -8.]])
    """

    _weight_and_copies = (
        "a weight c counts the row c times in one round's sums, while c copies are c rounds, each seeing the "
        "margin and the matrix A the last one left"
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
        return RULE_FIG1_AROW, self.r, 0.0
