"""One compiled engine for the multiclass learners.

Every learner here is the move ``w <- w + sum_a c_a Phi(x, a)`` (DESIGN.md): the
virtual instance is ``z = Phi(x, y) - sum_{a != y} c_a Phi(x, a)``. The rule code
(the codes live in :mod:`._multiclass_codes`, which the learners read without numba)
says how the coefficients are chosen:

* ``RULE_PA`` (Crammer et al. 2006, Sec. 7-8): one rival ``r`` chosen by the rival
  code, ``c_y = tau``, ``c_r = -tau``, with tau from the shared ``weighted_pa_step`` on the
  loss ``margin(y, r) - (s_y - s_r)`` and ``s = ||z||^2``;
* ``RULE_PERCEPTRON`` (Crammer & Singer 2003, Fig. 2): on the error set
  ``E = {a != y : s_a >= s_y}``, ``c_y = 1`` and ``-c_a`` split over E uniformly, all on the
  top scorer, or in proportion to ``s_a - s_y``;
* ``RULE_MIRA`` (Crammer & Singer 2003, Sec. 6): the coefficients solve the quadratic
  program ``min 1/2 A sum_a c_a^2 + sum_a c_a (s_a - beta [a = y])`` subject to
  ``c_a <= [a = y]`` and ``sum_a c_a = 0``, with ``A = ||x||^2``, exactly, by sorting.

Two geometries share those rules. Multi-prototype: one weight column per class,
``W`` of shape (d + 1, k) feature-major (a row's classes are contiguous, so scoring
a sparse row reads one cache line per feature), its last row the intercepts;
``Phi(x, a)`` puts x in column a, so ``||z||^2 = 2 ||x||^2`` for one rival.
Single prototype: a user feature map gives ``Phi(x, a)`` as the rows of a small CSR
block (one row per class), ``w`` is one vector, and ``||z||^2`` is computed exactly by
merging the two sparse rows; the intercept is then one bias per class (``wb``).

Importance weights (one per row, an empty array for the unweighted stream) enter
the coefficients: a weight v turns PA-I's and PA-II's C into v C (PA, C = inf,
stays PA for v > 0), scales the Perceptron's coefficients by v, and turns MIRA's
bound ``c_y <= 1`` into ``c_y <= v``; weight 0 moves nothing. Averaging
(``MP_AVERAGE`` = a > 0, scikit-learn's ``average``) keeps beside the weights a
time-stamped sum ``A = sum_t max(t - a, 0) delta_t`` of the updates ``delta_t``
made on round t (rounds counted by ``clock``); after round t >= a the mean of the
weights of rounds a .. t is ``W - A / (t - a + 1)``, so an update costs one more
write per touched weight and nothing happens before round a + 1.

Classes live in *slots* numbered in order of first appearance; ``ranks[a]`` is the
position of slot a among the sorted classes and breaks every tie (the lowest rank
wins), so that the kernel agrees with ``numpy.argmax`` over sorted columns. Slots
``0 .. n_active[0] - 1`` take part in predictions; a row whose label slot equals
``n_active[0]`` brings a new class, which joins with a zero prototype after the
prediction of that row.
"""

import math

import numpy as np

from ._jit import njit
from ._multiclass_codes import (
    RULE_PA,
    RULE_PERCEPTRON,
    RULE_MIRA,
    RIVAL_PREDICTED,
    RIVAL_MAX_LOSS,
    SPLIT_MAX,
    SPLIT_PROPORTIONAL,
    MK_RULE,
    MK_RIVAL,
    MK_STEP,
    MK_SPLIT,
    MP_C,
    MP_BETA,
    MP_BIAS,
    MP_AVERAGE,
    OK,
    OVERFLOW,
    NOT_ORTHONORMAL,
)
from ._steps import weighted_pa_step
from ._totals import add_totals

# Below this bound on |W| entries no PA update can overflow (see learn_row).
_SAFE = 1e300
# the ``held`` of a pass that holds no row out (see :func:`held_out_multiclass_pass`)
_NONE_HELD = np.zeros(0, dtype=np.bool_)

# Relative tolerance of the orthogonality check of MIRA with a feature map.
_ORTHO_TOL = 1e-9


