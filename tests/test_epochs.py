"""fit as a batch learner: several passes, a fresh seeded order each, SGDClassifier's early stopping.

The stopping rule is checked against scikit-learn's own PA-I (the same step
and the same loss, and SGD's stopping code), and the order of the passes
against a plain reconstruction from the documented generator.
"""

import inspect
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import olearn
from olearn.exceptions import ConvergenceWarning

EPOCH_PARAMETERS = ["max_iter", "tol", "n_iter_no_change", "shuffle", "random_state"]


def _stream(n=40, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    return X, X @ rng.standard_normal(d)


def _data(task, seed=0):
    """(X, y) of a small stream of the task; y is None for the uniclass learner."""
    X, score = _stream(seed=seed)
    if task == "binary":
        return X, np.where(score > 0, "yes", "no")
    if task == "regression":
        return X, score
    if task == "multiclass":
        return X, np.digitize(score, [-0.3, 0.3])
    if task == "multilabel":
        return X, [[int(s > 0)] + ([2] if x[1] > 0 else []) for s, x in zip(score, X)]
    if task == "uniclass":
        return X, None
    lengths = np.random.default_rng(seed).integers(1, 5, size=12)
    ends = np.cumsum(lengths)
    rows = [X[end - length:end] for length, end in zip(lengths, ends)]
    return rows, [np.where(part[:, 0] > 0, "a", "b") for part in rows]


def _state(est):
    arrays, scalars = est._get_state()
    return {name: np.asarray(value) for name, value in arrays.items()}, scalars


def _assert_same_state(a, b):
    (arrays_a, scalars_a), (arrays_b, scalars_b) = _state(a), _state(b)
    assert scalars_a == scalars_b
    assert arrays_a.keys() == arrays_b.keys()
    for name in arrays_a:
        assert_array_equal(arrays_a[name], arrays_b[name], err_msg=name)


ESTIMATORS = olearn.all_estimators()
IDS = [name for name, _ in ESTIMATORS]


@pytest.mark.parametrize("cls", [cls for _, cls in ESTIMATORS], ids=IDS)
def test_epoch_hyperparameters_end_every_signature(cls):
    names = cls._get_param_names()
    params = cls().get_params()
    assert {name: params[name] for name in EPOCH_PARAMETERS} == {
        "max_iter": 1000, "tol": 1e-3, "n_iter_no_change": 5, "shuffle": True, "random_state": None}
    order = list(inspect.signature(cls).parameters)
    # appended after the learner's own, in this order; a random_state the learner had (its budget's seed)
    # stays in place
    tail = [name for name in order if name in EPOCH_PARAMETERS]
    assert tail in (EPOCH_PARAMETERS, ["random_state", *EPOCH_PARAMETERS[:4]])
    assert order.index("max_iter") > max(order.index(name) for name in ("fit_intercept", "n_features")
                                         if name in order)
    assert set(EPOCH_PARAMETERS) <= set(names)
    for name in EPOCH_PARAMETERS:
        # its own entry, or named in a group ("kernel, ..., random_state") described together
        assert re.search(rf"^    (\w+, )*{name}\b", cls.__doc__, re.M), name


@pytest.mark.parametrize("cls", [cls for _, cls in ESTIMATORS], ids=IDS)
def test_one_pass_in_order_is_exactly_partial_fit(cls):
    X, y = _data(cls._task)
    fitted = cls(max_iter=1, shuffle=False).fit(X, y)
    online = cls().partial_fit(X, y)
    _assert_same_state(fitted, online)
    assert fitted.n_iter_ == 1


@pytest.mark.parametrize("cls", [cls for _, cls in ESTIMATORS], ids=IDS)
def test_passes_follow_the_seeded_permutations(cls):
    """Pass k visits the rows in the k-th permutation drawn from default_rng(random_state)."""
    X, y = _data(cls._task)
    fitted = cls(max_iter=3, tol=None, random_state=7).fit(X, y)
    assert fitted.n_iter_ == 3
    rng = np.random.default_rng(7)
    online = cls()
    for _ in range(3):
        order = rng.permutation(len(X))
        online.partial_fit([X[i] for i in order] if isinstance(X, list) else X[order],
                           None if y is None else [y[i] for i in order])
    _assert_same_state(fitted, online)
    # the same seed repeats the fit; a fit forgets what came before it
    again = cls(max_iter=3, tol=None, random_state=7).partial_fit(X, y).fit(X, y)
    _assert_same_state(fitted, again)


def test_another_seed_gives_another_order():
    X, y = _data("binary")
    a = olearn.PAClassifier(max_iter=2, tol=None, random_state=1).fit(X, y)
    b = olearn.PAClassifier(max_iter=2, tol=None, random_state=2).fit(X, y)
    assert not np.array_equal(a.coef_, b.coef_)


def _sklearn_pa1(task, C, epsilon=0.1, **common):
    """scikit-learn's PA-I without intercept: SGD with its "pa1" rate (1.8 on), else the PassiveAggressive classes."""
    import sklearn
    from sklearn import linear_model

    if tuple(int(part) for part in sklearn.__version__.split(".")[:2]) >= (1, 8):
        if task == "binary":
            return linear_model.SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=C,
                                              fit_intercept=False, **common)
        return linear_model.SGDRegressor(loss="epsilon_insensitive", epsilon=epsilon, penalty=None,
                                         learning_rate="pa1", eta0=C, fit_intercept=False, **common)
    if task == "binary":
        return linear_model.PassiveAggressiveClassifier(C=C, fit_intercept=False, **common)
    return linear_model.PassiveAggressiveRegressor(C=C, epsilon=epsilon, fit_intercept=False, **common)


