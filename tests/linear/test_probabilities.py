"""Class probabilities of the logistic-loss learner, and their absence everywhere else.

The logistic loss log(1 + exp(-y f)) is the negative log-likelihood of the model
P(y | x) = sigma(y f(x)), so ``OGDClassifier(loss="logistic")`` has ``predict_proba``
with P(classes_[1] | x) = sigma(f(x)). The references here are a hand-written
sigmoid of scores computed with NumPy from ``coef_`` and ``intercept_``, and mpmath's
exact exponential where the scores are huge. No other learner of the source texts
is a likelihood model, so none has the methods.
"""

import doctest
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.multiclass import OneVsRestClassifier
from sklearn.utils.estimator_checks import check_decision_proba_consistency

import olearn
from olearn.exceptions import NotFittedError

DOC = Path(__file__).resolve().parents[2] / "docs" / "probabilities.md"
PROBA_METHODS = ("predict_proba", "predict_log_proba", "predict_proba_one")


def _logistic(**params):
    return olearn.OGDClassifier(loss="logistic", **params)


def _stream(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, "spam", "ham")
    return X, y


def test_probability_of_the_second_class_is_the_sigmoid_of_the_score():
    X, y = _stream()
    clf = _logistic(fit_intercept=True, eta=0.5).partial_fit(X, y)
    scores = X @ clf.coef_[0] + clf.intercept_[0]
    assert np.abs(scores).max() < 30                      # the plain formula is exact enough here
    p1 = 1.0 / (1.0 + np.exp(-scores))
    proba = clf.predict_proba(X)
    assert proba.shape == (X.shape[0], 2)
    np.testing.assert_allclose(proba[:, 1], p1, rtol=1e-12)
    np.testing.assert_allclose(proba[:, 0], 1.0 - p1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(np.column_stack([1.0 - p1, p1])), rtol=1e-10)


def test_columns_follow_classes_and_agree_with_predict():
    X, y = _stream(seed=1)
    clf = _logistic(eta=2.0).partial_fit(X, y)
    assert clf.classes_.tolist() == ["ham", "spam"]
    proba = clf.predict_proba(X)
    scores = clf.decision_function(X)
    assert np.all((proba[:, 1] > 0.5) == (scores > 0))   # classes_[1] is the positive side
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=4.5e-16)   # two units in the last place
    # a zero score (an unseen feature only, named by index in a sparse row) is a tie, broken toward
    # classes_[0] by predict and argmax alike
    tie = sp.csr_matrix(([1.0], ([0], [X.shape[1] + 2])), shape=(1, X.shape[1] + 3))
    assert clf.predict_proba(tie).tolist() == [[0.5, 0.5]]
    assert clf.predict(tie).tolist() == ["ham"]


def test_sparse_input_gives_the_same_probabilities():
    X, y = _stream(seed=2)
    clf = _logistic().partial_fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(sp.csr_matrix(X)), clf.predict_proba(X))


@pytest.mark.parametrize("scale", [1.0, 50.0, 700.0, 1e4, 1e300])
def test_huge_scores_keep_relative_precision(scale):
    """sigma(-s) ~ exp(-s) must not become 1 - 1 = 0 while it is representable, nor overflow."""
    clf = _logistic(eta=1.0, schedule="constant").partial_fit([[1.0], [-1.0]], [1, 0])
    x = np.array([[1.0], [-1.0], [0.25], [-0.25]]) * scale / clf.coef_[0, 0]
    scores = clf.decision_function(x)
    proba = clf.predict_proba(x)
    log_proba = clf.predict_log_proba(x)
    with mpmath.workdps(50):
        for s, row, log_row in zip(scores, proba, log_proba):
            for column, sign in ((0, -1), (1, 1)):
                exact = 1 / (1 + mpmath.exp(-sign * mpmath.mpf(float(s))))
                assert row[column] == pytest.approx(float(exact), rel=1e-14, abs=1e-320)
                assert log_row[column] == pytest.approx(float(mpmath.log(exact)), rel=1e-14)
    assert np.isfinite(log_proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=4.5e-16)   # two units in the last place


