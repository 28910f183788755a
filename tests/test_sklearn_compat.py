"""olearn's estimators work inside scikit-learn's tools, which only see the conventions."""

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags

import olearn


@pytest.fixture
def stream(make_stream):
    X, y = make_stream(200, 6, seed=5, noise=0.05)
    return X, np.where(y > 0, "pos", "neg")


def test_every_estimator_is_a_sparse_capable_classifier_to_sklearn(estimator_class):
    est = estimator_class()
    assert is_classifier(est)
    assert get_tags(est).input_tags.sparse


def test_clone_copies_parameters_not_state(estimator_class, stream):
    X, y = stream
    est = estimator_class(fit_intercept=True).fit(X, y)
    copy = clone(est)
    assert copy.get_params() == est.get_params()
    assert not hasattr(copy, "coef_")


def test_grid_search_picks_the_best_C_by_accuracy(stream):
    X, y = stream
    grid = GridSearchCV(olearn.PAClassifier(), {"C": [1e-3, 1.0], "variant": ["pa1", "pa2"]}, cv=3).fit(X, y)
    scores = {
        (C, v): cross_val_score(olearn.PAClassifier(C=C, variant=v), X, y, cv=3).mean()
        for C in (1e-3, 1.0)
        for v in ("pa1", "pa2")
    }
    best = max(scores, key=scores.get)
    assert (grid.best_params_["C"], grid.best_params_["variant"]) == best
    assert grid.best_score_ == pytest.approx(scores[best])


def test_pipeline_and_nested_parameters(stream):
    X, y = stream
    pipe = make_pipeline(StandardScaler(), olearn.Perceptron())
    pipe.set_params(perceptron__eta=0.5, perceptron__fit_intercept=True).fit(X, y)
    assert pipe[-1].eta == 0.5 and pipe[-1].fit_intercept is True
    expected = olearn.Perceptron(eta=0.5, fit_intercept=True).fit(StandardScaler().fit_transform(X), y)
    np.testing.assert_array_equal(pipe.predict(X), expected.predict(StandardScaler().fit_transform(X)))


def test_score_is_accuracy_and_repr_shows_changed_parameters(stream):
    X, y = stream
    est = olearn.PAClassifier(variant="pa2", C=0.5).fit(X, y)
    assert est.score(X, y) == pytest.approx(np.mean(est.predict(X) == y))
    assert repr(est) == "PAClassifier(C=0.5, variant='pa2')"
    with pytest.raises(ValueError, match="invalid parameter 'Cee'.*valid parameters: C, .*budget"):
        est.set_params(Cee=1.0)
