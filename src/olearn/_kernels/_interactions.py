"""Compiled namespace crossing of parsed VW rows: ``--ignore``/``--keep``, ``--ngram``/``--skips`` and interactions.

The input is the raw output of :func:`._parse_vw.parse_vw` called with its
``hashes`` and ``spaces``: rows in line order, each entry with its whole 32-bit
hash, its value and its namespace letter (the namespace's first byte, a space
for the default one). As in Vowpal Wabbit, the namespaces sharing a first
letter form one group, its features in line order, and per row:

1. the features of a letter not kept are dropped;
2. a letter with ``ngram[letter] = N > 1`` gains, for every run of L = 2..N of
   its features taken in order with at most ``skips[letter]`` features skipped
   in all, the feature of value 1 hashed ``h = h * 27942141 + h_next`` (VW's
   ``addgrams``, its ``quadratic_constant``);
3. every term (a row of ``terms``: letters, or ``WILDCARD`` for any letter of
   the row, padded with -1) crosses the groups of its letters: one feature per
   choice of one feature of each group, of value the product of the values and
   hash ``h = (h * 16777619) ^ h_next`` (VW's FNV-prime crossing). Where a
   letter repeats the one before it (``aa``), only nondecreasing positions are
   taken (VW's default, combinations without the mirrored pairs); the letters a
   run of wildcards stands for are likewise taken nondecreasing (``::`` crosses
   ``ab`` once, not also ``ba``), and a choice of letters that an earlier term
   (or expansion) of the row crossed in any order is not crossed again (VW
   crosses ``ab`` once under ``-q ab -q ::``).

Every feature's column is its hash masked to ``n_bits`` bits. The rows come out
unsorted, with repeated columns; ``_parse_rows.sort_and_sum_rows`` merges them.
"""

import numpy as np

from ._jit import njit
from ._parse_vw import _mul32
from ._parse_vw_codes import WILDCARD

N_LETTERS = 256
FNV_PRIME = 16777619
NGRAM_CONSTANT = 27942141
_MASK32 = 0xFFFFFFFF


@njit(cache=True)
def _add_grams(gh, gv, lo, count, n, skips, out, gaps):
    """Append to ``gh``/``gv`` from ``out`` the n-grams of the ``count`` features at ``lo`` (see the module
    docstring); returns the new end. ``gaps``: int64 scratch of at least n - 1."""
    for length in range(2, n + 1):
        m = length - 1
        for first in range(count):
            gaps[:m] = 0
            while True:
                last = first + m + gaps[:m].sum()
                if last < count:
                    h = gh[lo + first]
                    p = first
                    for j in range(m):
                        p += 1 + gaps[j]
                        h = (_mul32(h, NGRAM_CONSTANT) + gh[lo + p]) & _MASK32
                    gh[out] = h
                    gv[out] = 1.0
                    out += 1
                # the next gaps of at most ``skips`` in all
                j = m - 1
                while j >= 0:
                    gaps[j] += 1
                    if gaps[:m].sum() <= skips:
                        break
                    gaps[j] = 0
                    j -= 1
                if j < 0:
                    break
    return out


@njit(cache=True)
def _group_row(lo, hi, hashes, data, spaces, kept, ngram, skips, gh, gv, start, count, present, gaps):
    """Group the kept features of entries ``lo:hi`` by letter into ``gh``/``gv``, each letter's n-grams after its
    features; fills ``start``/``count`` per letter and ``present`` (the letters, ascending); returns their number."""
    n_present = 0
    for p in range(lo, hi):
        letter = spaces[p]
        if kept[letter]:
            if count[letter] == 0:
                # insert in order: a row holds few letters
                q = n_present
                while q > 0 and present[q - 1] > letter:
                    present[q] = present[q - 1]
                    q -= 1
                present[q] = letter
                n_present += 1
            count[letter] += 1
    end = 0
    for q in range(n_present):
        letter = present[q]
        start[letter] = end
        end += count[letter]
        count[letter] = 0
    for p in range(lo, hi):
        letter = spaces[p]
        if kept[letter]:
            at = start[letter] + count[letter]
            gh[at] = hashes[p]
            gv[at] = data[p]
            count[letter] += 1
    # the n-grams go after all the features, each letter's run then moved next to its features
    if end > 0:
        for q in range(n_present - 1, -1, -1):
            letter = present[q]
            if ngram[letter] > 1:
                first = start[letter]
                n_tokens = count[letter]
                tail = _add_grams(gh, gv, first, n_tokens, ngram[letter], skips[letter], end, gaps)
                added = tail - end
                if added:
                    # rotate the grams (at end:tail) to just after the letter's features (at first+n_tokens)
                    at = first + n_tokens
                    moved_h = gh[end:tail].copy()
                    moved_v = gv[end:tail].copy()
                    gh[at + added:tail] = gh[at:end].copy()
                    gv[at + added:tail] = gv[at:end].copy()
                    gh[at:at + added] = moved_h
                    gv[at:at + added] = moved_v
                    for r in range(q + 1, n_present):
                        start[present[r]] += added
                    count[letter] += added
                    end = tail
    return n_present


@njit(cache=True)
def _crossed_before(letters, order, seen, n_seen, key):
    """Whether the multiset of ``letters[:order]`` is a row of ``seen[:n_seen]`` (each row: the order, then the
    sorted letters); if not, it is written at row ``n_seen``, which the caller then counts. ``key``: scratch."""
    for pos in range(order):  # insertion sort: a term has few letters
        letter = letters[pos]
        q = pos
        while q > 0 and key[q - 1] > letter:
            key[q] = key[q - 1]
            q -= 1
        key[q] = letter
    for s in range(n_seen):
        if seen[s, 0] == order:
            same = True
            for pos in range(order):
                if seen[s, pos + 1] != key[pos]:
                    same = False
                    break
            if same:
                return True
    seen[n_seen, 0] = order
    seen[n_seen, 1:order + 1] = key[:order]
    return False


