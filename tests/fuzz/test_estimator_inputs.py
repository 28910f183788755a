"""Fuzz every registered estimator's inputs: CSR matrices to the batch APIs, dict rows to the streaming ones.

The invariant: each call either succeeds, leaving scores that are finite, or raises a
documented exception (ValueError / TypeError and their olearn.exceptions subclasses, or
FloatingPointError for an overflow, as README says) and leaves the learner exactly as it
was -- except that an overflow in ``partial_fit``/``run`` keeps the rows learned before it
(documented), so there only finiteness is asked. A crash fails the campaign through the
harness (``_campaign.py``).
"""

import math

import numpy as np
import scipy.sparse as sp

import olearn
from fuzz._learners import (
    CSR_DEFECTS,
    DIMENSION,
    DOCUMENTED,
    EVERY_ESTIMATOR,
    assert_same,
    bad_csr,
    cases,
    learn_batch,
    learn_one,
    predict_one,
    scores_are_finite,
    snapshot,
    valid_batch,
)

pytestmark = EVERY_ESTIMATOR


def _started(est):
    return est._is_started()


def _checked_call(est, task, call, what, keeps_earlier_rows=False):
    """Run ``call()`` and check the invariant; return the outcome's name."""
    before = snapshot(est)
    try:
        call()
    except FloatingPointError:
        if not keeps_earlier_rows:
            assert_same(before, est, what)
        elif _started(est):
            assert scores_are_finite(est, task), f"{what}: an overflow left non-finite scores"
        return "overflow"
    except DOCUMENTED:
        assert_same(before, est, what)
        return "refused"
    if _started(est):
        assert scores_are_finite(est, task), f"{what}: accepted, but the scores are not finite"
    return "accepted"


# -- CSR matrices ---------------------------------------------------------------

_VALUES = (0.0, 1.0, -1.0, 1e-300, 5e-324, 1e150, -1e200, 1.7e308, 3.0)


def _random_csr(rng, n_rows, d):
    """A structurally valid CSR matrix with empty rows, zero vectors, extreme values and odd dtypes."""
    dense = rng.standard_normal((n_rows, d)) * 10.0 ** rng.integers(-3, 4)
    dense[rng.random((n_rows, d)) < rng.random()] = 0.0
    if rng.random() < 0.3 and dense.size:
        dense.flat[rng.integers(dense.size)] = rng.choice(_VALUES)
    X = sp.csr_matrix(dense)
    if rng.random() < 0.2 and X.nnz:
        X.data[rng.integers(X.nnz)] = 0.0  # a stored zero
    roll = rng.random()
    if roll < 0.1:
        with np.errstate(over="ignore"):
            X = X.astype(np.float32)  # 1.7e308 becomes inf: refused
    elif roll < 0.15:
        X = sp.csr_matrix(np.clip(np.round(dense), -1e18, 1e18).astype(np.int64))
    elif roll < 0.25 and X.nnz:
        # the row of the last entry gets a duplicate of it, and its indices reversed: summed and sorted
        row = int(np.searchsorted(X.indptr, X.nnz - 1, side="right") - 1)
        indptr = X.indptr.copy()
        indptr[row + 1:] += 1
        lo = indptr[row]
        indices = np.append(X.indices, X.indices[-1])
        indices[lo:] = indices[lo:][::-1].copy()
        data = np.append(X.data, rng.standard_normal())
        X = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    return X


def _csr_input(rng, n_rows, d):
    """A random CSR input: valid (60%) or broken by one of ``CSR_DEFECTS``."""
    if rng.random() < 0.6:
        return _random_csr(rng, n_rows, d), None
    defect = CSR_DEFECTS[int(rng.integers(len(CSR_DEFECTS)))]
    return bad_csr(max(n_rows, 1), d, defect, rng), defect


def _labels_for(task, n, rng):
    if task == "sequence":
        return [rng.choice(["N", "V"], size=n)]
    if task == "uniclass":
        return None
    return valid_batch(task, rng, n=n)[1]