@njit(cache=True)
def unpack_config(params, codes):
    """The hyperparameters as scalars (kept in registers by the per-row code)."""
    return codes[MK_RULE], codes[MK_RIVAL], codes[MK_STEP], codes[MK_SPLIT], params[MP_C], params[MP_BETA], params[MP_BIAS]


# The small helpers are compiled apart and LLVM inlines them; numba's own inlining
# (``inline="always"``) is kept to the row function, the loop and predict_and_join, since
# its cost grows with each level of nesting (see ``_binary_linear.binary_linear_pass``).
@njit(cache=True, _nrt=False)
def margin_of(margins, y, r):
    """sqrt(rho(y, r)); an empty matrix means the plain multiclass margin 1."""
    if margins.shape[0] == 0:
        return 1.0
    return margins[y, r]


@njit(cache=True, _nrt=False)
def outranks(a, b, scores, ranks):
    """Slot a beats slot b: a higher score, or the same score and a lower rank."""
    return scores[a] > scores[b] or (scores[a] == scores[b] and ranks[a] < ranks[b])


@njit(cache=True, inline="always")
def predict_and_join(scores, n, y, ranks):
    """(prediction, top wrong label, classes after the round) of a row whose scores are known.

    One pass finds the top wrong label; the prediction is it or y, whichever
    outranks the other. A label slot ``y >= n`` is a new class: it joins with
    score 0 after the prediction, which is then the top known class (-1 if none).
    """
    # typed int64 from the start: while numba infers the loop, a literal -1 would have the
    # functions this label is handed to (general_update, ...) compiled once more for that literal
    wrong = np.int64(-1)
    for a in range(n):
        if a != y and (wrong < 0 or outranks(a, wrong, scores, ranks)):
            wrong = a
    if y >= n:
        scores[y] = 0.0
        return wrong, wrong, n + 1
    pred = y if wrong < 0 or outranks(y, wrong, scores, ranks) else wrong
    return pred, wrong, n


@njit(cache=True)
def pa_rival(rival, scores, n, y, pred, wrong, ranks, margins):
    """(r, loss) of RULE_PA; r = -1 when no rival exists or the loss is 0. ``wrong``: the top wrong label."""
    if rival == RIVAL_MAX_LOSS:
        r = -1
        best = 0.0
        for a in range(n):
            if a == y:
                continue
            v = scores[a] - scores[y] + margin_of(margins, y, a)
            if v > best or (r >= 0 and v == best and ranks[a] < ranks[r]):
                r = a
                best = v
        return r, best
    r = pred if rival == RIVAL_PREDICTED else wrong
    if r < 0 or r == y:
        return -1, 0.0
    loss = margin_of(margins, y, r) - (scores[y] - scores[r])
    if loss <= 0.0:
        return -1, 0.0
    return r, loss


@njit(cache=True, _nrt=False)
def multiclass_hinge(scores, y, wrong):
    """max(0, 1 - (s_y - max_{a != y} s_a)); 0 with no other class."""
    if wrong < 0:
        return 0.0
    return max(0.0, 1.0 - (scores[y] - scores[wrong]))


@njit(cache=True)
def perceptron_coefficients(split, scores, n, y, ranks, coef):
    """Fill ``coef`` for RULE_PERCEPTRON; return the size of the error set.

    The proportional split of an error set whose scores all equal s_y (0/0) falls
    back to the uniform one.
    """
    s_y = scores[y]
    count = 0
    total = 0.0
    top = -1
    for a in range(n):
        if a != y and scores[a] >= s_y:
            count += 1
            total += scores[a] - s_y
            if top < 0 or outranks(a, top, scores, ranks):
                top = a
    if count == 0:
        return 0
    coef[y] = 1.0
    if split == SPLIT_MAX:
        coef[top] = -1.0
        return count
    proportional = split == SPLIT_PROPORTIONAL and total > 0.0
    for a in range(n):
        if a != y and scores[a] >= s_y:
            coef[a] = -(scores[a] - s_y) / total if proportional else -1.0 / count
    return count