@njit(cache=True)
def _cross_term(term, order, present, n_present, start, count, gh, gv, mask, indices, values, k, write, seen,
                n_seen, scratch):
    """Emit the crossed features of one term (see the module docstring) at ``k``; returns the new ``k``.

    ``seen``/``n_seen`` (a 1-array) hold the letters the row has crossed so far (:func:`_crossed_before`);
    ``scratch``: an int64 array (4, longest term)."""
    if n_present == 0:
        return k
    letters = scratch[0]
    choice = scratch[1]
    at = scratch[2]
    choice[:order] = 0
    # the letters: an odometer over the present letters for the wildcards, nondecreasing along them
    previous_wild = -1
    for pos in range(order):
        if term[pos] == WILDCARD:
            choice[pos] = 0 if previous_wild < 0 else choice[previous_wild]
            previous_wild = pos
    while True:
        complete = True
        for pos in range(order):
            letters[pos] = present[choice[pos]] if term[pos] == WILDCARD else term[pos]
            if count[letters[pos]] == 0:
                complete = False
        if complete and n_seen[0] == seen.shape[0]:
            return -1  # no room left to remember the letters: the caller grows ``seen`` and calls again
        if complete and not _crossed_before(letters, order, seen, n_seen[0], scratch[3]):
            n_seen[0] += 1
            for pos in range(order):
                at[pos] = at[pos - 1] if pos > 0 and letters[pos] == letters[pos - 1] else 0
            while True:
                if write:
                    h = gh[start[letters[0]] + at[0]]
                    v = gv[start[letters[0]] + at[0]]
                    for pos in range(1, order):
                        e = start[letters[pos]] + at[pos]
                        h = _mul32(h, FNV_PRIME) ^ gh[e]
                        v *= gv[e]
                    indices[k] = h & mask
                    values[k] = v
                k += 1
                pos = order - 1
                while pos >= 0:
                    at[pos] += 1
                    if at[pos] < count[letters[pos]]:
                        break
                    pos -= 1
                if pos < 0:
                    break
                for q in range(pos + 1, order):
                    at[q] = at[q - 1] if letters[q] == letters[q - 1] else 0
        # the next choice of letters for the wildcards
        pos = order - 1
        while pos >= 0:
            if term[pos] == WILDCARD:
                choice[pos] += 1
                if choice[pos] < n_present:
                    break
            pos -= 1
        if pos < 0:
            break
        previous_wild = pos
        for q in range(pos + 1, order):
            if term[q] == WILDCARD:
                choice[q] = choice[previous_wild]
                previous_wild = q
    return k


@njit(cache=True)
def cross_rows(indptr, hashes, data, spaces, n_rows, n_bits, kept, ngram, skips, terms, grams_per_feature,
               out_indptr, out_indices, out_data, write):
    """The rows with their namespaces crossed (see the module docstring), into ``out_*``.

    Called twice: with ``write`` False it only fills ``out_indptr`` (the
    entries of each row) and returns the total, for allocating ``out_indices``
    and ``out_data``; with ``write`` True it fills them.
    ``grams_per_feature`` bounds the n-grams that one feature starts.
    """
    mask = (1 << n_bits) - 1
    longest = 0
    for r in range(n_rows):
        longest = max(longest, indptr[r + 1] - indptr[r])
    gh = np.empty(longest * (1 + grams_per_feature) + 1, dtype=np.int64)
    gv = np.empty(longest * (1 + grams_per_feature) + 1)
    start = np.zeros(N_LETTERS, dtype=np.int64)
    count = np.zeros(N_LETTERS, dtype=np.int64)
    seen = np.empty((16, terms.shape[1] + 1), dtype=np.int64)
    scratch = np.empty((4, max(terms.shape[1], 1)), dtype=np.int64)
    n_seen = np.zeros(1, dtype=np.int64)
    present = np.empty(N_LETTERS, dtype=np.int64)
    gaps = np.zeros(max(ngram.max(), 2), dtype=np.int64)
    k = 0
    out_indptr[0] = 0
    for r in range(n_rows):
        n_present = _group_row(indptr[r], indptr[r + 1], hashes, data, spaces, kept, ngram, skips, gh, gv, start,
                               count, present, gaps)
        n_features = 0
        for q in range(n_present):
            n_features += count[present[q]]
        for e in range(n_features):  # the groups, from the start of the buffer
            if write:
                out_indices[k] = gh[e] & mask
                out_data[k] = gv[e]
            k += 1
        n_seen[0] = 0
        first_crossed = k
        t = 0
        while t < terms.shape[0]:
            order = 0
            while order < terms.shape[1] and terms[t, order] >= 0:
                order += 1
            crossed = _cross_term(terms[t], order, present, n_present, start, count, gh, gv, mask, out_indices,
                                  out_data, k, write, seen, n_seen, scratch)
            if crossed < 0:
                # the row's letters outgrew ``seen``: grow it and cross the row's terms again from the first
                seen = np.empty((2 * seen.shape[0], seen.shape[1]), dtype=np.int64)
                n_seen[0] = 0
                k = first_crossed
                t = 0
                continue
            k = crossed
            t += 1
        for q in range(n_present):
            count[present[q]] = 0
        out_indptr[r + 1] = k
    return k