def campaign_csr_inputs(n_examples, seed):
    """Random valid and broken CSR matrices to fit, partial_fit, run, predict and decision_function."""
    rng = np.random.default_rng(seed)
    all_cases = cases()
    tried = 0
    outcomes = {}
    for _ in range(n_examples):
        name, task, make = all_cases[int(rng.integers(len(all_cases)))]
        est = make()
        if rng.random() < 0.8:
            learn_batch(est, task, *valid_batch(task, rng, n=3))
        n_rows = int(rng.integers(0, 5))
        d = int(rng.choice([1, DIMENSION, DIMENSION + 3]))
        X, defect = _csr_input(rng, n_rows, d)
        y = _labels_for(task, X.shape[0], rng)
        X_in = [X] if task == "sequence" else X
        what = f"{name} with CSR ({defect or 'valid'}, shape {X.shape}, seed {seed})"
        method = rng.choice(["partial_fit", "fit", "run", "predict", "decision_function"])
        if method == "decision_function" and not hasattr(est, "decision_function"):
            method = "predict"
        if method in ("predict", "decision_function"):
            if not _started(est) or task == "uniclass":
                continue

            def call():
                getattr(est, method)(X_in)
        elif method == "run":
            def call():
                olearn.run(est, X_in, y)
        elif method == "fit":
            def call():
                est.fit(X_in) if task == "uniclass" else est.fit(X_in, y)
        else:
            def call():
                learn_batch(est, task, X_in, y)
        outcome = _checked_call(est, task, call, f"{method} of {what}", keeps_earlier_rows=method != "predict")
        if defect is not None and outcome == "accepted":
            raise AssertionError(f"{method} of {what} accepted a broken matrix")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        tried += 1
    print("outcomes:", outcomes)
    return tried


def test_csr_inputs(campaign):
    assert campaign("fuzz.test_estimator_inputs:campaign_csr_inputs", 300, seed=0) > 0


# -- dict rows -------------------------------------------------------------------


def _random_key(rng):
    roll = rng.random()
    if roll < 0.5:
        return int(rng.integers(0, 2 * DIMENSION))
    if roll < 0.6:
        return int(rng.choice([2**31 - 2, 2**31 - 1, 2**31, 2**40, 2**62, 2**63 - 1, 2**63, 2**64, 2**70]))
    if roll < 0.7:
        return -int(rng.integers(1, 2**40))
    if roll < 0.75:
        return float(rng.integers(0, 4)) + rng.choice([0.0, 0.5])
    if roll < 0.8:
        return np.int64(rng.integers(0, DIMENSION))
    if roll < 0.85:
        return bool(rng.integers(2))
    if roll < 0.9:
        return np.uint64(rng.integers(0, 2**63, dtype=np.uint64)) * np.uint64(2)
    return rng.choice(["f", "", "0", None])


def _random_value(rng):
    roll = rng.random()
    if roll < 0.6:
        return float(rng.standard_normal())
    if roll < 0.8:
        return float(rng.choice(_VALUES + (math.nan, math.inf, -math.inf, -0.0)))
    if roll < 0.9:
        return int(rng.integers(-5, 5))
    return rng.choice(["1.0", None, 10**400, complex(1, 1)], p=[0.3, 0.3, 0.2, 0.2])


def _random_row(rng):
    return {_random_key(rng): _random_value(rng) for _ in range(int(rng.integers(0, 5)))}


def campaign_dict_rows(n_examples, seed):
    """Random dict rows (huge, negative, float and string keys; NaN, inf, huge values) to learn_one and predict_one."""
    rng = np.random.default_rng(seed)
    all_cases = cases()
    tried = 0
    outcomes = {}
    for _ in range(n_examples):
        name, task, make = all_cases[int(rng.integers(len(all_cases)))]
        est = make()
        if rng.random() < 0.8:
            learn_batch(est, task, *valid_batch(task, rng, n=3))
        for _ in range(3):
            row = _random_row(rng)
            x = [row] if task == "sequence" else row
            what = f"{name} with {row!r} (seed {seed})"
            if rng.random() < 0.5 and task != "uniclass":
                outcome = _checked_call(est, task, lambda: predict_one(est, task, x), f"predict_one of {what}")
            else:
                y = _labels_for(task, 1, rng)
                y = y[0] if task not in ("sequence", "uniclass") else y
                y = y[0] if task == "sequence" else y
                outcome = _checked_call(est, task, lambda: learn_one(est, task, x, y), f"learn_one of {what}")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            tried += 1
    print("outcomes:", outcomes)
    return tried


def test_dict_rows(campaign):
    assert campaign("fuzz.test_estimator_inputs:campaign_dict_rows", 150, seed=0) > 0
