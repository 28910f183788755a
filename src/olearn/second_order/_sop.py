r"""The Second-Order Perceptron (Cesa-Bianchi, Conconi & Gentile 2005)."""

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_SOP
from .._params import POSITIVE_FINITE
from ._base import SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class SecondOrderPerceptron(PlattCalibrated, SecondOrderClassifier):
    r"""The Second-Order Perceptron, with a full correlation matrix.

    Cesa-Bianchi, Conconi & Gentile, *A Second-Order Perceptron Algorithm*,
    SIAM J. Computing 34 (2005), Fig. 2. With :math:`M` the rounds on which
    a mistake was made so far, :math:`v_t = \sum_{s \in M} y_s x_s` and
    :math:`A_t = aI + \sum_{s \in M} x_s x_s^\top`, the prediction on round t
    is

    .. math:: \hat y_t = \mathrm{sign}\big(x_t^\top (A_t + x_t x_t^\top)^{-1} v_t\big),

    and a mistake adds t to M. By Sherman-Morrison
    :math:`x^\top (A + x x^\top)^{-1} v = \frac{x^\top A^{-1} v}{1 + x^\top A^{-1} x}`:
    the same sign as :math:`w_t \cdot x_t` with :math:`w_t = A_t^{-1} v_t`,
    which olearn keeps as ``coef_`` (``decision_function`` gives
    :math:`w_t \cdot x_t`, the paper's score times
    :math:`1 + x_t^\top A_t^{-1} x_t`). ``covariance_`` is
    :math:`\Sigma_t = a A_t^{-1}`.

    In these terms a mistake makes the update of :class:`AROW` with
    ``r = a`` (:math:`w \leftarrow w + \frac{1 - y m}{\chi + a} y\Sigma x`,
    :math:`\Sigma \leftarrow \Sigma - \frac{\Sigma x x^\top\Sigma}{\chi + a}`),
    so the Second-Order Perceptron is AROW with ``r = a`` updating on mistakes
    (:math:`y_t m_t \le 0`) only. ``a`` plays the role of AROW's r and of
    ``1 / (2 C)`` of PA-II. A round scoring exactly 0 counts as a mistake.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). A mistaken example of weight c is counted c times in Fig. 2's
    sums, :math:`v \leftarrow v + c\, y_t x_t` and
    :math:`A \leftarrow A + c\, x_t x_t^\top`; by Sherman-Morrison that is the
    AROW update above with ``r = a / c``. Whether the round is a mistake does
    not depend on c; c = 0 leaves the model unchanged (only the round counter
    moves), and so does a c so small that ``c / (2a)`` underflows to 0.

    **Averaging** (``average``; beyond the paper). The paper's prediction on x
    at round t, :math:`\mathrm{sign}(x^\top(A_t + x x^\top)^{-1} v_t)`, is the
    sign of :math:`w_t\cdot x` for the single vector :math:`w_t = A_t^{-1} v_t`,
    whatever x; what ``average`` averages is that vector (``coef_`` after each
    round). The paper's own scores are :math:`w_t\cdot x / (1 + x^\top A_t^{-1} x)`,
    a positive factor that changes with t, so the averaged vector is not the
    sign of an average of those scores: it is the average of the linear
    classifiers that make the paper's predictions.

    O(d^2) time per round and (d + 1)^2 floats of memory, as
    :class:`AROW` with ``covariance="full"``.

    Parameters
    ----------
    a : float, default=1.0
        The paper's a > 0, the regularization of :math:`A_1 = aI`.
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
    >>> from olearn.second_order import SecondOrderPerceptron
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> clf = SecondOrderPerceptron(a=1.0).partial_fit(X, [1, -1, -1])
    >>> clf.coef_                 # rounds 1 and 2 are mistakes; round 3 is not
    array([[ 0.2, -0.6]])
    """

    _weight_and_copies = (
        "a mistaken row of weight c enters Fig. 2's sums c times in one round, while its copies stop updating "
        "once one of them is classified right"
    )

    _constraints = {"a": POSITIVE_FINITE}

    def __init__(self, a=1.0, fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.a = a
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

    def _full(self):
        return True

    def _rule(self):
        return RULE_SOP, self.a, 0.0
