"""The passes of ``fit``: up to ``max_iter`` online passes, stopped as scikit-learn's ``SGDClassifier`` stops them.

:meth:`olearn._learner.OnlineLearner.fit` and :meth:`olearn.compose.Pipeline.fit`
make their passes here (the rule is written out in the former's docstring): each
pass visits the rows in a new order drawn from a generator seeded by the learner's
``random_state`` when its ``shuffle`` (else in the given order); with L the mean
loss of a pass and ``best`` the smallest L of the passes before, a pass with
``L > best - tol`` counts as no improvement, any other resets the count, and
``n_iter_no_change`` such passes in a row stop. An error a shuffled pass raises
names the rows of X it speaks of (:func:`rows_named_in_given_order`).
"""

import contextlib
import math
import re
import warnings

import numpy as np

from ._kernels._codes import T_LOSS
from .exceptions import ConvergenceWarning


def make_passes(learner, n_rows, learn_pass):
    """Make the passes of ``fit`` over ``n_rows`` rows by ``learner``'s ``max_iter``, ``tol``, ``n_iter_no_change``,
    ``shuffle`` and ``random_state``; returns (the number of passes made, whether they ran out before the rule
    stopped them).

    ``learn_pass(order)`` learns the rows in the order ``order`` (None: as given) and returns the pass's totals
    (``_codes.T_*``), whose summed loss the rule reads. No rows: one pass, which does not run out.
    """
    generator = np.random.default_rng(learner.random_state) if learner.shuffle else None
    tol = -math.inf if learner.tol is None else learner.tol
    best, no_improvement = math.inf, 0
    for done in range(1, learner.max_iter + 1):
        order = None if generator is None else generator.permutation(n_rows)
        with rows_named_in_given_order(order):
            totals = learn_pass(order)
        if n_rows == 0:
            return done, False
        loss = totals[T_LOSS] / n_rows
        no_improvement = no_improvement + 1 if loss > best - tol else 0
        best = min(best, loss)
        if no_improvement >= learner.n_iter_no_change:
            return done, False
    return done, True


def warn_unconverged(learner, owner, passes_of=""):
    """The :class:`~olearn.exceptions.ConvergenceWarning` of a ``fit`` whose passes ran out (:func:`make_passes`)
    where the rule could have stopped them (a ``tol``, ``max_iter > n_iter_no_change``); ``owner`` names the
    estimator, and ``passes_of`` (" of PA", say) the learner whose passes they are. It points at the caller of
    ``fit``."""
    if learner.tol is not None and learner.max_iter > learner.n_iter_no_change:
        # an instance, so that the category is scikit-learn's class too when scikit-learn is loaded
        warnings.warn(
            ConvergenceWarning(
                f"{owner}: fit made all max_iter={learner.max_iter} passes{passes_of} and the mean loss of a pass "
                f"was still falling by more than tol={learner.tol}; raise max_iter to let it converge (or set "
                "tol=None to make a fixed number of passes)"
            ),
            stacklevel=3,
        )


@contextlib.contextmanager
def rows_named_in_given_order(order):
    """Say which rows of X the row numbers of an error raised in a shuffled pass are.

    A pass counts its rows (or sequences) in its own order; an error that names
    one (a label refused at row 3, an overflow at sequence 5) gets the place of
    that row in X added, as an exception of the same type.
    """
    try:
        yield
    except Exception as err:
        if order is None:
            raise
        named = sorted({(word, int(k)) for word, k in re.findall(r"\b(row|sequence) (\d+)", str(err))
                        if int(k) < len(order)})
        if not named:
            raise
        where = ", ".join(f"its {word} {k} is {word} {order[k]} of X" for word, k in named)
        try:
            moved = type(err)(f"{err} [in a pass of fit, which visits X in a shuffled order: {where}]")
        except Exception:
            raise err from None
        raise moved from err
