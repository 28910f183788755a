"""The ways of feeding a learner the same stream must give the same learner.

dense == CSR == CSC; ``learn_one`` (dict rows, 1-d arrays, sparse rows) ==
``partial_fit`` == ``run``; ``record=False`` keeps the same totals; batches ==
one pass; any two labels (strings, {0, 1}, {-1, 1}, bools, one class first);
several passes keep counting the OGD rounds. Where a reference trace is needed
it comes from the plain-NumPy oracles.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import binary as oracle

import olearn

RTOL = 1e-12


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _close(a, b, rtol=RTOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert_allclose(a, b, rtol=rtol, atol=1e-14 * max(1.0, float(np.max(np.abs(b), initial=0.0))))


def _has_oracle(case):
    """The primal oracle of tests/oracles/binary.py covers the presets of the linear kernel, without a budget
    or an average.

    (A budgeted linear kernel forgets support vectors: tests/kernel checks it against its own oracle; the
    average against the naive mean of the oracle's iterates in tests/linear/test_average_weights.py.)
    """
    return (issubclass(case.cls, olearn.linear.BinaryLinearClassifier) and case.params.get("budget") is None
            and not case.params.get("average"))


def _oracle_weights(name, params, X, y):
    """The oracle's final (coef, intercept), zero-padded to a fixed n_features."""
    trace = oracle.for_estimator(name, params, X, y)
    coef = np.zeros(params.get("n_features") or X.shape[1])
    coef[: trace.coef.size] = trace.coef
    return np.append(coef, trace.intercept)


# -- input layouts ------------------------------------------------------------


def test_dense_csr_csc_agree(estimator_case, make_stream):
    X, y = make_stream(90, 7, density=0.4, seed=11)
    results = {}
    for layout, data in {"dense": X, "csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X),
                         "csr_array": sp.csr_array(X), "coo": sp.coo_matrix(X)}.items():
        est = estimator_case.make()
        res = olearn.run(est, data, y)
        results[layout] = (est, res)
        _close(est.decision_function(data), est.decision_function(X))
    ref_est, ref_res = results["dense"]
    for layout, (est, res) in results.items():
        _close(_weights(est), _weights(ref_est))
        _close(res.scores, ref_res.scores)
        _close(res.taus, ref_res.taus)
        assert_array_equal(res.predictions, ref_res.predictions)


def test_csr_with_unsorted_and_duplicate_entries(estimator_case, make_stream):
    """A non-canonical CSR matrix (unsorted indices, duplicates to be summed) is the same matrix."""
    X, y = make_stream(40, 5, density=0.6, seed=5)
    A = sp.csr_matrix(X)
    indptr, indices, data = [0], [], []
    for i in range(X.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        for j, v in zip(A.indices[lo:hi][::-1], A.data[lo:hi][::-1]):
            # each entry v split in two duplicates v/4 + 3v/4, in reversed column order
            indices += [j, j]
            data += [v / 4, 3 * v / 4]
        indptr.append(len(indices))
    messy = sp.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=X.shape)
    assert not messy.has_canonical_format
    ref = estimator_case.make().partial_fit(X, y)
    est = estimator_case.make().partial_fit(messy, y)
    _close(_weights(est), _weights(ref), rtol=1e-9)


# -- learn_one == partial_fit == run -------------------------------------------


def _row_dict(x):
    return {int(j): float(x[j]) for j in np.flatnonzero(x)}


ROW_KINDS = {
    "dict": _row_dict,
    "array": lambda x: x,
    "csr_row": lambda x: sp.csr_matrix(x.reshape(1, -1)),
    "dict_with_zeros": lambda x: {j: float(v) for j, v in enumerate(x)},
}


@pytest.mark.parametrize("kind", list(ROW_KINDS))
def test_learn_one_equals_partial_fit_equals_run(estimator_case, kind, make_stream):
    X, y = make_stream(60, 6, density=0.5, seed=21)
    X[:, -1] += 0.5  # every feature appears early, so that the dimension is 6 throughout
    by_run = estimator_case.make()
    res = olearn.run(by_run, X, y)
    by_fit = estimator_case.make().partial_fit(X, y)
    one = estimator_case.make()
    # w_1 of a started model that has learned nothing (0, or the uniform weights of Winnow on the n-simplex)
    first = estimator_case.make().partial_fit(X[:0], y[:0], classes=[-1, 1]).decision_function(X[:1])[0]
    # with an average, predictions use it and run the current weights (documented): only the models compare
    averaged = bool(estimator_case.params.get("average"))
    scores = []
    for i, (x, label) in enumerate(zip(X, y)):
        row = ROW_KINDS[kind](x)
        # the score before learning round i
        scores.append(one.decision_function(X[i : i + 1])[0] if i else first)
        if i and len(one.classes_) == 2 and not averaged:
            assert one.predict_one(row) == res.predictions[i]
        one.learn_one(row, label)
    _close(_weights(one), _weights(by_fit))
    _close(_weights(by_run), _weights(by_fit))
    if not averaged:
        _close(scores, res.scores)
    _close(by_fit.decision_function(X), one.decision_function(X))


def test_run_record_false_keeps_the_totals(estimator_case, make_stream):
    X, y = make_stream(70, 5, density=0.7, seed=2)
    full = olearn.run(estimator_case.make(), X, y, record=True)
    lean_est = estimator_case.make()
    lean = olearn.run(lean_est, X, y, record=False)
    assert (lean.n_rounds, lean.n_mistakes, lean.n_updates) == (full.n_rounds, full.n_mistakes, full.n_updates)
    assert_allclose(lean.cumulative_loss, full.cumulative_loss, rtol=1e-12)
    assert full.n_mistakes == full.cumulative_mistakes[-1] == int(np.sum(full.predictions != y))
    assert_allclose(full.cumulative_loss, full.losses.sum(), rtol=1e-12)
    assert full.n_updates == np.count_nonzero(full.taus)
    assert lean.scores.size == lean.losses.size == lean.taus.size == 0
    _close(_weights(lean_est), _weights(estimator_case.make().partial_fit(X, y)))


def test_run_learns_in_place_like_partial_fit(estimator_case, make_stream):
    """run continues from the current state, exactly like a second partial_fit."""
    X, y = make_stream(80, 5, seed=8)
    a = estimator_case.make().partial_fit(X[:30], y[:30])
    olearn.run(a, X[30:], y[30:])
    b = estimator_case.make().partial_fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    _close(_weights(a), _weights(b))


def test_batches_equal_one_pass(estimator_case, make_stream):
    X, y = make_stream(100, 6, density=0.5, seed=4)
    one = estimator_case.make().partial_fit(X, y)
    many = estimator_case.make()
    for lo, hi in [(0, 1), (1, 17), (17, 17), (17, 60), (60, 100)]:
        many.partial_fit(sp.csr_matrix(X[lo:hi]), y[lo:hi])
    _close(_weights(many), _weights(one))
    if _has_oracle(estimator_case):
        ref = _oracle_weights(estimator_case.name, estimator_case.make().get_params(), X, y)
        _close(_weights(many), ref, rtol=1e-10)


def test_growing_dimension_equals_fixed_dimension(estimator_case, make_stream):
    """Weights grow with the largest index seen; zero-padding never changes a score.

    Except in the entropic geometry with a non-conservative update, whose prior is
    uniform over the features seen so far (tested in tests/dual).
    """
    if getattr(estimator_case.make(), "_dimension_dependent", False):
        pytest.skip("the entropic prior counts the features seen")
    X, y = make_stream(60, 8, seed=13)
    X[:20, 4:] = 0.0  # the first batch only shows features 0..3
    grown = estimator_case.make(n_features=None)
    # sparse batches name their features by index, so the model may grow between them
    grown.partial_fit(sp.csr_matrix(X[:20, :4]), y[:20]).partial_fit(sp.csr_matrix(X[20:]), y[20:])
    fixed = estimator_case.make(n_features=8).partial_fit(X, y)
    assert grown.coef_.shape == fixed.coef_.shape == (1, 8)
    _close(_weights(grown), _weights(fixed))


# -- labels -------------------------------------------------------------------

LABELINGS = {
    "strings": ("no", "yes"),
    "zero_one": (0, 1),
    "minus_plus": (-1, 1),
    "bools": (False, True),
    "floats": (-2.0, 7.0),
}


@pytest.mark.parametrize("labeling", list(LABELINGS))
def test_any_two_labels(estimator_case, labeling, make_stream):
    """classes_ sorted and classes_[1] is +1: learning depends only on which label sorts last."""
    X, y = make_stream(50, 4, seed=6)
    neg, pos = LABELINGS[labeling]
    labels = np.where(y > 0, pos, neg)
    ref = estimator_case.make().partial_fit(X, y)
    est = estimator_case.make().partial_fit(X, labels)
    assert list(est.classes_) == [neg, pos]
    _close(_weights(est), _weights(ref))
    assert_array_equal(est.predict(X), np.where(ref.decision_function(X) > 0, pos, neg))
    # the same stream with the names swapped: the positive class is now the other one
    swapped = estimator_case.make().partial_fit(X, np.where(y > 0, neg, pos))
    mirror = estimator_case.make().partial_fit(X, -y)
    _close(_weights(swapped), _weights(mirror))
    assert_array_equal(swapped.predict(X), np.where(mirror.decision_function(X) > 0, pos, neg))
    # Winnow on the n-simplex has positive weights: the one learner here that is not odd in the labels
    if not (estimator_case.name == "Winnow" and estimator_case.params.get("balanced") is False):
        _close(_weights(swapped), -_weights(ref))
        assert_array_equal(swapped.predict(X), np.where(est.predict(X) == pos, neg, pos))


@pytest.mark.parametrize("labels", [("no", "yes"), (0, 1)], ids=["strings", "ints"])
def test_object_dtype_labels(estimator_class, labels, make_stream):
    """Labels in an object array (what a pandas column of strings gives) learn like the same labels in a typed array."""
    X, y = make_stream(40, 4, seed=6)
    typed = np.where(y > 0, labels[1], labels[0])
    ref = estimator_class().partial_fit(X, typed)
    est = estimator_class().partial_fit(X, typed.astype(object))
    assert list(est.classes_) == list(labels)
    _close(_weights(est), _weights(ref))
    one = estimator_class()
    for x, label in zip(X, typed.astype(object)):
        one.learn_one(x, label)
    _close(_weights(one), _weights(ref))


def _one_class_first_stream(make_stream, first):
    X, y = make_stream(40, 4, seed=9)
    y = y.copy()
    y[:7] = first  # seven rows of one class before the other ever appears
    return X, y


@pytest.mark.parametrize("first", ["a", "b"], ids=["first_sorts_first", "first_sorts_last"])
def test_one_class_then_the_other_learn_one(estimator_case, first, make_stream):
    """Until the second class arrives the first is encoded +1; if it sorts first, the weights are negated.

    Either way the model must equal the one learned with both classes known from the start.
    """
    X, y = _one_class_first_stream(make_stream, 1 if first == "a" else -1)
    labels = np.where(y > 0, "a", "b")  # "a" sorts first: "a" is the NEGATIVE class in the end
    one = estimator_case.make()
    for x, label in zip(X, labels):
        one.learn_one(_row_dict(x), label)
    known = estimator_case.make().partial_fit(X, labels, classes=["b", "a"])
    assert list(one.classes_) == list(known.classes_) == ["a", "b"]
    _close(_weights(one), _weights(known))
    if _has_oracle(estimator_case):
        targets = np.where(labels == "b", 1, -1)
        ref = _oracle_weights(estimator_case.name, estimator_case.make().get_params(), X, targets)
        _close(_weights(one), ref, rtol=1e-10)


@pytest.mark.parametrize("first", ["a", "b"], ids=["first_sorts_first", "first_sorts_last"])
def test_one_class_then_the_other_batches(estimator_case, first, make_stream):
    X, y = _one_class_first_stream(make_stream, 1 if first == "a" else -1)
    labels = np.where(y > 0, "a", "b")
    split = estimator_case.make().partial_fit(X[:7], labels[:7]).partial_fit(X[7:], labels[7:])
    declared_late = estimator_case.make().partial_fit(X[:7], labels[:7]).partial_fit(
        X[7:], labels[7:], classes=["a", "b"]
    )
    known = estimator_case.make().partial_fit(X, labels, classes=["a", "b"])
    _close(_weights(split), _weights(known))
    _close(_weights(declared_late), _weights(known))
    assert list(split.classes_) == ["a", "b"]


def test_single_class_stream_predicts_that_class(estimator_class, make_stream):
    X, y = make_stream(10, 3, seed=1)
    est = estimator_class().partial_fit(X, ["only"] * 10)
    assert list(est.classes_) == ["only"]
    assert_array_equal(est.predict(X), ["only"] * 10)


def test_a_zero_score_is_a_mistake_whichever_class_is_known(estimator_class):
    """Documented: y * score <= 0 is a mistake, so chunking a stream never changes the count.

    The first round scores 0 whether one class or both are known, and counts as a
    mistake either way; predictions show the tie-break classes_[0] of predict().
    """
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    res = olearn.run(estimator_class(), X, ["spam", "spam", "spam"])
    assert_array_equal(res.predictions, ["spam"] * 3)
    assert res.cumulative_mistakes[0] == 1
    assert res.cumulative_mistakes[-1] == res.n_mistakes
    y = ["spam", "ham", "spam"]
    whole = olearn.run(estimator_class(), X, y)
    chunked = estimator_class()
    pieces = [olearn.run(chunked, X[i : i + 1], y[i : i + 1]) for i in range(3)]
    assert whole.n_mistakes == sum(p.n_mistakes for p in pieces)
    assert whole.cumulative_mistakes[0] == 1


def test_empty_batch_is_a_no_op(estimator_case, make_stream):
    X, y = make_stream(20, 3, seed=0)
    est = estimator_case.make().partial_fit(X, y)
    before = _weights(est)
    res = olearn.run(est, np.zeros((0, 3)), np.array([], dtype=y.dtype))
    assert res.n_rounds == 0 and res.mistake_rate == 0.0
    _close(_weights(est), before)


def test_empty_first_batch(estimator_class):
    """RunResult documents empty runs (mistake_rate 0); a fresh learner must accept one too."""
    res = olearn.run(estimator_class(), np.zeros((0, 3)), [])
    assert res.n_rounds == 0 and res.mistake_rate == 0.0


# -- the round counter of the schedules -----------------------------------------


@pytest.mark.parametrize("schedule", ["sqrt", "inverse"])
@pytest.mark.parametrize("cls_name", ["OGDClassifier", "OnlineSVM"])
def test_passes_keep_counting_rounds(cls_name, schedule, make_stream):
    X, y = make_stream(50, 5, seed=17)
    cls = dict(olearn.all_estimators())[cls_name]
    est = cls(schedule=schedule, eta=0.8)
    est.partial_fit(X, y)
    res = olearn.run(est, X, y)  # second pass: t = 51..100
    trace = oracle.for_estimator(cls_name, est.get_params(), np.vstack([X, X]), np.concatenate([y, y]))
    _close(res.taus, trace.taus[50:], rtol=1e-10)
    _close(_weights(est), np.append(trace.coef, trace.intercept), rtol=1e-10)
    # learn_one continues the same count
    est.learn_one(X[0], y[0])
    trace = oracle.for_estimator(cls_name, est.get_params(), np.vstack([X, X, X[:1]]), np.concatenate([y, y, y[:1]]))
    _close(_weights(est), np.append(trace.coef, trace.intercept), rtol=1e-10)
    # fit starts over at t = 1
    est.set_params(max_iter=1, shuffle=False).fit(X, y)
    trace = oracle.for_estimator(cls_name, est.get_params(), X, y)
    _close(_weights(est), np.append(trace.coef, trace.intercept), rtol=1e-10)


def test_importance_weights_agree_across_learn_one_partial_fit_and_run(estimator_case, make_stream):
    """Per-example weights (0, fractions, integers) give one model through every entry point, and weights of 1
    give the unweighted model exactly."""
    X, y = make_stream(50, 5, density=0.7, seed=7)
    X[:, -1] += 0.5  # every feature appears early, so that the dimension is 5 throughout
    weights = np.random.default_rng(7).choice([0.0, 0.5, 1.0, 2.0, 3.0], size=y.size)
    by_run = estimator_case.make()
    res = olearn.run(by_run, X, y, sample_weight=weights)
    by_fit = estimator_case.make().partial_fit(sp.csr_matrix(X), y, sample_weight=weights)
    one = estimator_case.make()
    scores = []
    for x, label, weight in zip(X, y, weights):
        scores.append(one.decision_function(x[None, :])[0] if hasattr(one, "classes_") else None)
        one.learn_one(_row_dict(x), label, sample_weight=weight)
    _close(_weights(one), _weights(by_fit))
    _close(_weights(by_run), _weights(by_fit))
    if not estimator_case.params.get("average"):
        _close(scores[1:], res.scores[1:])
    unit = estimator_case.make().partial_fit(X, y, sample_weight=np.ones(y.size))
    assert_array_equal(_weights(unit), _weights(estimator_case.make().partial_fit(X, y)))
