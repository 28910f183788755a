"""Mercer kernels and a budgeted support set, compiled: the engine of every kernel learner.

A kernel learner keeps its function in dual form,
``f(x) = sum_i alpha_i (K(x_i, x) + offset)``, where the support vectors ``x_i``
are rows stored in growable CSR arrays and ``alpha_i`` is a row of
``n_outputs`` coefficients (one for a binary learner or a regressor, one per
class for a multi-prototype learner: :func:`support_scores` evaluates every
output with one kernel evaluation per support vector). ``offset`` is the square
of the intercept's constant feature, appended inside the kernel's feature map.

The support set is the tuple of arrays

* ``sv_indptr`` (int64, capacity + 1), ``sv_indices`` (int32), ``sv_data``
  (float64): the rows, oldest first;
* ``sv_sqnorm`` (float64, capacity): ``||x_i||^2`` of each row (the RBF kernel
  needs it);
* ``sv_coef`` (float64, capacity x n_outputs): the coefficients;
* ``sv_count`` (int64, 1): how many support vectors are live;
* ``rng`` (uint64, 1): the state of the generator of the "random" budget policy.

The caller reserves capacity before calling (no allocation in the loops) and
a scatter workspace ``work`` of zeros with one slot per feature: a row ``x`` is
scattered there once per round, so that each support vector's ``x_i . x`` is a
gather over the support vector's non-zeros, O(nnz(x_i)), and the workspace is
zero again on return.

The three kernels are functions of ``x . x'``, ``||x||^2`` and ``||x'||^2``:
linear ``x . x'``, polynomial ``(gamma x . x' + coef0)^degree`` and RBF
``exp(-gamma ||x - x'||^2)``, with ``||x - x'||^2 = ||x||^2 + ||x'||^2 - 2 x . x'``
(clipped at 0 against rounding). That expansion loses the distance's digits
to cancellation when two rows are close compared with their norms (unscaled
features far from 0): its rounding error is about ``1e-16 (||x||^2 + ||x'||^2)``.
So where it gives a distance below :data:`CANCELLATION` times
``||x||^2 + ||x'||^2``, :func:`support_kernel` sums ``(x_j - x'_j)^2`` term by
term instead (:func:`exact_sqdistance`, O(nnz(x) + nnz(x'))), and the RBF value
keeps its digits; elsewhere the expansion's value is used unchanged.
"""

import math

import numpy as np

from ._codes import (
    BUDGET_OLDEST,
    BUDGET_RANDOM,
    KERNEL_LINEAR,
    KERNEL_POLY,
    KERNEL_RBF,
    M_BUDGET,
    M_COEF0,
    M_DEGREE,
    M_GAMMA,
    M_KERNEL,
    M_OFFSET,
    M_POLICY,
)
from ._jit import njit

# an RBF distance from the expansion below this fraction of ||x||^2 + ||x'||^2 is summed term by term instead
CANCELLATION = 1e-6

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def unpack_mercer(mcodes, mparams):
    """(kernel, degree, gamma, coef0, offset, budget, policy) as scalars the compiler can keep in registers."""
    return (
        mcodes[M_KERNEL],
        mcodes[M_DEGREE],
        mparams[M_GAMMA],
        mparams[M_COEF0],
        mparams[M_OFFSET],
        mcodes[M_BUDGET],
        mcodes[M_POLICY],
    )


@njit(cache=True, inline="always")
def kernel_value(kernel, dot, sqnorm_a, sqnorm_b, degree, gamma, coef0):
    """K(a, b) from a . b, ||a||^2 and ||b||^2."""
    if kernel == KERNEL_LINEAR:
        return dot
    if kernel == KERNEL_POLY:
        return (gamma * dot + coef0) ** degree
    distance = max(sqnorm_a + sqnorm_b - 2.0 * dot, 0.0)
    return math.exp(-gamma * distance)


@njit(cache=True, inline="always")
def self_kernel(sqnorm, mercer):
    """K(x, x) + offset: the squared norm of the augmented x in the kernel's feature space."""
    kernel, degree, gamma, coef0, offset, _, _ = mercer
    return kernel_value(kernel, sqnorm, sqnorm, sqnorm, degree, gamma, coef0) + offset


