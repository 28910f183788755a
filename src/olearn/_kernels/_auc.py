"""The exact ROC AUC of every prefix of a stream of scores, in one pass over two Fenwick trees."""

import math

import numpy as np

from ._jit import njit


@njit(cache=True, inline="always")
def _add(tree, rank, value):
    i = rank + 1
    while i < tree.size:
        tree[i] += value
        i += i & -i


@njit(cache=True, inline="always")
def _below(tree, rank):
    """Sum of the entries of the ranks < rank."""
    total = 0.0
    i = rank
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total


@njit(cache=True)
def auc_pass(ranks, positive, neg_at, pos_at, totals, ends, out):
    """Add the rounds (each of weight 1) in order; write the ROC AUC after each round count of ``ends`` to ``out``.

    ``ranks[i]``: the rank of round i's score among all distinct scores;
    ``positive[i]``: whether its label is the positive class. ``neg_at`` and
    ``pos_at`` hold the weight of each class at each rank (the rounds held
    before; updated in place), ``totals`` the Mann-Whitney sum U of those
    rounds and the two classes' weights (updated in place).

    A positive of score s adds the weight of the negatives below s, plus half
    of those at s, to U; a negative adds the positives above s plus half of
    those at s. The AUC is U over the product of the weights (NaN while one is 0).
    """
    m = neg_at.size
    neg_tree = np.zeros(m + 1)
    pos_tree = np.zeros(m + 1)
    for r in range(m):
        _add(neg_tree, r, neg_at[r])
        _add(pos_tree, r, pos_at[r])
    u, w_pos, w_neg = totals[0], totals[1], totals[2]
    j = 0
    for i in range(ranks.size):
        r = ranks[i]
        if positive[i]:
            u += _below(neg_tree, r) + 0.5 * neg_at[r]
            pos_at[r] += 1.0
            _add(pos_tree, r, 1.0)
            w_pos += 1.0
        else:
            u += w_pos - _below(pos_tree, r + 1) + 0.5 * pos_at[r]
            neg_at[r] += 1.0
            _add(neg_tree, r, 1.0)
            w_neg += 1.0
        while j < ends.size and ends[j] == i + 1:
            out[j] = u / (w_pos * w_neg) if w_pos > 0.0 and w_neg > 0.0 else math.nan
            j += 1
    totals[0], totals[1], totals[2] = u, w_pos, w_neg
