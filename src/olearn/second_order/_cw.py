r"""Confidence-weighted learning, the exact convex variant (Crammer, Dredze & Pereira 2008)."""

from statistics import NormalDist

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_CW
from .._params import Interval
from ._base import COVARIANCES, SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class CW(PlattCalibrated, SecondOrderClassifier):
    r"""Confidence-weighted (CW) learning, exact convex update, full or diagonal covariance.

    Dredze, Crammer & Pereira, *Confidence-Weighted Linear Classification*,
    ICML 2008, introduced the Gaussian :math:`w \sim N(\mu, \Sigma)` and the
    constraint :math:`\Pr[y\, w \cdot x \ge 0] \ge \eta`; Crammer, Dredze &
    Pereira, *Exact Convex Confidence-Weighted Learning*, NIPS 2008, solve it
    in closed form. With :math:`\phi = \Phi^{-1}(\eta)`,
    :math:`\psi = 1 + \phi^2/2`, :math:`\xi = 1 + \phi^2`,
    :math:`M_t = y_t \mu_t \cdot x_t` and :math:`V_t = x_t^\top\Sigma_t x_t`:

    .. math:: \alpha_t = \max\Big(0, \frac{-M_t\psi + \sqrt{M_t^2\phi^4/4 + V_t\phi^2\xi}}{V_t\xi}\Big), \quad
        \sqrt{u_t} = \tfrac12\Big(-\alpha_t V_t\phi + \sqrt{\alpha_t^2V_t^2\phi^2 + 4V_t}\Big),

    .. math:: \mu_{t+1} = \mu_t + \alpha_t y_t \Sigma_t x_t, \qquad
        \Sigma_{t+1}^{-1} = \Sigma_t^{-1} + \frac{\alpha_t\phi}{\sqrt{u_t}}\, x_t x_t^\top

    (the paper's :math:`\beta_t = \alpha_t\phi/(\sqrt{u_t} + V_t\alpha_t\phi)`
    in :math:`\Sigma_{t+1} = \Sigma_t - \beta_t\Sigma_t x_t x_t^\top\Sigma_t`).
    :math:`\alpha_t > 0` exactly when the constraint
    :math:`M_t \ge \phi\sqrt{V_t}` is violated; ``olearn.run`` records that
    violation :math:`\max(0, \phi\sqrt{V_t} - M_t)` as the loss and
    :math:`\alpha_t` as tau. ``coef_`` is :math:`\mu`, ``covariance_`` is
    :math:`\Sigma` (:math:`\Sigma_1 = I`).

    ``covariance="diag"`` (the paper's choice for text) adds only the diagonal
    of the precision increment,
    :math:`s_i \leftarrow s_i / (1 + \frac{\alpha_t\phi}{\sqrt{u_t}} s_i x_{t,i}^2)`,
    and costs O(nnz(x)) per round; ``"full"`` costs O(d^2), as :class:`AROW`.

    A zero vector (:math:`V_t = 0`) leaves the model as it is. The update
    does not depend on the scale of :math:`x_t`, but its precision increase
    :math:`\gamma_t \propto 1/V_t` is computed on its own: a row whose
    :math:`V_t` underflows (entries around 1e-160) is refused with a
    FloatingPointError and leaves the model unchanged.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). CW's round imposes a constraint and has no loss to scale: an
    example of weight c > 0 makes the plain update above (whatever c), and
    c = 0 leaves the model unchanged (only the round counter moves), as PA
    treats weights.

    CW is built for (nearly) separable data. A confident mistake
    (:math:`M_t \ll -\sqrt{V_t}`) shrinks the variance along :math:`x_t`
    by about :math:`V_t / (M_t\phi)^2`, so on noisy streams the variances
    fall by many orders of magnitude within a few hundred rounds; once they
    are below about 1e-16 of their start, rounding can leave the full
    covariance indefinite, and the learner has stopped learning anyway. Use
    :class:`AROW` on noisy data (it was designed for it).

    Parameters
    ----------
    eta : float in (0.5, 1), default=0.9
        The confidence: the paper's probability :math:`\eta`, with
        :math:`\phi = \Phi^{-1}(\eta)` (0.9 gives :math:`\phi \approx 1.28`).
        Not a learning rate: larger means more aggressive.
    covariance : {"diag", "full"}, default="diag"
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
    >>> from olearn.second_order import CW
    >>> clf = CW(eta=0.9).partial_fit(np.array([[1.0, 0.0]]), [1])
    >>> round(float(clf.coef_[0, 0]), 4)    # alpha_1 = phi / sqrt(1 + phi^2) with V = 1, M = 0
    0.7884
    """

    _weight_and_copies = (
        "CW makes its plain update for any weight > 0 (its constraint has no loss to scale), where c copies "
        "are c updates"
    )

    _constraints = {"eta": Interval(0.5, 1.0, closed="neither"), "covariance": COVARIANCES}

    def __init__(self, eta=0.9, covariance="diag", fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.eta = eta
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

    def _class_weight_rule_fails(self):
        # any weight > 0 makes the plain update, so the check's weights learn what no weights learn
        return (
            "CW makes its plain update for any weight > 0 (its constraint has no loss to scale), so the check's "
            "class weights 1000 and 0.0001 learn the model that no weights learn"
        )

    def _rule(self):
        return RULE_CW, NormalDist().inv_cdf(float(self.eta)), 0.0
