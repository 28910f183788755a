"""Online (sub)gradient descent for linear classification (Zinkevich 2003)."""

import numpy as np

from .._averaging import AVERAGE
from .._calibration import log_probabilities, probabilities
from .._docstrings import shared_entries
from .._estimator import only_when
from .._kernels import _codes
from .._params import BOOLEAN, POSITIVE, NoneOr, Options
from .._weights import CLASS_WEIGHT
from ._binary import BinaryLinearClassifier, PlattCalibrated

_LOSSES = {"hinge": _codes.LOSS_HINGE, "logistic": _codes.LOSS_LOGISTIC, "squared": _codes.LOSS_SQUARED}
_SCHEDULES = {
    "constant": _codes.SCHEDULE_CONSTANT,
    "sqrt": _codes.SCHEDULE_SQRT,
    "inverse": _codes.SCHEDULE_INVERSE,
}


def _ogd_config(loss, eta, schedule, radius, conservative):
    codes = {
        "K_STEP": _codes.STEP_OGD,
        "K_LOSS": _LOSSES[loss],
        "K_SCHEDULE": _SCHEDULES[schedule],
        "K_CONSERVATIVE": int(conservative),
    }
    return codes, {"P_ETA": eta, "P_RADIUS": 0.0 if radius is None else radius}


