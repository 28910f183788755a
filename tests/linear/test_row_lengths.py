"""PA-I over CSR rows of every length, bit for bit against a plain transcription.

The compiled pass reads a row's entries four per turn, then the rest one by
one, at unsigned offsets. Rows of 0 to 13 entries put every remainder (0 to 3
entries after the groups of four) after every count of groups, and the columns
reach both ends of the weight vector. The reference is Crammer et al. (2006),
Figure 1, PA-I, in plain Python: w.x and ||x||^2 summed entry by entry in the
row's order (the order that olearn's docs and the C benchmark state), so the
two must agree exactly, not just closely.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import olearn


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
