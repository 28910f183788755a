"""The diagonal second-order learners check a large CSR batch's rows in their learning pass.

A CSR batch large enough (``LinearLearner._progressive_pass``) goes unchecked to the
diagonal pass, which checks each row just before it reads it. Its results must
be those of the checked path bit for bit (the same learner fed the dense rows,
which ``check_X`` takes and the plain pass learns) and agree with the NumPy
transcriptions of the papers (``oracles.second_order``); a row in no canonical
form (unsorted or repeated indices) at the first, a middle or the last row must
stop the pass and be learned as scipy's ``sum_duplicates`` puts it, the learner
put back first. The refused rows are in ``tests/test_rejected_inputs.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import ROW_DEFECTS_MERGED, learn_a_broken_batch, sorted_csr
from numpy.testing import assert_allclose, assert_array_equal
from oracles import second_order as oracle

import olearn
from olearn.second_order import AROW, CW, NAROW, AdaGrad

DIAGONAL = [
    (AdaGrad, {"eta": 0.5, "delta": 0.1, "fit_intercept": True}),
    (AdaGrad, {"eta": 1.0, "delta": 0.0}),
    (AROW, {"r": 0.5, "covariance": "diag", "fit_intercept": True}),
    (CW, {"eta": 0.8}),
    (NAROW, {"b": 0.5, "covariance": "diag"}),
]
IDS = [cls.__name__ + "-" + ",".join(f"{k}={v}" for k, v in params.items()) for cls, params in DIAGONAL]
ROWS, WIDTH = 40, 9


def _labels(rng, n=ROWS):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def _state(est):
    return est.coef_, est.intercept_, est.covariance_, est._state


def _assert_close_to_oracle(est, scores, X, y, n_last):
    """The learner's state and its last ``n_last`` scores against the transcription run over the dense rows X."""
    trace = oracle.for_estimator(type(est).__name__, est.get_params(), X, y)
    scale = max(1.0, float(np.max(np.abs(trace.coef))))
    assert_allclose(scores, trace.scores[-n_last:], rtol=1e-9, atol=1e-12 * scale)
    assert_allclose(est.coef_.ravel(), trace.coef, rtol=1e-9, atol=1e-12 * scale)
    assert_allclose(est.intercept_, [trace.intercept], rtol=1e-9, atol=1e-12 * scale)
    covariance = est.accumulator_ if isinstance(est, AdaGrad) else est.covariance_
    assert_allclose(covariance, trace.covariance, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("cls", "params"), DIAGONAL, ids=IDS)
def test_a_large_batch_is_learned_in_the_checking_pass_as_the_checked_path_learns_it(cls, params,
                                                                                     checking_pass_stops):
    rng = np.random.default_rng(4)
    first, y1 = sorted_csr(ROWS, WIDTH, rng), _labels(rng)
    second, y2 = sorted_csr(ROWS, WIDTH, rng), _labels(rng)
    est, dense = cls(**params), cls(**params)
    est.partial_fit(first, y1)
    scores = olearn.run(est, second, y2).scores
    # both batches took the checking pass, which read every row
    assert checking_pass_stops == [-1, -1]
    dense.partial_fit(first.toarray(), y1)
    dense_scores = olearn.run(dense, second.toarray(), y2).scores
    assert checking_pass_stops == [-1, -1]
    assert_array_equal(scores, dense_scores)
    for a, b in zip(_state(est), _state(dense)):
        assert_array_equal(a, b)
    _assert_close_to_oracle(est, scores, sp.vstack([first, second]).toarray(), np.concatenate([y1, y2]), ROWS)


@pytest.mark.parametrize("row", [0, 20, ROWS - 1])
@pytest.mark.parametrize("kind", ROW_DEFECTS_MERGED)
@pytest.mark.parametrize("started", [False, True], ids=["fresh", "started"])
@pytest.mark.parametrize(("cls", "params"), DIAGONAL[:1] + DIAGONAL[2:3], ids=IDS[:1] + IDS[2:3])
def test_a_row_in_no_canonical_form_is_learned_as_scipy_merges_it(cls, params, started, kind, row,
                                                                  checking_pass_stops):
    est = cls(**params)
    result, first, y1, merged, y = learn_a_broken_batch(est, kind, row, started, ROWS, WIDTH,
                                                        np.random.default_rng(row), checking_pass_stops)
    reference = cls(**params)
    if started:
        reference.partial_fit(first, y1)
    expected = olearn.run(reference, merged, y)
    assert_array_equal(result.scores, expected.scores)
    for a, b in zip(_state(est), _state(reference)):
        assert_array_equal(a, b)
    stream = sp.vstack([first, merged]).toarray() if started else merged.toarray()
    labels = np.concatenate([y1, y]) if started else y
    _assert_close_to_oracle(est, result.scores, stream, labels, ROWS)
