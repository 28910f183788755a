"""Online (sub)gradient descent for linear classification (Zinkevich 2003)."""

from .._kernels import _codes
from .._params import BOOLEAN, POSITIVE, NoneOr, Options
from ._base import AVERAGE, CLASS_WEIGHT, BinaryLinearClassifier

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
    average : bool or int, default=False
        Predict with the average of the weights after each round (scikit-learn's
        SGD ``average``; not in the source texts): True averages every round, an
        integer n the rounds from the n-th on (before it, the current weights
        predict). ``predict``, ``decision_function``, ``coef_``, ``intercept_``
        and saved models use the average; :func:`olearn.run` and
        ``predict_learn_one`` score each round with the current weights.
    class_weight : None, "balanced" or dict, default=None
        Weight of each class, multiplying ``sample_weight`` (scikit-learn's
        convention; a class missing from the dict weighs 1). ``"balanced"``
        needs the class counts of the whole training set: ``fit`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import OGDClassifier
    >>> X = np.array([[3.0, 4.0], [3.0, 4.0]])
    >>> clf = OGDClassifier(eta=1.0, schedule="constant", radius=1.0).fit(X, [1, 1])
    >>> clf.coef_                    # (3, 4) projected onto the unit ball
    array([[0.6, 0.8]])
    """

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
        self, loss="hinge", eta=1.0, schedule="sqrt", radius=None, conservative=False, fit_intercept=False,
        n_features=None, average=False, class_weight=None,
    ):
        self.loss = loss
        self.eta = eta
        self.schedule = schedule
        self.radius = radius
        self.conservative = conservative
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.average = average
        self.class_weight = class_weight

    def _kernel_config(self):
        return _ogd_config(self.loss, self.eta, self.schedule, self.radius, self.conservative)


class OnlineSVM(BinaryLinearClassifier):
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
    average : bool or int, default=False
        Predict with the average of the weights after each round (scikit-learn's
        SGD ``average``; not in the source texts): True averages every round, an
        integer n the rounds from the n-th on (before it, the current weights
        predict). ``predict``, ``decision_function``, ``coef_``, ``intercept_``
        and saved models use the average; :func:`olearn.run` and
        ``predict_learn_one`` score each round with the current weights.
    class_weight : None, "balanced" or dict, default=None
        Weight of each class, multiplying ``sample_weight`` (scikit-learn's
        convention; a class missing from the dict weighs 1). ``"balanced"``
        needs the class counts of the whole training set: ``fit`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import OnlineSVM
    >>> X = np.array([[1.0, 2.0], [-1.0, -2.0]] * 50)
    >>> y = np.array([1, -1] * 50)
    >>> svm = OnlineSVM(radius=1.0).fit(X, y)
    >>> bool(np.sqrt((svm.coef_ ** 2).sum() + svm.intercept_[0] ** 2) <= 1.0 + 1e-12)
    True
    >>> svm.predict([[2.0, 1.0], [-2.0, -1.0]])
    array([ 1, -1])
    """

    _constraints = {
        "radius": POSITIVE,
        "eta": POSITIVE,
        "schedule": Options("constant", "sqrt", "inverse"),
        "average": AVERAGE,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, radius=10.0, eta=1.0, schedule="sqrt", fit_intercept=True, n_features=None, average=False,
                 class_weight=None):
        self.radius = radius
        self.eta = eta
        self.schedule = schedule
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.average = average
        self.class_weight = class_weight

    def _kernel_config(self):
        return _ogd_config("hinge", self.eta, self.schedule, self.radius, False)
