"""Checks every binary classifier of ``olearn.all_estimators(task="binary")`` must pass.

Driven by the registry (see ``estimator_case`` in conftest.py), so a new
estimator is covered as soon as it is exported: scikit-learn's clone and
get/set_params, pickle and save/load round trips that keep learning identically,
and clear errors for bad input and bad hyperparameters.
"""

import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone, is_classifier, is_regressor

import olearn
from olearn._registry import TASKS
from olearn.exceptions import NotFittedError


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _data(make_stream, labels=(-1, 1), n=60, d=6, seed=12):
    X, y = make_stream(n, d, density=0.6, seed=seed)
    return X, np.where(y > 0, labels[1], labels[0])


def test_registry_lists_the_public_estimators():
    names = [name for name, _ in olearn.all_estimators()]
    assert names == sorted(names)
    assert {"Perceptron", "PAClassifier", "OGDClassifier", "OnlineSVM", "PARegressor"} <= set(names)
    for name, cls in olearn.all_estimators():
        assert getattr(olearn, name) is cls
        assert hasattr(cls, "get_params") and hasattr(cls, "set_params")
    classifiers = olearn.all_estimators(type_filter="classifier")
    regressors = olearn.all_estimators(type_filter="regressor")
    assert all(is_classifier(cls()) for _, cls in classifiers)
    assert all(is_regressor(cls()) for _, cls in regressors)
    detectors = olearn.all_estimators(type_filter="outlier_detector")
    assert [name for name, _ in detectors] == ["PAUniclass"]
    assert sorted(classifiers + regressors + detectors) == olearn.all_estimators()
    everything = olearn.all_estimators(type_filter=["classifier", "regressor", "outlier_detector"])
    assert everything == olearn.all_estimators()
    with pytest.raises(ValueError, match="type_filter"):
        olearn.all_estimators(type_filter="transformer")
    by_task = [olearn.all_estimators(task=task) for task in TASKS]
    assert sorted(sum(by_task, [])) == olearn.all_estimators()
    assert ("Perceptron", olearn.Perceptron) in olearn.all_estimators(task="binary")
    assert olearn.all_estimators(task="regression") == [("PARegressor", olearn.PARegressor)]
    with pytest.raises(ValueError, match="task: unknown value 'ranking'"):
        olearn.all_estimators(task="ranking")


# -- scikit-learn contract -----------------------------------------------------


def test_constructor_stores_arguments_verbatim(estimator_case):
    est = estimator_case.make()
    params = est.get_params()
    for name, value in estimator_case.params.items():
        assert params[name] is value or params[name] == value
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(est))


def test_clone(estimator_case, make_stream):
    X, y = _data(make_stream)
    est = estimator_case.make().partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.decision_function(X)
    twin.partial_fit(X, y)
    assert_array_equal(_weights(twin), _weights(est))


def test_get_set_params_round_trip(estimator_case):
    est = estimator_case.make()
    params = est.get_params()
    fresh = estimator_case.cls()
    assert fresh.set_params(**params) is fresh
    assert fresh.get_params() == params
    assert estimator_case.cls(**params).get_params() == params


def test_set_params_takes_effect_mid_stream(estimator_case, make_stream):
    """A changed hyperparameter applies from the next example on (the cached kernel config is refreshed)."""
    X, y = _data(make_stream)
    est = estimator_case.make().partial_fit(X[:30], y[:30])
    twin = pickle.loads(pickle.dumps(est))
    name = "fit_intercept"
    est.set_params(**{name: not est.get_params()[name]})
    est.partial_fit(X[30:], y[30:])
    twin.partial_fit(X[30:], y[30:])
    assert not np.array_equal(_weights(est), _weights(twin))


# -- pickle and save / load ----------------------------------------------------


def _continues_identically(a, b, X, y):
    assert_array_equal(a.predict(X), b.predict(X))
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert_array_equal(a.classes_, b.classes_)
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.scores, rb.scores)
    assert_array_equal(ra.taus, rb.taus)
    assert_array_equal(_weights(a), _weights(b))
    a.learn_one(X[0], y[0])
    b.learn_one(X[0], y[0])
    assert_array_equal(_weights(a), _weights(b))
    # a feature never seen before: both grow their weights the same way
    new_feature = {0: 0.5, X.shape[1] + 2: -1.5}
    a.learn_one(new_feature, y[1])
    b.learn_one(new_feature, y[1])
    assert_array_equal(_weights(a), _weights(b))