@njit(cache=True)
def mira_coefficients(scores, n, y, A, beta, work, coef):
    """Fill ``coef`` with MIRA's exact solution; return True if it moves anything.

    With ``D_a = s_a / A + [a = y] (1 - beta / A)``, the solution is
    ``c_a = min(theta, D_a) - (s_a - beta [a = y]) / A`` where theta solves
    ``sum_a min(theta, D_a) = sum_a D_a - 1``: with D sorted in decreasing order,
    ``theta = (D_(1) + ... + D_(j) - 1) / j`` for the largest j with
    ``D_(j) > (D_(1) + ... + D_(j) - 1) / j`` (Crammer & Singer 2003, Sec. 6).
    """
    if A <= 0.0 or n < 2:
        return False  # with the true class alone, c = 0 is the only feasible point
    # c = 0 solves the program exactly when every margin s_y - s_a is at least beta
    # (its KKT conditions); deciding it here keeps rounding from producing a
    # 1e-17 step, which a kernel learner would store as a support vector
    satisfied = True
    for a in range(n):
        satisfied = satisfied and (a == y or scores[y] - scores[a] >= beta)
    if satisfied:
        return False
    for a in range(n):
        d = scores[a] / A
        if a == y:
            d += 1.0 - beta / A
        # insertion into work[0..a-1], kept in decreasing order
        i = a
        while i > 0 and work[i - 1] < d:
            work[i] = work[i - 1]
            i -= 1
        work[i] = d
    cumulative = 0.0
    theta = 0.0
    for j in range(n):
        cumulative += work[j]
        candidate = (cumulative - 1.0) / (j + 1)
        if work[j] > candidate:
            theta = candidate
    moved = False
    for a in range(n):
        offset = scores[a] / A
        d = offset
        if a == y:
            offset -= beta / A
            d = offset + 1.0
        # below theta the bound holds with equality, c_a = [a = y], set exactly
        # rather than as d - offset, which rounding would leave a hair off
        c = theta - offset if d > theta else (1.0 if a == y else 0.0)
        coef[a] = c
        moved = moved or c != 0.0
    return moved


@njit(cache=True)
def mira_program_is_finite(scores, n, beta, A):
    """Whether :func:`mira_coefficients` can divide the scores and beta by ``A`` (their sums included)."""
    largest = beta
    for a in range(n):
        largest = max(largest, abs(scores[a]))
    return largest / A < 1e300


@njit(cache=True)
def mira_limit_coefficients(scores, n, y, beta, coef):
    """MIRA's solution as A -> 0, for a weight v so small that the program in c' = c / v with vA overflows.

    The quadratic term vanishes and the program is linear: when the top rivals
    (the classes a != y of the largest score) violate ``s_y - s_a >= beta``,
    ``c_y = 1`` and the top rivals share -1 equally (the least-norm point of the
    linear program's optimal face, which the quadratic program tends to); else
    c = 0. It differs from the quadratic program's solution only where a score
    gap is within about ``1e-300 * max(|s|, beta)``, below the scores' rounding.
    Returns True if it moves anything.
    """
    best = -math.inf
    for a in range(n):
        if a != y and scores[a] > best:
            best = scores[a]
    if n < 2 or scores[y] - best >= beta:
        return False
    count = 0
    for a in range(n):
        if a != y and scores[a] == best:
            count += 1
    for a in range(n):
        coef[a] = 1.0 if a == y else (-1.0 / count if scores[a] == best else 0.0)
    return True