def test_streaming_twin_matches_the_batch_method():
    X, y = _stream(seed=3)
    clf = _logistic()
    assert clf.predict_proba_one(X[0]) is None             # no class known yet, as predict_one
    for xi, yi in zip(X[:50], y[:50]):
        clf.learn_one(xi, yi)
    one = clf.predict_proba_one({i: v for i, v in enumerate(X[60])})
    assert list(one) == ["ham", "spam"]
    assert [one["ham"], one["spam"]] == clf.predict_proba(X[60:61])[0].tolist()


def test_one_class_seen_has_probability_one():
    clf = _logistic().partial_fit([[1.0, 0.0], [0.5, 0.5]], ["spam", "spam"])
    X = [[1.0, 0.0], [-3.0, 2.0]]
    assert clf.predict_proba(X).tolist() == [[1.0], [1.0]]
    assert clf.predict_log_proba(X).tolist() == [[0.0], [0.0]]
    assert clf.predict(X).tolist() == ["spam", "spam"]
    assert clf.predict_proba_one({0: 1.0}) == {"spam": 1.0}


def test_unfitted_learner_raises_not_fitted():
    for method in ("predict_proba", "predict_log_proba"):
        with pytest.raises(NotFittedError, match="has not learned"):
            getattr(_logistic(), method)([[1.0]])


@pytest.mark.parametrize("loss", ["hinge", "squared"])
def test_no_probabilities_without_a_likelihood(loss):
    X, y = _stream(seed=4)
    est = olearn.OGDClassifier(loss=loss).partial_fit(X, y)
    for method in PROBA_METHODS:
        assert not hasattr(est, method)
    with pytest.raises(AttributeError, match=r"has no predict_proba: loss='(hinge|squared)'.*CalibratedClassifierCV"):
        est.predict_proba(X)


def test_availability_follows_the_loss_parameter():
    est = olearn.OGDClassifier(loss="hinge")
    assert not hasattr(est, "predict_proba")
    est.set_params(loss="logistic")
    assert all(hasattr(est, method) for method in PROBA_METHODS)
    # scikit-learn's meta-estimators look for the method the same way
    assert hasattr(OneVsRestClassifier(_logistic()), "predict_proba")
    assert not hasattr(OneVsRestClassifier(olearn.OGDClassifier()), "predict_proba")


@pytest.mark.parametrize("name, cls", olearn.all_estimators())
def test_no_other_learner_invents_probabilities(name, cls):
    """Only the logistic loss is a likelihood in the source texts; every other learner has none by default."""
    if name == "OGDClassifier":
        return
    for method in PROBA_METHODS:
        assert not hasattr(cls(), method), f"{name}.{method}"


def test_scikit_learn_checks_of_probabilities():
    check_decision_proba_consistency("OGDClassifier", _logistic(fit_intercept=True))


def test_one_vs_rest_gives_multiclass_probabilities():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = np.argmax(X[:, :3], axis=1)
    ovr = OneVsRestClassifier(_logistic(fit_intercept=True)).fit(X, y)
    proba = ovr.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    binary = [est.predict_proba(X)[:, 1] for est in ovr.estimators_]
    np.testing.assert_allclose(proba, np.column_stack(binary) / np.sum(binary, axis=0)[:, None])



def test_the_documented_recipes_run_and_print_what_the_page_says():
    """docs/probabilities.md: the logistic learner, and CalibratedClassifierCV on hinge-loss learners."""
    failed, attempted = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert attempted >= 20 and failed == 0


def test_a_saved_and_loaded_model_gives_the_same_probabilities(tmp_path):
    X, y = _stream(seed=7)
    clf = _logistic(fit_intercept=True).partial_fit(X, y)
    clf.save(tmp_path / "model.npz")
    loaded = olearn.load(tmp_path / "model.npz")
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
