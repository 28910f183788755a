"""What :func:`olearn.bounds.bound_report` returns: its rows, the table they print as, the quantities they measure."""

import math
from dataclasses import dataclass, field

import numpy as np

MISTAKES = "mistakes"
HINGE_LOSS = "sum of hinge losses"
UPDATES = "updates"
SQUARED_LOSS = "sum of squared losses"


@dataclass(frozen=True)
class BoundRow:
    """One theorem evaluated on one run.

    Attributes
    ----------
    theorem : str
        Paper and theorem, e.g. ``"Crammer et al. 2006, Thm. 4 (PA-I)"``.
    quantity : str
        ``"mistakes"``, ``"updates"`` (mistakes plus margin errors), ``"sum
        of squared losses"`` or ``"sum of hinge losses"`` (of the learner's
        hinge loss before each update).
    measured : float
        That quantity in the run.
    bound : float
        The theorem's bound for the competitor ``u``.
    u_norm : float
        :math:`\\|u\\|`.
    competitor_loss : float
        The loss of u that enters the bound: the sum of :math:`\\ell^*_t` (PA-I;
        over the mistakes for the Second-Order Perceptron, over the update
        rounds for AROW),
        of :math:`(\\ell^*_t)^2` (PA Thm. 3, PA-II, Shalev-Shwartz & Singer's
        Thm. 2 with :math:`\\ell^*_t`); 0 for the separable theorems, which
        require it.
    holds : bool
        ``measured <= bound * (1 + 1e-9)``.
    u : ndarray
        The competitor (one entry per feature, plus the bias with an intercept;
        for PAMulticlass one such row per class, u_norm then being ||U||_F;
        for PAUniclass the competitor's center).
    radius : float or None
        The competitor's radius epsilon for PAUniclass (the learner's own with
        a fixed radius, the searched one with ``learn_radius=True``); None
        for the other learners.
    gamma : float or None
        The margin :math:`\\gamma` at which the bound is evaluated, for the
        rows of Winnow and the conservative entropic DualAscent (searched:
        those learners do not depend on it); None for the other rows.
    """

    theorem: str
    quantity: str
    measured: float
    bound: float
    u_norm: float
    competitor_loss: float
    holds: bool
    u: np.ndarray = field(repr=False, compare=False)
    radius: float = None
    gamma: float = None


@dataclass(frozen=True)
class BoundReport:
    """The bounds that apply to one run, and the theorems that do not.

    ``str(report)`` is a table: theorem | quantity | measured | bound | ||u|| |
    loss of u | holds, followed by the theorems left out and why.

    Attributes
    ----------
    learner : str
        The estimator, as ``repr`` shows it.
    n_rounds : int
    rows : tuple of BoundRow
    skipped : tuple of (str, str)
        (theorem, reason) for each theorem of the learner that does not apply.
    """

    learner: str
    n_rounds: int
    rows: tuple
    skipped: tuple = ()

    @property
    def all_hold(self):
        """True when every bound holds."""
        return all(row.holds for row in self.rows)

    def __str__(self):
        header = ("theorem", "quantity", "measured", "bound", "||u||", "loss of u", "holds")
        lines = [
            (row.theorem, row.quantity, _number(row.measured), _number(row.bound), _number(row.u_norm),
             _number(row.competitor_loss), "yes" if row.holds else "NO")
            for row in self.rows
        ]
        widths = [max(len(text[k]) for text in [header, *lines]) for k in range(len(header))]
        numeric = (False, False, True, True, True, True, False)

        def fmt(cells):
            parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)]
            return " | ".join(parts).rstrip()

        out = [f"{self.learner} on {self.n_rounds} rounds: measured vs bound", fmt(header)]
        out.append("-+-".join("-" * w for w in widths))
        out.extend(fmt(cells) for cells in lines)
        if not self.rows:
            out.append("(no theorem applies)")
        for theorem, reason in self.skipped:
            out.append(f"not applicable: {theorem}: {reason}")
        return "\n".join(out)


def _number(value):
    if math.isinf(value):
        return "inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def _row(theorem, quantity, measured, bound, u, loss):
    measured = float(measured)
    return BoundRow(
        theorem=theorem,
        quantity=quantity,
        measured=measured,
        bound=float(bound),
        u_norm=float(np.linalg.norm(u)),
        competitor_loss=float(loss),
        holds=bool(measured <= bound * (1.0 + 1e-9)),
        u=u,
    )


def _report(estimator, result, rows, skipped):
    return BoundReport(learner=repr(estimator), n_rounds=int(result.n_rounds), rows=tuple(rows), skipped=tuple(skipped))
