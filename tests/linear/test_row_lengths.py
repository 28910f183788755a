"""PA-I over CSR rows of every length, bit for bit against a plain transcription.

The compiled pass reads a row's entries four per turn, then the rest one by
one, at unsigned offsets. Rows of 0 to 13 entries put every remainder (0 to 3
entries after the groups of four) after every count of groups, and the columns
reach both ends of the weight vector. The reference is Crammer et al. (2006),
Figure 1, PA-I, in plain Python: w.x and ||x||^2 summed entry by entry in the
row's order (the order that olearn's docs and the C benchmark state), so the
two must agree exactly, not just closely.

A CSR batch large enough for the learner is checked by that pass itself, each
row just before it reads it (``LinearLearner._progressive_pass``): the results must
be the same bit for bit, and a row in no canonical form (unsorted or repeated
indices, at the first, a middle or the last row) must stop the pass and be
learned as scipy's ``sum_duplicates`` puts it, the learner put back first; an
overflow must keep the rows before it, as on the checked path.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import ROW_DEFECTS_MERGED, learn_a_broken_batch, sorted_csr

import olearn
from olearn.exceptions import PartialUpdateError


def _pa1_rows(indptr, indices, data, y, n_features, C, fit_intercept):
    """PA-I, one row per round, sums left to right; the intercept's constant 1 is the first term of each sum."""
    w = [0.0] * n_features
    b = 0.0
    scores = []
    for i in range(len(indptr) - 1):
        entries = list(zip(indices[indptr[i]:indptr[i + 1]].tolist(), data[indptr[i]:indptr[i + 1]].tolist()))
        dot = b * 1.0 if fit_intercept else 0.0
        sq = 1.0 if fit_intercept else 0.0
        for j, v in entries:
            dot += w[j] * v
            sq += v * v
        scores.append(dot)
        loss = max(0.0, 1.0 - y[i] * dot)
        if loss > 0.0 and sq > 0.0:
            tau = min(C, loss / sq)
            a = tau * y[i]
            for j, v in entries:
                w[j] += a * v
            if fit_intercept:
                b += a * 1.0
    return np.array(w), b, np.array(scores)


def _stream(n_features, seed):
    rng = np.random.default_rng(seed)
    lengths = np.tile(np.arange(14), 12)
    rng.shuffle(lengths)
    rows = []
    for k in lengths:
        columns = np.sort(rng.choice(n_features, size=k, replace=False))
        if k:
            columns[0] = 0 if rng.random() < 0.3 else columns[0]
            columns[-1] = n_features - 1 if rng.random() < 0.3 else columns[-1]
            columns = np.unique(columns)
        rows.append(columns)
    indptr = np.concatenate([[0], np.cumsum([c.size for c in rows])])
    indices = np.concatenate(rows).astype(np.int32)
    data = rng.lognormal(sigma=0.75, size=indices.size)
    y = np.where(rng.random(len(rows)) < 0.5, -1.0, 1.0)
    X = sp.csr_matrix((data, indices, indptr), shape=(len(rows), n_features))
    return X, y


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("n_features", [16, 2**20])
def test_pa1_on_rows_of_every_length_equals_the_transcription(n_features, fit_intercept):
    X, y = _stream(n_features, seed=n_features + fit_intercept)
    assert set(np.diff(X.indptr)) == set(range(14))
    w, b, scores = _pa1_rows(X.indptr, X.indices, X.data, y, n_features, 0.5, fit_intercept)
    assert np.count_nonzero(w) > 0
    est = olearn.PAClassifier(variant="pa1", C=0.5, fit_intercept=fit_intercept)
    result = olearn.run(est, X, y)
    np.testing.assert_array_equal(result.scores, scores)
    np.testing.assert_array_equal(est.coef_.ravel(), w)
    assert est.intercept_[0] == b


def _concatenated(*batches):
    return sp.vstack(batches, format="csr")


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_a_learner_with_weights_checks_a_large_batch_in_its_pass_bit_for_bit(fit_intercept, checking_pass_stops):
    first, y1 = _stream(16, seed=1)
    second, y2 = _stream(16, seed=2)
    est = olearn.PAClassifier(variant="pa1", C=0.5, fit_intercept=fit_intercept)
    est.partial_fit(first, y1)
    scores = olearn.run(est, second, y2).scores
    # both batches took the checking pass, which read every row
    assert checking_pass_stops == [-1, -1]
    both = _concatenated(first, second)
    w, b, expected = _pa1_rows(both.indptr, both.indices, both.data, np.concatenate([y1, y2]), 16, 0.5,
                               fit_intercept)
    np.testing.assert_array_equal(scores, expected[first.shape[0]:])
    np.testing.assert_array_equal(est.coef_.ravel(), w)
    assert est.intercept_[0] == b


@pytest.mark.parametrize("row", [0, 20, 39])
@pytest.mark.parametrize("kind", ROW_DEFECTS_MERGED)
@pytest.mark.parametrize("started", [False, True], ids=["fresh", "started"])
def test_a_row_in_no_canonical_form_is_learned_as_scipy_merges_it(started, kind, row, checking_pass_stops):
    est = olearn.PAClassifier(variant="pa1", C=0.5, fit_intercept=True)
    result, first, y1, merged, y = learn_a_broken_batch(est, kind, row, started, 40, 9, np.random.default_rng(row),
                                                        checking_pass_stops)
    stream = _concatenated(first, merged) if started else merged
    labels = np.concatenate([y1, y]) if started else y
    w, b, scores = _pa1_rows(stream.indptr, stream.indices, stream.data, labels, 9, 0.5, True)
    np.testing.assert_array_equal(result.scores, scores[-40:])
    np.testing.assert_array_equal(est.coef_.ravel(), w)
    assert est.intercept_[0] == b


@pytest.mark.parametrize("started", [False, True], ids=["fresh", "started"])
def test_an_overflow_in_the_checking_pass_keeps_the_rows_before_it_as_the_checked_path_does(started,
                                                                                          checking_pass_stops):
    rng = np.random.default_rng(3)
    first, y1 = sorted_csr(40, 9, rng), np.where(rng.random(40) < 0.5, -1.0, 1.0)
    X, y = sorted_csr(40, 9, rng), np.where(rng.random(40) < 0.5, -1.0, 1.0)
    X.data[X.indptr[25]] = 1e200  # ||x||^2 of row 25 overflows: finite values, refused by no check
    est = olearn.PAClassifier(variant="pa1", C=0.5)
    if started:
        est.partial_fit(first, y1)
    with pytest.raises(PartialUpdateError, match="overflowed at row 25") as caught:
        est.partial_fit(X, y)
    assert caught.value.rows_kept == 25
    # the checking pass stopped at the row; the checked path learned rows 0..24 again from the same start (and a
    # fresh learner, which knew no class, is put back and learns them once more, with only their classes)
    assert checking_pass_stops == ([-1, 25] if started else [25, -1])
    stream = _concatenated(first, X[:25]) if started else X[:25]
    labels = np.concatenate([y1, y[:25]]) if started else y[:25]
    w, _, _ = _pa1_rows(stream.indptr, stream.indices, stream.data, labels, 9, 0.5, False)
    np.testing.assert_array_equal(est.coef_.ravel(), w)