@njit(cache=True, inline="always")
def gather_dot(sv_indices, sv_data, lo, hi, work):
    """x_i . x for the support vector sv_data[lo:hi] and the x scattered in ``work``.

    A row whose indices are one contiguous run (a dense row) is read as a
    slice by :func:`block_dot`. Any other row is a gather by index, summed in
    four interleaved partial sums (entries j = 0, 1, 2, 3 mod 4, the leftover
    entries in the first) added pairwise at the end: scalar loads, which on
    the machine measured (AVX-512) beat the vector gather instructions that a
    reassociated sum compiles to, and a summation order that does not depend
    on the compiler. Indices are read as unsigned, which spares the checks for
    negative indices. Inlined into the loops over the support set, so that
    evaluating a support vector costs no call.
    """
    n = hi - lo
    if n == 0:
        return 0.0
    values = sv_data[lo:hi]
    first = sv_indices[lo]
    if sv_indices[hi - 1] - first == n - 1:
        return block_dot(values, work[first:first + n])
    positions = sv_indices[lo:hi]
    dot0 = 0.0
    dot1 = 0.0
    dot2 = 0.0
    dot3 = 0.0
    whole = n - n % 4
    for j in range(0, whole, 4):
        dot0 += values[j] * work[np.uint32(positions[j])]
        dot1 += values[j + 1] * work[np.uint32(positions[j + 1])]
        dot2 += values[j + 2] * work[np.uint32(positions[j + 2])]
        dot3 += values[j + 3] * work[np.uint32(positions[j + 3])]
    for j in range(whole, n):
        dot0 += values[j] * work[np.uint32(positions[j])]
    return (dot0 + dot1) + (dot2 + dot3)


# Reassociation lets the compiler vectorise the sum; a loop over slices from 0 spares it
# the checks for negative indices that would stop it.
@njit(cache=True, fastmath={"reassoc", "contract"}, _nrt=False)
def block_dot(values, block):
    """values . block for two slices of one length."""
    dot = 0.0
    for j in range(values.size):
        dot += values[j] * block[j]
    return dot


@njit(cache=True)
def scatter_row(indices, data, lo, hi, work):
    """Write the row data[lo:hi] into the zero workspace; return ||x||^2."""
    sqnorm = 0.0
    for k in range(lo, hi):
        v = data[k]
        work[indices[k]] = v
        sqnorm += v * v
    return sqnorm


@njit(cache=True)
def clear_row(indices, lo, hi, work):
    """Zero the workspace again after :func:`scatter_row`."""
    for k in range(lo, hi):
        work[indices[k]] = 0.0


@njit(cache=True)
def exact_sqdistance(sv_indices, sv_data, start, stop, indices, lo, hi, work):
    """||x_i - x||^2 as a sum of squares, for the support vector sv_data[start:stop] and the x scattered in ``work``.

    Coordinates of x_i give (x_i_j - x_j)^2, and are zeroed in ``work`` as they
    are read, so that what remains there is x's coordinates outside x_i, whose
    squares are added next; then x is scattered again. Every term is >= 0: no
    cancellation. Rows are duplicate-free (checked where they enter).
    """
    total = 0.0
    for j in range(start, stop):
        position = sv_indices[j]
        difference = sv_data[j] - work[position]
        total += difference * difference
        work[position] = 0.0
    for k in range(lo, hi):
        v = work[indices[k]]
        total += v * v
    return total


@njit(cache=True, inline="always")
def support_kernel(dot, i, sv_indptr, sv_indices, sv_sqnorm, sv_data, indices, data, lo, hi, sqnorm, mercer, work):
    """K(x_i, x) + offset for support vector i, from ``dot`` = x_i . x and the row data[lo:hi] scattered in ``work``.

    The RBF distance of the expansion is replaced by :func:`exact_sqdistance`
    where cancellation may have eaten its digits (module docstring); ``work``
    holds x again on return.
    """
    kernel, degree, gamma, coef0, offset, _, _ = mercer
    if kernel == KERNEL_RBF:
        scale = sv_sqnorm[i] + sqnorm
        if scale - 2.0 * dot < CANCELLATION * scale:
            distance = exact_sqdistance(sv_indices, sv_data, sv_indptr[i], sv_indptr[i + 1], indices, lo, hi, work)
            for k in range(lo, hi):
                work[indices[k]] = data[k]
            return math.exp(-gamma * distance) + offset
    return kernel_value(kernel, dot, sv_sqnorm[i], sqnorm, degree, gamma, coef0) + offset