@njit(cache=True)
def choose_coefficients(rule, rival, split, beta, scores, n, y, pred, wrong, ranks, margins, norm_sq, weight, work,
                        coef):
    """The coefficients of a round of importance ``weight``; return (loss, tau, rival slot of RULE_PA or -1).

    For RULE_PA only the rival and the loss are chosen here: ||z||^2, and so tau,
    depend on the geometry, and the caller sets the two coefficients
    (:func:`._steps.weighted_pa_step`). ``norm_sq`` is MIRA's A = ||Phi(x, a)||^2 (the
    same for every class). The Perceptron's coefficients are scaled by the
    weight v; MIRA's program with the bound ``c_y <= v`` is, with ``c = v c'``,
    the unit-bound program in c' with A replaced by v A (its limit as v A -> 0,
    :func:`mira_limit_coefficients`, when v A is too small to divide by).
    """
    for a in range(n):
        coef[a] = 0.0
    if rule == RULE_PA:
        r, loss = pa_rival(rival, scores, n, y, pred, wrong, ranks, margins)
        return loss, 0.0, r
    loss = multiclass_hinge(scores, y, wrong)
    if rule == RULE_PERCEPTRON:
        moved = perceptron_coefficients(split, scores, n, y, ranks, coef) > 0
    else:
        scaled = norm_sq * weight
        # v A may underflow to 0 with v and A positive: too small to divide by, as an overflowing program
        if norm_sq > 0.0 and weight > 0.0 and (scaled == 0.0 or not mira_program_is_finite(scores, n, beta, scaled)):
            moved = mira_limit_coefficients(scores, n, y, beta, coef)
        else:
            moved = mira_coefficients(scores, n, y, scaled, beta, work, coef)
    if weight != 1.0:
        moved = moved and weight > 0.0
        for a in range(n):
            coef[a] = coef[a] * weight if moved else 0.0
    return loss, (coef[y] if moved else 0.0), -1


# -- multi-prototype ------------------------------------------------------------------


@njit(cache=True)
def general_update(indices, data, lo, hi, y, W, bound, A, stamp, ranks, margins, config, weight, scores, n, pred, wrong,
                   sq_x, vmax, coef, work):
    """The update of RULE_PERCEPTRON and RULE_MIRA; return (loss, tau, moved, ok).

    ``stamp`` > 0: the averaged sum A takes ``stamp`` times the update too.
    """
    rule, rival, _, split, _, beta, bias = config
    d = W.shape[0] - 1
    loss, tau, _ = choose_coefficients(rule, rival, split, beta, scores, n, y, pred, wrong, ranks, margins, sq_x,
                                       weight, work, coef)
    largest = 0.0
    probe = 0.0
    for a in range(n):
        c = coef[a]
        if c != 0.0:
            largest = max(largest, abs(c))
            probe += (W[d, a] + c * bias) * 0.0
            for k in range(lo, hi):
                probe += (W[indices[k], a] + c * data[k]) * 0.0
            if stamp > 0.0:
                sc = stamp * c
                probe += (A[d, a] + sc * bias) * 0.0
                for k in range(lo, hi):
                    probe += (A[indices[k], a] + sc * data[k]) * 0.0
    if probe != 0.0:
        return loss, tau, False, False
    for a in range(n):
        c = coef[a]
        if c != 0.0:
            W[d, a] += c * bias
            for k in range(lo, hi):
                W[indices[k], a] += c * data[k]
            if stamp > 0.0:
                sc = stamp * c
                A[d, a] += sc * bias
                for k in range(lo, hi):
                    A[indices[k], a] += sc * data[k]
    bound[0] += largest * vmax
    return loss, tau, largest != 0.0, True


@njit(cache=True, _nrt=False)
def round_stamp(clock, start):
    """(this round's number t, its stamp max(t - a, 0) in the averaged sum; 0 without averaging)."""
    t = clock[0] + 1
    return t, (float(t - start) if start > 0.0 and t > start else 0.0)


