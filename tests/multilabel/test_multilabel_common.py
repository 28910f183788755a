"""The common checks of the multilabel family: scikit-learn conventions, persistence, labels, bad input."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles.multilabel import pa_multilabel
from sklearn.base import clone, is_classifier
from sklearn.metrics import accuracy_score

import olearn
from olearn.data import load_libsvm
from olearn.exceptions import NotFittedError
from olearn.multilabel import PAMultilabel

SETTINGS = [
    {},
    {"variant": "pa"},
    {"variant": "pa1", "C": 0.05, "fit_intercept": True},
    {"variant": "pa2", "C": 0.5, "n_features": 7},
]


@pytest.fixture(params=SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def params(request):
    return request.param


def _data(n=50, d=5, seed=0, names=("art", "bio", "cs", "math")):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    scores = X @ rng.standard_normal((len(names), d)).T
    sets = [[names[j] for j in np.flatnonzero(s > 0)] for s in scores]
    return X, sets


def _same(a, b):
    assert_array_equal(a.classes_, b.classes_)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.intercept_, b.intercept_)


def test_is_a_classifier_with_the_sklearn_conventions(params):
    X, y = _data()
    est = PAMultilabel(**params)
    assert is_classifier(est) and PAMultilabel._task == "multilabel"
    assert {k: est.get_params()[k] for k in params} == params
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(est))
    est.partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and not hasattr(twin, "classes_")
    _same(twin.partial_fit(X, y), est)
    assert PAMultilabel().set_params(**est.get_params()).get_params() == est.get_params()


def test_set_params_takes_effect_mid_stream():
    X, y = _data()
    est = PAMultilabel().partial_fit(X[:25], y[:25])
    twin = pickle.loads(pickle.dumps(est))
    est.set_params(fit_intercept=True)
    est.partial_fit(X[25:], y[25:])
    twin.partial_fit(X[25:], y[25:])
    assert not np.array_equal(est.coef_, twin.coef_)


def _continues_identically(a, b, X, y, new_label):
    _same(a, b)
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.taus, rb.taus)
    _same(a, b)
    # a new label and a new feature: both grow the same way
    labels = [new_label, a.classes_[0]]
    for est in (a, b):
        est.learn_one({0: 1.0, 6: 2.0}, labels)
    _same(a, b)


@pytest.mark.parametrize("names,new_label", [(("art", "bio", "cs", "math"), "zoo"), ((3, 10, 20, 100), 7),
                                             ((0.5, 1.5, 2.5, 3.5), -1.0)], ids=["strings", "ints", "floats"])
def test_pickle_and_save_load_round_trips(params, names, new_label, tmp_path):
    X, y = _data(names=names)
    est = PAMultilabel(**params).partial_fit(X[:25], y[:25])
    _continues_identically(est, pickle.loads(pickle.dumps(est)), X[25:], y[25:], new_label)
    est = PAMultilabel(**params).partial_fit(X[:25], y[:25])
    loaded = olearn.load(est.save(tmp_path / "ranker.olearn"))
    assert loaded.get_params() == est.get_params() and loaded.classes_.dtype == est.classes_.dtype
    assert loaded.n_features_in_ == est.n_features_in_
    _continues_identically(est, loaded, X[25:], y[25:], new_label)
    assert PAMultilabel(**params).get_params() == pickle.loads(pickle.dumps(PAMultilabel(**params))).get_params()


def test_labels_that_numpy_cannot_store_need_pickle(tmp_path):
    est = PAMultilabel().partial_fit(np.eye(2), [[("a", 1)], [("b", 2)]])
    assert est.classes_.dtype == object and est.classes_.tolist() == [("a", 1), ("b", 2)]
    with pytest.raises(ValueError, match="pickle"):
        est.save(tmp_path / "m.olearn")
    _same(pickle.loads(pickle.dumps(est)), est)


def test_dense_and_sparse_learn_identically(params):
    X, y = _data(seed=1)
    dense = PAMultilabel(**params).partial_fit(X, y)
    for layout in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        _same(PAMultilabel(**params).partial_fit(layout(X), y), dense)
        assert_array_equal(dense.decision_function(layout(X)), dense.decision_function(X))


def test_label_forms_agree():
    X, y = _data(seed=2)
    classes = ["art", "bio", "cs", "math"]
    indicator = np.array([[c in row for c in classes] for row in y])
    by_sets = PAMultilabel().partial_fit(X, y, classes=classes)
    for form in (indicator, indicator.astype(float), sp.csr_matrix(indicator)):
        _same(PAMultilabel().partial_fit(X, form, classes=classes), by_sets)
    _same(PAMultilabel().partial_fit(X, [set(r) for r in y], classes=set(classes)), by_sets)
    _same(PAMultilabel().partial_fit(X, np.array([tuple(r) for r in y] + [()], dtype=object)[:-1], classes=classes), by_sets)
    numbered = PAMultilabel().partial_fit(X, indicator)
    assert numbered.classes_.tolist() == [0, 1, 2, 3]
    assert_array_equal(numbered.coef_, by_sets.coef_)


def test_prediction_outputs():
    X, y = _data(seed=3)
    est = PAMultilabel().partial_fit(X, y)
    scores = est.decision_function(X)
    assert scores.shape == (50, 4)
    assert_array_equal(est.predict(X), scores > 0)
    ranking = est.predict_ranking(X)
    assert ranking.shape == (50, 4)
    assert_array_equal(ranking[:, 0], est.classes_[scores.argmax(axis=1)])
    one = est.predict_one(X[7])
    assert one == [c for c in ranking[7].tolist() if scores[7, est.classes_.tolist().index(c)] > 0]
    indicator = np.array([[c in row for c in est.classes_] for row in y])
    assert est.score(X, y) == pytest.approx(accuracy_score(indicator, est.predict(X)))
    assert est.score(X, indicator) == est.score(X, y)
    assert est.score(X[:1], [["unknown label"]]) == 0.0


# -- LIBSVM multilabel files ---------------------------------------------------------


def test_libsvm_multilabel_file_end_to_end(tmp_path):
    path = tmp_path / "toy.svm"
    path.write_text("0,2 1:1.0 3:0.5\n1 2:2.0\n 3:1.0\n2,1 1:0.3 2:0.4\n0,1,2 2:1.0\n1 1:-1 3:2\n")
    X, y = load_libsvm(path, multilabel=True)
    assert y == [(0, 2), (1,), (), (1, 2), (0, 1, 2), (1,)]
    est = PAMultilabel(variant="pa")
    res = olearn.run(est.partial_fit(X[:0], [], classes=[0, 1, 2]), X, y)
    trace = pa_multilabel(X.toarray(), [set(r) for r in y], 3, "pa")
    assert_allclose(res.taus, trace.taus)
    assert_allclose(est.coef_, trace.coef)
    assert res.scores[2] == np.inf and res.scores[4] == np.inf  # nothing to rank: no label, every label
    assert est.predict(X).shape == (6, 3)


# -- before learning, failed first calls --------------------------------------------


def test_an_empty_first_batch_without_classes_starts_nothing():
    est = PAMultilabel()
    res = olearn.run(est, np.empty((0, 3)), [])
    assert res.n_rounds == 0 and est.predict_one({0: 1.0}) is None
    est.partial_fit(np.empty((0, 3)), [], classes=["a", "b"])
    assert est.classes_.tolist() == ["a", "b"] and est.coef_.shape == (2, 3)


def test_before_learning():
    est = PAMultilabel()
    X = np.ones((2, 3))
    for call in (lambda: est.predict(X), lambda: est.decision_function(X), lambda: est.coef_,
                 lambda: est.intercept_, lambda: est.predict_ranking(X)):
        with pytest.raises(NotFittedError, match="PAMultilabel"):
            call()
    assert est.predict_one({0: 1.0}) is None
    with pytest.raises(ValueError, match="nan"):
        est.predict_one({0: float("nan")})
    est.learn_one({0: 1.0}, ["a"])
    assert est.predict_one({0: 1.0}) == []  # one label: nothing ranked yet, every score 0


@pytest.mark.parametrize("bad_y", [[["a"], ["b", 1]], np.array([[1, 2], [0, 1]]), [["a"], "b"]],
                         ids=["incomparable", "indicator-2", "string-row"])
def test_a_failed_first_call_leaves_the_estimator_unfitted(bad_y):
    est = PAMultilabel()
    with pytest.raises(ValueError):
        est.fit(np.eye(2), bad_y)
    with pytest.raises(NotFittedError):
        est.coef_
    assert not hasattr(est, "classes_")
    est.fit(np.eye(2), [["a"], ["b"]])
    assert est.classes_.tolist() == ["a", "b"]


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("layout", [np.asarray, sp.csr_matrix])
def test_nonfinite_X_names_row_and_column(bad, layout):
    X = np.ones((4, 3))
    X[2, 1] = bad
    with pytest.raises(ValueError, match=r"row 2.*column 1"):
        PAMultilabel().fit(layout(X), [[0]] * 4)
    with pytest.raises(ValueError, match="feature 1"):
        PAMultilabel().learn_one({0: 1.0, 1: bad}, [0])


def test_bad_labels_are_named():
    X = np.eye(3)
    with pytest.raises(ValueError, match=r"row 1.*nan"):
        PAMultilabel().fit(X, [[1.0], [float("nan")], [2.0]])
    with pytest.raises(ValueError, match=r"row 0.*collection.*\[label\]"):
        PAMultilabel().fit(X, [1, 2, 3])
    with pytest.raises(ValueError, match=r"single values.*\[label\]"):
        PAMultilabel().fit(X, np.array([1, 2, 3]))
    with pytest.raises(ValueError, match=r"row 2.*not hashable"):
        PAMultilabel().fit(X, [[1], [2], [[3]]])
    with pytest.raises(ValueError, match="3 rows but y has 2 label sets"):
        PAMultilabel().fit(X, [[1], [2]])
    with pytest.raises(ValueError, match=r"2.0 at row 1, column 0; expected 0 or 1"):
        PAMultilabel().fit(X, np.array([[1, 0], [2, 0], [0, 1]]))
    with pytest.raises(ValueError, match=r"nan at row 0, column 1"):
        PAMultilabel().fit(X, np.array([[1, np.nan], [0, 0], [0, 1]]))
    with pytest.raises(ValueError, match=r"labels of this example must be a collection"):
        PAMultilabel().learn_one({0: 1.0}, "spam")
    with pytest.raises(ValueError, match=r"labels of this example contain nan"):
        PAMultilabel().learn_one({0: 1.0}, [float("nan")])
    with pytest.raises(ValueError, match="missing"):
        PAMultilabel().fit(X, None)


def test_indicator_width_must_match_the_known_labels():
    X = np.eye(3)
    est = PAMultilabel().partial_fit(X, np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    coef = est.coef_
    with pytest.raises(ValueError, match=r"4 columns, but 3 labels are known.*classes_: \[0, 1, 2\]"):
        est.partial_fit(X, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="4 columns, but 2 labels"):
        PAMultilabel().partial_fit(X, np.zeros((3, 4)), classes=["a", "b"])
    assert_array_equal(est.coef_, coef)
    with pytest.raises(ValueError, match="mutually comparable"):
        est.partial_fit(X, [["x"], [0], [1]])
    assert est.classes_.tolist() == [0, 1, 2]  # the refused label was not added
    est.partial_fit(X, [[3], [0], [1]])  # a new label that sorts with the others joins
    assert est.classes_.tolist() == [0, 1, 2, 3] and est.coef_.shape == (4, 3)


def test_feature_index_past_n_features():
    est = PAMultilabel(n_features=3)
    with pytest.raises(ValueError, match=r"feature index 4\b.*n_features=3"):
        est.learn_one({4: 1.0}, ["a"])
    est.fit(np.ones((2, 3)), [["a"], ["b"]])
    with pytest.raises(ValueError, match="n_features=3"):
        est.predict(np.ones((1, 5)))


INVALID = {
    "variant": ["PA", "pa3", None],
    "C": [0, -1.0, float("nan"), "1", None, True],
    "fit_intercept": ["yes", 1, 0, None],
    "n_features": [0, 2.5, "3", True],
    "n_bits": [0, 32, 2.5, "8", True],
}


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_hyperparameters_name_the_parameter(name):
    for value in INVALID[name]:
        for call in (lambda e: e.fit(np.eye(2), [[0], [1]]), lambda e: e.learn_one({0: 1.0}, [0])):
            est = PAMultilabel(**{name: value})
            with pytest.raises(ValueError, match=rf"\b{name}="):
                call(est)
            if name == "n_bits":
                # a dict is read by n_bits: the bad value is named again
                with pytest.raises(ValueError, match=r"\bn_bits="):
                    est.predict_one({0: 1.0})
            else:
                assert est.predict_one({0: 1.0}) is None
        est = PAMultilabel().partial_fit(np.eye(2), [[0], [1]])
        est.set_params(**{name: value})
        with pytest.raises(ValueError, match=rf"\b{name}="):
            est.partial_fit(np.eye(2), [[0], [1]])


def test_overflow_is_refused_and_keeps_the_model_finite():
    est = PAMultilabel(variant="pa").partial_fit(np.array([[1.0, 0.0]]), [[0]], classes=[0, 1])
    with pytest.raises(FloatingPointError, match="row 1"):
        est.partial_fit(np.array([[0.0, 1.0], [1e200, 0.0], [1.0, 1.0]]), [[1], [1], [0]])
    assert np.isfinite(est.coef_).all()
    kept = est.coef_
    assert not np.array_equal(kept[:, 1], [0.0, 0.0])  # row 0 was learned
    with pytest.raises(FloatingPointError, match="unchanged"):
        est.learn_one({0: 1e300}, [1])
    assert_array_equal(est.coef_, kept)