@shared_entries
class OGDClassifier(BinaryLinearClassifier):
    r"""Online projected (sub)gradient descent on a margin loss.

    Zinkevich, *Online Convex Programming and Generalized Infinitesimal Gradient
    Ascent*, ICML 2003 (the OCO notes' "Greedy Projection"); the UCL slides'
    online gradient descent with the hinge loss. With the margin
    :math:`m_t = y_t\, w_t \cdot x_t` and loss :math:`\ell(m)`,

    .. math:: w_{t+1} = \Pi_{\|w\| \le R}\big(w_t - \eta_t \nabla_w \ell(m_t)\big)
        = \Pi\big(w_t + \eta_t\, (-\ell'(m_t))\, y_t x_t\big),

    with :math:`\eta_t = \eta`, :math:`\eta/\sqrt t` or :math:`\eta / t` and
    :math:`\Pi` the Euclidean projection onto the L2 ball of radius R (none when
    ``radius=None``). Losses: hinge :math:`\max(0, 1-m)` (subgradient
    :math:`-1` for :math:`m < 1`, 0 at :math:`m = 1`), logistic
    :math:`\log(1 + e^{-m})`, squared :math:`(1-m)^2/2 = (y - w\cdot x)^2/2`.

    ``conservative=True`` steps only on mistakes (:math:`m_t \le 0`): with the
    hinge loss and a constant rate this is exactly the Perceptron with
    ``eta`` as its step, as the slides point out.

    Probabilities: the logistic loss is the negative log-likelihood of the
    model :math:`P(y \mid x) = \sigma(y\, w \cdot x)` with
    :math:`\sigma(s) = 1/(1 + e^{-s})`, so with ``loss="logistic"`` the
    learner has ``predict_proba`` and ``predict_log_proba``: the probability
    of ``classes_[1]`` is :math:`\sigma(f(x))` of the decision function f.
    The hinge and squared losses are no likelihood, and their learners have
    no such methods (``hasattr`` is False); calibrate their scores with
    scikit-learn's ``CalibratedClassifierCV`` instead (docs/probabilities.md).

    **Importance weights** (``sample_weight``, ``class_weight``; not in the
    sources). A weight :math:`s \ge 0` multiplies the round's loss, so the
    step is the gradient of :math:`s\,\ell`:
    :math:`w_{t+1} = \Pi(w_t + s\,\eta_t\,(-\ell'(m_t))\, y_t x_t)`. A weight of 0
    leaves the weights as they are; the round still counts (t, hence
    :math:`\eta_t`, and the average advance), as in scikit-learn's SGD.

    Parameters
    ----------
    loss : {"hinge", "logistic", "squared"}, default="hinge"
    eta : float, default=1.0
        Base learning rate, > 0.
    schedule : {"constant", "sqrt", "inverse"}, default="sqrt"
        :math:`\eta_t = \eta,\ \eta/\sqrt{t},\ \eta/t`; t counts every round
        seen, across calls.
    radius : float or None, default=None
        Radius R of the L2 ball that the iterate is projected onto.
    conservative : bool, default=False
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

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import OGDClassifier
    >>> X = np.array([[3.0, 4.0], [3.0, 4.0]])
    >>> clf = OGDClassifier(eta=1.0, schedule="constant", radius=1.0).partial_fit(X, [1, 1])
    >>> clf.coef_                    # (3, 4) projected onto the unit ball
    array([[0.6, 0.8]])
    >>> logistic = OGDClassifier(loss="logistic").partial_fit([[1.0, 0.0], [0.0, 1.0]], ["ham", "spam"])
    >>> logistic.predict_proba([[0.0, 2.0]]).round(2)   # columns follow classes_
    array([[0.33, 0.67]])
    >>> hasattr(OGDClassifier(loss="hinge"), "predict_proba")
    False
    """

    _weight_and_copies = (
        "a weight s scales one gradient step, while s copies are s steps at falling rates eta_t, each at the "
        "margin the last one left, and a row of weight 0 still advances t (hence eta_t) where a removed row "
        "does not"
    )

    _constraints = {
        "loss": Options("hinge", "logistic", "squared"),
        "eta": POSITIVE,
        "schedule": Options("constant", "sqrt", "inverse"),
        "radius": NoneOr(POSITIVE),
        "conservative": BOOLEAN,
        "average": AVERAGE,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(
        self, loss="hinge", eta=1.0, schedule="sqrt", radius=None, conservative=False, fit_intercept=False, n_features=None,
        max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False, class_weight=None,
        n_bits=None,
    ):
        self.loss = loss
        self.eta = eta
        self.schedule = schedule
        self.radius = radius
        self.conservative = conservative
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

    def _kernel_config(self):
        return _ogd_config(self.loss, self.eta, self.schedule, self.radius, self.conservative)

    # -- probabilities ----------------------------------------------------------

    def _why_no_probabilities(self):
        if self.loss == "logistic":
            return None
        return (
            f"loss={self.loss!r} is not a log-likelihood, so its scores are no probabilities; only "
            "loss='logistic' has predict_proba. Calibrate the scores with "
            "sklearn.calibration.CalibratedClassifierCV (see docs/probabilities.md)"
        )

    @only_when(_why_no_probabilities)
    def predict_proba(self, X):
        r"""Probability of each class, columns in the order of ``classes_``.

        Only with ``loss="logistic"``. The probability of ``classes_[1]`` is
        :math:`\sigma(f(x)) = 1/(1 + e^{-f(x)})` of the decision function
        :math:`f(x) = w \cdot x\ (+ b)`, that of ``classes_[0]`` is
        :math:`\sigma(-f(x))`; both are computed without overflow and keep
        their relative precision when they are tiny. Before a second class has
        been seen, the one class known has probability 1 (shape (n, 1)), as
        ``predict`` always answers it.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)

        Returns
        -------
        ndarray, shape (n_samples, n_classes)
        """
        return probabilities(self.decision_function(X), self.classes_.size)

    @only_when(_why_no_probabilities)
    def predict_log_proba(self, X):
        r"""Logarithm of :meth:`predict_proba`, computed directly.

        :math:`\log \sigma(f) = -\log(1 + e^{-f})`, finite however large
        :math:`|f|` is (where the probability itself underflows to 0).

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)

        Returns
        -------
        ndarray, shape (n_samples, n_classes)
        """
        return log_probabilities(self.decision_function(X), self.classes_.size)

    @only_when(_why_no_probabilities)
    def predict_proba_one(self, x):
        """Probability of each class for one example, as a dict {class: probability}.

        Only with ``loss="logistic"``; the streaming twin of :meth:`predict_proba`.
        Before the first example has been learned no class is known, and the
        answer is None, as from ``predict_one``.
        """
        score = self._score_one(x)
        if score is None:
            return None
        return dict(zip(self.classes_.tolist(), probabilities(np.array([score]), self.classes_.size)[0].tolist()))


@shared_entries
class OnlineSVM(PlattCalibrated, BinaryLinearClassifier):
    r"""Online SVM: projected OGD on the hinge loss over an L2 ball.

    The OCO notes, Sec. 4.2: the SVM's regularizer becomes the constraint
    :math:`\|w\| \le R` and the hinge loss is minimised online by Zinkevich's
    projected gradient steps (a preset of :class:`OGDClassifier` with
    ``loss="hinge"``). As in the notes, the bias is learned by appending a
    constant feature 1 to every x, so ``fit_intercept`` defaults to True here
    and the bias counts in :math:`\|w\|`.

    With :math:`\|x\| \le G` (including the constant feature), diameter
    :math:`D = 2R` and :math:`\eta_t = \eta/\sqrt t`, the regret against any w
    in the ball is at most :math:`\frac{D^2 \sqrt T}{2\eta} + \eta G^2 \sqrt T`
    (Zinkevich 2003, Thm. 1, for :math:`\eta = 1`).

    Importance weights scale the step as in :class:`OGDClassifier`; the
    projection follows.

    Parameters
    ----------
    radius : float, default=10.0
        Radius R of the feasible ball, > 0.
    eta : float, default=1.0
    schedule : {"constant", "sqrt", "inverse"}, default="sqrt"
    fit_intercept : bool, default=True
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
        As in :class:`~olearn.PAClassifier`: class probabilities learned
        online from the scores (beyond the OCO notes).

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import OnlineSVM
    >>> X = np.array([[1.0, 2.0], [-1.0, -2.0]] * 50)
    >>> y = np.array([1, -1] * 50)
    >>> svm = OnlineSVM(radius=1.0).partial_fit(X, y)
    >>> bool(np.sqrt((svm.coef_ ** 2).sum() + svm.intercept_[0] ** 2) <= 1.0 + 1e-12)
    True
    >>> svm.predict([[2.0, 1.0], [-2.0, -1.0]])
    array([ 1, -1])
    """

    _weight_and_copies = (
        "a weight s scales one projected gradient step, while s copies are s steps at falling rates eta_t, "
        "each at the margin the last one left, and a row of weight 0 still advances t (hence eta_t) where a "
        "removed row does not"
    )

    _constraints = {
        "radius": POSITIVE,
        "eta": POSITIVE,
        "schedule": Options("constant", "sqrt", "inverse"),
        "average": AVERAGE,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, radius=10.0, eta=1.0, schedule="sqrt", fit_intercept=True, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.radius = radius
        self.eta = eta
        self.schedule = schedule
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

    # files written before OnlineSVM learned calibrated probabilities lack the hyperparameter
    _params_added_later = frozenset({"calibration"})

    def _class_weight_rule_fails(self):
        # measured on the check's data: class 0's weight 1000 makes steps far longer than the radius
        return (
            "class 0's weight 1000 makes its steps 1000 eta_t x, whose norm is still about 500 after the 2000 "
            "rounds of 40 passes over the check's rows (median norm 22), far past the ball's radius 10: each such "
            "step throws w onto the sphere along that one row, and the projected iterates keep jumping; with a "
            "radius of 10^4 the check passes (and on its data a weight of 10 for class 0 predicts class 0 on every "
            "test point)"
        )

    def _kernel_config(self):
        return _ogd_config("hinge", self.eta, self.schedule, self.radius, False)