@pytest.mark.parametrize("labels", [(-1, 1), ("ham", "spam")], ids=["ints", "strings"])
def test_pickle_round_trip(estimator_case, labels, make_stream):
    X, y = _data(make_stream, labels)
    est = estimator_case.make().partial_fit(X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(est))
    assert copy.get_params() == est.get_params()
    _continues_identically(est, copy, X[30:], y[30:])


def test_pickle_unfitted(estimator_case):
    copy = pickle.loads(pickle.dumps(estimator_case.make()))
    assert copy.get_params() == estimator_case.make().get_params()


@pytest.mark.parametrize("labels", [(-1, 1), ("ham", "spam"), (False, True), (0.0, 2.0)],
                         ids=["ints", "strings", "bools", "floats"])
def test_save_load_round_trip(estimator_case, labels, make_stream, tmp_path):
    X, y = _data(make_stream, labels)
    est = estimator_case.make().partial_fit(X[:30], y[:30])
    path = tmp_path / "model.olearn"
    assert est.save(path) == path
    loaded = olearn.load(path)
    assert type(loaded) is type(est)
    assert loaded.get_params() == est.get_params()
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.intercept_, est.intercept_)
    assert_array_equal(loaded.classes_, est.classes_)
    assert loaded.classes_.dtype == est.classes_.dtype
    assert loaded.n_features_in_ == est.n_features_in_
    _continues_identically(est, loaded, X[30:], y[30:])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.olearn"]


@pytest.mark.parametrize("first", ["a", "b"])
def test_save_load_single_class_model(estimator_case, first, make_stream, tmp_path):
    """A model that has seen one class so far keeps its encoding through save/load.

    ("a" first: the weights are negated when "b" arrives; "b" first: they are not.)
    """
    X, _ = make_stream(20, 4, seed=3)
    est = estimator_case.make().partial_fit(X[:10], [first] * 10)
    loaded = olearn.load(est.save(tmp_path / "m.npz"))
    y = np.array(["a", "b"] * 5)
    est.partial_fit(X[10:], y)
    loaded.partial_fit(X[10:], y)
    assert_array_equal(_weights(loaded), _weights(est))
    assert list(loaded.classes_) == ["a", "b"]


