"""The input contract every estimator of ``olearn.all_estimators()`` keeps, checked on its own kind of data.

scikit-learn's ``check_estimator`` (tests/test_sklearn_compat.py) feeds every
estimator 1-d class labels and 2-d arrays; the multilabel and sequence learners
take other targets and inputs, so here each task gets valid data of its own
kind and the same promises are checked on all: NotFittedError is
scikit-learn's, a dense batch of another width or a DataFrame with other
columns is refused (a sparse batch may name any feature), ``fit`` refuses zero
rows, complex input is refused, and a refused call changes nothing.
"""

import json
import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.exceptions
from numpy.testing import assert_array_equal
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils.class_weight import compute_class_weight

import olearn
from olearn._weights import row_weights
from olearn.exceptions import DataConversionWarning, NotFittedError

ESTIMATORS = olearn.all_estimators()
ALL = pytest.mark.parametrize("cls", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS])
# the learners whose X is a 2-d batch (a sequence learner takes a list of sequences)
TABULAR = [(name, cls) for name, cls in ESTIMATORS if cls._task != "sequence"]
TAB = pytest.mark.parametrize("cls", [cls for _, cls in TABULAR], ids=[name for name, _ in TABULAR])


def task_data(cls, n=24, d=4, seed=0):
    """Valid (X, y) of n examples with d features for the task of ``cls`` (y None for uniclass)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    task = cls._task
    if task == "binary":
        return X, np.where(np.arange(n) % 2 == 0, "no", "yes")
    if task == "multiclass":
        return X, np.arange(n) % 3
    if task == "regression":
        return X, X @ np.arange(1.0, d + 1.0)
    if task == "multilabel":
        return X, [[i % 3] if i % 2 else [i % 3, (i + 1) % 3] for i in range(n)]
    if task == "uniclass":
        return X, None
    assert task == "sequence"
    return [X[i : i + 3] for i in range(0, n, 3)], [list("abc")[: len(X[i : i + 3])] for i in range(0, n, 3)]


def predictions(est, X):
    out = est.predict(X)
    return [np.asarray(p) for p in out] if isinstance(out, list) else np.asarray(out)


class Frame:
    """What olearn reads of a pandas DataFrame: ``columns`` and the array (pandas is not a dependency)."""

    def __init__(self, array, columns):
        self.array, self.columns = np.asarray(array), list(columns)

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __len__(self):
        return self.array.shape[0]

    @property
    def shape(self):
        return self.array.shape


# -- NotFittedError -----------------------------------------------------------


@ALL
def test_not_fitted_error_is_caught_as_sklearns(cls):
    X, _ = task_data(cls)
    with pytest.raises(sklearn.exceptions.NotFittedError) as caught:
        cls().predict(X)
    assert isinstance(caught.value, NotFittedError) and type(caught.value).__name__ == "NotFittedError"


def test_not_fitted_error_pickles_as_olearns():
    err = pickle.loads(pickle.dumps(NotFittedError("not yet")))
    assert isinstance(err, NotFittedError) and isinstance(err, sklearn.exceptions.NotFittedError)
    assert err.args == ("not yet",)


def test_importing_olearn_does_not_import_sklearn_and_its_errors_are_plain_then():
    code = (
        "import sys, olearn\n"
        "from olearn.exceptions import NotFittedError\n"
        "assert 'sklearn' not in sys.modules, 'import olearn imported scikit-learn'\n"
        "err = NotFittedError('x')\n"
        "assert type(err).__mro__[1].__name__ == 'OlearnError', type(err).__mro__\n"
        "import sklearn.exceptions\n"
        "assert isinstance(NotFittedError('x'), sklearn.exceptions.NotFittedError)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the width of a batch -----------------------------------------------------


@TAB
def test_a_dense_batch_of_another_width_is_refused_everywhere(cls):
    X, y = task_data(cls)
    est = cls().fit(X, y)
    before = pickle.dumps(est)
    for narrow in (X[:, :3], np.hstack([X, X[:, :1]])):
        with pytest.raises(ValueError, match=rf"X has {narrow.shape[1]} features, but {cls.__name__} is expecting 4"):
            est.predict(narrow)
        with pytest.raises(ValueError, match=rf"X has {narrow.shape[1]} features"):
            est.partial_fit(narrow, y)
    assert pickle.dumps(est) == before
    assert est.n_features_in_ == 4


@TAB
def test_a_sparse_batch_names_features_by_index(cls):
    """Narrower: the missing columns are zeros; wider: a feature never learned has weight 0."""
    X, y = task_data(cls)
    X[:, 3] = 0.0
    est = cls().fit(X, y)
    if cls._task == "uniclass":
        # the vectors of a uniclass stream are points of one space: exactly d coordinates, sparse too
        with pytest.raises(ValueError, match="Y has 3 columns; the center has 4 coordinates"):
            est.predict(sp.csr_matrix(X[:, :3]))
        return
    expected = predictions(est, X)
    assert_array_equal(predictions(est, sp.csr_matrix(X[:, :3])), expected)
    wider = sp.hstack([sp.csr_matrix(X), sp.csr_matrix(np.ones((X.shape[0], 1)))]).tocsr()
    assert_array_equal(predictions(est, wider), expected)


def test_with_a_fixed_n_features_every_batch_is_read_by_index(make_stream):
    X, y = make_stream(30, 4, seed=2)
    est = olearn.PAClassifier(n_features=6).fit(X, y)
    assert est.n_features_in_ == 6
    assert_array_equal(est.predict(X), est.predict(np.hstack([X, np.zeros((30, 2))])))


def test_learn_one_grows_the_model_and_dense_batches_follow_it(make_stream):
    X, y = make_stream(30, 4, seed=3)
    est = olearn.Perceptron().fit(X, y)
    est.learn_one({5: 1.0}, 1)
    assert est.n_features_in_ == 6
    with pytest.raises(ValueError, match="X has 4 features, but Perceptron is expecting 6"):
        est.predict(X)
    assert est.predict(np.hstack([X, np.zeros((30, 2))])).shape == (30,)


@TAB
def test_the_width_is_learned_again_by_fit(cls):
    X, y = task_data(cls)
    est = cls().fit(X, y)
    X5, y5 = task_data(cls, d=5)
    assert est.fit(X5, y5).n_features_in_ == 5
    assert len(predictions(est, X5)) == X5.shape[0]


# -- column names -------------------------------------------------------------


@TAB
def test_column_names_are_learned_and_checked(cls):
    X, y = task_data(cls)
    names = ["a", "b", "c", "d"]
    est = cls().fit(Frame(X, names), y)
    assert_array_equal(est.feature_names_in_, names)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        plain = predictions(est, X)
    assert_array_equal(predictions(est, Frame(X, names)), plain)
    with pytest.raises(ValueError, match=r"(?s)feature names should match.*must be in the same order"):
        est.predict(Frame(X[:, [1, 0, 2, 3]], ["b", "a", "c", "d"]))
    renamed = r"(?s)feature names should match.*unseen at fit time:\n- e\n.*now missing:\n- d\n"
    with pytest.raises(ValueError, match=renamed):
        est.predict(Frame(X, ["a", "b", "c", "e"]))
    with pytest.raises(ValueError, match=r"feature names should match"):
        est.partial_fit(Frame(X[:, ::-1], names[::-1]), y)
    assert not hasattr(cls().fit(X, y), "feature_names_in_")
    assert not hasattr(est.fit(X, y), "feature_names_in_")


def test_names_of_mixed_types_are_refused(make_stream):
    X, y = make_stream(10, 2)
    with pytest.raises(TypeError, match="all are strings"):
        olearn.PAClassifier().fit(Frame(X, ["a", 1]), y)


def test_a_pandas_dataframe_reordered_is_refused(make_stream):
    pd = pytest.importorskip("pandas")
    X, y = make_stream(20, 3, seed=4)
    frame = pd.DataFrame(X, columns=["x", "y", "z"])
    est = olearn.PAClassifier().fit(frame, y)
    assert_array_equal(est.predict(frame), est.predict(X))
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(frame[["z", "y", "x"]])


# -- empty, complex and odd input ---------------------------------------------


@ALL
def test_fit_refuses_zero_rows_and_keeps_the_model(cls):
    X, y = task_data(cls)
    est = cls().fit(X, y)
    before = pickle.dumps(est)
    empty_X = [] if cls._task == "sequence" else np.empty((0, 4))
    empty_y = None if cls._task == "uniclass" else []
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        est.fit(empty_X, empty_y)
    assert pickle.dumps(est) == before
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        cls().fit(empty_X, empty_y)


@TAB
def test_fit_refuses_zero_columns_and_partial_fit_of_no_rows_is_a_no_op(cls):
    X, y = task_data(cls)
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(24, 0\)\)"):
        cls().fit(X[:, :0], y)
    est = cls().fit(X, y)
    before = pickle.dumps(est)
    est.partial_fit(X[:0], None if y is None else y[:0])
    assert pickle.dumps(est) == before


@TAB
def test_complex_input_is_refused(cls):
    X, y = task_data(cls)
    for bad in (X + 1j, sp.csr_matrix(X + 1j)):
        with pytest.raises(ValueError, match="Complex data not supported"):
            cls().fit(bad, y)
    if cls._task in ("binary", "multiclass", "regression"):
        with pytest.raises(ValueError, match="Complex data not supported"):
            cls().fit(X, np.arange(len(X)) % 2 + 1j)


@TAB
def test_object_arrays_are_read_as_numbers(cls):
    X, y = task_data(cls)
    # the same seed gives both fits the same shuffled passes
    assert_array_equal(predictions(cls(random_state=0).fit(X.astype(object), y), X),
                       predictions(cls(random_state=0).fit(X, y), X))
    bad = X.astype(object)
    bad[2, 1] = {"not": "a number"}
    with pytest.raises(TypeError, match=r"[XY] could not be read as an array of numbers: .*not 'dict'"):
        cls().fit(bad, y)


@pytest.mark.parametrize("name", ["PAClassifier", "PAMulticlass", "Winnow"])
def test_a_fractional_float_label_is_a_continuous_target(name):
    X, _ = task_data(olearn.PAClassifier, n=3)
    with pytest.raises(ValueError, match=r"Unknown label type: continuous. y has 0.5 at row 1"):
        getattr(olearn, name)().fit(X, [1.0, 0.5, 1.0])
    assert list(getattr(olearn, name)().fit(X, [2.0, -1.0, 2.0]).classes_) == [-1.0, 2.0]


@pytest.mark.parametrize("labels", [
    [1.0, 1.0, 1.0, 1.0, 2.5, 1.0],  # two values, the fraction late
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],  # one value
    [3.0, -1.0, 3.0, 7.0, 3.0, 1e-300],  # three values or more, a tiny fraction last
    [4.0, -4.0, 2.0**52 + 1, 4.0, 0.25, 3.0],  # a whole number past 2**52, then a fraction
])
def test_the_first_fractional_float_label_is_named(labels):
    X = np.ones((len(labels), 2))
    row = next(i for i, value in enumerate(labels) if value != int(value))
    with pytest.raises(ValueError, match=rf"continuous. y has {labels[row]} at row {row};"):
        olearn.PAMulticlass().fit(X, np.array(labels))
    whole = [float(int(value)) for value in labels]
    if len(set(whole)) == 2:
        assert list(olearn.PAClassifier().fit(X, np.array(whole)).classes_) == sorted(set(whole))


@pytest.mark.parametrize("name", ["PAClassifier", "PAMulticlass", "PARegressor"])
def test_a_column_vector_y_is_flattened_with_sklearns_warning(name):
    cls = getattr(olearn, name)
    X, y = task_data(cls)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed when a 1d array was expected"):
        est = cls(random_state=0).fit(X, np.asarray(y).reshape(-1, 1))
    assert_array_equal(est.predict(X), cls(random_state=0).fit(X, y).predict(X))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls().fit(X, np.asarray(y).reshape(-1, 1))
    assert isinstance(caught[0].message, sklearn.exceptions.DataConversionWarning)


@pytest.mark.parametrize("name", ["PAClassifier", "PAMulticlass", "PARegressor", "PAMultilabel"])
def test_a_missing_y_uses_sklearns_phrase(name):
    X, _ = task_data(getattr(olearn, name))
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        getattr(olearn, name)().fit(X, None)


def test_a_one_dimensional_X_says_how_to_reshape(make_stream):
    X, y = make_stream(10, 3)
    est = olearn.PAClassifier().fit(X, y)
    with pytest.raises(ValueError, match=r"Reshape your data .* predict_one"):
        est.predict(X[0])


# -- what a task's predictions look like to scikit-learn ----------------------


def test_two_classes_give_one_multiclass_score_per_row():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    est = olearn.PAMulticlass(variant="pa").fit(X, ["a", "b", "b"])
    per_class = X @ est.coef_.T
    assert_array_equal(est.decision_function(X), per_class[:, 1] - per_class[:, 0])
    assert_array_equal(est.predict(X), np.where(per_class[:, 1] > per_class[:, 0], "b", "a"))
    three = olearn.PAMulticlass(variant="pa").fit(X, ["a", "b", "c"])
    assert three.decision_function(X).shape == (3, 3)


def test_multilabel_predictions_are_an_integer_indicator_matrix():
    X, y = task_data(olearn.PAMultilabel)
    est = olearn.PAMultilabel().fit(X, y)
    predicted = est.predict(X)
    assert predicted.dtype == np.int64
    assert_array_equal(predicted, (est.decision_function(X) > 0).astype(int))


def test_uniclass_ignores_y_in_fit_as_an_outlier_detector_and_run_refuses_it():
    Y, _ = task_data(olearn.PAUniclass)
    est = olearn.PAUniclass(epsilon=0.5, random_state=0).fit(Y, np.ones(len(Y)))
    assert_array_equal(est.center_, olearn.PAUniclass(epsilon=0.5, random_state=0).fit(Y).center_)
    distance = np.linalg.norm(Y - est.center_, axis=1)
    np.testing.assert_allclose(est.score_samples(Y), -distance, rtol=1e-12)
    assert est.offset_ == -0.5
    np.testing.assert_allclose(est.decision_function(Y), 0.5 - distance, rtol=1e-12)
    with pytest.raises(ValueError, match="learns from unlabelled vectors"):
        olearn.run(olearn.PAUniclass(), Y, np.ones(len(Y)))


@TAB
def test_column_names_are_saved_with_the_model(cls, tmp_path):
    X, y = task_data(cls)
    names = ["a", "b", "c", "d"]
    est = cls().fit(Frame(X, names), y)
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert_array_equal(loaded.feature_names_in_, names)
    assert loaded.feature_names_in_.dtype == object
    with pytest.raises(ValueError, match=r"(?s)feature names should match.*must be in the same order"):
        loaded.predict(Frame(X[:, ::-1], names[::-1]))
    cls().fit(X, y).save(tmp_path / "plain.npz")
    assert not hasattr(olearn.load(tmp_path / "plain.npz"), "feature_names_in_")


@pytest.mark.parametrize("names, match", [(["a", 1], "not a list of strings"), ("abcd", "not a list of strings"),
                                          (["a", "b", "c", "d", "e"], "names 5 features, but the model has")])
def test_bad_saved_column_names_are_refused(tmp_path, names, match):
    X, y = task_data(olearn.PAClassifier)
    path = tmp_path / "m.npz"
    olearn.PAClassifier().fit(Frame(X, ["a", "b", "c", "d"]), y).save(path)
    with np.load(path) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["feature_names"] = names
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(olearn.exceptions.ModelFormatError, match=match):
        olearn.load(path)


def test_fit_weights_that_are_all_zero_are_refused_a_batch_of_them_is_skipped():
    # row_weights is what OnlineLearner._row_weights (fit's and partial_fit's weights) computes
    with pytest.raises(ValueError, match="PAClassifier: Sample weights must contain at least one non-zero number"):
        row_weights(None, [1, -1], [0.0, 0.0], 2, True, "PAClassifier")
    assert row_weights(None, [1, -1], [0.0, 0.0], 2, False, "PAClassifier").tolist() == [0.0, 0.0]


def test_fit_refuses_a_class_weight_naming_no_class_of_y_while_a_class_has_none():
    # scikit-learn's compute_class_weight refuses the same dict; its weight would go to nobody
    X = np.eye(4)
    y = ["a", "b", "a", "b"]
    with pytest.raises(ValueError, match=r"PAClassifier: class_weight names \['c'\], not a class of y, while "
                                         r"the classes \['b'\] of y are not in class_weight"):
        olearn.PAClassifier(class_weight={"a": 1.0, "c": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="not in class_weight"):
        compute_class_weight({"a": 1.0, "c": 2.0}, classes=np.array(["a", "b"]), y=y)
    # a class missing from the dict (weight 1), or an extra key with every class weighted, is fine, as in
    # scikit-learn; a stream may name classes still to come
    assert row_weights({"a": 2.0}, y, None, 4, True, "PAClassifier").tolist() == [2.0, 1.0, 2.0, 1.0]
    assert row_weights({"a": 2.0, "b": 1.0, "c": 3.0}, y, None, 4, True, "PAClassifier").tolist() == [2.0, 1.0, 2.0, 1.0]
    assert row_weights({"a": 2.0, "c": 3.0}, y, None, 4, False, "PAClassifier").tolist() == [2.0, 1.0, 2.0, 1.0]


def test_score_reads_a_column_y_as_fit_does_instead_of_broadcasting_it():
    # a column y compared with the predictions broadcast to an n x n table: accuracy 0.5, R^2 -59
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = olearn.PAClassifier().partial_fit(X, y)
    reg = olearn.PARegressor().partial_fit(X, X[:, 0])
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        assert clf.score(X, y[:, None]) == accuracy_score(y, clf.predict(X))
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        assert reg.score(X, X[:, :1]) == pytest.approx(r2_score(X[:, 0], reg.predict(X)), rel=1e-12)


@pytest.mark.parametrize("name", ["PAClassifier", "PARegressor", "PAMultilabel"])
def test_score_checks_its_y_and_weights_as_fit_does(name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = np.c_[X[:, 0] > 0, X[:, 1] > 0].astype(int) if name == "PAMultilabel" else (X[:, 0] > 0).astype(int)
    est = getattr(olearn, name)().partial_fit(X, y)
    with pytest.raises(ValueError, match=r"X has 12 rows but (the indicator matrix )?y has 4"):
        est.score(X, y[:4])
    with pytest.raises(ValueError, match=r"sample_weight has shape \(3,\); expected \(12,\)"):
        est.score(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match=r"sample_weight\[2\] is -1.0"):
        est.score(X, y, sample_weight=np.r_[1.0, 1.0, -1.0, np.ones(9)])
    with pytest.raises(ValueError, match=f"{name}.score: sample_weight is all zeros"):
        est.score(X, y, sample_weight=np.zeros(12))


def test_the_convergence_warning_is_scikit_learns_class_too_so_its_filters_apply():
    # separable rows: every pass after the first has loss 0, which with tol=0 is never "no improvement"
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    y = [1, 1, -1, -1]
    learner = olearn.Perceptron(max_iter=6, tol=0.0, random_state=0)
    with pytest.warns(sklearn.exceptions.ConvergenceWarning, match="fit made all max_iter=6 passes"):
        learner.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=sklearn.exceptions.ConvergenceWarning)
        learner.fit(X, y)
    with pytest.warns(olearn.exceptions.ConvergenceWarning):
        learner.fit(X, y)


@pytest.mark.parametrize("name", [name for name, cls in ESTIMATORS if cls._task == "binary"])
def test_fit_names_a_third_class_in_the_callers_order_whatever_the_seed(name):
    # before, the shuffled pass that met the third class named it: other label, other row for each seed
    X = np.eye(6)
    y = ["b", "a", "b", "c", "a", "c"]
    learned = getattr(olearn, name)().partial_fit(X[:2], ["a", "b"])
    before = pickle.dumps(learned)
    for seed in range(3):
        with pytest.raises(ValueError, match=re.escape(
                f"{name}: Only binary classification is supported; y has 3 classes ['a', 'b', 'c']: the third "
                "class 'c' first appears at row 3")):
            learned.set_params(random_state=seed).fit(X, y)
        learned.set_params(random_state=None)
        assert pickle.dumps(learned) == before
