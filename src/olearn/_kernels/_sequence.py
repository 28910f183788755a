"""Passive-aggressive learning of first-order chains (Crammer et al. 2006, Sec. 8 and 9).

On each sequence (X, y) of n positions the model predicts yhat by Viterbi, picks a
rival labelling r, and moves along the virtual instance

    z = Phi(X, y) - Phi(X, r),  loss l = w.Phi(X, r) - w.Phi(X, y) + margin(r),

with ``margin(r) = sqrt(rho(y, r))`` and tau from the shared PA step rule. The
rival is the prediction (the prediction-based update, ``UPDATE_PREDICTION``) or
the labelling of largest loss (``UPDATE_MAX_LOSS``), found by the Hamming-augmented
Viterbi for costs that depend only on the Hamming distance.

Phi stacks the emissions ``sum_t x_t (x) e_{y_t}`` (``emission``, feature-major,
shape (n_features + 1, capacity), the last row for the intercept's constant
feature; label j's weights are column ``columns[j]``, the columns in use
0 .. k - 1, so that a new label takes a free column without moving the others)
and the transitions ``sum_t e_{y_{t-1}} (x) e_{y_t}`` (``transition``, shape
(k + 2, k): row k from the start, row k + 1 into the end, the end transition
``end * e_{y_n}`` of the last label, ``end`` 1.0 or 0.0 as ``bias`` is for the
intercept). Positions where y and r agree cancel
in z; ||z||^2 is computed exactly by accumulating, one label at a time, the
sum of +x_t (y_t is that label) and -x_t (r_t is that label) in a scratch vector
that is cleared as it is read, and the transition counts the same way. The
scratch vector has a slot per distinct feature of the sequence (and one for the
intercept), not per feature of the model: its size follows the sequence.

Labels enter a stream over time: at round i a label j takes part in the
prediction when ``first_seen[j] < i`` and in the choice of the rival when
``first_seen[j] <= i``. When no label was known before a round, there is no
prediction, and the prediction-based rival is the Viterbi labelling over the
labels known once the round's own labels are in.

Each sequence may carry an importance weight (``weights``, one per sequence, or
empty for none): C becomes weight * C (:func:`._steps.weighted_pa_step`).
Averaging (:mod:`._lazy_average`) keeps the corrections of the two blocks beside
their weights, in the same rows (:func:`olearn._averaging.joined_rows`): an
averaged learner's ``emission`` has shape (n_features + 1, 2 * capacity), the
corrections of a feature in the right half of its row, and its ``transition``
(k + 2, 2 k), the corrections in columns k .. 2 k - 1. An update of age
``s - a`` adds ``(s - a) tau z`` to them, by the same visit of z that updates w
(the visit shifted by the offset of the right half). A learner that does not
average (the ``averaging`` array says so) has the weights alone.
"""

import math

import numpy as np

from ._jit import njit
from ._lazy_average import A_ROUNDS, round_age
from ._steps import weighted_pa_step
from ._totals import add_totals
from ._viterbi import add_end, emission_scores, hamming_viterbi, sequence_score, viterbi

# How the rival labelling of a round is chosen (Crammer et al. 2006, Sec. 8).
UPDATE_PREDICTION = 0  # the predicted labelling
UPDATE_MAX_LOSS = 1  # argmax_r w.Phi(X, r) - w.Phi(X, y) + sqrt(rho(y, r))

# What a pass over the differences of y and r does with each entry of tau * z.
_NORM = 0  # sum the squares of z
_CHECK = 1  # 1.0 when w + tau z stays finite, else 0.0
_APPLY = 2  # w <- w + tau z


@njit(cache=True)
def _consume(mode, weights, row, column, value, tau, result):
    if mode == _NORM:
        return result + value * value
    if mode == _CHECK:
        return result if math.isfinite(weights[row, column] + tau * value) else 0.0
    weights[row, column] += tau * value
    return result