@njit(cache=True, inline="always")
def learn_row(indices, data, lo, hi, y, weight, W, bound, A, clock, n_active, ranks, margins, config, start, scores,
              coef, work, general):
    """Predict then learn one CSR row of importance ``weight``.

    Returns (prediction slot, loss, tau, mistake, moved, status).

    ``general`` is a constant at each call: False for a caller that takes
    RULE_PA only, whose code then leaves out (and never compiles)
    :func:`general_update` of the other rules.

    The prediction is -1 when no class is known yet. On OVERFLOW the model is left
    exactly as it was (the round clock too). ``bound[0]`` is an upper bound on
    every |W| entry, raised by each update; while it stays far from the largest
    float no update can overflow (nor, times the stamp, the averaged sum A, whose
    entries are at most the largest stamp times ``bound[0]``), and the PA path
    skips the exact check. That check adds ``value * 0.0`` over the new values: 0
    when all are finite, NaN otherwise.
    """
    rule, rival, step, _, C, _, bias = config
    t, stamp = round_stamp(clock, start)
    n = n_active[0]
    d = W.shape[0] - 1
    for a in range(n):
        scores[a] = W[d, a] * bias
    sq_x = bias * bias
    vmax = abs(bias)
    # a feature's prototypes are one row of W, read through a view at an unsigned index
    # (indices are checked non-negative where they enter): no negative-index checks per entry
    for k in range(lo, hi):
        v = data[k]
        row = W[np.uint32(indices[k])]
        sq_x += v * v
        vmax = max(vmax, abs(v))
        for a in range(n):
            scores[a] += row[a] * v
    probe = sq_x * 0.0
    for a in range(n):
        probe += scores[a] * 0.0
    if probe != 0.0:
        return -1, 0.0, 0.0, True, False, OVERFLOW
    pred, wrong, n = predict_and_join(scores, n, y, ranks)
    mistake = pred < 0 or (wrong >= 0 and scores[wrong] >= scores[y])
    if general and rule != RULE_PA:
        loss, tau, moved, ok = general_update(indices, data, lo, hi, y, W, bound, A, stamp, ranks, margins, config,
                                              weight, scores, n, pred, wrong, sq_x, vmax, coef, work)
        if not ok:
            return pred, loss, tau, mistake, False, OVERFLOW
        n_active[0] = n
        clock[0] = t
        return pred, loss, tau, mistake, moved, OK
    # two prototypes move: no coefficient vector needed
    r, loss = pa_rival(rival, scores, n, y, pred, wrong, ranks, margins)
    tau = weighted_pa_step(step, loss, 2.0 * sq_x, C, weight) if r >= 0 else 0.0
    if tau != 0.0:
        if not (bound[0] + tau * vmax) * max(stamp, 1.0) < _SAFE:
            probe = ((W[d, y] + tau * bias) + (W[d, r] - tau * bias)) * 0.0
            for k in range(lo, hi):
                j = indices[k]
                u = tau * data[k]
                probe += ((W[j, y] + u) + (W[j, r] - u)) * 0.0
            if stamp > 0.0:
                st = stamp * tau
                probe += ((A[d, y] + st * bias) + (A[d, r] - st * bias)) * 0.0
                for k in range(lo, hi):
                    j = indices[k]
                    u = st * data[k]
                    probe += ((A[j, y] + u) + (A[j, r] - u)) * 0.0
            if probe != 0.0:
                return pred, loss, tau, mistake, False, OVERFLOW
        W[d, y] += tau * bias
        W[d, r] -= tau * bias
        # the same unsigned row views as the scores, and unsigned class slots
        uy = np.uint64(y)
        ur = np.uint64(r)
        for k in range(lo, hi):
            row = W[np.uint32(indices[k])]
            u = tau * data[k]
            row[uy] += u
            row[ur] -= u
        if stamp > 0.0:
            st = stamp * tau
            A[d, y] += st * bias
            A[d, r] -= st * bias
            for k in range(lo, hi):
                row = A[np.uint32(indices[k])]
                u = st * data[k]
                row[uy] += u
                row[ur] -= u
        bound[0] += tau * vmax
    n_active[0] = n
    clock[0] = t
    return pred, loss, tau, mistake, tau != 0.0, OK


# Compiled without numba's reference counting, as ``_binary_linear.binary_linear_pass``
# (its comment says why): the passes allocate nothing and keep no array.
@njit(cache=True, _nrt=False)
def multiclass_pass(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params, codes,
                    scores, coef, work, out_scores, preds, losses, taus, mistakes, totals):
    """Progressive validation over the rows of a CSR matrix with label slots ``y``.

    ``weights``: one importance weight per row, or empty for weight 1 everywhere.
    ``A`` and ``clock``: the averaged sum and the count of rounds (``A`` is not
    touched unless ``params[MP_AVERAGE]`` > 0). Per-round outputs are written
    when ``preds`` has one slot per row (``out_scores`` then holds each row's
    class scores before the update, -inf for a class not yet known); pass empty
    arrays to keep only ``totals``. Returns -1, or the row at which learning
    stopped because the numbers overflowed.
    """
    return progressive_rows(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params,
                            codes, scores, coef, work, out_scores, preds, losses, taus, mistakes, totals, True,
                            _NONE_HELD)