@pytest.mark.parametrize("tol, n_iter_no_change, C", [(1e-3, 5, 1.0), (1e-2, 2, 0.3), (0.0, 3, 0.1), (None, 5, 1.0)])
@pytest.mark.parametrize("seed", range(3))
def test_stopping_matches_scikit_learns_passive_aggressive(seed, tol, n_iter_no_change, C):
    """In the given order, PA-I stops after as many passes as scikit-learn's, with the same weights."""
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    X, score = _stream(60, 5, seed)
    y = np.where(score > 0, 1, -1)
    y[np.random.default_rng(seed).random(60) < 0.15] *= -1
    common = dict(tol=tol, n_iter_no_change=n_iter_no_change, shuffle=False, max_iter=40)
    for ours, theirs, target in (
        (olearn.PAClassifier(variant="pa1", C=C, **common), _sklearn_pa1("binary", C, **common), y),
        (olearn.PARegressor(variant="pa1", C=C, epsilon=0.1, **common), _sklearn_pa1("regression", C, **common),
         score + 0.2 * y),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            theirs.fit(X, target)
            ours.fit(X, target)
        assert ours.n_iter_ == theirs.n_iter_
        np.testing.assert_allclose(ours.coef_.ravel(), theirs.coef_.ravel(), rtol=1e-10, atol=1e-12)
        sklearn_warned = any(issubclass(w.category, SklearnConvergenceWarning) for w in caught)
        we_warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        # scikit-learn warns whenever n_iter_ == max_iter; both stop short of it or neither does
        assert we_warned == sklearn_warned


def test_shuffled_stopping_follows_the_rule_on_the_recorded_losses():
    """n_iter_ is where SGD's rule stops on the mean losses that olearn.run records on the same orders."""
    X, y = _data("multiclass", seed=3)
    tol, patience = 0.01, 3
    fitted = olearn.PAMulticlass(C=0.5, tol=tol, n_iter_no_change=patience, random_state=5).fit(X, y)
    rng, replay = np.random.default_rng(5), olearn.PAMulticlass(C=0.5)
    best, count, passes = np.inf, 0, 0
    while count < patience:
        order = rng.permutation(len(X))
        loss = olearn.run(replay, X[order], y[order]).losses.mean()
        passes += 1
        count = count + 1 if loss > best - tol else 0
        best = min(best, loss)
    assert fitted.n_iter_ == passes
    _assert_same_state(fitted, replay)


def test_convergence_warning_when_the_passes_run_out():
    X, y = _data("binary")
    y = y.copy()
    y[::3] = np.where(y[::3] == "yes", "no", "yes")  # noisy: the loss keeps moving
    with pytest.warns(ConvergenceWarning, match=r"PAClassifier: fit made all max_iter=7 passes"):
        est = olearn.PAClassifier(max_iter=7, tol=0.0, n_iter_no_change=6, random_state=0).fit(X, y)
    assert est.n_iter_ == 7
    assert issubclass(ConvergenceWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a fixed number of passes (tol=None), or fewer passes than the rule needs, is what was asked
        olearn.PAClassifier(max_iter=7, tol=None, random_state=0).fit(X, y)
        olearn.PAClassifier(max_iter=1, shuffle=False).fit(X, y)


class _RecordingPA(olearn.PAClassifier):
    """A PA classifier that records the weights fit hands to each pass."""

    def _row_weights(self, X, y, sample_weight, fitting=False):
        return None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)

    def _progressive_pass(self, X, y, record, classes=None, **kwargs):
        self.__dict__.setdefault("seen", []).append((np.asarray(X).copy(), kwargs.get("sample_weight")))
        return super()._progressive_pass(X, y, record, classes=classes)


def test_weights_travel_with_their_rows():
    X, y = _data("binary")
    weights = np.arange(len(X), dtype=float) + 1.0
    est = _RecordingPA(max_iter=3, tol=None, random_state=4)
    est.fit(X, y, sample_weight=weights)
    seen = est.__dict__.pop("seen")
    assert len(seen) == 3
    for rows, passed in seen:
        # row i of the pass is original row weights[i] - 1
        assert_array_equal(rows, X[passed.astype(int) - 1])
    unweighted = _RecordingPA(max_iter=2, tol=None, random_state=4).fit(X, y)
    assert [passed for _, passed in unweighted.__dict__["seen"]] == [None, None]


@pytest.mark.parametrize("name, value", [("max_iter", 0), ("max_iter", 2.0), ("tol", -1e-3), ("tol", np.nan),
                                         ("n_iter_no_change", 0), ("shuffle", "yes"), ("random_state", -1),
                                         ("random_state", 2**64)])
def test_bad_epoch_hyperparameters_are_refused_before_anything_changes(name, value):
    X, y = _data("binary")
    est = olearn.PAClassifier(random_state=0).fit(X, y)
    before = est.coef_.copy()
    est.set_params(**{name: value})
    with pytest.raises(ValueError, match=rf"PAClassifier: parameter {name}="):
        est.fit(X[:5], y[:5])
    assert_array_equal(est.coef_, before)


def test_refused_input_keeps_the_model_and_names_the_given_row():
    X, y = _data("binary")
    est = olearn.PAClassifier(random_state=0).fit(X, y)
    before = est.coef_.copy()
    bad = X.copy()
    bad[17, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 17, column 2"):
        est.fit(bad, y)
    with pytest.raises(ValueError, match=r"X has 40 rows but y has 39"):
        est.fit(X, y[:-1])
    assert_array_equal(est.coef_, before)
    seqs, labels = _data("sequence")
    with pytest.raises(ValueError, match=r"sequence 3: X\[3\] has"):
        olearn.PASequence().fit(seqs, labels[:3] + [labels[3][:-1] if len(labels[3]) > 1 else []] + labels[4:])


def test_every_input_kind_gives_the_same_fit():
    X, y = _data("binary")
    ref = olearn.PAClassifier(max_iter=4, tol=None, random_state=3).fit(X, y)
    for rows, labels in ((sp.csr_matrix(X), list(y)), (X.tolist(), tuple(y)), (sp.csc_matrix(X), y)):
        _assert_same_state(olearn.PAClassifier(max_iter=4, tol=None, random_state=3).fit(rows, labels), ref)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=list("abcd"), index=np.arange(100, 140))
    _assert_same_state(olearn.PAClassifier(max_iter=4, tol=None, random_state=3).fit(frame, pd.Series(y)), ref)
    # multilabel: label lists and their indicator matrix, sequences from a generator
    X, sets = _data("multilabel")
    indicator = np.zeros((len(sets), 3), dtype=int)
    for i, labels in enumerate(sets):
        indicator[i, labels] = 1
    by_sets = olearn.PAMultilabel(max_iter=3, tol=None, random_state=1).fit(X, sets)
    assert by_sets.n_iter_ == 3
    olearn.PAMultilabel(max_iter=3, tol=None, random_state=1).fit(X, sp.csr_matrix(indicator))
    seqs, labels = _data("sequence")
    by_list = olearn.PASequence(max_iter=3, tol=None, random_state=2).fit(seqs, labels)
    by_generator = olearn.PASequence(max_iter=3, tol=None, random_state=2).fit(iter(seqs), iter(labels))
    _assert_same_state(by_generator, by_list)


def test_shuffled_passes_learn_label_sorted_data():
    """The issue's case in small: data sorted by label defeats one pass in order, not shuffled passes."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.default_rng(0)
    test = rng.random(len(y)) < 0.3
    order = np.argsort(y[~test], kind="stable")
    X_train, y_train = X[~test][order], y[~test][order]
    one_pass = olearn.PAMulticlass(max_iter=1, shuffle=False).fit(X_train, y_train).score(X[test], y[test])
    epochs = olearn.PAMulticlass(random_state=0).fit(X_train, y_train).score(X[test], y[test])
    assert one_pass < 0.5 < 0.9 < epochs


def _without(path, names, renamed=None):
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    meta.pop("all_params")  # a file of an olearn before these hyperparameters
    for name in names:
        meta["params"].pop(name)
    for old, new in (renamed or {}).items():
        meta["params"][new] = meta["params"].pop(old)
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)


def test_files_saved_before_the_epoch_parameters_load(tmp_path):
    X, y = _data("binary")
    est = olearn.PAClassifier(variant="pa2", C=0.5).partial_fit(X, y)
    path = tmp_path / "old.npz"
    est.save(path)
    _without(path, EPOCH_PARAMETERS)
    loaded = olearn.load(path)
    assert loaded.get_params() == olearn.PAClassifier(variant="pa2", C=0.5).get_params()
    assert_array_equal(loaded.coef_, est.coef_)


def test_dual_ascent_kkt_tolerance_is_kkt_tol(tmp_path):
    X, y = _data("binary")
    with pytest.raises(ValueError, match=r"DualAscent: parameter kkt_tol=0"):
        olearn.DualAscent(update="all", kkt_tol=0).partial_fit(X, y)
    est = olearn.DualAscent(update="last-k", k=2, kkt_tol=1e-7).partial_fit(X, y)
    path = tmp_path / "dual.npz"
    est.save(path)
    # a file of the time when the KKT tolerance was called tol
    _without(path, [p for p in EPOCH_PARAMETERS if p != "tol"], renamed={"kkt_tol": "tol"})
    with np.load(path) as archive:
        assert json.loads(str(archive["__meta__"]))["params"]["tol"] == 1e-7
    loaded = olearn.load(path)
    assert (loaded.kkt_tol, loaded.tol) == (1e-7, 1e-3)
    assert_array_equal(loaded.coef_, est.coef_)


def _shared_mnist():
    """The shared MNIST sample (../shared/data beside the checkout, or beside the folder of worktrees), or None."""
    for parent in Path(__file__).resolve().parents[1:4]:
        path = parent / "shared" / "data" / "mnist-5k" / "mnist_5k.csv.gz"
        if path.exists():
            return path
    return None


@pytest.mark.slow
@pytest.mark.skipif(_shared_mnist() is None, reason="shared MNIST sample not available")
def test_label_sorted_mnist_the_issues_case():
    """Issue 13: training rows sorted by label, 100 held-out digits of each class.

    Measured (5,000 digits, 4,000 to train): one pass in order 0.100 (it ends
    predicting the last class), the default fit 0.880 after 89 passes,
    scikit-learn's PassiveAggressiveClassifier (one-vs-rest) 0.882.
    """
    from olearn.data import load_csv

    X, y = load_csv(_shared_mnist())
    X = X / 255.0
    rng = np.random.default_rng(0)
    test = np.zeros(y.size, dtype=bool)
    for label in np.unique(y):
        test[rng.choice(np.flatnonzero(y == label), 100, replace=False)] = True
    train = np.flatnonzero(~test)
    train = train[np.argsort(y[train], kind="stable")]
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]

    one_pass = olearn.PAMulticlass(max_iter=1, shuffle=False).fit(X_train, y_train).score(X_test, y_test)
    epochs = olearn.PAMulticlass(random_state=0).fit(X_train, y_train)
    theirs = _sklearn_pa_multiclass().fit(X_train, y_train).score(X_test, y_test)
    ours = epochs.score(X_test, y_test)
    print(f"one pass in order {one_pass:.3f}; fit {ours:.3f} ({epochs.n_iter_} passes); scikit-learn PA {theirs:.3f}")
    assert one_pass < 0.15
    assert ours > 0.85 and ours > theirs - 0.02


def _sklearn_pa_multiclass():
    """scikit-learn's PA classifier with its defaults (one-vs-rest PA-I, C = 1, an intercept)."""
    from sklearn import linear_model

    if hasattr(linear_model, "PassiveAggressiveClassifier"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return linear_model.PassiveAggressiveClassifier(random_state=0)
    return linear_model.SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0, random_state=0)
