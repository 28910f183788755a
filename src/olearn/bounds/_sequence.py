r"""The loss bound of Passive-Aggressive sequence prediction.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Sec. 9: "The analysis of the cost-sensitive PA
updates carries over verbatim to the sequence prediction setting". That
analysis is Lemma 9 (Sec. 8): for both the prediction-based and the max-loss
update, with the learner's loss :math:`\ell_t` of the rival it used,

.. math:: \sum_t \tau_t\big(2\ell_t - \tau_t\|\Phi(X_t, y_t) - \Phi(X_t, r_t)\|^2
    - 2\ell_{ML}(u; (X_t, y_t))\big) \le \|u\|^2,
    \qquad \ell_{ML}(u; (X, y)) = \max_{r}\big(u\cdot(\Phi(X, r) - \Phi(X, y)) + \sqrt{\rho(y, r)}\big),

from which the proofs of Thm. 2, 4 (as in Thm. 10) and 5 give the bounds of
:func:`sequence_loss_bound`. The features are those of
:class:`olearn.sequence.PASequence` (Eq. (59) with a start state, and the
learner's per-label bias and end transition when it has them): a competitor is
an emission matrix (one row per label, in sorted label order, plus an
intercept column with ``fit_intercept=True``), a transition matrix of shape
(k + 1, k), the last row from the start, and with an end transition its
weights (one per label), the layout of the learner's ``coef_`` /
``intercept_``, ``transition_`` and ``end_transition_``.

* :math:`\ell_{ML}` is a maximum over all :math:`k^T` labellings; for a cost
  of the Hamming distance (``"hamming"``, ``"sqrt-hamming"`` or a
  :class:`~olearn.sequence.HammingCost`) it is found exactly by a Viterbi
  recursion over (position, label, errors so far). Other costs are refused.
* The theorems need an R with :math:`\|\Phi(X_t, y_t) - \Phi(X_t, r)\| \le R`
  for the rivals the learner meets, which are not known in advance. Each
  position adds at most :math:`\sqrt2\|x_{t,j}\|` to the emission part and
  :math:`\sqrt2` to the transition part, and the end transition (one label
  against another) :math:`\sqrt2`, so (olearn's choice, valid for every
  rival, loose for long sequences)
  :math:`R^2 = 2\max_t\big(\sum_j \|x_{t,j}\| + T_t + e\big)^2`, the
  constant feature counted in :math:`\|x_{t,j}\|` with ``fit_intercept=True``,
  e = 1 with an end transition and 0 without.

The bound is on the losses the learner records (``result.losses``, and
``result.taus`` for PA-I); on a sequence whose labels were all known before it
and with the prediction-based update, :math:`\rho(y_t, \hat y_t) \le \ell_t^2`
(Eq. (46)), so the bound also caps the cumulative cost of those sequences.
"""

import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..sequence._costs import HammingCost, resolve_cost
from ..sequence._inputs import check_label_sequences, check_sequences
from ._theorems import _check_C, _exponent, r2_u2, to_float


def _competitor(emission, transition, end, k, width, fit_intercept):
    emission = np.asarray(emission, dtype=np.float64)
    transition = np.asarray(transition, dtype=np.float64)
    end = np.zeros(k) if end is None else np.asarray(end, dtype=np.float64)
    extra = 1 if fit_intercept else 0
    if emission.ndim != 2 or emission.shape[0] != k or emission.shape[1] < width + extra:
        raise ValueError(
            f"emission must have shape ({k}, n_features{' + 1' if extra else ''}): one row per label (sorted), at "
            f"least {width} feature columns{' and the intercept column' if extra else ''}; got {emission.shape}"
        )
    if transition.shape != (k + 1, k):
        raise ValueError(f"transition must have shape ({k + 1}, {k}) (the last row from the start); got "
                         f"{transition.shape}")
    if end.shape != (k,):
        raise ValueError(f"end_transition must have shape ({k},) (one weight per label); got {end.shape}")
    if not (np.isfinite(emission).all() and np.isfinite(transition).all() and np.isfinite(end).all()):
        raise ValueError("emission, transition and end_transition must hold finite values")
    return emission, transition, end