@njit(cache=True, _nrt=False)
def pa_multiclass_pass(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params, codes,
                       scores, coef, work, out_scores, preds, losses, taus, mistakes, totals):
    """:func:`multiclass_pass` for RULE_PA alone (``codes[MK_RULE]`` must be RULE_PA).

    The same rounds, compiled without the other rules' coefficients, so that
    the first run of a PA learner compiles about half as much.
    """
    return progressive_rows(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params,
                            codes, scores, coef, work, out_scores, preds, losses, taus, mistakes, totals, False,
                            _NONE_HELD)


@njit(cache=True, _nrt=False)
def held_out_multiclass_pass(indptr, indices, data, y, weights, held, W, bound, A, clock, n_active, ranks, margins,
                             params, codes, scores, coef, work, out_scores, preds, losses, taus, mistakes, totals):
    """:func:`multiclass_pass` where the rows with ``held[i]`` are held out: scored, never learned.

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk. A held-out row's class scores are
    those of ``decision_function`` on the prototypes of its moment (their
    mean once averaging has started: :func:`held_out_class_scores`), for
    the classes known then (-inf for the others), recorded with prediction
    slot -2, loss and tau 0 and no mistake (the caller judges it as
    ``predict`` would); it is no round of the totals or of the averaging
    clock, its label slot is not read, and it moves nothing. The other rows
    are learned exactly as by :func:`multiclass_pass` on them alone. Every
    row is recorded.
    """
    return progressive_rows(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params,
                            codes, scores, coef, work, out_scores, preds, losses, taus, mistakes, totals, True, held)


@njit(cache=True, _nrt=False)
def held_out_class_scores(indices, data, lo, hi, W, A, t, start, known, bias, out):
    """The class scores of a held-out CSR row data[lo:hi] after ``t`` rounds, as ``decision_function`` gives them.

    The first ``known`` slots are scored, the others -inf. Once averaging has
    started (``start`` = a > 0 and t >= a) by the mean of the prototypes,
    ``W - A / (t - a + 1)``, each weight averaged as
    :func:`~olearn._kernels._lazy_average.averaged_class_scores` averages it
    (the same bits as :func:`multiclass_scores` of the whole mean); before, by
    ``W`` itself, as :func:`multiclass_scores`.
    """
    d = W.shape[0] - 1
    for a in range(out.size):
        out[a] = W[d, a] * bias if a < known else -math.inf
    if start > 0.0 and t >= start:
        n = float(t) - start + 1.0
        for a in range(known):
            out[a] = (W[d, a] - A[d, a] / n) * bias
        for k in range(lo, hi):
            j = indices[k]
            v = data[k]
            for a in range(known):
                out[a] += (W[j, a] - A[j, a] / n) * v
        return
    for k in range(lo, hi):
        j = indices[k]
        v = data[k]
        for a in range(known):
            out[a] += W[j, a] * v


@njit(cache=True, inline="always")
def progressive_rows(indptr, indices, data, y, weights, W, bound, A, clock, n_active, ranks, margins, params, codes,
                     scores, coef, work, out_scores, preds, losses, taus, mistakes, totals, general, held):
    """The loop of the passes; ``general`` (a constant at each call) as in :func:`learn_row`, ``held`` as in
    :func:`held_out_multiclass_pass` (empty: no row is held out)."""
    record = preds.size > 0
    weighted = weights.size > 0
    holding = held.size > 0
    config = unpack_config(params, codes)
    start = params[MP_AVERAGE]
    bias = config[6]
    n_mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_held = 0
    for i in range(n):
        if record:
            known = n_active[0]
        if holding and held[i]:
            n_held += 1
            held_out_class_scores(indices, data, indptr[i], indptr[i + 1], W, A, clock[0], start, known, bias,
                                  out_scores[i])
            preds[i] = -2
            losses[i] = 0.0
            taus[i] = 0.0
            mistakes[i] = False
            continue
        weight = weights[i] if weighted else 1.0
        pred, loss, tau, mistake, moved, status = learn_row(indices, data, indptr[i], indptr[i + 1], y[i], weight, W,
                                                            bound, A, clock, n_active, ranks, margins, config, start,
                                                            scores, coef, work, general)
        if status != OK:
            stopped = i
            n = i
            break
        if record:
            for a in range(out_scores.shape[1]):
                out_scores[i, a] = scores[a] if a < known else -math.inf
            preds[i] = pred
            losses[i] = loss
            taus[i] = tau
            mistakes[i] = mistake
        n_mistakes += mistake
        cumulative_loss += loss
        updates += moved
    add_totals(totals, n_mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True)