@njit(cache=True)
def _local_features(indptr, indices, r0, n, local):
    """Number the distinct features of rows r0 .. r0 + n - 1 from 1 up, in increasing order of their index:
    local[p - indptr[r0]] is the number of the feature of entry p. Returns how many there are."""
    lo = indptr[r0]
    order = np.argsort(indices[lo : indptr[r0 + n]], kind="mergesort")
    distinct = 0
    previous = -1
    for q in range(order.size):
        feature = indices[lo + order[q]]
        if feature != previous:
            distinct += 1
            previous = feature
        local[order[q]] = distinct
    return distinct


@njit(cache=True)
def _emission_part(mode, indptr, indices, data, r0, n, y, y0, rival, bias, emission, columns, offset, tau, local,
                   buffer, done):
    """Visit the emission block of z = Phi(X, y) - Phi(X, rival), one label at a time, label j at column
    ``columns[j] + offset`` of ``emission`` (offset 0: the weights; half the row: their corrections).

    ``local`` numbers the sequence's features (:func:`_local_features`): the
    sum of a feature's entries goes to ``buffer[local]``, the intercept's to
    ``buffer[0]``. ``buffer`` (all zero) and ``done`` (length k, all False)
    are scratch, and are left as they were found.
    """
    last = emission.shape[0] - 1
    base = indptr[r0]
    result = 1.0 if mode == _CHECK else 0.0
    for t in range(n):
        if y[y0 + t] == rival[t]:
            continue
        for side in range(2):
            label = y[y0 + t] if side == 0 else rival[t]
            if done[label]:
                continue
            done[label] = True
            for s in range(t, n):
                truth = y[y0 + s]
                other = rival[s]
                if truth == other or (truth != label and other != label):
                    continue
                sign = 1.0 if truth == label else -1.0
                row = r0 + s
                for p in range(indptr[row], indptr[row + 1]):
                    buffer[local[p - base]] += sign * data[p]
                buffer[0] += sign * bias
            # read each touched entry once: it is zeroed as it is read
            for s in range(t, n):
                truth = y[y0 + s]
                other = rival[s]
                if truth == other or (truth != label and other != label):
                    continue
                row = r0 + s
                column = columns[label] + offset
                for p in range(indptr[row], indptr[row + 1]):
                    slot = local[p - base]
                    result = _consume(mode, emission, indices[p], column, buffer[slot], tau, result)
                    buffer[slot] = 0.0
                result = _consume(mode, emission, last, column, buffer[0], tau, result)
                buffer[0] = 0.0
    for t in range(n):
        done[y[y0 + t]] = False
        done[rival[t]] = False
    return result


@njit(cache=True)
def _transition_part(mode, n, y, y0, rival, transition, offset, end, tau, counts):
    """Visit the transition block of z, the end row's entries weighing ``end``, entry (i, j) at
    ``transition[i, j + offset]`` (offset 0: the weights; k: their corrections); ``counts`` (shape (k + 2, k),
    all zero) is scratch left zero."""
    start = counts.shape[1]
    result = 1.0 if mode == _CHECK else 0.0
    before_y = start
    before_r = start
    for t in range(n):
        counts[before_y, y[y0 + t]] += 1.0
        counts[before_r, rival[t]] -= 1.0
        before_y = y[y0 + t]
        before_r = rival[t]
    before_y = start
    before_r = start
    for t in range(n):
        for side in range(2):
            row = before_y if side == 0 else before_r
            column = y[y0 + t] if side == 0 else rival[t]
            result = _consume(mode, transition, row, column + offset, counts[row, column], tau, result)
            counts[row, column] = 0.0
        before_y = y[y0 + t]
        before_r = rival[t]
    if end != 0.0:
        stop = start + 1
        counts[stop, y[y0 + n - 1]] += end
        counts[stop, rival[n - 1]] -= end
        for side in range(2):
            column = y[y0 + n - 1] if side == 0 else rival[n - 1]
            result = _consume(mode, transition, stop, column + offset, counts[stop, column], tau, result)
            counts[stop, column] = 0.0
    return result


