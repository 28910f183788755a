"""Averaging, importance weights and class weights of the binary linear learners and PA regression.

The reference is a plain NumPy transcription (below): the step rules with the
weight entering as each docstring states it, one dense round per loop
iteration, every iterate w_t kept, and the average taken naively over them
(O(d) per round, as in scikit-learn's SGD ``average``). olearn keeps the
average lazily in O(nnz); the two must agree on dense and CSR input.
Every test learns with ``partial_fit``, ``learn_one`` or ``run``: one pass in order.
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn._kernels._codes import S_SCALE, S_T
from olearn.exceptions import ModelFormatError

RTOL = 1e-9


def _atol(*arrays):
    return 1e-11 * max(1.0, *(float(np.max(np.abs(a), initial=0.0)) for a in arrays))


def _close(actual, expected):
    assert_allclose(actual, expected, rtol=RTOL, atol=_atol(expected))


# -- the oracle --------------------------------------------------------------------------


def rounds(X, y, rule, C=1.0, eta=1.0, loss="hinge", schedule="constant", radius=None, conservative=False,
           fit_intercept=False, weights=None, task="binary", epsilon=0.1):
    """Every iterate w_1..w_N (rows), the scores before each round and the taus, from w_0 = 0.

    Binary: z = y x, margin m = y w.x. Regression (Crammer et al. 2006, Sec. 5):
    z = sign(y - w.x) x, loss max(0, |y - w.x| - epsilon). Weight s:
    Perceptron tau = s eta on a mistake; OGD tau = s eta_t (-l'(m)); PA-I
    min(sC, l/||x||^2); PA-II l/(||x||^2 + 1/(2sC)); PA l/||x||^2 for s > 0; s = 0 no step.
    """
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    n, d = X.shape
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    w = np.zeros(d)
    iterates, scores, taus = [], [], []
    for t in range(1, n + 1):
        x, label, s = X[t - 1], float(y[t - 1]), weights[t - 1]
        score = float(w @ x)
        if task == "regression":
            direction = 1.0 if label - score >= 0 else -1.0
            margin = epsilon - abs(label - score)
            l, slope = max(0.0, -margin), (1.0 if margin < 0 else 0.0)
        else:
            direction, margin = label, label * score
            if loss == "hinge":
                l, slope = max(0.0, 1.0 - margin), (1.0 if margin < 1 else 0.0)
            elif loss == "logistic":
                l, slope = np.log1p(np.exp(-margin)), 1.0 / (1.0 + np.exp(margin))
            else:
                l, slope = 0.5 * (1.0 - margin) ** 2, 1.0 - margin
        sq = float(x @ x)
        if rule == "perceptron":
            tau = s * eta if margin <= 0 else 0.0
        elif rule == "ogd":
            rate = {"constant": eta, "sqrt": eta / np.sqrt(t), "inverse": eta / t}[schedule]
            tau = 0.0 if conservative and margin > 0 else s * rate * slope
        elif s == 0 or l == 0:
            tau = 0.0
        elif rule == "pa":
            tau = l / sq if sq > 0 else 0.0
        elif rule == "pa1":
            tau = min(s * C, l / sq) if sq > 0 else 0.0
        else:
            tau = l / (sq + 1.0 / (2.0 * s * C))
        w = w + tau * direction * x
        norm = np.linalg.norm(w)
        if radius is not None and norm > radius:
            w = w * (radius / norm)
        iterates.append(w.copy())
        scores.append(score)
        taus.append(tau)
    return np.array(iterates), np.array(scores), np.array(taus)


def naive_average(iterates, average):
    """scikit-learn's averaged weights after N rounds: the mean of w_a..w_N, or w_N before round a."""
    start = int(average)
    n = len(iterates)
    if not start or n < start:
        return iterates[-1]
    return iterates[start - 1:].mean(axis=0)


# (class, constructor arguments, oracle arguments)
LEARNERS = [
    ("PAClassifier", {"variant": "pa1", "C": 0.5}, {"rule": "pa1", "C": 0.5}),
    ("PAClassifier", {"variant": "pa2", "C": 0.3}, {"rule": "pa2", "C": 0.3}),
    ("PAClassifier", {"variant": "pa"}, {"rule": "pa"}),
    ("Perceptron", {"eta": 0.7}, {"rule": "perceptron", "eta": 0.7}),
    ("OGDClassifier", {"loss": "logistic", "schedule": "sqrt", "eta": 2.0, "radius": 0.8},
     {"rule": "ogd", "loss": "logistic", "schedule": "sqrt", "eta": 2.0, "radius": 0.8}),
    ("OGDClassifier", {"loss": "squared", "schedule": "inverse", "eta": 0.5, "conservative": True},
     {"rule": "ogd", "loss": "squared", "schedule": "inverse", "eta": 0.5, "conservative": True}),
    ("OnlineSVM", {"radius": 0.05, "eta": 50.0, "schedule": "constant", "fit_intercept": False},
     {"rule": "ogd", "loss": "hinge", "schedule": "constant", "eta": 50.0, "radius": 0.05}),
    ("PARegressor", {"variant": "pa1", "C": 0.4, "epsilon": 0.2},
     {"rule": "pa1", "C": 0.4, "task": "regression", "epsilon": 0.2}),
    ("PARegressor", {"variant": "pa2", "C": 2.0}, {"rule": "pa2", "C": 2.0, "task": "regression"}),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(LEARNERS)]


def _stream(task, n=60, d=7, seed=0, density=0.5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    truth = rng.standard_normal(d)
    if task == "regression":
        return X, X @ truth + 0.3 * rng.standard_normal(n)
    y = np.where(X @ truth + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _task(oracle_args):
    return oracle_args.get("task", "binary")


def _learn(est, X, y, splits=(0, 17, 40), sample_weight=None, classes=None):
    """partial_fit over consecutive chunks of the rows (the average must carry over between calls)."""
    bounds = [*splits, X.shape[0]]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        extra = {} if sample_weight is None else {"sample_weight": sample_weight[lo:hi]}
        if classes is not None:
            extra["classes"] = classes
        est.partial_fit(X[lo:hi], y[lo:hi], **extra)
    return est


# -- averaging -----------------------------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("average", [True, 7, 1000])
@pytest.mark.parametrize("name,params,oracle_args", LEARNERS, ids=IDS)
def test_average_equals_the_naive_average_of_the_iterates(name, params, oracle_args, average, fit_intercept, sparse):
    task = _task(oracle_args)
    X, y = _stream(task)
    params = {**params, "fit_intercept": fit_intercept}
    est = getattr(olearn, name)(**params, average=average)
    Xin = sp.csr_matrix(X) if sparse else X
    _learn(est, Xin, y, classes=None if task == "regression" else [-1, 1])
    iterates, _, _ = rounds(X, y, fit_intercept=fit_intercept, **oracle_args)
    expected = naive_average(iterates, average)
    d = X.shape[1]
    _close(np.ravel(est.coef_), expected[:d])
    _close(est.intercept_, [expected[d] if fit_intercept else 0.0])
    Xb = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    decision = est.predict(Xin) if task == "regression" else est.decision_function(Xin)
    _close(decision, Xb @ expected)
    one = est.predict_one(X[3]) if task == "regression" else est.decision_function(X[3:4])[0]
    _close(one, Xb[3] @ expected)


def test_the_projection_fold_is_exercised():
    """OnlineSVM's case above projects so hard that the scale falls below the fold threshold of the average."""
    X, y = _stream("binary")
    est = olearn.OnlineSVM(radius=0.05, eta=50.0, schedule="constant", fit_intercept=False, average=True)
    scales = []
    for lo in range(0, X.shape[0], 5):
        est.partial_fit(X[lo:lo + 5], y[lo:lo + 5], classes=[-1, 1])
        scales.append(est._state[S_SCALE])
    # without a fold the scale only shrinks; a jump back up is the fold
    assert any(b > a for a, b in zip(scales, scales[1:]))
    iterates, _, _ = rounds(X, y, rule="ogd", loss="hinge", schedule="constant", eta=50.0, radius=0.05)
    _close(est.coef_.ravel(), naive_average(iterates, True))


@pytest.mark.parametrize("name,params,oracle_args", LEARNERS[:4] + LEARNERS[7:8], ids=IDS[:4] + IDS[7:8])
def test_run_and_predict_learn_one_score_with_the_current_weights(name, params, oracle_args):
    task = _task(oracle_args)
    X, y = _stream(task, n=30)
    _, scores, taus = rounds(X, y, **oracle_args)
    res = olearn.run(getattr(olearn, name)(**params, average=True), X, y)
    _close(res.scores, scores)
    _close(res.taus, taus)
    est = getattr(olearn, name)(**params, average=True)
    if task == "regression":
        predictions = [est.predict_learn_one(x, t) for x, t in zip(X, y)]
        _close(predictions, scores)
    else:
        est.partial_fit(X[:1], y[:1], classes=[-1, 1])
        predictions = [est.predict_learn_one(x, t) for x, t in zip(X[1:], y[1:])]
        assert_array_equal(predictions, np.where(scores[1:] > 0, 1, -1))
    iterates, _, _ = rounds(X, y, **oracle_args)
    _close(np.ravel(est.coef_), naive_average(iterates, True))


def test_learn_one_averages_as_partial_fit_and_the_features_grow():
    """Rows met one by one, with the dimension growing: the running sum grows with the weights."""
    X, y = _stream("binary", n=40, d=9)
    X[:15, 4:] = 0.0
    est = olearn.PAClassifier(variant="pa2", C=0.7, fit_intercept=True, average=3)
    for x, label in zip(X, y):
        est.learn_one({j: v for j, v in enumerate(x) if v != 0.0}, label)
    iterates, _, _ = rounds(X, y, rule="pa2", C=0.7, fit_intercept=True)
    expected = naive_average(iterates, 3)
    _close(np.append(est.coef_.ravel(), est.intercept_), np.append(expected[:est.n_features_in_], expected[-1]))


def test_average_follows_a_change_of_which_class_is_positive():
    """The first labels show only 'a'; when 'b' arrives the encoding flips and the running sum must flip too."""
    X, y = _stream("binary", n=30)
    labels = np.where(y > 0, "b", "a")
    labels[:4] = "a"
    y[:4] = -1
    est = olearn.PAClassifier(average=True)
    est.partial_fit(X[:4], labels[:4])
    est.partial_fit(X[4:], labels[4:])
    iterates, _, _ = rounds(X, y, rule="pa1")
    _close(est.coef_.ravel(), naive_average(iterates, True))


def test_average_is_refused_with_a_kernel():
    X, y = _stream("binary", n=5)
    est = olearn.PAClassifier(kernel="rbf", average=True)
    with pytest.raises(ValueError, match="average=True is not available with a kernel"):
        est.partial_fit(X, y)
    assert not est._is_started()


def test_changing_average_midway_is_refused_and_leaves_the_learner_as_it_was():
    X, y = _stream("binary", n=10)
    est = olearn.PAClassifier(average=True).partial_fit(X[:5], y[:5])
    before = snapshot(est)
    for value in (False, 3):
        est.set_params(average=value)
        with pytest.raises(ValueError, match="differs from the model learned so far"):
            est.partial_fit(X[5:], y[5:])
        est.set_params(average=True)
        assert_same(before, est, f"average={value}")
    est.partial_fit(X[5:], y[5:])
    iterates, _, _ = rounds(X, y, rule="pa1")
    _close(est.coef_.ravel(), naive_average(iterates, True))


@pytest.mark.parametrize("value", [-1, 1.5, "yes", None])
def test_bad_average_is_refused(value):
    with pytest.raises(ValueError, match="parameter average="):
        olearn.Perceptron(average=value).partial_fit([[1.0]], [1])


def test_saved_averaged_model_round_trips_and_continues(tmp_path):
    X, y = _stream("binary", n=50)
    est = olearn.OGDClassifier(loss="hinge", radius=0.5, fit_intercept=True, average=4)
    est.partial_fit(sp.csr_matrix(X[:30]), y[:30])
    path = est.save(tmp_path / "m.olearn")
    loaded = olearn.load(path)
    assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    assert_array_equal(loaded._avg, est._avg)
    loaded.partial_fit(X[30:], y[30:])
    est.partial_fit(X[30:], y[30:])
    assert_array_equal(loaded.coef_, est.coef_)
    iterates, _, _ = rounds(X, y, rule="ogd", loss="hinge", schedule="sqrt", radius=0.5, fit_intercept=True)
    _close(np.append(loaded.coef_, loaded.intercept_), naive_average(iterates, 4))


def test_saved_file_must_match_average(tmp_path):
    X, y = _stream("regression", n=20)
    path = olearn.PARegressor(average=True).partial_fit(X, y).save(tmp_path / "m.olearn")
    with np.load(path) as archive:
        saved = dict(archive.items())
    meta = json.loads(saved.pop("__meta__").item())

    def write(params, drop=(), older=False):
        out = tmp_path / "edited.olearn"
        arrays = {k: v for k, v in saved.items() if k not in drop}
        # an older olearn's file does not say that it records every hyperparameter
        edited = {k: v for k, v in meta.items() if not (older and k == "all_params")}
        with open(out, "wb") as fh:
            np.savez(fh, __meta__=np.array(json.dumps({**edited, "params": params})), **arrays)
        return out

    with pytest.raises(ModelFormatError, match="average"):
        olearn.load(write({**meta["params"], "average": 5}))
    with pytest.raises(ModelFormatError, match="unexpected arrays"):
        olearn.load(write({**meta["params"], "average": False}))
    with pytest.raises(ModelFormatError, match="lacks arrays"):
        olearn.load(write(meta["params"], drop=("average",)))
    # a file written before average and class_weight existed loads with their defaults
    old = {k: v for k, v in meta["params"].items() if k != "average"}
    loaded = olearn.load(write({**old}, drop=("average", "average_state"), older=True))
    assert loaded.average is False


# -- importance weights -----------------------------------------------------------------------------

@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name,params,oracle_args", LEARNERS, ids=IDS)
def test_weighted_steps_follow_the_stated_rule(name, params, oracle_args, sparse):
    """Random weights, zeros among them: each step as the class docstring states (PA-II's closed form, ...)."""
    task = _task(oracle_args)
    X, y = _stream(task, seed=1)
    weights = np.random.default_rng(2).choice([0.0, 0.3, 1.0, 2.5, 7.0], size=X.shape[0])
    Xin = sp.csr_matrix(X) if sparse else X
    res = olearn.run(getattr(olearn, name)(**params), Xin, y, sample_weight=weights)
    iterates, scores, taus = rounds(X, y, weights=weights, **oracle_args)
    _close(res.scores, scores)
    _close(res.taus, taus)
    est = getattr(olearn, name)(**params)
    _learn(est, Xin, y, sample_weight=weights, classes=None if task == "regression" else [-1, 1])
    _close(np.ravel(est.coef_), iterates[-1][: X.shape[1]])
    averaged = getattr(olearn, name)(**params, average=True)
    _learn(averaged, Xin, y, sample_weight=weights, classes=None if task == "regression" else [-1, 1])
    _close(np.ravel(averaged.coef_), naive_average(iterates, True)[: X.shape[1]])


@pytest.mark.parametrize("name,variant", [("PAClassifier", "pa1"), ("PARegressor", "pa1")])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_pa1_integer_weight_equals_the_example_repeated(name, variant, fit_intercept):
    task = "regression" if name == "PARegressor" else "binary"
    X, y = _stream(task, n=30, seed=3)
    counts = np.random.default_rng(4).integers(0, 4, size=X.shape[0])
    weighted = getattr(olearn, name)(variant=variant, C=0.2, fit_intercept=fit_intercept)
    repeated = getattr(olearn, name)(variant=variant, C=0.2, fit_intercept=fit_intercept)
    one_by_one = getattr(olearn, name)(variant=variant, C=0.2, fit_intercept=fit_intercept)
    extra = {} if task == "regression" else {"classes": [-1, 1]}
    weighted.partial_fit(X, y, sample_weight=counts, **extra)
    repeated.partial_fit(np.repeat(X, counts, axis=0), np.repeat(y, counts), **extra)
    for x, label, k in zip(X, y, counts):
        one_by_one.learn_one(x, label, sample_weight=int(k))
    _close(np.ravel(weighted.coef_), np.ravel(repeated.coef_))
    _close(weighted.intercept_, repeated.intercept_)
    assert_array_equal(one_by_one.coef_, weighted.coef_)


def test_pa1_repeated_identity_holds_with_a_kernel():
    """The PA-I identity is the step rule's, so it holds in the kernel's feature space too."""
    X, y = _stream("binary", n=20, seed=5)
    counts = np.random.default_rng(6).integers(1, 4, size=X.shape[0])
    weighted = olearn.PAClassifier(C=0.3, kernel="rbf", gamma=0.5).partial_fit(X, y, sample_weight=counts)
    repeated = olearn.PAClassifier(C=0.3, kernel="rbf", gamma=0.5).partial_fit(np.repeat(X, counts, axis=0),
                                                                             np.repeat(y, counts))
    _close(weighted.decision_function(X), repeated.decision_function(X))


@pytest.mark.parametrize("name,params,rule", [
    ("PAClassifier", {"variant": "pa2", "C": 0.4}, {"rule": "pa2", "C": 0.4}),
    ("Perceptron", {"eta": 0.5}, {"rule": "perceptron", "eta": 0.5}),
    ("PARegressor", {"variant": "pa", "epsilon": 0.05}, {"rule": "pa", "task": "regression", "epsilon": 0.05}),
])
@pytest.mark.parametrize("callable_kernel", [False, True])
def test_weighted_linear_kernel_equals_the_weighted_primal_learner(name, params, rule, callable_kernel):
    task = _task(rule)
    X, y = _stream(task, n=25, seed=7)
    weights = np.random.default_rng(8).choice([0.0, 0.5, 3.0], size=X.shape[0])
    kernel = (lambda A, B: A @ B.T) if callable_kernel else "linear"
    dual = getattr(olearn, name)(**params, kernel=kernel)
    dual.partial_fit(X[:10], y[:10], sample_weight=weights[:10])
    for x, label, s in zip(X[10:], y[10:], weights[10:]):
        dual.learn_one(x, label, sample_weight=float(s))
    iterates, _, _ = rounds(X, y, weights=weights, **rule)
    _close(dual.predict(X) if task == "regression" else dual.decision_function(X), X @ iterates[-1])


def test_zero_weight_moves_nothing_but_counts_the_round():
    X, y = _stream("binary", n=12)
    for est in (olearn.PAClassifier(), olearn.OGDClassifier(schedule="sqrt"), olearn.PARegressor(kernel="poly")):
        target = y if not isinstance(est, olearn.PARegressor) else X[:, 0]
        est.partial_fit(X[:6], target[:6])
        before = snapshot(est)
        rounds_before = est._state[S_T]
        est.partial_fit(X[6:], target[6:], sample_weight=0.0)
        est.learn_one(X[0], target[0], sample_weight=0)
        after = snapshot(est)
        assert est._state[S_T] == rounds_before + 7
        before["_state"][S_T] = after["_state"][S_T]
        assert_same(before, est, "weight 0")


def test_weight_one_is_the_unweighted_learner_bit_for_bit():
    X, y = _stream("binary", n=40)
    for name, params, _ in LEARNERS:
        target = X[:, 0] if name == "PARegressor" else y
        plain = getattr(olearn, name)(**params).partial_fit(X, target)
        ones = getattr(olearn, name)(**params).partial_fit(X, target, sample_weight=np.ones(40))
        assert_array_equal(plain.coef_, ones.coef_)


# -- class weights ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["PAClassifier", "Perceptron", "OGDClassifier", "OnlineSVM"])
def test_class_weight_dict_multiplies_sample_weight(name):
    X, y = _stream("binary", n=40, seed=9)
    labels = np.where(y > 0, "spam", "ham")
    sample = np.random.default_rng(10).choice([0.5, 1.0, 2.0], size=40)
    by_class = getattr(olearn, name)(class_weight={"spam": 3.0})
    by_class.partial_fit(X[:20], labels[:20], sample_weight=sample[:20])
    for x, label, s in zip(X[20:], labels[20:], sample[20:]):
        by_class.learn_one(x, label, sample_weight=s)
    explicit = getattr(olearn, name)().partial_fit(X, labels, sample_weight=sample * np.where(y > 0, 3.0, 1.0))
    _close(by_class.coef_, explicit.coef_)
    res = olearn.run(getattr(olearn, name)(class_weight={"ham": 0.0}), X, labels)
    # a weight-0 class never moves the weights
    assert np.all(res.taus[labels == "ham"] == 0.0)


def test_balanced_class_weight_is_refused_outside_fit_and_leaves_the_learner_as_it_was():
    X, y = _stream("binary", n=10)
    est = olearn.PAClassifier().partial_fit(X, y)
    est.set_params(class_weight="balanced")
    before = snapshot(est)
    for call in (lambda: est.partial_fit(X, y), lambda: est.learn_one(X[0], y[0]),
                 lambda: est.predict_learn_one(X[0], y[0]), lambda: olearn.run(est, X, y)):
        with pytest.raises(ValueError, match="balanced"):
            call()
        assert_same(before, est, "class_weight='balanced'")


def test_class_weight_with_keys_that_json_would_change_cannot_be_saved(tmp_path):
    X, y = _stream("binary", n=10)
    est = olearn.PAClassifier(class_weight={1: 2.0}).partial_fit(X, y)
    with pytest.raises(ValueError, match="not strings"):
        est.save(tmp_path / "m.olearn")
    est = olearn.PAClassifier(class_weight={"1": 2.0}).partial_fit(X, y.astype(str))
    loaded = olearn.load(est.save(tmp_path / "m.olearn"))
    assert loaded.class_weight == {"1": 2.0}


# -- refused weights ----------------------------------------------------------------------------------

BAD_WEIGHTS = [-1.0, np.nan, np.inf, "2", [1.0, 2.0], np.array([[1.0]])]


@pytest.mark.parametrize("name,kernel", [("PAClassifier", None), ("Perceptron", None), ("OnlineSVM", None),
                                         ("PARegressor", None), ("PAClassifier", "rbf"), ("PARegressor", "poly")])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(name, kernel):
    X, y = _stream("binary", n=6)
    target = X[:, 0] if name == "PARegressor" else y
    params = {} if kernel is None else {"kernel": kernel}
    est = getattr(olearn, name)(**params).partial_fit(X, target)
    before = snapshot(est)
    for bad in BAD_WEIGHTS:
        rows = bad if np.ndim(bad) else np.array([1.0, 1.0, bad, 1.0, 1.0, 1.0], dtype=type(bad))
        for call in (lambda: est.partial_fit(X, target, sample_weight=rows),
                     lambda: olearn.run(est, X, target, sample_weight=rows),
                     lambda: est.learn_one(X[0], target[0], sample_weight=bad),
                     lambda: est.predict_learn_one(X[0], target[0], sample_weight=bad)):
            with pytest.raises(ValueError, match="sample_weight"):
                call()
            assert_same(before, est, f"sample_weight={bad!r}")
    if name != "PARegressor":
        est.set_params(class_weight={1: -2.0})
        with pytest.raises(ValueError, match="class_weight"):
            est.partial_fit(X, target)
        est.set_params(class_weight=None)
        assert_same(before, est, "class_weight={1: -2.0}")


def test_delayed_updates_refuse_an_averaged_learner_and_mixing_takes_it():
    """Delayed updates move the weights without the running sum: refused, not silently stale; parameter mixing
    mixes the averages (tests/distributed/test_distributed_averages.py)."""
    from olearn.distributed._models import check_supported

    with pytest.raises(ValueError, match="do not keep the average"):
        check_supported(olearn.PAClassifier(average=True), "delayed updates")
    assert check_supported(olearn.PAClassifier(), "delayed updates") == "linear"
    assert check_supported(olearn.PAClassifier(average=True), "parameter mixing") == "linear"