def multiclass_learn_one(indices, data, y, weight, W, bound, A, clock, n_active, ranks, margins, params, codes, scores,
                         coef, work):
    """``learn_row`` for one example in its own arrays; return (prediction slot, status)."""
    pred, _, _, _, _, status = learn_row(indices, data, 0, indices.size, y, weight, W, bound, A, clock, n_active, ranks,
                                         margins, unpack_config(params, codes), params[MP_AVERAGE], scores, coef, work,
                                         True)
    return pred, status


@njit(cache=True)
def multiclass_scores(indptr, indices, data, W, n_classes, bias, out):
    """Class scores ``w_a . x`` (+ intercept) of every row, in slot order."""
    d = W.shape[0] - 1
    for i in range(indptr.size - 1):
        for a in range(n_classes):
            out[i, a] = W[d, a] * bias
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            v = data[k]
            for a in range(n_classes):
                out[i, a] += W[j, a] * v


# -- single prototype with a feature map ----------------------------------------------


@njit(cache=True)
def block_scores(bptr, bidx, bdat, w, wb, bias, n, out):
    """``w . Phi(x, a) + wb[a] * bias`` for the first n rows of a block."""
    for a in range(n):
        s = wb[a] * bias
        for k in range(bptr[a], bptr[a + 1]):
            s += w[bidx[k]] * bdat[k]
        out[a] = s


@njit(cache=True)
def row_dot(bidx, bdat, lo1, hi1, lo2, hi2):
    """Dot product of two sorted sparse rows."""
    s = 0.0
    i, j = lo1, lo2
    while i < hi1 and j < hi2:
        if bidx[i] == bidx[j]:
            s += bdat[i] * bdat[j]
            i += 1
            j += 1
        elif bidx[i] < bidx[j]:
            i += 1
        else:
            j += 1
    return s


@njit(cache=True)
def row_distance_sq(bidx, bdat, lo1, hi1, lo2, hi2):
    """||u - v||^2 of two sorted sparse rows, summed entry by entry (no cancellation of norms)."""
    s = 0.0
    i, j = lo1, lo2
    while i < hi1 or j < hi2:
        if j >= hi2 or (i < hi1 and bidx[i] < bidx[j]):
            v = bdat[i]
            i += 1
        elif i >= hi1 or bidx[j] < bidx[i]:
            v = -bdat[j]
            j += 1
        else:
            v = bdat[i] - bdat[j]
            i += 1
            j += 1
        s += v * v
    return s


@njit(cache=True)
def common_norm_sq(bptr, bidx, bdat, n, bias):
    """A with ``Phi(x, a) . Phi(x, b) = A [a = b]`` (intercept included), or -1 if there is none."""
    A = row_dot(bidx, bdat, bptr[0], bptr[1], bptr[0], bptr[1]) + bias * bias
    for a in range(n):
        lo, hi = bptr[a], bptr[a + 1]
        if abs(row_dot(bidx, bdat, lo, hi, lo, hi) + bias * bias - A) > _ORTHO_TOL * A:
            return -1.0
        for b in range(a):
            if abs(row_dot(bidx, bdat, lo, hi, bptr[b], bptr[b + 1])) > _ORTHO_TOL * A:
                return -1.0
    return A