@njit(cache=True)
def update_towards(indptr, indices, data, r0, n, y, y0, rival, weight, emission, transition, columns, age, bias, end,
                   loss, rule, C, local, buffer, done, counts):
    """w <- w + tau (Phi(X, y) - Phi(X, rival)), tau the PA step of ``loss`` at ``weight``; returns (tau, ok).

    With ``age`` > 0 the averaging corrections (beside the weights: see the
    module docstring) get ``age * tau z`` too. ``ok``
    is False, and the model unchanged, when ||z||^2, tau or an updated weight
    would not be finite. ``local`` (one slot per entry of the rows) and
    ``buffer`` (one more than the distinct features of the rows) are scratch.
    """
    _local_features(indptr, indices, r0, n, local)
    sqnorm = _emission_part(_NORM, indptr, indices, data, r0, n, y, y0, rival, bias, emission, columns, 0, 0.0,
                            local, buffer, done)
    sqnorm += _transition_part(_NORM, n, y, y0, rival, transition, 0, end, 0.0, counts)
    if not math.isfinite(sqnorm):
        return 0.0, False
    tau = weighted_pa_step(rule, loss, sqnorm, C, weight)
    if tau == 0.0:
        return 0.0, True
    if not math.isfinite(tau):
        return tau, False
    if not _stays_finite(indptr, indices, data, r0, n, y, y0, rival, bias, end, emission, transition, columns, 0, 0,
                         tau, local, buffer, done, counts):
        return tau, False
    # the corrections: the right half of each emission row, the columns k .. 2 k - 1 of the transitions
    half = emission.shape[1] // 2
    k = counts.shape[1]
    if age > 0.0 and not _stays_finite(indptr, indices, data, r0, n, y, y0, rival, bias, end, emission, transition,
                                       columns, half, k, age * tau, local, buffer, done, counts):
        return tau, False
    _emission_part(_APPLY, indptr, indices, data, r0, n, y, y0, rival, bias, emission, columns, 0, tau, local, buffer,
                   done)
    _transition_part(_APPLY, n, y, y0, rival, transition, 0, end, tau, counts)
    if age > 0.0:
        _emission_part(_APPLY, indptr, indices, data, r0, n, y, y0, rival, bias, emission, columns, half, age * tau,
                       local, buffer, done)
        _transition_part(_APPLY, n, y, y0, rival, transition, k, end, age * tau, counts)
    return tau, True


@njit(cache=True)
def _stays_finite(indptr, indices, data, r0, n, y, y0, rival, bias, end, emission, transition, columns,
                  emission_offset, transition_offset, tau, local, buffer, done, counts):
    """Whether (emission, transition) + tau z stays finite, z's entries read at the offsets of
    :func:`_emission_part` and :func:`_transition_part`."""
    if _emission_part(_CHECK, indptr, indices, data, r0, n, y, y0, rival, bias, emission, columns, emission_offset,
                      tau, local, buffer, done) == 0.0:
        return False
    return _transition_part(_CHECK, n, y, y0, rival, transition, transition_offset, end, tau, counts) != 0.0


