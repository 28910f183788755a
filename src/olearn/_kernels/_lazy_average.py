r"""Averaged weights kept by the lazy trick: one algebra, one layout, for every averaged family.

Where averaging comes from. None of the texts olearn implements averages its
iterates (docs/fidelity.md: "not in the text"); the averaged perceptron of
Freund & Schapire (1999, "Large margin classification using the perceptron
algorithm", the voted perceptron's cheap form) and Collins (2002, the averaged
perceptron for taggers) do, and olearn follows scikit-learn's SGD ``average``:
with averaging from round ``a`` on, the averaged weights after round T are the
mean of the weights left by the rounds a .. T (each round counts once,
whether it moved the weights or not),

    wbar_T = (1 / n) * sum_{t=a}^{T} w_t,    n = T - a + 1,

and before round a (T < a) the current weights, as in scikit-learn.

The algebra. Keeping that sum directly costs O(d) per round. With
w_t = w_T - sum_{s=t+1}^{T} delta_s (delta_s the update of round s) the sum is

    sum_{t=a}^{T} w_t = n w_T - U_T,    U_T = sum_{s=a}^{T} (s - a) delta_s,

so a learner keeps, next to w, the correction U, and adds ``(s - a) * delta_s`` to
it on each update: the same O(nnz) entries the update itself touches. Then

    wbar_T = w_T - U_T / n,

the form every family evaluates, weight by weight:

* multilabel ranking and sequences (this module: :func:`round_age` gives s - a),
  second-order and quasi-additive learners (``_avg_sum`` of
  ``olearn._averaging.RunningSumAverage``, the kernels of ``_second_order``,
  ``_diagonal`` and ``_quasi_additive``; a quasi-additive change of the link
  enters U as an update), and multiclass (``A`` of ``_multiclass``, the same
  U with ``max(t - a, 0)`` as the stamp): ``w_j - U_j / n``;
* binary linear learners and regression (``_binary_linear``) store the
  weights scaled, ``w_t = s_t v_t``, so that a projection costs O(1); the
  same derivation with ``sigma_T = sum_t s_t`` in place of n gives
  ``wbar_T = (sigma_T v_T - u_T) / n`` (that module's docstring), which is
  ``(n w_T - U_T) / n`` when the scale stays 1.

The two forms are kept as they are: they round differently, and saved models
must continue bit for bit.

The layout. An averaged score reads, for each entry of a row, a weight and its
correction. Kept in two arrays of the model's size, the two reads are two cache
misses where a plain score has one (at 2**20 columns averaged batches cost
1.5-1.8x the plain ones). The binary linear, regression, multilabel,
multiclass, quasi-additive (and dual-ascent) and second-order learners therefore keep them
as the two views of one array of records ``(w_j, U_j)`` (:func:`olearn._averaging.interleaved`): the kernels
below and the learning passes read and write the views as two arrays, and a
weight and its correction come from one cache line, so that an averaged score
costs what a plain one does plus O(1) (the divisions). Binary linear learners
and regression score every batch so; the other families still keep the whole
average for large batches (:func:`olearn._averaging.kept_average`). The
sequence tagger, whose feature-major emission rows hold a weight per label and
are read whole, keeps a row's corrections beside its weights in the same row
(:func:`olearn._averaging.joined_rows`; its kernels in ``_sequence``), and
builds no average for a prediction: the emission weights are averaged as the
positions read them, the transitions once per call inside the kernel. The
second-order learners keep U in the records of their mean: with a full
covariance the records ``(w_j, U_j)``, with a diagonal one ``(w_j, s_j, U_j)``
(the mean, the variance and U of a coordinate, which a round reads and writes
together); their kernels take the columns as views.

The int64 ``averaging`` array holds the rounds seen and the round a (0 for no
averaging); a pass reads both and advances the rounds.
"""

from ._codes import A_ROUNDS, A_START
from ._jit import njit


@njit(cache=True, inline="always")
def round_age(averaging, i):
    """``s - a`` for row i of a pass (round s = rounds seen + i + 1): the weight of its update in U; 0 when none."""
    start = averaging[A_START]
    t = averaging[A_ROUNDS] + i + 1
    if start > 0 and t > start:
        return float(t - start)
    return 0.0


# -- scores with the averaged weights, averaged entry by entry as the rows read them ----------------
#
# Each kernel here scores with wbar = w - U / n (n > 0, the rounds averaged) computed, for each weight
# it reads, as the learners compute the whole of wbar (one division, one subtraction), and then
# multiplies and adds in the order of the plain scoring kernel it mirrors: the scores are those of
# the plain kernel fed wbar, bit for bit, for O(nnz) work instead of the O(d) of building wbar.


@njit(cache=True)
def averaged_vector_scores(indptr, indices, data, w, u, n, bias, out):
    """out[i] = wbar . x_i, the intercept's weight last (feature of value ``bias``), for the CSR rows.

    The plain kernels mirrored: ``mean_scores`` (second order) and ``quasi_additive_scores``.
    """
    for i in range(indptr.size - 1):
        out[i] = averaged_vector_score_row(indices, data, indptr[i], indptr[i + 1], w, u, n, bias)


@njit(cache=True, inline="always")
def averaged_vector_score_row(indices, data, lo, hi, w, u, n, bias):
    """wbar . x for the CSR row data[lo:hi] (a row of :func:`averaged_vector_scores`; also what a held-out row of a
    multi-pass run is scored by in the second-order and quasi-additive passes)."""
    d = w.size - 1
    dot = (w[d] - u[d] / n) * bias
    for k in range(lo, hi):
        j = indices[k]
        dot += (w[j] - u[j] / n) * data[k]
    return dot



@njit(cache=True)
def averaged_label_scores(indptr, indices, data, W, U, n, bias, out):
    """out[i, r] = wbar_r . x_i for every label r (W and U of shape (labels, d + 1)); mirrors ``multilabel_scores``."""
    d = W.shape[1] - 1
    for i in range(indptr.size - 1):
        for r in range(W.shape[0]):
            s = (W[r, d] - U[r, d] / n) * bias
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                if j < d:
                    s += (W[r, j] - U[r, j] / n) * data[k]
            out[i, r] = s


@njit(cache=True)
def averaged_class_scores(indptr, indices, data, W, A, n, n_classes, bias, out):
    """out[i, a] = wbar_a . x_i for the first n_classes slots (W and A of shape (d + 1, slots)); mirrors
    ``multiclass_scores``."""
    d = W.shape[0] - 1
    for i in range(indptr.size - 1):
        for a in range(n_classes):
            out[i, a] = (W[d, a] - A[d, a] / n) * bias
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            v = data[k]
            for a in range(n_classes):
                out[i, a] += (W[j, a] - A[j, a] / n) * v
