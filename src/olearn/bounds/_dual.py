r"""The dual view of online learning: objectives, certificates and mistake bounds.

Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
COLT 2006. For a stream :math:`(x_i, y_i)_{i \le m}` and a regularizer F the
primal and the dual are

.. math:: P(w) = F(w) + C \sum_i [\gamma - y_i\, w\cdot x_i]_+ , \qquad
    D(\alpha) = \gamma \sum_i \alpha_i - F^*\Big(\sum_i \alpha_i y_i x_i\Big),
    \quad 0 \le \alpha_i \le C,

with :math:`D(\alpha) \le P(w)` for all :math:`\alpha, w`. Thm. 1: if a
learner raises D on every round and by :math:`\lambda` on average on its M
mistake rounds, then :math:`\lambda M \le D(\alpha_{final}) \le P(w)` for
every w. The regularizers (``"l2"``, ``"entropy"``, ``"pnorm"``) are those of
:class:`olearn.dual.DualAscent`; for ``"entropy"``, F(w) is the smallest
relative entropy to uniform of a balanced lift :math:`(w^+, w^-)` of w on the
simplex of 2n coordinates (finite only for :math:`\|w\|_1 \le 1`). For
``"pnorm"``, p >= 2 is the norm of theta and F(w) = ||w||_q^2 / 2 with
q = p/(p-1).

With ``fit_intercept=True`` every x is augmented with a constant 1 and w (or
u) carries the intercept last, as the learners do. Labels map as the
estimators map them (sorted; the second class is +1).
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._theorems import _Stream, _exponent, check_mask, check_u, exact_sq_norm, thm2_minimum, to_float

_REGULARIZERS = ("l2", "entropy", "pnorm")


def _check_choice(regularizer, p):
    if regularizer not in _REGULARIZERS:
        raise ValueError(f"regularizer={regularizer!r} is invalid; expected one of {_REGULARIZERS}")
    if regularizer == "pnorm" and not (isinstance(p, (int, float, np.number)) and p >= 2):
        raise ValueError(f"p={p!r} is invalid; expected a number >= 2")


# -- the regularizers and their conjugates ---------------------------------------


def entropy_regularizer(w):
    r"""F(w) = min over lifts :math:`w = w^+ - w^-` on the 2n-simplex of :math:`\sum \bar w \log(2n \bar w)`.

    The minimizing lift is :math:`w^\pm_i = (\sqrt{w_i^2 + 4c^2} \pm w_i)/2`
    with c >= 0 solving :math:`\sum_i \sqrt{w_i^2 + 4c^2} = 1` (then
    :math:`w^+_i w^-_i = c^2`, the form :math:`c\,e^{\pm\theta_i}` of the
    conjugate's gradient). ``inf`` when :math:`\|w\|_1 > 1`.

    >>> entropy_regularizer([0.0, 0.0])     # the uniform lift
    0.0
    >>> round(entropy_regularizer([1.0, 0.0]), 9)     # all mass on one of 4 coordinates: ln 4
    1.386294361
    """
    from scipy.optimize import brentq

    w = np.asarray(w, dtype=np.float64)
    n = w.size
    l1 = float(np.abs(w).sum())
    if l1 > 1.0 + 1e-12:
        return math.inf
    if l1 >= 1.0:
        c = 0.0
    else:
        # the sum grows with c, from ||w||_1 < 1 at c = 0 to at least 2 at c = 1/n: one root in between
        # (1/(2n) is the root itself when w = 0, and rounding may leave the sum just below 1 there)
        c = brentq(lambda c: np.sqrt(w * w + 4 * c * c).sum() - 1.0, 0.0, 1.0 / n, xtol=1e-18, rtol=1e-15, maxiter=1000)
    root = np.sqrt(w * w + 4 * c * c)
    lift = np.concatenate([(root + w) / 2, (root - w) / 2])
    lift = lift[lift > 0]
    return float(np.sum(lift * np.log(2 * n * lift)))


def regularizer_value(w, regularizer="l2", p=2.0):
    """F(w) of one of the dual framework's regularizers."""
    w = np.asarray(w, dtype=np.float64)
    if regularizer == "l2":
        return 0.5 * float(w @ w)
    if regularizer == "entropy":
        return entropy_regularizer(w)
    q = p / (p - 1.0)
    return 0.5 * float(np.linalg.norm(w, q)) ** 2


def conjugate_value(theta, regularizer="l2", p=2.0):
    """F*(theta) and its gradient g(theta) = grad F*(theta)."""
    theta = np.asarray(theta, dtype=np.float64)
    if regularizer == "l2":
        return 0.5 * float(theta @ theta), theta.copy()
    if regularizer == "entropy":
        from scipy.special import logsumexp

        both = np.concatenate([theta, -theta])
        value = float(logsumexp(both) - math.log(both.size))
        weights = np.exp(both - logsumexp(both))
        return value, weights[: theta.size] - weights[theta.size :]
    norm = float(np.linalg.norm(theta, p))
    if norm == 0.0:
        return 0.0, np.zeros_like(theta)
    return 0.5 * norm * norm, np.sign(theta) * np.abs(theta) ** (p - 1) / norm ** (p - 2)


def primal_objective(X, y, w, regularizer="l2", p=2.0, C=1.0, gamma=1.0, fit_intercept=False):
    r""":math:`P(w) = F(w) + C \sum_i [\gamma - y_i\, w\cdot x_i]_+`.

    >>> primal_objective([[1.0, 0.0], [0.0, 1.0]], [1, -1], w=[0.5, -0.5])   # 1/4 + (1/2 + 1/2)
    1.25
    """
    _check_choice(regularizer, p)
    stream = _Stream(X, y, fit_intercept)
    w = check_u(w, stream, fit_intercept)
    hinge = np.maximum(0.0, gamma - stream.margins(w)).sum()
    return regularizer_value(w, regularizer, p) + C * float(hinge)


def dual_objective(X, y, alpha, regularizer="l2", p=2.0, gamma=1.0, fit_intercept=False):
    r""":math:`D(\alpha) = \gamma \sum_i \alpha_i - F^*(\sum_i \alpha_i y_i x_i)`.

    >>> dual_objective([[1.0, 0.0], [0.0, 1.0]], [1, -1], alpha=[0.5, 0.5])   # 1 - 1/4
    0.75
    """
    _check_choice(regularizer, p)
    stream = _Stream(X, y, fit_intercept)
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.shape != stream.y.shape:
        raise ValueError(f"alpha must have one entry per row ({stream.y.size}); got shape {alpha.shape}")
    theta = stream.Z.T @ (alpha * stream.y)
    return gamma * float(alpha.sum()) - conjugate_value(theta, regularizer, p)[0]


@dataclass(frozen=True)
class BatchOptimum:
    """The batch problem solved: the optimal w, alpha and both objectives (their gap certifies it)."""

    w: np.ndarray
    alpha: np.ndarray
    primal: float
    dual: float

    @property
    def gap(self):
        """P(w) - D(alpha) >= 0; zero exactly at the optimum."""
        return self.primal - self.dual


def batch_optimum(X, y, regularizer="l2", p=2.0, C=1.0, gamma=1.0, fit_intercept=False, tol=1e-12):
    r"""Solve :math:`\min_w P(w) = \max_\alpha D(\alpha)` on the whole stream.

    The dual is smooth and concave on the box :math:`[0, C]^m`; it is
    maximized with L-BFGS-B, and :math:`w = \nabla F^*(\theta(\alpha))`. The
    duality gap :math:`P(w) - D(\alpha)` bounds the distance of both to the
    optimum: it is the certificate of optimality of the answer.

    >>> opt = batch_optimum([[1.0, 0.0], [0.0, 1.0]], [1, -1], C=10.0)
    >>> np.round(opt.w, 6), round(opt.gap, 9)       # hard margin: w = (1, -1)
    (array([ 1., -1.]), 0.0)
    """
    from scipy.optimize import minimize

    _check_choice(regularizer, p)
    stream = _Stream(X, y, fit_intercept)
    Zy = stream.Z.multiply(stream.y[:, None]).tocsr()

    def negative_dual(alpha):
        value, grad = conjugate_value(Zy.T @ alpha, regularizer, p)
        return value - gamma * alpha.sum(), Zy @ grad - gamma

    m = stream.y.size
    found = minimize(negative_dual, np.zeros(m), jac=True, method="L-BFGS-B", bounds=[(0.0, C)] * m,
                     options={"ftol": tol, "gtol": tol, "maxiter": 100_000, "maxcor": 50})
    alpha = np.clip(found.x, 0.0, C)
    w = conjugate_value(Zy.T @ alpha, regularizer, p)[1]
    primal = regularizer_value(w, regularizer, p) + C * float(np.maximum(0.0, gamma - stream.margins(w)).sum())
    dual = gamma * float(alpha.sum()) - conjugate_value(Zy.T @ alpha, regularizer, p)[0]
    return BatchOptimum(w=w, alpha=alpha, primal=primal, dual=dual)


# -- Thm. 1: the certificate of a run -------------------------------------------


@dataclass(frozen=True)
class DualCertificate:
    r"""Thm. 1 on one run: :math:`\lambda M \le D(\alpha_{final}) \le P(w)` at the batch optimum and at the learner's w.

    P at the batch optimum is the smallest primal value, up to the optimizer's
    gap (``optimum.gap``); the learner's own final w may come within that gap
    of it or below (the Online-SVM ends at the optimum too).
    """

    n_mistakes: int
    average_increase: float  # lambda: the mean dual increase on the mistake rounds
    lower: float  # lambda * M
    dual: float  # D(alpha_final)
    primal_at_optimum: float  # P at the batch optimum w*
    primal_at_learner: float  # P at the learner's final w
    optimum: BatchOptimum

    @property
    def holds(self):
        """lambda M <= D <= both primal values, up to rounding (1e-9 relative)."""
        slack = 1e-9 * max(1.0, abs(self.primal_at_learner))
        return (self.lower <= self.dual + slack and self.dual <= self.primal_at_optimum + slack
                and self.dual <= self.primal_at_learner + slack)


def dual_certificate(estimator, X, y, result):
    r"""The certificate of Thm. 1 for a :class:`olearn.dual.DualAscent` run on (X, y).

    ``estimator`` must have learned exactly the stream (X, y), from a fresh
    start, and ``result`` be the :func:`olearn.run` of that stream (its
    mistakes name the mistake rounds). The average dual increase on mistakes
    :math:`\lambda` comes from ``estimator.dual_objective_``; the batch optimum
    from :func:`batch_optimum`. Returns a :class:`DualCertificate`.

    >>> import numpy as np
    >>> from olearn import run
    >>> from olearn.dual import DualAscent
    >>> X, y = np.array([[1.0, 0.2], [-0.5, 1.0], [0.3, -1.0]]), np.array([1, -1, 1])
    >>> est = DualAscent(update="aggressive")
    >>> cert = dual_certificate(est, X, y, run(est, X, y))
    >>> cert.n_mistakes, cert.holds
    (1, True)
    """
    duals = estimator.dual_objective_
    stream = _Stream(X, y, estimator.fit_intercept)
    if duals.size != stream.y.size or result.cumulative_mistakes.size != stream.y.size:
        raise ValueError(
            f"the estimator has learned {duals.size} rounds and the run recorded "
            f"{result.cumulative_mistakes.size}; both must be the {stream.y.size} rows of X, from a fresh start"
        )
    increases = np.diff(duals, prepend=0.0)
    mistakes = np.diff(result.cumulative_mistakes, prepend=0) > 0
    M = int(mistakes.sum())
    lam = float(increases[mistakes].mean()) if M else 0.0
    params = estimator.get_params()
    problem = {"regularizer": params["regularizer"], "p": params["p"], "C": params["C"], "gamma": params["gamma"],
               "fit_intercept": params["fit_intercept"]}
    w = np.append(estimator.coef_.ravel(), estimator.intercept_) if estimator.fit_intercept else estimator.coef_.ravel()
    optimum = batch_optimum(X, y, **problem)
    return DualCertificate(
        n_mistakes=M, average_increase=lam, lower=lam * M, dual=float(duals[-1]),
        primal_at_optimum=optimum.primal, primal_at_learner=primal_objective(X, y, w, **problem),
        optimum=optimum,
    )


# -- mistake bounds -----------------------------------------------------------------


def _hinge_sum(stream, u, gamma, mask):
    return float(np.maximum(0.0, gamma - stream.margins(u))[mask].sum())


def _conservative_bound(F_u, loss, C, gamma, r_inf):
    """Thm. 1 with the conservative step: M (gamma C - C^2 s / 2) <= F(u) + C L, s = r_inf^2.

    Exact on Fractions and rounded once when every input is finite: gamma C and C^2 s underflow for a margin
    and a step of 1e-160 (to 0, an inf bound, or to subnormals with a few bits, a wrong finite one).
    """
    if not all(math.isfinite(v) for v in (F_u, loss, C, gamma, r_inf)):
        gain = gamma * C - 0.5 * C * C * r_inf * r_inf
        return math.inf if not gain > 0.0 else (F_u + C * loss) / gain
    C, gamma = Fraction(C), Fraction(gamma)
    gain = gamma * C - C * C * Fraction(r_inf) ** 2 / 2
    if gain <= 0:
        return math.inf
    return to_float((Fraction(F_u) + C * Fraction(loss)) / gain)


def simplex_regularizer(u):
    r"""Eq. (25): :math:`F(u) = \sum_i u_i \log(n u_i)` on the n-simplex, ``inf`` off it.

    >>> simplex_regularizer([0.5, 0.5])          # uniform: 0
    0.0
    >>> round(simplex_regularizer([1.0, 0.0]), 9)     # all mass on one of 2: ln 2
    0.693147181
    """
    u = np.asarray(u, dtype=np.float64)
    if (u < 0.0).any() or abs(float(u.sum()) - 1.0) > 1e-9:
        return math.inf
    mass = u[u > 0]
    return float(np.sum(mass * np.log(u.size * mass)))


def _winnow_prior(u, balanced):
    """F(u) of Winnow's form and the log of its number of coordinates."""
    if balanced:
        return entropy_regularizer(u), math.log(2 * u.size)
    return simplex_regularizer(u), math.log(u.size)


def _max_abs_rows(stream):
    """max_j |x_{t,j}| of every row."""
    return np.asarray(abs(stream.Z).max(axis=1).todense()).ravel()


def winnow_mistake_bound(X, y, u, C, gamma=1.0, mistakes=None, fit_intercept=False, balanced=True):
    r"""Winnow's mistake bound (000 Example 2: Thm. 1 with an entropic regularizer).

    For every u in the form's domain and every margin :math:`\gamma > 0`,
    :class:`~olearn.quasi_additive.Winnow` with step C makes

    .. math:: M \le \frac{F(u) + C \sum_{t \in \mathcal M} [\gamma - y_t\, u\cdot x_t]_+}
                        {\gamma C - C^2 R_\infty^2 / 2}, \qquad R_\infty = \max_t \|x_t\|_\infty,

    mistakes when the denominator is positive (``inf`` otherwise). The text
    states it for :math:`\|x_t\|_\infty \le 1`, where the Hessian term
    :math:`\langle x, H x\rangle \le \max_i x_i^2` is at most 1; here it is
    kept as :math:`R_\infty^2`. F is the form's:

    * ``balanced=False`` (Eq. 25): :func:`simplex_regularizer`,
      :math:`\le \ln n`, finite for u on the n-simplex;
    * ``balanced=True``: the relative entropy of u's lift on the 2n-simplex
      (:func:`entropy_regularizer`, :math:`\le \ln 2n`), finite for
      :math:`\|u\|_1 \le 1`.

    The sum runs over the mistake rounds :math:`\mathcal M` (``mistakes``;
    every round if None, the text's form): a conservative learner behaves
    on them as if the other rounds were absent. The prior counts the columns
    of X (and the intercept's).

    >>> X = [[1.0, 0.0], [0.0, -1.0]]
    >>> round(winnow_mistake_bound(X, [1, 1], u=[0.5, -0.5], C=0.5, gamma=0.5), 6)   # ln 2 / (1/4 - 1/8): no loss
    5.545177
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    mask = check_mask(mistakes, stream.y.size)
    r_inf = float(abs(stream.Z).max()) if stream.Z.nnz else 0.0
    F_u = _winnow_prior(u, balanced)[0]
    return _conservative_bound(F_u, _hinge_sum(stream, u, gamma, mask), C, gamma, r_inf)


def winnow_gamma_bound(X, y, u, gamma=1.0, mistakes=None, fit_intercept=False, balanced=True):
    r"""Winnow's mistake bound with C = gamma, as 000 Example 2 states it last.

    For :class:`~olearn.quasi_additive.Winnow` run with ``C = gamma`` on a
    stream with :math:`\|x_t\|_\infty \le 1`, for every u in the form's
    domain,

    .. math:: M \le 2\Big(\frac{\ln N}{\gamma^2} + \frac1\gamma \sum_t [\gamma - y_t\, u\cdot x_t]_+\Big),

    N = n for ``balanced=False`` (u on the n-simplex) and N = 2n for the
    balanced lift (:math:`\|u\|_1 \le 1`); ``inf`` for a u outside. It is
    :func:`winnow_mistake_bound` at C = gamma with F(u) replaced by its
    largest value ln N. ``mistakes`` as there.

    Raises
    ------
    ValueError
        If some :math:`\|x_t\|_\infty > 1` (the text's assumption); the message names the row.

    >>> round(winnow_gamma_bound([[1.0, 0.0], [0.0, -1.0]], [1, 1], u=[0.5, -0.5], gamma=0.5), 6)  # 2 ln 4 / 0.25
    11.090355
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    mask = check_mask(mistakes, stream.y.size)
    rows = _max_abs_rows(stream)
    worst = int(np.argmax(rows))
    if rows[worst] > 1.0:
        raise ValueError(f"the C = gamma bound assumes ||x_t||_inf <= 1; row {worst} has ||x_t||_inf = {rows[worst]:.6g}")
    F_u, log_n = _winnow_prior(u, balanced)
    if math.isinf(F_u):
        return math.inf
    # divided by gamma twice: gamma**2 underflows to 0 below ~1e-162, where the bound is beyond the doubles (inf)
    return 2.0 * (log_n / gamma / gamma + _hinge_sum(stream, u, gamma, mask) / gamma)


def pnorm_mistake_bound(X, y, u, p, mistakes=None, fit_intercept=False):
    r"""The p-norm algorithm's mistake bound (000 Example 3: Thm. 1 with :math:`F = \tfrac12\|w\|_q^2`).

    With :math:`s = (p-1) R_p^2`, :math:`R_p = \max_t \|x_t\|_p`, the text's
    bound (Example 3, stated for s <= 1; here s is kept) reads for every u
    and every step C

    .. math:: M \le \frac{\tfrac12\|u\|_q^2 + C L}{C - C^2 s/2}, \qquad
        L = \sum_t [1 - y_t\,u\cdot x_t]_+ .

    The conservative p-norm algorithm's predictions do not depend on C, so
    the bound is its minimum over C, which substituting :math:`C' = Cs` turns
    into the Perceptron's (Eq. 24 and appendix A, Eq. 33-34):

    .. math:: M \le L + \tfrac12 b^2\Big(1 + \sqrt{1 + 4L/b^2}\Big),
        \qquad b^2 = (p-1) R_p^2 \|u\|_q^2 .

    L sums over every round, or over ``mistakes`` only (the conservative
    learner behaves on them as on the whole stream). p = 2 is
    :func:`olearn.bounds.perceptron_bound`.

    >>> round(pnorm_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, 1], u=[1.0, 1.0], p=2.0), 12)   # R^2 ||u||^2
    2.0
    """
    _check_choice("pnorm", p)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    mask = check_mask(mistakes, stream.y.size)
    s, u_q2 = _pnorm_terms(stream, u, p)
    return thm2_minimum(_hinge_sum(stream, u, 1.0, mask), to_float(s * u_q2))


def exact_p_norm_sq(a, p):
    """||a||_p^2 as a Fraction: the norm of a scaled exactly by a power of two (entries below 1), squared exactly."""
    e = _exponent(a)
    norm = Fraction(float(np.linalg.norm(np.ldexp(a, -e), p)))
    return norm * norm * Fraction(4) ** e


def _pnorm_terms(stream, u, p):
    """(s = (p - 1) R_p^2, ||u||_q^2) as exact Fractions.

    From the rows and u scaled by powers of two: the float R_p^2 of rows of 1e-170 is 0, the float ||u||_q^2 of a
    u of 1e170 overflows (``float ** 2`` raises OverflowError), where (p - 1) R_p^2 ||u||_q^2 is a plain number.
    """
    e = _exponent(stream.Z.data)
    scaled = stream.Z.copy()
    scaled.data = np.ldexp(scaled.data, -e)
    r_p = max((float(np.linalg.norm(row.toarray().ravel(), p)) for row in scaled), default=0.0)
    s = Fraction(p - 1.0) * Fraction(r_p) ** 2 * Fraction(4) ** e
    return s, exact_p_norm_sq(u, p / (p - 1.0))


# -- Sec. 5: the aggressive update, Eq. (28) ------------------------------------------


def mitigating_function(x, C):
    r"""000 Sec. 5: :math:`\mu(x) = \frac1C \min\{x, C\}\big(x - \tfrac12\min\{x, C\}\big)`.

    :math:`x^2/(2C)` below C, :math:`x - C/2` above (Fig. 2): close to the
    identity for small C. Elementwise on arrays.

    >>> float(mitigating_function(1.0, 0.5)), float(mitigating_function(0.5, 2.0))   # 1 - 1/4; 1/4 / 4
    (0.75, 0.0625)
    """
    x = np.asarray(x, dtype=np.float64)
    capped = np.minimum(x, C)
    return capped * (x - 0.5 * capped) / C


def _check_thm3(stream, regularizer, p):
    """Thm. 3 assumes <x_t, H(theta) x_t> <= 1; s_t (Sec. 4's bound on it) <= 1 is checked."""
    Z = stream.Z
    if regularizer == "l2":
        s = stream.sqnorms
    elif regularizer == "entropy":
        s = _max_abs_rows(stream) ** 2
    else:
        s = (p - 1.0) * np.array([float(np.linalg.norm(row.toarray().ravel(), p)) for row in Z]) ** 2
    worst = int(np.argmax(s))
    if s[worst] > 1.0 + 1e-12:
        norm = {"l2": "||x_t||_2^2", "entropy": "||x_t||_inf^2", "pnorm": "(p - 1) ||x_t||_p^2"}[regularizer]
        raise ValueError(f"Thm. 3 assumes {norm} <= 1 on every round; row {worst} has {s[worst]:.6g}")


def aggressive_dual_loss_bound(X, y, u, C, regularizer="l2", p=2.0, gamma=1.0, fit_intercept=False):
    r"""000 Thm. 3: the loss bound of the aggressive dual update (Eq. 28).

    For :class:`olearn.dual.DualAscent` with ``update="aggressive"`` (and, by
    Eq. 32, ``"last-k"`` and ``"all"``), if :math:`\langle x_t, H x_t\rangle \le 1`
    on every round (checked through :math:`\|x_t\|_2^2`,
    :math:`\|x_t\|_\infty^2` or :math:`(p-1)\|x_t\|_p^2 \le 1`), then for every u

    .. math:: \sum_t \mu(\ell_t) \le \frac1C F(u) + \sum_t [\gamma - y_t\, u\cdot x_t]_+ ,

    with :math:`\ell_t` the learner's hinge loss at margin :math:`\gamma`
    before round t (``result.losses``) and :func:`mitigating_function` μ.
    The text writes it for :math:`\gamma = 1`; its proof (Eq. 29) carries
    :math:`\gamma` through. Returns the right-hand side.

    Raises
    ------
    ValueError
        If an instance breaks the assumption; the message names the row.

    >>> aggressive_dual_loss_bound([[1.0, 0.0], [0.0, 1.0]], [1, 1], u=[1.0, 1.0], C=0.5)   # (1/2 ||u||^2) / C
    2.0
    """
    _check_choice(regularizer, p)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    _check_thm3(stream, regularizer, p)
    loss = _hinge_sum(stream, u, gamma, np.ones(stream.y.size, dtype=bool))
    F_u = _exact_regularizer(u, regularizer, p)
    if F_u is None or not (math.isfinite(C) and math.isfinite(loss)):
        return regularizer_value(u, regularizer, p) / C + loss
    return to_float(F_u / Fraction(C) + Fraction(loss))


def aggressive_dual_mistake_bound(X, y, u, C, regularizer="l2", p=2.0, gamma=1.0, fit_intercept=False):
    r"""000 Eq. (30): the mistake bound of the aggressive dual update.

    Under Thm. 3's assumption (checked as in :func:`aggressive_dual_loss_bound`)
    every mistake raises the dual by at least

    .. math:: \lambda \ge C\mu(\gamma) = \begin{cases} \gamma C - \tfrac12 C^2 & C \le \gamma \\
        \tfrac12\gamma^2 & C > \gamma \end{cases}

    and no round lowers it, so :math:`\lambda M \le P(u)` for every u:

    .. math:: M \le \frac{F(u) + C\sum_t [\gamma - y_t\, u\cdot x_t]_+}{C\mu(\gamma)} .

    >>> aggressive_dual_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, 1], u=[1.0, 1.0], C=0.5)   # 1 / (1/2 - 1/8)
    2.6666666666666665
    """
    _check_choice(regularizer, p)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    _check_thm3(stream, regularizer, p)
    loss = _hinge_sum(stream, u, gamma, np.ones(stream.y.size, dtype=bool))
    F_u = _exact_regularizer(u, regularizer, p)
    if F_u is None or not all(math.isfinite(v) for v in (C, gamma, loss)):
        gain = C * float(mitigating_function(gamma, C))
        return (regularizer_value(u, regularizer, p) + C * loss) / gain
    # C mu(gamma) = min(gamma, C) (gamma - min(gamma, C) / 2), exact: gamma^2 / 2 of 1e-160 underflows to 0
    C, capped = Fraction(C), Fraction(min(gamma, C))
    return to_float((F_u + C * Fraction(loss)) / (capped * (Fraction(gamma) - capped / 2)))


def _exact_regularizer(u, regularizer, p):
    """F(u) as a Fraction, exact where the float ||u||^2 under- or overflows; None where F(u) is inf."""
    if regularizer == "l2":
        return exact_sq_norm(u) / 2
    if regularizer == "entropy":
        value = entropy_regularizer(u)
        return Fraction(value) if math.isfinite(value) else None
    return exact_p_norm_sq(u, p / (p - 1.0)) / 2


def aggressive_pnorm_mistake_bound(X, y, u, p, C, fit_intercept=False):
    r"""The mistake bound of ``DualAscent(regularizer="pnorm", p=p, update="last-k", k=1, C=C)``.

    That learner maximizes the dual exactly over the round's own variable in
    :math:`[0, C]`, so its increase is at least that of the step
    :math:`\eta_t = \min\{C, \ell_t/((p-1)\|x_t\|_p^2)\}`, which maximizes the
    lower bound :math:`\eta\ell_t - \eta^2(p-1)\|x_t\|_p^2/2` of the dual
    increase; so on a mistake (:math:`\ell_t \ge 1`) the increase is at least
    :math:`\lambda = a - a^2 (p-1) R_p^2/2` with :math:`a = \min\{C, 1/((p-1)R_p^2)\}`,
    and never negative elsewhere. Thm. 1 then gives, for every u,

    .. math:: M \le \frac{\tfrac12\|u\|_q^2 + C \sum_t [1 - y_t\, u\cdot x_t]_+}{\lambda},

    the sum over every round (the algorithm also updates on margin errors).

    >>> round(aggressive_pnorm_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, 1], u=[1.0, 1.0], p=2.0, C=1.0), 12)
    2.0
    """
    _check_choice("pnorm", p)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    s, u_q2 = _pnorm_terms(stream, u, p)
    loss = _hinge_sum(stream, u, 1.0, np.ones(stream.y.size, dtype=bool))
    # exact, rounded once: (p - 1) R_p^2 and ||u||_q^2 may be beyond the doubles where the bound is not
    if math.isinf(loss):
        return math.inf
    if s == 0:  # lambda = C: ||u||_q^2 / 2C + L
        return loss if math.isinf(C) else to_float(u_q2 / (2 * Fraction(C)) + Fraction(loss))
    if math.isinf(C):  # a = 1/s, lambda = 1/2s: s ||u||_q^2 + 2 s C L, with inf * 0 = 0
        return to_float(s * u_q2) if loss == 0 else math.inf
    a = min(Fraction(C), 1 / s)
    return to_float((u_q2 / 2 + Fraction(C) * Fraction(loss)) / (a - a * a * s / 2))
