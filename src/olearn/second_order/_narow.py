r"""NAROW (Orabona & Crammer 2010)."""

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_NAROW
from .._params import POSITIVE_FINITE
from ._base import COVARIANCES, SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class NAROW(PlattCalibrated, SecondOrderClassifier):
    r"""NAROW: AROW with an adaptive regularization r_t, as in the paper's Fig. 1.

    Orabona & Crammer, *New Adaptive Algorithms for Online Classification*,
    NIPS 2010, Sec. 5 and Fig. 1. The paper writes the learner in its
    framework of time-varying potentials: a vector :math:`\theta_t` and a
    precision matrix :math:`A_t`, with :math:`\theta_1 = 0`, :math:`A_0 = I`
    and :math:`w = A^{-1}\theta`. On round t, with
    :math:`\chi_t = x_t^\top A_{t-1}^{-1} x_t`,

    .. math:: r_t = \begin{cases} \dfrac{\chi_t}{b\chi_t - 1} & b\chi_t > 1 \\
        +\infty & \text{otherwise} \end{cases}, \qquad
        A_t = A_{t-1} + \frac{x_t x_t^\top}{r_t}, \qquad
        \hat y_t = \mathrm{sign}(x_t^\top A_t^{-1} \theta_t),

    and on a round with :math:`y_t\, x_t^\top A_t^{-1}\theta_t < 1` the learner
    keeps :math:`A_t` and sets :math:`\theta_{t+1} = \theta_t + y_t x_t`
    (on the other rounds :math:`A_t = A_{t-1}`). So :math:`A` changes only
    where :math:`x_t` is still uncertain (:math:`\chi_t > 1/b`), and the
    margin of the round is taken with :math:`x_t` already in :math:`A_t`, as
    the Second-Order Perceptron does. (At :math:`b\chi_t = 1` the formula
    gives :math:`r_t = +\infty` too.)

    olearn keeps :math:`w_t = A_{t-1}^{-1}\theta_t` (``coef_``) and
    :math:`\Sigma_t = A_{t-1}^{-1}` (``covariance_``). By Sherman-Morrison the
    round above is, with :math:`m_t = w_t \cdot x_t` and
    :math:`\gamma_t = 1/r_t`,

    .. math:: \tilde m_t = \frac{m_t}{1 + \gamma_t\chi_t}, \quad
        w_{t+1} = w_t + \frac{y_t - \gamma_t m_t}{1 + \gamma_t \chi_t}\,\Sigma_t x_t, \quad
        \Sigma_{t+1} = \Sigma_t - \frac{\gamma_t}{1 + \gamma_t\chi_t}\,\Sigma_t x_t x_t^\top \Sigma_t

    on rounds with :math:`y_t \tilde m_t < 1`. The prediction
    :math:`\mathrm{sign}(\tilde m_t) = \mathrm{sign}(m_t)`, so
    ``decision_function`` gives :math:`m_t`; ``olearn.run`` records the
    round's loss :math:`\max(0, 1 - y_t\tilde m_t)` and the step
    :math:`y_t (y_t - \gamma_t m_t)/(1 + \gamma_t\chi_t)` as tau.

    The commonly distributed rendering of NAROW is AROW with :math:`r = r_t`:
    on rounds with :math:`y_t m_t < 1` (the margin *without* :math:`x_t`),
    :math:`w_{t+1} = w_t + \frac{\max(0, 1 - y_t m_t)}{\chi_t + r_t} y_t\Sigma_t x_t`,
    the same covariance update, and no update at all when
    :math:`r_t = +\infty`. It differs from the paper's algorithm in three
    details: the margin that decides an update (:math:`m_t` against
    :math:`\tilde m_t`), the mean step (:math:`y_t - m_t` against
    :math:`y_t - \gamma_t m_t`, over the same :math:`1 + \gamma_t\chi_t`), and
    the rounds with :math:`r_t = +\infty`, where the paper still takes the
    step :math:`y_t \Sigma_t x_t`. Both make the same update on a round with
    :math:`r_t = 1` (:math:`\chi_t = 1/(b - 1)`).

    ``covariance="diag"`` is the same Fig. 1 with the diagonal potential
    :math:`f_t(x) = \tfrac12 x^\top D_t x`, as Sec. 4.3 derives diagonal AROW:
    :math:`\chi_t = x_t^\top D_{t-1}^{-1} x_t` in the rule for :math:`r_t`,
    :math:`D_t = D_{t-1} + \mathrm{diag}(x_t x_t^\top)/r_t`, the margin
    :math:`y_t\, x_t^\top D_t^{-1}\theta_t`, and on an update
    :math:`\theta_{t+1} = \theta_t + y_t x_t`, :math:`w = D_t^{-1}\theta_{t+1}`.
    With :math:`\Sigma = \mathrm{diag}(s) = D^{-1}` that is, coordinate by
    coordinate,

    .. math:: w_i \leftarrow \frac{w_i + y_t s_i x_{t,i}}{1 + \gamma_t s_i x_{t,i}^2}, \qquad
        s_i \leftarrow \frac{s_i}{1 + \gamma_t s_i x_{t,i}^2}

    on rounds with :math:`y_t \sum_i x_{t,i} w_i / (1 + \gamma_t s_i x_{t,i}^2) < 1`
    (the paper's margin); the full matrix's rank-one mean step does not hold
    for a diagonal D. ``olearn.run`` records the text's :math:`\eta_t = 1` as
    tau on those rounds. O(nnz(x)) per round. **Departure:** the prediction
    (``decision_function``, ``run``'s scores and mistakes) is
    :math:`x_t^\top D_{t-1}^{-1}\theta_t`, the stored ``coef_``; the text's
    Fig. 1 predicts with :math:`x_t^\top D_t^{-1}\theta_t`. Unlike the full
    matrix's :math:`\tilde m_t = m_t/(1 + \gamma_t\chi_t)`, the two can
    differ in sign (37 of 12,000 rounds on noisy Gaussian streams, b = 0.1,
    1, 10), so ``run(...).n_mistakes`` is not the text's M and
    :func:`olearn.bounds.diagonal_narow_bound` bounds the update rounds
    (``taus != 0``), not those mistakes.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). An example of weight c enters Fig. 1 counted c times: its loss
    :math:`c\,\ell_t` has the gradient :math:`-c\, y_t x_t`, so on an update
    :math:`\theta_{t+1} = \theta_t + c\, y_t x_t`, and its second-order term is
    counted c times, :math:`A_t = A_{t-1} + c\, x_t x_t^\top / r_t` (the
    diagonal of it with ``covariance="diag"``), with :math:`r_t` computed from
    the unweighted :math:`\chi_t` as above; the margin that decides the update
    is taken with that :math:`A_t`. In the stored terms :math:`\gamma_t` becomes
    :math:`c\gamma_t` and the mean step
    :math:`c (y_t - \gamma_t m_t)/(1 + c\gamma_t\chi_t)`; tau is :math:`y_t`
    times that step (``covariance="diag"``: c, the text's :math:`\eta_t = 1`
    times c). c = 0 leaves the model unchanged (only the round counter moves).

    Parameters
    ----------
    b : float, default=1.0
        The paper's b > 0; the covariance shrinks along x only while
        :math:`\chi_t > 1/b`, so a larger b keeps on adapting longer.
        (There is no C: the step is the fixed dual step of the framework.)
    covariance : {"full", "diag"}, default="full"
    fit_intercept : bool, default=False
    n_features : int or None, default=None
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
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
    >>> from olearn.second_order import NAROW
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0]])
    >>> clf = NAROW(b=2.0).partial_fit(X, [1, -1])
    >>> clf.coef_ * 9     # round 1: chi = 1, r_1 = 1, w = x/2; round 2: r_2 = 3/4
    array([[ 2., -5.]])
    """

    _weight_and_copies = (
        "a weight c counts the row c times in one round's sums, while c copies are c rounds, each seeing the "
        "margin and the matrix A the last one left"
    )

    _constraints = {"b": POSITIVE_FINITE, "covariance": COVARIANCES}

    def __init__(self, b=1.0, covariance="full", fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.b = b
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
        return RULE_NAROW, self.b, 0.0