def _max_loss(em, true, transition, margins):
    """max over labellings r of score(r) - score(y) + margins[h(r, y)], by Viterbi over (label, errors)."""
    n, k = em.shape
    if n == 0:
        return 0.0
    start = transition[k]
    # best[a, h]: the best score of a prefix ending in label a with h positions unlike y
    best = np.full((k, n + 1), -np.inf)
    wrong = np.arange(k) != true[0]
    best[np.arange(k), wrong.astype(np.int64)] = start + em[0]
    for t in range(1, n):
        moved = best[:, None, :] + transition[:k, :, None]  # (previous label, label, errors)
        step = moved.max(axis=0)  # (label, errors)
        wrong = np.arange(k) != true[t]
        shifted = np.full((k, n + 1), -np.inf)
        shifted[~wrong] = step[~wrong]
        shifted[wrong, 1:] = step[wrong, :-1]
        best = shifted + em[t][:, None]
    score_y = start[true[0]] + em[np.arange(n), true].sum() + transition[true[:-1], true[1:]].sum()
    return float((best.max(axis=0) + margins).max() - score_y)


def sequence_loss_bound(X, y, emission, transition, variant="pa1", C=1.0, cost="hamming", classes=None,
                        fit_intercept=False, end_transition=None):
    r"""PA / PA-I / PA-II sequence prediction: the cost-sensitive bounds of Sec. 8, carried to Sec. 9.

    With :math:`\ell^*_t = \ell_{ML}(u; (X_t, y_t))` and R as in the module
    docstring, for both updates (``"prediction"`` and ``"max-loss"``):

    * ``"pa"`` (Thm. 2): :math:`\sum_t \ell_t^2 \le R^2\|u\|^2` when every
      :math:`\ell^*_t = 0` (u beats every rival by :math:`\sqrt\rho`), else ``inf``;
    * ``"pa1"`` (Eq. (57), the step of Thm. 10): :math:`\sum_t \tau_t\ell_t \le
      \|u\|^2 + 2C\sum_t \ell^*_t`;
    * ``"pa2"`` (Thm. 5): :math:`\sum_t \ell_t^2 \le (R^2 + \frac{1}{2C})
      (\|u\|^2 + 2C\sum_t (\ell^*_t)^2)`.

    Parameters
    ----------
    X : list of 2-d arrays (or sparse matrices, or lists of dict rows)
        The sequences, as :class:`olearn.sequence.PASequence` takes them.
    y : list of 1-d label arrays
    emission : array-like, shape (k, n_features) (+1 column with ``fit_intercept``)
        The competitor's emission weights, one row per label in sorted order.
    transition : array-like, shape (k + 1, k)
        The competitor's transition weights; the last row is from the start.
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (unused by ``"pa"``).
    cost : "hamming", "sqrt-hamming" or HammingCost, default="hamming"
    classes : collection of labels, optional
        All the labels, if some never appear in y.
    fit_intercept : bool, default=False
        Whether Phi has the per-label bias (the learner's ``fit_intercept``, on by default there).
    end_transition : array-like of shape (k,), optional
        The competitor's end-transition weights, for a learner with the end
        transition (its ``end_transition=True``, the default there; zeros
        for a competitor without them); None: Phi without it.

    Returns
    -------
    float

    Examples
    --------
    One sequence of two positions, x = (1), (1), labels (a, b); u scores a
    and b equally everywhere: the worst rival (b, a) has score difference 0
    and Hamming distance 2, so :math:`\ell^* = \sqrt 2`.

    >>> import numpy as np
    >>> from olearn.bounds import sequence_loss_bound
    >>> X, y = [np.ones((2, 1))], [["a", "b"]]
    >>> E, T = np.zeros((2, 1)), np.zeros((3, 2))
    >>> round(sequence_loss_bound(X, y, E, T, variant="pa1", C=0.5), 6)   # 0 + 2 * 0.5 * sqrt(2)
    1.414214
    >>> sequence_loss_bound(X, y, E, T, variant="pa")
    inf
    """
    if variant not in ("pa", "pa1", "pa2"):
        raise ValueError(f"variant must be one of 'pa', 'pa1', 'pa2'; got {variant!r}")
    return SequenceTerms(X, y, emission, transition, cost, classes, fit_intercept, end_transition).bound(variant, C)