def test_save_before_fit_is_not_fitted(estimator_case, tmp_path):
    with pytest.raises(NotFittedError):
        estimator_case.make().save(tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []


# -- prediction before learning ------------------------------------------------


def test_predict_before_fit_raises_not_fitted(estimator_class):
    est = estimator_class()
    X = np.ones((2, 3))
    for call in (lambda: est.predict(X), lambda: est.decision_function(X), lambda: est.coef_, lambda: est.intercept_):
        with pytest.raises(NotFittedError, match=type(est).__name__):
            call()


def test_predict_one_before_any_example_is_none_but_checks_its_input(estimator_class):
    est = estimator_class()
    assert est.predict_one({0: 1.0}) is None
    with pytest.raises(ValueError, match="nan"):
        est.predict_one({0: float("nan")})
    est.learn_one({0: 1.0}, "a")
    assert est.predict_one({0: 1.0}) == "a"


def test_a_failed_first_fit_leaves_the_estimator_unfitted(estimator_class):
    """Bad labels on the very first call must not leave a half-started model behind."""
    est = estimator_class()
    X = np.eye(3)
    with pytest.raises(ValueError, match="third class"):
        est.fit(X, ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        est.decision_function(X)
    with pytest.raises(NotFittedError):
        est.coef_
    est.fit(X, ["a", "b", "a"])  # and it can still learn normally
    assert list(est.classes_) == ["a", "b"]


# -- bad input ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_nonfinite_X_names_row_and_column(estimator_class, bad, layout):
    X = np.ones((5, 4))
    X[3, 2] = bad
    data = sp.csr_matrix(X) if layout == "csr" else X
    for call in (lambda e: e.fit(data, [0, 1, 0, 1, 0]), lambda e: olearn.run(e, data, [0, 1, 0, 1, 0])):
        with pytest.raises(ValueError, match=r"row 3.*column 2"):
            call(estimator_class())
    fitted = estimator_class().fit(np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match=r"row 3.*column 2"):
        fitted.predict(data)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_row_in_learn_one_names_the_feature(estimator_class, bad):
    for row in ({0: 1.0, 5: bad}, np.array([1.0, 0, 0, 0, 0, bad])):
        est = estimator_class()
        with pytest.raises(ValueError, match=r"feature 5"):
            est.learn_one(row, 1)


def test_nan_label_is_refused(estimator_class):
    with pytest.raises(ValueError, match=r"row 1"):
        estimator_class().fit(np.eye(3), [0.0, np.nan, 1.0])


def test_nan_label_in_learn_one_is_refused(estimator_class):
    """learn_one checks its label like fit does (fit: "y contains nan at row 1")."""
    with pytest.raises(ValueError, match=r"nan"):
        estimator_class().learn_one({0: 1.0}, float("nan"))
    est = estimator_class().partial_fit(np.eye(2), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"nan"):
        est.learn_one({0: 1.0}, float("nan"))


def test_third_class_names_row_and_label(estimator_class):
    X = np.eye(4)
    with pytest.raises(ValueError, match=r"'c'.*row 2|row 2.*'c'"):
        # in the given order, the third class met is 'c' (a shuffled pass may meet it before 'b')
        estimator_class(shuffle=False).fit(X[:3], ["a", "b", "c"])
    est = estimator_class().partial_fit(X[:2], ["a", "b"])
    with pytest.raises(ValueError, match=r"'z'.*row 1|row 1.*'z'"):
        est.partial_fit(X[2:], ["a", "z"])
    with pytest.raises(ValueError, match=r"'z'"):
        est.learn_one({0: 1.0}, "z")
    with pytest.raises(ValueError, match=r"classes"):
        estimator_class().partial_fit(X[:2], ["a", "b"], classes=["a", "b", "c"])


def test_wrong_y_length(estimator_class):
    with pytest.raises(ValueError, match=r"3 rows.*2 labels"):
        estimator_class().fit(np.eye(3), [0, 1])
    with pytest.raises(ValueError, match=r"3 rows.*4 labels"):
        olearn.run(estimator_class(), np.eye(3), [0, 1, 0, 1])


@pytest.mark.parametrize("X", [np.ones(3), np.ones((3, 2, 2)), 5.0], ids=["1d", "3d", "scalar"])
def test_X_must_be_2d(estimator_class, X):
    with pytest.raises(ValueError, match=r"2-d"):
        estimator_class().fit(X, [0, 1, 0])


def test_learn_one_rejects_2d_rows(estimator_class):
    with pytest.raises(ValueError, match=r"1-d"):
        estimator_class().learn_one(np.ones((2, 3)), 1)
    with pytest.raises(ValueError, match=r"one row"):
        estimator_class().learn_one(sp.csr_matrix(np.ones((2, 3))), 1)


def test_feature_index_past_n_features(estimator_class):
    est = estimator_class(n_features=5)
    with pytest.raises(ValueError, match=r"feature index 7\b.*n_features=5"):
        est.learn_one({0: 1.0, 7: 2.0}, 1)
    with pytest.raises(ValueError, match=r"feature index 5\b.*n_features=5"):
        est.fit(np.ones((2, 6)), [0, 1])
    est.fit(np.ones((2, 5)), [0, 1])
    assert est.coef_.shape == (1, 5)
    with pytest.raises(ValueError, match=r"n_features=5"):
        est.predict(np.ones((2, 6)))
    with pytest.raises(ValueError, match=r"n_features=5"):
        est.predict_one({9: 1.0})


@pytest.mark.parametrize("key", [1.5, float("nan")], ids=repr)
def test_learn_one_rejects_float_keys(estimator_class, key):
    # 1.0 == 1 would make a name equal to an index: a float key is neither
    est = estimator_class()
    with pytest.raises(TypeError, match=re.escape(f"feature key {key!r} is a float")):
        est.learn_one({0: 1.0, key: 2.0}, 1)
    assert not hasattr(est, "coef_") and "_features" not in vars(est)


@pytest.mark.parametrize("key", ["a", None, (1,)], ids=repr)
def test_learn_one_takes_other_hashable_keys_as_names(estimator_class, key):
    est = estimator_class().learn_one({0: 1.0, key: 2.0}, 1)
    assert est.vocabulary_ == {key: 1} and est.coef_.shape == (1, 2)


def test_boolean_keys_are_the_indices_they_equal(estimator_class):
    # documented: True and False are Python integers, so they name features 1 and 0
    with_bool = estimator_class().learn_one({0: 1.0, True: 2.0}, 1).learn_one({1: -1.0}, 0)
    with_int = estimator_class().learn_one({0: 1.0, 1: 2.0}, 1).learn_one({1: -1.0}, 0)
    np.testing.assert_array_equal(with_bool.coef_, with_int.coef_)
    assert with_bool.coef_.shape == (1, 2)


def test_learn_one_rejects_negative_keys(estimator_class):
    with pytest.raises(ValueError, match=r"-3"):
        estimator_class().learn_one({-3: 1.0}, 1)


# -- hyperparameters ------------------------------------------------------------

INVALID = {
    "eta": [0, 0.0, -1.0, float("nan"), "1.0", None, True],
    "C": [0, -0.5, float("nan"), "big", None],
    "radius": [0.0, -1.0, float("nan"), "r"],
    "variant": ["PA", "pa3", 1, None],
    "loss": ["log", "Hinge", None],
    "schedule": ["linear", "SQRT", None],
    "conservative": ["yes", 1, None],
    "fit_intercept": ["yes", 1, 0, None],
    "n_features": [0, -2, 2.5, "10", True],
    "max_iter": [0, -1, 1.5, None, True],
    "tol": [-1e-3, float("nan"), "0.1"],
    "n_iter_no_change": [0, 2.0, None],
    "shuffle": ["yes", 1, None],
    "random_state": [-1, 1.5, "0", 2**64],
}


def test_invalid_hyperparameters_name_the_parameter(estimator_class):
    params = estimator_class().get_params()
    checked = 0
    for name in params:
        for value in INVALID.get(name, ["__not a valid value__"]):
            est = estimator_class(**{name: value})
            with pytest.raises(ValueError, match=rf"\b{name}="):
                est.fit(np.eye(2), [0, 1])
            with pytest.raises(ValueError, match=rf"\b{name}="):
                estimator_class(**{name: value}).learn_one({0: 1.0}, 1)
            checked += 1
    assert checked >= len(params)


def test_invalid_hyperparameter_set_after_fit_is_refused(estimator_case):
    est = estimator_case.make().fit(np.eye(2), [0, 1])
    for name in est.get_params():
        est.set_params(**{name: "__not a valid value__"})
        with pytest.raises(ValueError, match=rf"\b{name}="):
            est.partial_fit(np.eye(2), [0, 1])
        est.set_params(**estimator_case.make().get_params())


# Values that compare equal to a valid value (0 == False, True == 1) but that a fresh
# estimator refuses: refused after fit too, not waved through by a cache keyed on ==.
EQUAL_BUT_INVALID = [
    ("fit_intercept", False, 0),
    ("fit_intercept", True, 1),
    ("conservative", False, 0),
    ("eta", 1.0, True),
    ("C", 1.0, True),
    ("n_features", 1, True),
]


def test_equal_but_invalid_hyperparameter_set_after_fit_is_refused(estimator_class):
    X, y = np.array([[1.0], [2.0]]), [0, 1]
    for name, valid, invalid in EQUAL_BUT_INVALID:
        if name not in estimator_class().get_params():
            continue
        with pytest.raises(ValueError, match=rf"\b{name}="):
            estimator_class(**{name: invalid}).fit(X, y)  # refused on a fresh estimator
        try:
            est = estimator_class(**{name: valid}).fit(X, y)
        except ValueError:
            continue  # `valid` is outside this class's range (CW's eta is a probability in (0.5, 1))
        est.set_params(**{name: invalid})
        with pytest.raises(ValueError, match=rf"\b{name}="):
            est.partial_fit(X, y)


def test_numpy_scalar_hyperparameters_are_accepted(estimator_class):
    """Valid values given as NumPy scalars (e.g. from np.linspace or a param grid array) are valid values."""
    as_numpy = {bool: np.bool_, int: np.int64, float: np.float64, str: np.str_}
    valid = {**estimator_class().get_params(), "n_features": 4}
    for name, value in valid.items():
        if type(value) not in as_numpy:
            continue
        est = estimator_class(**{**valid, name: as_numpy[type(value)](value)})
        est.fit(np.eye(4), [0, 1, 0, 1])
        assert est.coef_.shape == (1, 4)


def test_constructor_does_not_validate(estimator_class):
    """scikit-learn's convention: constructors store, learning validates."""
    est = estimator_class(fit_intercept="not a bool")
    assert est.fit_intercept == "not a bool"


# -- overflow ---------------------------------------------------------------------


def test_overflow_raises_and_keeps_a_finite_model():
    """Perceptron with eta = 1e100: row 0 gives w = 1e100 * x0; row 1 = (0, 1e200) has ||x||^2 = 1e400 = inf."""
    est = olearn.Perceptron(eta=1e100)
    X = np.array([[1.0, 0.0], [0.0, 1e200], [1.0, 1.0]])
    with pytest.raises(FloatingPointError, match=r"row 1"):
        est.partial_fit(X, [1, -1, 1])
    assert np.isfinite(_weights(est)).all()
    np.testing.assert_allclose(est.coef_, [[1e100, 0.0]])  # row 0 kept, rows 1.. not learned
    with pytest.raises(FloatingPointError):
        olearn.run(est, X[1:2], [-1])
    with pytest.raises(FloatingPointError):
        est.learn_one(X[1], -1)
    np.testing.assert_allclose(est.coef_, [[1e100, 0.0]])
    # an update whose result overflows: score -1e250, then w + 1e100 * (-1e150, 0) has norm^2 1e500
    with pytest.raises(FloatingPointError):
        est.learn_one(np.array([-1e150, 0.0]), 1)
    np.testing.assert_allclose(est.coef_, [[1e100, 0.0]])
    assert est.predict(np.array([[1.0, 0.0]]))[0] == 1


def test_overflow_every_estimator(estimator_case):
    X = np.array([[1.0, 0.0], [1e200, 1e200]])
    est = estimator_case.make()
    with pytest.raises(FloatingPointError):
        est.partial_fit(X, [1, -1])
    assert np.isfinite(_weights(est)).all()
    est.partial_fit(X[:1], [1])  # still usable
    assert np.isfinite(_weights(est)).all()


def test_run_predicts_as_predict_learn_one_with_both_classes_known(estimator_case, make_stream):
    """run knows the two classes of y from the start; learn_one the classes seen, or those declared."""
    X, y = make_stream(40, 5, seed=4)
    labels = np.where(y > 0, "yes", "no")
    labels[:4] = labels[0]  # a first class shown alone for 4 rounds
    labels[4] = "no" if labels[0] == "yes" else "yes"
    result = olearn.run(estimator_case.make(), X, labels)
    declared = estimator_case.make().partial_fit(np.empty((0, 0)), labels[:0], classes=["no", "yes"])
    undeclared = estimator_case.make()
    rows = [{j: v for j, v in enumerate(row)} for row in X]
    assert [declared.predict_learn_one(x, label) for x, label in zip(rows, labels)] == result.predictions.tolist()
    streamed = [undeclared.predict_learn_one(x, label) for x, label in zip(rows, labels)]
    # while one class is known, learn_one predicts it; from the round after the second class, run's predictions
    assert streamed[:5] == [None] + [labels[0]] * 4
    assert streamed[5:] == result.predictions[5:].tolist()
    np.testing.assert_array_equal(declared.coef_, undeclared.coef_)


def test_predict_learn_one_equals_predict_one_then_learn_one(estimator_case, make_stream):
    if estimator_case.params.get("average"):
        pytest.skip("documented: predict_learn_one scores with the current weights, predict_one with the average "
                    "(test_run_predicts_as_predict_learn_one_with_both_classes_known covers it)")
    X, y = make_stream(60, 5, seed=3)
    labels = np.where(y > 0, "yes", "no")
    separate, combined = estimator_case.make(), estimator_case.make()
    expected, got = [], []
    for row, label in zip(X, labels):
        x = {j: v for j, v in enumerate(row) if v != 0}
        expected.append(separate.predict_one(x))
        separate.learn_one(x, label)
        got.append(combined.predict_learn_one(x, label))
    assert got == expected
    assert got[0] is None and got[1] == labels[0]
    np.testing.assert_array_equal(combined.coef_, separate.coef_)
    np.testing.assert_array_equal(combined.intercept_, separate.intercept_)