@njit(cache=True)
def choose_rival(indptr, indices, data, r0, n, y, y0, margins, m0, emission, transition, columns, first_seen, i, bias,
                 end, update, em, by_column, best, augmented, predictions, rival):
    """Predict round ``i`` into predictions[r0 : r0 + n] and choose the rival into rival[:n].

    ``margins[m0 + h]`` is the margin of a rival at Hamming distance h (read by
    the max-loss search only). Returns (predicted, score of the prediction,
    score of y, score of the rival, ok); ``ok`` is False when a score is not
    finite.
    """
    emission_scores(indptr, indices, data, r0, n, emission, 0.0, columns, bias, em, by_column)
    add_end(em, n, transition, end)
    predicted = viterbi(em, n, transition, first_seen, i - 1, best, predictions, r0)
    predicted_score = sequence_score(em, n, predictions, r0, transition) if predicted else math.nan
    if update == UPDATE_MAX_LOSS:
        hamming_viterbi(em, n, y, y0, transition, first_seen, i, margins, m0, augmented, rival)
    elif predicted:
        rival[:n] = predictions[r0 : r0 + n]
    else:
        viterbi(em, n, transition, first_seen, i, best, rival, 0)
    true_score = sequence_score(em, n, y, y0, transition)
    rival_score = sequence_score(em, n, rival, 0, transition)
    ok = math.isfinite(true_score) and math.isfinite(rival_score) and (math.isfinite(predicted_score) or not predicted)
    return predicted, predicted_score, true_score, rival_score, ok


@njit(cache=True)
def hamming(y, y0, labels, l0, n):
    """Number of positions t < n where y[y0 + t] != labels[l0 + t]."""
    errors = 0
    for t in range(n):
        if y[y0 + t] != labels[l0 + t]:
            errors += 1
    return errors


@njit(cache=True)
def _longest(offsets):
    longest = 0
    for i in range(offsets.size - 1):
        longest = max(longest, offsets[i + 1] - offsets[i])
    return longest


@njit(cache=True)
def _most_entries(indptr, offsets):
    """The largest number of stored entries of one sequence."""
    most = 0
    for i in range(offsets.size - 1):
        most = max(most, indptr[offsets[i + 1]] - indptr[offsets[i]])
    return most


@njit(cache=True)
def sequence_pass(indptr, indices, data, offsets, y, weights, margins, emission, transition, columns, averaging,
                  first_seen, rule, update, C, bias, end, predictions, scores, losses, taus, errors, totals):
    """Progressive validation over the sequences of a CSR matrix: predict each one, then learn it.

    Sequence i is rows offsets[i] .. offsets[i + 1] - 1 with labels y over the
    same rows; its margins are margins[offsets[i] + i + h], h = 0 .. n;
    ``weights`` holds the importance weight of each sequence (empty: all 1).
    ``averaging`` advances by the sequences learned. ``bias`` and ``end`` are the values of the intercept's
    constant feature and of the end transition (0.0: none). Label j's emission weights
    are column ``columns[j]`` of ``emission`` (their corrections beside them: see the module docstring). The
    scratch follows the longest sequence, not the number of features.
    ``predictions`` (one per row) gets the predicted label indices, -1 where
    no label was known yet. The per-sequence ``scores`` (w.Phi(X, yhat), NaN
    without a prediction), ``losses``, ``taus`` and ``errors`` (Hamming errors
    of the prediction) are written when they have one slot per sequence; pass
    empty arrays to keep only the ``totals``. A round is a mistake when any
    position is wrong. Returns -1, or the sequence at which learning stopped
    because the numbers overflowed (the model then keeps the earlier updates).
    """
    record = scores.size > 0
    weighted = weights.size > 0
    k = columns.size
    longest = _longest(offsets)
    em = np.empty((longest, k))
    by_column = np.empty(k)
    best = np.empty((longest, k))
    size = longest if update == UPDATE_MAX_LOSS else 0
    augmented = np.empty((size, size + 1, k))
    rival = np.empty(longest, dtype=np.int64)
    most = _most_entries(indptr, offsets)
    local = np.empty(most, dtype=np.int64)
    buffer = np.zeros(most + 1)
    done = np.zeros(k, dtype=np.bool_)
    counts = np.zeros((k + 2, k))
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n_sequences = offsets.size - 1
    for i in range(n_sequences):
        r0 = offsets[i]
        n = offsets[i + 1] - r0
        score = 0.0
        loss = 0.0
        tau = 0.0
        wrong = 0
        if n > 0:
            predicted, score, true_score, rival_score, ok = choose_rival(
                indptr, indices, data, r0, n, y, r0, margins, r0 + i, emission, transition, columns, first_seen, i,
                bias, end, update, em, by_column, best, augmented, predictions, rival,
            )
            if not ok:
                stopped = i
                break
            loss = max(0.0, rival_score - true_score + margins[r0 + i + hamming(y, r0, rival, 0, n)])
            tau, ok = update_towards(indptr, indices, data, r0, n, y, r0, rival, weights[i] if weighted else 1.0,
                                     emission, transition, columns, round_age(averaging, i), bias, end, loss, rule, C,
                                     local, buffer, done, counts)
            if not ok:
                stopped = i
                break
            wrong = hamming(y, r0, predictions, r0, n) if predicted else n
        if record:
            scores[i] = score
            losses[i] = loss
            taus[i] = tau
            errors[i] = wrong
        if wrong > 0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    n_done = n_sequences if stopped < 0 else stopped
    averaging[A_ROUNDS] += n_done
    add_totals(totals, mistakes, cumulative_loss, updates, n_done)
    return stopped


