"""Refused input leaves every learner exactly as it was; the reproducers of the robustness issue.

Every registered estimator (and a few settings that take other paths: kernels, a full
covariance, a fixed ``n_features``) learns valid rows, is fed a list of bad inputs, and
must raise a documented exception for each with its state bit-identical; then, after more
valid rows, it must equal a fresh learner that saw only the valid rows.

A CSR batch large enough for the binary linear learners, PA regression and the diagonal
second-order learners (AdaGrad, AROW, CW, NAROW) is not checked
before it is learned: the learning pass checks each row just before it reads it, and a
row it stops at sends the batch, the learner put back first, to the checked path
(``LinearLearner._progressive_pass``). Those batches are broken at their first, a middle and
their last row, for a learner not started and one with weights: the error must be the one
``check_X`` gives, word for word, and the learner bit-identical to what it was; the
defects that would read out of bounds if a pass trusted them run in a fresh interpreter.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from fuzz._learners import (
    CSR_DEFECTS,
    DIMENSION,
    DOCUMENTED,
    ROW_DEFECTS_REFUSED,
    assert_same,
    bad_csr,
    bad_rows,
    cases,
    csr_broken_at,
    differences,
    learn_batch,
    learn_one,
    one_label,
    predict_one,
    snapshot,
    sorted_csr,
    valid_batch,
)
from olearn._validation import check_X
from olearn.exceptions import FeatureLimitError

CASES = cases()


def _sequence_form(x):
    """A bad row as a one-position sequence (None where the row is a valid sequence)."""
    if isinstance(x, dict):
        return [x]
    if sp.issparse(x):
        return x if x.shape[0] == 1 else None
    return x[None, :] if x.ndim == 1 else None


def _bad_examples(task, rng):
    """(what, x, y) examples that learn_one must refuse."""
    y = one_label(task, rng)
    out = []
    for name, x in bad_rows():
        if task == "sequence":
            x = _sequence_form(x)
            if x is None:
                continue
            y = ["N"] * (x.shape[0] if sp.issparse(x) else len(x))
        out.append((name, x, y))
    if task in ("binary", "multiclass"):
        # a batch's labels given for one example: refused, not read as a column of one label
        out.append(("a tuple of labels", {0: 1.0}, (y,)))
    if task == "binary":
        out.append(("a third class", {0: 1.0}, 7))
    if task == "regression":
        out.append(("NaN target", {0: 1.0}, float("nan")))
    if task == "multiclass":
        out.append(("unhashable label", {0: 1.0}, ["a"]))
    if task == "multilabel":
        out.append(("label set of a number", {0: 1.0}, 3.5))
    if task == "sequence":
        out.append(("labels of another length", [{0: 1.0}], ["N", "V"]))
    return out


def _bad_batches(task, rng):
    """(what, X, y) batches that partial_fit must refuse."""
    X, y = valid_batch(task, rng, n=3)
    out = []
    for defect in CSR_DEFECTS:
        bad = bad_csr(3, DIMENSION, defect, rng)
        out.append((f"CSR: {defect}", [bad] if task == "sequence" else bad,
                    [np.array(["N"] * 3)] if task == "sequence" else y))
    if task == "uniclass":
        out.append(("NaN", np.full((2, DIMENSION), np.nan), None))
        return out
    if task != "sequence":
        out.append(("y of another length", X, y[:-1]))
        out.append(("3-d X", np.ones((3, 2, 2)), y))
    return out


@pytest.mark.parametrize("case, task, make", CASES, ids=[c[0] for c in CASES])
def test_refused_input_leaves_learner_unchanged(case, task, make):
    rng = np.random.default_rng(1)
    est = make()
    valid = [valid_batch(task, rng) for _ in range(2)]
    learn_batch(est, task, *valid[0])
    for what, x, y in _bad_examples(task, rng):
        before = snapshot(est)
        with pytest.raises(DOCUMENTED):
            learn_one(est, task, x, y)
        assert_same(before, est, f"learn_one with {what}")
        if task != "uniclass" and what in dict(bad_rows()):
            with pytest.raises(DOCUMENTED):
                predict_one(est, task, x)
            assert_same(before, est, f"predict_one with {what}")
    for what, X, y in _bad_batches(task, rng):
        before = snapshot(est)
        with pytest.raises(DOCUMENTED):
            learn_batch(est, task, X, y)
        assert_same(before, est, f"partial_fit with {what}")
        if task not in ("uniclass",) and what.startswith("CSR"):
            with pytest.raises(DOCUMENTED):
                est.predict(X)
    learn_batch(est, task, *valid[1])

    fresh = make()
    for batch in valid:
        learn_batch(fresh, task, *batch)
    assert not differences(snapshot(fresh), snapshot(est))


@pytest.mark.parametrize("case, task, make", CASES, ids=[c[0] for c in CASES])
def test_unseen_feature_contributes_nothing_and_allocates_nothing(case, task, make):
    """predict_one({2**40: 1}) used to try to allocate 8 TiB; an unseen feature scores 0."""
    if task == "uniclass":
        pytest.skip("a uniclass learner predicts no input")
    rng = np.random.default_rng(2)
    est = make()
    learn_batch(est, task, *valid_batch(task, rng))
    x = {0: 0.5, 1: -1.0}
    # a sequence is a CSR matrix inside, whose column indices stop below 2**31 - 1
    huge = {**x, 2**30 + 7: 1.0} if task == "sequence" else {**x, 2**40: 3.0, 2**31 + 5: 1.0}
    before = snapshot(est)
    params = est.get_params()
    if params.get("n_features") is not None or params.get("feature_map") is not None:
        # a fixed dimension (the learner's or its feature map's) refuses what lies past it
        with pytest.raises(ValueError, match=r"(more than|past) n_features|too large"):
            predict_one(est, task, huge)
    elif task == "sequence":
        assert np.array_equal(predict_one(est, task, [huge]), predict_one(est, task, [x]))
    elif est.get_params().get("kernel") not in (None, "linear"):
        # an rbf or polynomial kernel sees the unseen values in ||x||^2 (or not at all): only no allocation
        predict_one(est, task, huge)
    else:
        assert predict_one(est, task, huge) == predict_one(est, task, x)
    assert_same(before, est, "predict_one with unseen features")


def test_csr_index_past_the_columns_is_refused_by_fit_and_predict():
    X = sp.csr_matrix((np.array([1.0]), np.array([40_000_000]), np.array([0, 1])), shape=(1, 3))
    est = olearn.PAClassifier().fit(np.eye(3), [1, -1, 1])
    with pytest.raises(ValueError, match=r"column index 40000000 at row 0; expected indices in \[0, 3\)"):
        est.predict(X)
    with pytest.raises(ValueError, match="column index 40000000"):
        olearn.PAClassifier().fit(X, [1])


def test_negative_csr_index_does_not_reach_the_intercept():
    est = olearn.PAClassifier(fit_intercept=True).fit(np.eye(3), [1, -1, 1])
    before = est.intercept_.copy()
    X = sp.csr_matrix(np.ones((1, 3)))
    X.indices[:] = [-1, 0, 1]
    with pytest.raises(ValueError, match="column index -1 at row 0"):
        est.partial_fit(X, [1])
    assert np.array_equal(est.intercept_, before)


def test_decreasing_indptr_and_inconsistent_lengths_are_refused():
    X = sp.csr_matrix(np.ones((3, 2)))
    X.indptr = np.array([0, 4, 2, 6])
    with pytest.raises(ValueError, match=r"indptr decreases at row 1 \(4 then 2\)"):
        olearn.Perceptron().fit(X, [1, -1, 1])
    X = sp.csr_matrix(np.ones((2, 2)))
    X.data = X.data[:3]
    with pytest.raises(ValueError, match="indptr\\[-1\\]=4, 4 column indices and 3 values"):
        olearn.Perceptron().fit(X, [1, -1])


def test_duplicate_entries_are_summed_and_unsorted_indices_sorted():
    """A row given as duplicates 1 + 2 at column 1 (unsorted) learns what the dense row [0, 3, 5] learns."""
    X = sp.csr_matrix((np.array([5.0, 1.0, 2.0]), np.array([2, 1, 1]), np.array([0, 3])), shape=(1, 3))
    dense = np.array([[0.0, 3.0, 5.0]])
    # PA (Crammer et al. 2006, eq. 7) from w = 0 on y = 1: tau = 1 / ||x||^2, w = tau x
    expected = dense / 34.0
    est = olearn.PAClassifier(variant="pa").partial_fit(X, [1], classes=[-1, 1])
    assert np.allclose(est.coef_, expected, rtol=0, atol=1e-15)


def test_integer_and_float32_data_are_read_as_float64_and_complex_refused():
    dense = np.array([[1, 0, 2], [0, 3, 0]])
    reference = olearn.PAClassifier().partial_fit(dense.astype(np.float64), [1, -1])
    for dtype in (np.int8, np.float32, np.uint16):
        est = olearn.PAClassifier().partial_fit(sp.csr_matrix(dense.astype(dtype)), [1, -1])
        assert np.array_equal(est.coef_, reference.coef_)
    with pytest.raises(ValueError, match="expected real numbers"):
        olearn.PAClassifier().fit(sp.csr_matrix(dense.astype(np.complex128)), [1, -1])


@pytest.mark.parametrize("name", ["PAMulticlass", "MulticlassPerceptron", "MIRA", "PACostSensitive"])
def test_multiclass_rejected_huge_key_leaves_no_trace(name, tmp_path):
    """learn_one({2**63: 1}) used to bump n_features_in_, so that later rows wrote past the weights."""
    est = getattr(olearn, name)()
    est.learn_one({0: 1.0}, "a")
    est.learn_one({1: 1.0}, "b")
    for key in (2**63, 2**40):
        with pytest.raises(ValueError):
            est.learn_one({key: 1.0}, "a")
        assert est.n_features_in_ == 2
    est.learn_one({3: 1.0}, "a")
    assert est.n_features_in_ == 4
    path = tmp_path / "model.olearn"
    est.save(path)
    assert olearn.load(path).n_features_in_ == 4


def test_full_covariance_limit_counts_d_squared_before_allocating():
    # 101 features and the intercept: a 102 x 102 covariance and a mean of 102, 8 bytes each:
    # 8 * (102**2 + 102) = 84048 bytes = 82.1 KiB
    with olearn.config_context(max_state_bytes=2**16):
        with pytest.raises(FeatureLimitError, match=r"feature index 100 would grow the learned state to 82\.1 KiB, "
                           r"past max_state_bytes=64\.0 KiB; raise it with olearn\.set_config"):
            olearn.AROW(covariance="full").learn_one({100: 1.0}, 1)
        # the diagonal covariance of the same dimension takes 16 bytes a feature
        olearn.AROW(covariance="diag").learn_one({100: 1.0}, 1)
    # an index near 2**31 got the process killed at 24 GB; now it is refused at once
    with pytest.raises(FeatureLimitError, match="raise it with olearn.set_config"):
        olearn.AROW(covariance="diag").learn_one({2**31 - 10: 1.0}, 1)


def test_limit_is_configurable_and_validated():
    assert olearn.get_config()["max_state_bytes"] == 2**30
    with olearn.config_context(max_state_bytes=2**12):
        assert olearn.get_config()["max_state_bytes"] == 2**12
        with pytest.raises(FeatureLimitError):
            olearn.Perceptron().learn_one({1000: 1.0}, 1)
    assert olearn.get_config()["max_state_bytes"] == 2**30
    olearn.Perceptron().learn_one({1000: 1.0}, 1)
    with pytest.raises(ValueError, match="positive integer"):
        olearn.set_config(max_state_bytes=0)


def test_wide_sparse_input_predicts_without_allocating_and_learning_refuses_it():
    est = olearn.PAClassifier().fit(np.eye(3), [1, -1, 1])
    X = sp.csr_matrix((np.array([1.0, 4.0]), np.array([0, 2**30]), np.array([0, 2])), shape=(1, 2**40))
    assert est.decision_function(X)[0] == est.decision_function(np.array([[1.0, 0.0, 0.0]]))[0]
    with pytest.raises(FeatureLimitError):
        est.partial_fit(X, [1])
    X = sp.csr_matrix((np.array([1.0]), np.array([2**33]), np.array([0, 1])), shape=(1, 2**40))
    with pytest.raises(ValueError, match=r"below 2\*\*31 - 1"):
        est.predict(X)


def test_learner_ensemble_refused_by_one_learner_leaves_every_learner_unchanged():
    from olearn.experts import LearnerEnsemble

    free, fixed = olearn.Perceptron(), olearn.PAClassifier(n_features=3)
    ensemble = LearnerEnsemble([free, fixed])
    ensemble.run(np.eye(3), [1, -1, 1])
    before = [snapshot(member) for member in (free, fixed, ensemble.mixer or ensemble._mixer())]
    # the first learner would learn index 5; the second refuses it (n_features=3)
    with pytest.raises(ValueError, match="past n_features=3"):
        ensemble.learn_one({5: 1.0}, 1)
    for state, member in zip(before, (free, fixed, ensemble._mixer())):
        assert_same(state, member, "a refused learn_one of the ensemble")
    ensemble.learn_one({0: 1.0, 2: 2.0}, -1)
    assert ensemble.predict_one({0: 1.0}) in (-1, 1)


@pytest.mark.parametrize("case, task, make", CASES[::4], ids=[c[0] for c in CASES[::4]])
def test_refused_fit_keeps_the_model_learned_before(case, task, make):
    rng = np.random.default_rng(3)
    est = make()
    learn_batch(est, task, *valid_batch(task, rng))
    before = snapshot(est)
    X = bad_csr(3, DIMENSION, "negative index", rng)
    with pytest.raises(ValueError, match="column index -1"):
        if task == "uniclass":
            est.fit(X)
        else:
            est.fit([X] if task == "sequence" else X, valid_batch(task, rng, n=3)[1])
    assert_same(before, est, "a refused fit")


@pytest.mark.parametrize("defect", ["index huge", "negative index", "indptr decreasing", "nan"])
def test_bounds_refuse_broken_csr(defect):
    from olearn.bounds import novikoff_bound

    X = bad_csr(3, DIMENSION, defect)
    with pytest.raises(ValueError, match=r"column index|indptr|expected finite"):
        novikoff_bound(X, [1, -1, 1], np.ones(DIMENSION))


@pytest.mark.parametrize("name, cls", olearn.all_estimators(task="binary"), ids=[n for n, _ in olearn.all_estimators(task="binary")])
def test_a_number_label_after_string_classes_is_refused_not_made_a_string(name, cls):
    # np.union1d(["third"], [1]) is ["1", "third"]: the number would become the class "1", whose target the
    # label 1 never finds (the kernel then got None for the target and crashed in compiled code)
    est = cls().learn_one({0: 1.0}, "third")
    before = snapshot(est)
    with pytest.raises(ValueError, match="the labels \\[1\\] are numbers, but the class 'third'"):
        est.learn_one({0: 1.0}, 1)
    assert_same(before, est, "a number after a string")
    with pytest.raises(ValueError, match="are strings, but the class 1"):
        cls().learn_one({0: 1.0}, 1).learn_one({0: 1.0}, "x")
    assert est.learn_one({0: -1.0}, "x").classes_.tolist() == ["third", "x"]


# -- batches whose rows the learning pass checks itself ------------------------------------

# learners whose pass checks a large CSR batch's rows (LinearLearner._progressive_pass): (make, task)
ROW_CHECKING = {
    "PA-I": (lambda: olearn.PAClassifier(variant="pa1", C=0.5, fit_intercept=True), "binary"),
    "PA-I averaged": (lambda: olearn.PAClassifier(variant="pa1", average=True), "binary"),
    "OGD": (lambda: olearn.OGDClassifier(loss="logistic", radius=2.0), "binary"),
    "PA regression": (lambda: olearn.PARegressor(variant="pa1", C=0.5), "regression"),
    "AdaGrad": (lambda: olearn.AdaGrad(eta=0.5, delta=0.1, fit_intercept=True), "binary"),
    "diagonal AROW averaged": (lambda: olearn.AROW(r=0.5, covariance="diag", average=True), "binary"),
    "CW": (lambda: olearn.CW(eta=0.8, fit_intercept=True), "binary"),
}
# a batch of 50 rows of 2 to 5 entries: at least 100 entries, above the 4 per copied number from which a
# learner with weights takes that path (at most 24 numbers: the averaged diagonal AROW's 7 weights,
# 7 variances, 7 running sums and 3 numbers of state)
ROWS, WIDTH = 50, 6
CRASH_PRONE = ("index huge", "negative index", "indptr past the end")
POSITIONS = {"first": 0, "middle": ROWS // 2, "last": ROWS - 1}
# (defect, row) pairs: each defect at each position, and the two of the ends of indptr
BROKEN_ROWS = [(kind, position) for kind in ROW_DEFECTS_REFUSED for position in POSITIONS]
BROKEN_ROWS += [("indptr start", "first"), ("indptr end", "last")]


def _labels(task, rng, n=ROWS):
    return rng.standard_normal(n) if task == "regression" else np.where(rng.random(n) < 0.5, -1.0, 1.0)


def _refused_like_check_x(make, task, kind, row, started, seed):
    """Learn a batch broken at ``row`` (after a valid one if ``started``); return what differs from the rules.

    The same in this process and in a fresh one (the crash-prone defects): (a list of
    failures, empty when the error is check_X's and the learner bit-identical to before;
    the row where a checking pass stops on that batch).
    """
    rng = np.random.default_rng(seed)
    est = make()
    if started:
        est.partial_fit(sorted_csr(ROWS, WIDTH, rng), _labels(task, rng))
    X, stop = csr_broken_at(sorted_csr(ROWS, WIDTH, rng), kind, row)
    y = _labels(task, rng)
    try:
        check_X(X)
    except ValueError as err:
        expected = str(err)
    else:
        return [f"check_X accepted {kind} at row {row}"], stop
    before = snapshot(est)
    try:
        olearn.run(est, X, y, record=False)
    except ValueError as err:
        failures = [] if str(err) == expected else [f"error {str(err)!r}, check_X says {expected!r}"]
    else:
        failures = [f"{kind} at row {row} was learned"]
    return failures + differences(before, snapshot(est)), stop


@pytest.mark.parametrize("started", [False, True], ids=["fresh", "started"])
@pytest.mark.parametrize("kind, position", [p for p in BROKEN_ROWS if p[0] not in CRASH_PRONE],
                         ids=[f"{k}-{p}" for k, p in BROKEN_ROWS if k not in CRASH_PRONE])
@pytest.mark.parametrize("learner", ROW_CHECKING)
def test_a_batch_the_pass_refuses_gets_check_x_s_error_and_leaves_the_learner(learner, kind, position, started,
                                                                              checking_pass_stops):
    make, task = ROW_CHECKING[learner]
    failures, stop = _refused_like_check_x(make, task, kind, POSITIONS[position], started, seed=POSITIONS[position])
    assert failures == []
    # the checking pass took the batch (after the valid batch of a started learner) and stopped at the broken row
    assert checking_pass_stops == ([-1, stop] if started else [stop])


_CRASH_PRONE_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from test_rejected_inputs import BROKEN_ROWS, CRASH_PRONE, POSITIONS, ROW_CHECKING, _refused_like_check_x

    for learner, (make, task) in ROW_CHECKING.items():
        for kind, position in BROKEN_ROWS:
            if kind in CRASH_PRONE:
                for started in (False, True):
                    failures, _ = _refused_like_check_x(make, task, kind, POSITIONS[position], started, seed=1)
                    print(learner, kind, position, started, failures or "ok", flush=True)
""")


def test_batches_the_pass_would_read_out_of_bounds_are_refused_in_a_fresh_interpreter():
    tests = Path(__file__).parent
    proc = subprocess.run([sys.executable, "-c", _CRASH_PRONE_SCRIPT, str(tests)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == len(ROW_CHECKING) * len(CRASH_PRONE) * len(POSITIONS) * 2, proc.stdout
    assert all(line.endswith(" ok") for line in lines), proc.stdout