@njit(cache=True)
def feature_map_learn_row(bptr, bidx, bdat, y, weight, w, wb, aw, awb, clock, n_active, ranks, margins, params, codes,
                          scores, coef, work, saved):
    """Predict then learn one example of importance ``weight``, given as its block of class vectors.

    Row a of the block is ``Phi(x, a)`` for the slots ``0 .. max(n_active, y + 1) - 1``,
    with sorted indices; ``aw`` and ``awb`` are the averaged sums of ``w`` and ``wb``
    (touched only when averaging); ``saved`` has room for twice every entry of the
    block plus two per row. Returns (prediction slot, loss, tau, mistake, status).
    """
    rule, rival, step, split, C, beta, bias = unpack_config(params, codes)
    t, stamp = round_stamp(clock, params[MP_AVERAGE])
    n = n_active[0]
    block_scores(bptr, bidx, bdat, w, wb, bias, n, scores)
    finite = True
    for k in range(bptr[n if y < n else y + 1]):
        finite = finite and math.isfinite(bdat[k])
    for a in range(n):
        finite = finite and math.isfinite(scores[a])
    if not finite:
        return -1, 0.0, 0.0, True, OVERFLOW
    pred, wrong, n = predict_and_join(scores, n, y, ranks)
    mistake = pred < 0 or (wrong >= 0 and scores[wrong] >= scores[y])
    norm_sq = 0.0
    if rule == RULE_MIRA:
        norm_sq = common_norm_sq(bptr, bidx, bdat, n, bias)
        if norm_sq < 0.0:
            return pred, 0.0, 0.0, mistake, NOT_ORTHONORMAL
    loss, tau, r = choose_coefficients(rule, rival, split, beta, scores, n, y, pred, wrong, ranks, margins, norm_sq,
                                       weight, work, coef)
    if rule == RULE_PA and r >= 0:
        pair_sq = row_distance_sq(bidx, bdat, bptr[y], bptr[y + 1], bptr[r], bptr[r + 1]) + 2.0 * bias * bias
        if not math.isfinite(pair_sq):
            return pred, loss, 0.0, mistake, OVERFLOW
        tau = weighted_pa_step(step, loss, pair_sq, C, weight)
        coef[y] = tau
        coef[r] = -tau
    # class rows may share features: write, check every touched entry, and undo
    # from the saved values (in reverse order) if one of them overflowed
    m = add_block(bptr, bidx, bdat, n, coef, 1.0, bias, w, wb, saved, 0)
    ok = block_finite(bptr, bidx, n, coef, w, wb)
    if ok and stamp > 0.0:
        past = add_block(bptr, bidx, bdat, n, coef, stamp, bias, aw, awb, saved, m)
        ok = block_finite(bptr, bidx, n, coef, aw, awb)
        if not ok:
            undo_block(bptr, bidx, n, coef, aw, awb, saved, past)
    if not ok:
        undo_block(bptr, bidx, n, coef, w, wb, saved, m)
        return pred, loss, tau, mistake, OVERFLOW
    n_active[0] = n
    clock[0] = t
    return pred, loss, tau, mistake, OK


@njit(cache=True)
def add_block(bptr, bidx, bdat, n, coef, scale, bias, w, wb, saved, m):
    """``w += scale sum_a coef[a] Phi(x, a)`` (and the biases), saving each old value from ``saved[m]`` on.

    Returns the index past the last saved value.
    """
    for a in range(n):
        if coef[a] != 0.0:
            c = coef[a] * scale
            saved[m] = wb[a]
            m += 1
            wb[a] += c * bias
            for k in range(bptr[a], bptr[a + 1]):
                saved[m] = w[bidx[k]]
                m += 1
                w[bidx[k]] += c * bdat[k]
    return m


@njit(cache=True)
def block_finite(bptr, bidx, n, coef, w, wb):
    """Every entry an update with ``coef`` touched is finite."""
    ok = True
    for a in range(n):
        if coef[a] != 0.0:
            ok = ok and math.isfinite(wb[a])
            for k in range(bptr[a], bptr[a + 1]):
                ok = ok and math.isfinite(w[bidx[k]])
    return ok


@njit(cache=True)
def undo_block(bptr, bidx, n, coef, w, wb, saved, m):
    """Put back the values :func:`add_block` saved (``m``: the index past them), newest first."""
    for a in range(n - 1, -1, -1):
        if coef[a] != 0.0:
            for k in range(bptr[a + 1] - 1, bptr[a] - 1, -1):
                m -= 1
                w[bidx[k]] = saved[m]
            m -= 1
            wb[a] = saved[m]