class SequenceTerms:
    """What the bound needs of a competitor on a stream of sequences, for the competitor scaled by any factor.

    The scores of the labels at every position and the transition weights
    scale with the competitor, so :meth:`losses` and :meth:`bound` of
    ``scale * u`` cost one Viterbi pass per sequence, not a new product of
    the rows with the emission weights.
    """

    def __init__(self, X, y, emission, transition, cost="hamming", classes=None, fit_intercept=False,
                 end_transition=None):
        resolved = resolve_cost(cost) if isinstance(cost, str) and cost in ("hamming", "sqrt-hamming") else cost
        if not isinstance(resolved, HammingCost):
            raise ValueError(
                f"cost {cost!r}: the bound needs the competitor's max-loss over all labellings, which olearn finds "
                "exactly for a cost of the Hamming distance only ('hamming', 'sqrt-hamming' or a HammingCost)"
            )
        batch = check_sequences(X)
        labels = check_label_sequences(y, batch.offsets)
        if batch.n_sequences == 0:
            raise ValueError("X has no sequences; a bound needs at least one round")
        known = np.unique(labels) if classes is None else np.unique(np.asarray(classes))
        position = np.searchsorted(known, labels)
        if labels.size and (np.any(position >= known.size)
                            or np.any(known[np.minimum(position, known.size - 1)] != labels)):
            raise ValueError(f"y has a label that is not one of classes={known.tolist()}")
        k = known.size
        width = int(batch.widths.max())
        emission, transition, end = _competitor(emission, transition, end_transition, k, width, fit_intercept)
        arrays = batch.arrays
        # every position's score of every label, from the sparse rows (a dense copy would take n_rows x d floats)
        rows = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=(arrays.n_rows, width))
        self.scores = np.asarray(rows @ emission[:, :width].T)
        # the rows scaled exactly by 2^-e (e > 0 only: R >= sqrt 2 never underflows), so that their squares do
        # not overflow where R^2 ||u||^2 is a plain number
        e = max(_exponent(arrays.data), 0)
        squares = np.bincount(np.repeat(np.arange(arrays.n_rows), np.diff(arrays.indptr)),
                              weights=np.ldexp(arrays.data, -e) ** 2, minlength=arrays.n_rows)
        if fit_intercept:
            self.scores += emission[:, -1]
            squares += math.ldexp(1.0, -2 * e)
        # the end transition weighs the label of each sequence's last position
        lasts = batch.offsets[1:][np.diff(batch.offsets) > 0] - 1
        self.scores[lasts] += end
        norms = np.ldexp(np.sqrt(squares), e)
        self.transition = transition
        self.position = position
        self.offsets = batch.offsets
        self.cost = resolved
        ends = 0 if end_transition is None else 1
        radius = max(math.sqrt(2.0) * (float(norms[lo:hi].sum()) + (hi - lo) + (ends if hi > lo else 0))
                     for lo, hi in zip(self.offsets[:-1], self.offsets[1:]))
        # exact Fractions: R^2 of rows of 1e170 and ||u||^2 of a competitor of 1e-170 leave the doubles
        self.r2 = Fraction(radius) ** 2
        e = _exponent(np.concatenate([emission.ravel(), transition.ravel(), end]))
        self.u2 = Fraction(float((np.ldexp(emission, -e) ** 2).sum() + (np.ldexp(transition, -e) ** 2).sum()
                                 + (np.ldexp(end, -e) ** 2).sum())) * Fraction(4) ** e

    def losses(self, scale=1.0):
        """The competitor's max-losses ``l*_t`` on each sequence, the competitor multiplied by ``scale``."""
        losses = np.empty(self.offsets.size - 1)
        transition = scale * self.transition
        for i, (lo, hi) in enumerate(zip(self.offsets[:-1], self.offsets[1:])):
            margins = self.cost.margins(int(hi - lo))
            losses[i] = max(0.0, _max_loss(scale * self.scores[lo:hi], self.position[lo:hi], transition, margins))
        return losses

    def bound(self, variant, C=1.0, scale=1.0, losses=None):
        """The bound of ``variant`` for the competitor multiplied by ``scale`` (its ``losses`` if known)."""
        losses = self.losses(scale) if losses is None else losses
        u2 = Fraction(scale) ** 2 * self.u2
        if variant == "pa":
            return r2_u2(self.r2, u2) if losses.max() == 0.0 else math.inf
        C = _check_C(C)
        loss = float(losses.sum() if variant == "pa1" else losses @ losses)
        if math.isinf(loss) or (math.isinf(C) and loss > 0):  # C L with inf * 0 = 0
            return math.inf
        C_loss = 0 if loss == 0 else Fraction(C) * Fraction(loss)
        if variant == "pa1":
            return to_float(u2 + 2 * C_loss)
        # (R^2 + 1/2C)(||u||^2 + 2 C L2), exact and rounded once (R^2 >= 2 > 0)
        return to_float((self.r2 + (0 if math.isinf(C) else 1 / (2 * Fraction(C)))) * (u2 + 2 * C_loss))
