"""The Viterbi kernels against exhaustive search over all labellings of short chains."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from oracles.sequence import brute_force_argmax, chain_score, hamming

from olearn._kernels._viterbi import hamming_viterbi, viterbi

MARGINS = {
    "sqrt(h)": math.sqrt,
    "h": float,
    "h^(1/4)": lambda h: h**0.25,
}


@st.composite
def chains(draw, ties=False):
    """Emission scores (T, k), transitions (k + 1, k), which labels take part, and a true labelling."""
    T = draw(st.integers(1, 5))
    k = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if ties:
        # few distinct small integers: many exact ties, all sums exact in floating point
        em = rng.integers(-1, 2, size=(T, k)).astype(np.float64)
        transition = rng.integers(-1, 2, size=(k + 1, k)).astype(np.float64)
    else:
        em = rng.standard_normal((T, k))
        transition = rng.standard_normal((k + 1, k))
    first_seen = rng.integers(-1, 2, size=k)
    y = rng.integers(0, k, size=T)
    return em, transition, first_seen, y


def _kernel_viterbi(em, transition, first_seen, limit):
    T, k = em.shape
    out = np.full(T, -7, dtype=np.int64)
    found = viterbi(em, T, transition, first_seen, limit, np.empty((T, k)), out, 0)
    return found, out


def _candidates(first_seen, limit):
    return [j for j in range(first_seen.size) if first_seen[j] <= limit]


@settings(max_examples=150, deadline=None)
@given(chains(), st.integers(-1, 1))
def test_viterbi_is_the_exhaustive_argmax(chain, limit):
    em, transition, first_seen, _ = chain
    found, out = _kernel_viterbi(em, transition, first_seen, limit)
    candidates = _candidates(first_seen, limit)
    assert found == bool(candidates)
    if candidates:
        expected = brute_force_argmax(lambda r: chain_score(em, transition, r), em.shape[0], candidates)
        assert_array_equal(out, expected)
    else:
        assert (out == -7).all()


@settings(max_examples=150, deadline=None)
@given(chains(ties=True))
def test_viterbi_breaks_ties_towards_the_lexicographically_smallest_labelling(chain):
    em, transition, first_seen, _ = chain
    first_seen[:] = -1
    _, out = _kernel_viterbi(em, transition, first_seen, 0)
    expected = brute_force_argmax(lambda r: chain_score(em, transition, r), em.shape[0], range(em.shape[1]))
    assert_array_equal(out, expected)


def test_viterbi_of_an_all_zero_model_is_the_smallest_label_everywhere():
    out = np.empty(4, dtype=np.int64)
    viterbi(np.zeros((4, 3)), 4, np.zeros((4, 3)), np.array([0, -1, -1]), -1, np.empty((4, 3)), out, 0)
    assert out.tolist() == [1, 1, 1, 1]


@settings(max_examples=150, deadline=None)
@given(chains(), st.sampled_from(sorted(MARGINS)), st.booleans())
def test_hamming_viterbi_is_the_exhaustive_argmax_of_score_plus_margin(chain, margin_name, ties):
    em, transition, first_seen, y = chain
    margin = MARGINS[margin_name]
    if ties:
        # integers everywhere, margins included, keep every sum exact
        em, transition, margin = np.round(em), np.round(transition), MARGINS["h"]
    first_seen[y] = -1  # the true labels always take part
    T, k = em.shape
    margins = np.array([margin(h) for h in range(T + 1)])
    offset = 3
    padded_margins = np.concatenate([np.full(offset, np.nan), margins])
    out = np.empty(T, dtype=np.int64)
    hamming_viterbi(em, T, np.concatenate([[0, 0], y]), 2, transition, first_seen, 0, padded_margins, offset,
                    np.empty((T, T + 1, k)), out)
    candidates = _candidates(first_seen, 0)

    def augmented(r):
        return chain_score(em, transition, r) + margin(hamming(y, r))

    expected = brute_force_argmax(augmented, T, candidates)
    if ties:
        assert_array_equal(out, expected)
    else:
        assert math.isclose(augmented(tuple(out)), augmented(expected), rel_tol=1e-12, abs_tol=1e-12)
        assert_array_equal(out, expected)