@njit(cache=True)
def sequence_rival(indptr, indices, data, offsets, i, y, emission, transition, columns, first_seen, bias, end, em,
                   by_column, best, predictions, rival):
    """``choose_rival`` for sequence i with the prediction-based update, for costs given as Python callables.

    The caller computes the margin of the rival and finishes the round with
    :func:`sequence_update`. ``em`` and ``best`` are scratch of shape
    (>= n, k), ``by_column`` of length k. Returns (predicted, score of the
    prediction, score of y, score of the rival, ok).
    """
    r0 = offsets[i]
    n = offsets[i + 1] - r0
    k = columns.size
    return choose_rival(indptr, indices, data, r0, n, y, r0, np.empty(0), 0, emission, transition, columns, first_seen,
                        i, bias, end, UPDATE_PREDICTION, em, by_column, best, np.empty((0, 0, k)), predictions, rival)


@njit(cache=True)
def sequence_update(indptr, indices, data, offsets, i, y, rival, weight, emission, transition, columns, averaging,
                    bias, end, loss, rule, C, local, buffer, done, counts):
    """``update_towards`` for sequence i, the first of a pass over ``averaging``, with the scratch arrays of
    ``sequence_pass``; returns (tau, ok). The caller advances ``averaging`` once the round is done."""
    r0 = offsets[i]
    n = offsets[i + 1] - r0
    return update_towards(indptr, indices, data, r0, n, y, r0, rival, weight, emission, transition, columns,
                          round_age(averaging, 0), bias, end, loss, rule, C, local, buffer, done, counts)


@njit(cache=True)
def sequence_predict(indptr, indices, data, offsets, emission, rounds, columns, transition, bias, end, predictions,
                     scores):
    """Viterbi labelling (label indices, into ``predictions``) and its score of every sequence.

    With ``rounds`` > 0 the weights are the averaged ``weights - corrections /
    rounds`` of the rows that hold both (see the module docstring): the
    emission weights computed only for the features of the sequences
    (:func:`._viterbi.emission_scores`), the transitions once, into scratch of
    (k + 2, k). The end row of the transitions weighs ``end``.
    """
    k = columns.size
    longest = _longest(offsets)
    em = np.empty((longest, k))
    by_column = np.empty(k)
    best = np.empty((longest, k))
    everyone = np.full(k, -1, dtype=np.int64)
    if rounds > 0:
        weights = np.empty((transition.shape[0], k))
        for i in range(weights.shape[0]):
            for j in range(k):
                weights[i, j] = transition[i, j] - transition[i, k + j] / rounds
        transition = weights
    for i in range(offsets.size - 1):
        r0 = offsets[i]
        n = offsets[i + 1] - r0
        emission_scores(indptr, indices, data, r0, n, emission, rounds, columns, bias, em, by_column)
        add_end(em, n, transition, end)
        viterbi(em, n, transition, everyone, 0, best, predictions, r0)
        scores[i] = sequence_score(em, n, predictions, r0, transition)
