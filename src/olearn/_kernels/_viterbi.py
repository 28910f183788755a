"""Exact inference in a first-order chain: the Viterbi algorithm and its cost-augmented twin.

The model scores a labelling ``y_0 .. y_{n-1}`` of a sequence as (Crammer et al.
2006, Sec. 9, Eq. 59, with a start transition)

    w.Phi(X, y) = sum_t em[t, y_t] + sum_t transition[y_{t-1}, y_t],   y_{-1} = start,

where ``em[t, j]`` is the emission score of label j at position t and the start
state is row k of ``transition`` (shape (k + 1, k), or (k + 2, k) with the end
transitions in row k + 1). An end transition, ``transition[k + 1, y_{n-1}]``,
depends on the last label alone: :func:`add_end` adds it to the emission scores
of the last position, so that the searches below need not know of it.
The label count k is ``em.shape[1]``: ``transition`` may have more columns (an
averaged learner's keep their corrections in columns k .. 2 k - 1), which are
not read.

Both searches run backwards (``best[t, i]``: the best score of the positions
t .. n-1 when position t has label i) and then decode forwards, taking at each
position the smallest label index among the maximisers. The result is the
lexicographically smallest labelling among all the best ones, in the order of
the label indices. A label ``j`` takes part only when ``first_seen[j] <= limit``
(the labels known at a round of a stream).
"""

import math

from ._jit import njit


@njit(cache=True)
def emission_scores(indptr, indices, data, r0, n, emission, rounds, columns, bias, em, by_column):
    """em[t, j] = w_j . (x_{r0 + t}, bias) for the rows r0 .. r0 + n - 1 of a CSR matrix.

    ``emission`` is feature-major, shape (n_features + 1, capacity); its last
    row weighs the constant feature ``bias`` (0 without an intercept). Label j
    (in the order of the transitions) keeps its weights in column
    ``columns[j]``, and the columns in use are 0 .. k - 1 (k = ``columns.size``).
    With ``rounds`` > 0 ``emission`` holds each feature's weights and their
    corrections side by side (:func:`olearn._averaging.joined_rows`), and the
    weights are the averaged ``weights - corrections / rounds``, entry by entry
    (:func:`olearn._averaging.averaged`), read only for the features of these
    rows. ``by_column`` is scratch of length >= k.
    """
    k = columns.size
    last = emission.shape[0] - 1
    half = emission.shape[1] // 2
    for t in range(n):
        row = r0 + t
        if rounds > 0:
            for c in range(k):
                by_column[c] = bias * (emission[last, c] - emission[last, half + c] / rounds)
            for p in range(indptr[row], indptr[row + 1]):
                feature = indices[p]
                value = data[p]
                for c in range(k):
                    by_column[c] += value * (emission[feature, c] - emission[feature, half + c] / rounds)
        else:
            for c in range(k):
                by_column[c] = bias * emission[last, c]
            for p in range(indptr[row], indptr[row + 1]):
                feature = indices[p]
                value = data[p]
                for c in range(k):
                    by_column[c] += value * emission[feature, c]
        for j in range(k):
            em[t, j] = by_column[columns[j]]


@njit(cache=True)
def add_end(em, n, transition, end):
    """em[n - 1, j] += end * transition[k + 1, j]: the end transition of the last label (k = em.shape[1]),
    nothing when ``end`` is 0 (no end transition; ``transition`` may then have k + 1 rows)."""
    if end == 0.0 or n == 0:
        return
    stop = em.shape[1] + 1
    for j in range(em.shape[1]):
        em[n - 1, j] += end * transition[stop, j]


@njit(cache=True)
def sequence_score(em, n, labels, l0, transition):
    """w.Phi(X, y) for the labelling labels[l0 : l0 + n], summed from the first position on."""
    previous = em.shape[1]
    total = 0.0
    for t in range(n):
        label = labels[l0 + t]
        total += transition[previous, label] + em[t, label]
        previous = label
    return total


@njit(cache=True)
def viterbi(em, n, transition, first_seen, limit, best, out, o0):
    """argmax_y w.Phi(X, y) over the labels with first_seen <= limit; writes out[o0 : o0 + n].

    ``best`` is scratch of shape (>= n, k). Returns False, writing nothing, when
    no label takes part.
    """
    k = em.shape[1]
    for t in range(n - 1, -1, -1):
        for i in range(k):
            if first_seen[i] > limit:
                continue
            if t == n - 1:
                best[t, i] = em[t, i]
                continue
            top = -math.inf
            for j in range(k):
                if first_seen[j] <= limit:
                    top = max(top, transition[i, j] + best[t + 1, j])
            best[t, i] = em[t, i] + top
    previous = k
    for t in range(n):
        top = -math.inf
        arg = -1
        for j in range(k):
            if first_seen[j] <= limit:
                value = transition[previous, j] + best[t, j]
                if arg < 0 or value > top:
                    top = value
                    arg = j
        if arg < 0:
            return False
        out[o0 + t] = arg
        previous = arg
    return True


@njit(cache=True)
def hamming_viterbi(em, n, y, y0, transition, first_seen, limit, margins, m0, best, out):
    """argmax_y' w.Phi(X, y') + margins[m0 + h(y, y')], h the Hamming distance to y[y0 : y0 + n].

    Exact for any margin that depends on the labellings only through h: the
    search runs over (position, label, errors made before the position), so it
    costs O(n^2 k^2) time instead of Viterbi's O(n k^2). ``best`` is scratch of
    shape (>= n, >= n + 1, k): best[t, m, i] is the best score of positions
    t .. n-1, margin included, when position t has label i and m errors were
    made before t. Writes out[:n]; the labels of y must take part.
    """
    k = em.shape[1]
    for t in range(n - 1, -1, -1):
        truth = y[y0 + t]
        for i in range(k):
            if first_seen[i] > limit:
                continue
            error = 1 if i != truth else 0
            for m in range(t + 1):
                if t == n - 1:
                    best[t, m, i] = em[t, i] + margins[m0 + m + error]
                    continue
                top = -math.inf
                for j in range(k):
                    if first_seen[j] <= limit:
                        top = max(top, transition[i, j] + best[t + 1, m + error, j])
                best[t, m, i] = em[t, i] + top
    previous = k
    errors = 0
    for t in range(n):
        top = -math.inf
        arg = -1
        for j in range(k):
            if first_seen[j] <= limit:
                value = transition[previous, j] + best[t, errors, j]
                if arg < 0 or value > top:
                    top = value
                    arg = j
        out[t] = arg
        if arg != y[y0 + t]:
            errors += 1
        previous = arg