# The loops over the support set are compiled without numba's reference counting
# (``_nrt=False``, as ``_binary_linear.binary_linear_pass``): they allocate nothing and keep
# no array, and with it the slices taken of every support vector paid for counting
# references, about a third of the time of an evaluation on 256-d digit rows.
@njit(cache=True, _nrt=False)
def support_scores(indices, data, lo, hi, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count,
                   mercer, work, out):
    """out[c] = sum_i sv_coef[i, c] (K(x_i, x) + offset) for the row data[lo:hi]; returns ||x||^2.

    O(nnz(x) + sum_i nnz(x_i)): one kernel evaluation per support vector,
    shared by every output.
    """
    n_outputs = out.size
    for c in range(n_outputs):
        out[c] = 0.0
    sqnorm = scatter_row(indices, data, lo, hi, work)
    for i in range(sv_count[0]):
        dot = gather_dot(sv_indices, sv_data, sv_indptr[i], sv_indptr[i + 1], work)
        value = support_kernel(dot, i, sv_indptr, sv_indices, sv_sqnorm, sv_data, indices, data, lo, hi, sqnorm, mercer,
                               work)
        for c in range(n_outputs):
            out[c] += sv_coef[i, c] * value
    clear_row(indices, lo, hi, work)
    return sqnorm


@njit(cache=True, _nrt=False)
def support_values(indices, data, lo, hi, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_count, mercer, work, out):
    """out[i] = K(x_i, x) + offset for every support vector: a row of the Gram matrix; returns ||x||^2."""
    sqnorm = scatter_row(indices, data, lo, hi, work)
    for i in range(sv_count[0]):
        dot = gather_dot(sv_indices, sv_data, sv_indptr[i], sv_indptr[i + 1], work)
        out[i] = support_kernel(dot, i, sv_indptr, sv_indices, sv_sqnorm, sv_data, indices, data, lo, hi, sqnorm, mercer,
                                work)
    clear_row(indices, lo, hi, work)
    return sqnorm


@njit(cache=True)
def random_below(rng, n):
    """A uniform integer in [0, n) from SplitMix64 (Steele, Lea & Flood 2014); advances ``rng``."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    # the top 53 bits as a uniform number in [0, 1)
    k = int(float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0) * n)
    return min(k, n - 1)


@njit(cache=True)
def budget_victim(policy, sv_coef, n, rng):
    """Position (0 = oldest) of the support vector to remove from a full set of n."""
    if policy == BUDGET_OLDEST:
        return 0
    if policy == BUDGET_RANDOM:
        return random_below(rng, n)
    best = 0
    smallest = math.inf
    for i in range(n):
        size = 0.0
        for c in range(sv_coef.shape[1]):
            size += sv_coef[i, c] * sv_coef[i, c]
        if size < smallest:
            smallest = size
            best = i
    return best


@njit(cache=True)
def support_remove(position, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count):
    """Remove one support vector, keeping the others in order (O(nnz of the later ones))."""
    n = sv_count[0]
    lo, hi = sv_indptr[position], sv_indptr[position + 1]
    width = hi - lo
    end = sv_indptr[n]
    for k in range(hi, end):
        sv_indices[k - width] = sv_indices[k]
        sv_data[k - width] = sv_data[k]
    for i in range(position, n - 1):
        sv_indptr[i + 1] = sv_indptr[i + 2] - width
        sv_sqnorm[i] = sv_sqnorm[i + 1]
        for c in range(sv_coef.shape[1]):
            sv_coef[i, c] = sv_coef[i + 1, c]
    sv_count[0] = n - 1


@njit(cache=True)
def support_insert(indices, data, lo, hi, sqnorm, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count,
                   rng, budget, policy):
    """Append the row data[lo:hi] with zero coefficients, its entries by ascending index; return its position.

    A support vector's indices are kept ascending whatever the order of the
    row's (a dict's keys give theirs in the dict's order): :func:`gather_dot`
    reads a vector whose first and last index span its length as one
    contiguous block. When the set already holds ``budget`` vectors
    (``budget > 0``), the policy's victims leave first (more than one only if
    the budget was lowered), so the set never exceeds the budget and the row
    being added is never the one removed. The caller has reserved room for one
    more row and its non-zeros.
    """
    while budget > 0 and sv_count[0] >= budget:
        victim = budget_victim(policy, sv_coef, sv_count[0], rng)
        support_remove(victim, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count)
    n = sv_count[0]
    start = sv_indptr[n]
    for k in range(lo, hi):
        # insertion by index: O(nnz) for a row already ascending
        j = start + k - lo
        while j > start and sv_indices[j - 1] > indices[k]:
            sv_indices[j] = sv_indices[j - 1]
            sv_data[j] = sv_data[j - 1]
            j -= 1
        sv_indices[j] = indices[k]
        sv_data[j] = data[k]
    sv_indptr[n + 1] = start + hi - lo
    sv_sqnorm[n] = sqnorm
    for c in range(sv_coef.shape[1]):
        sv_coef[n, c] = 0.0
    sv_count[0] = n + 1
    return n
