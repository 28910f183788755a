"""scikit-learn's metadata routing passes sample_weight to olearn's estimators when they ask for it.

The reference is the estimator fitted directly with the same weights: a
meta-estimator that routed the weights must give the same model, one that
dropped them would not (the weights below are far from uniform).
"""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.metadata_routing import UNCHANGED

import olearn
from olearn._estimator import _UNCHANGED


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=60) > 0).astype(int)
    weights = rng.choice([0.0, 1.0, 5.0], size=60)
    return X, y, weights


def test_the_unchanged_value_is_scikit_learns():
    assert _UNCHANGED == UNCHANGED


def test_a_pipeline_routes_the_weights_to_a_learner_that_asks_for_them(routing):
    X, y, weights = _data()
    learner = olearn.PAClassifier(random_state=0).set_fit_request(sample_weight=True)
    pipe = make_pipeline(StandardScaler().set_fit_request(sample_weight=False), learner)
    pipe.fit(X, y, sample_weight=weights)
    direct = olearn.PAClassifier(random_state=0).fit(StandardScaler().fit_transform(X), y, sample_weight=weights)
    unweighted = olearn.PAClassifier(random_state=0).fit(StandardScaler().fit_transform(X), y)
    np.testing.assert_array_equal(pipe[-1].coef_, direct.coef_)
    assert not np.array_equal(direct.coef_, unweighted.coef_)


def test_weights_given_to_a_learner_that_did_not_say_are_refused_not_dropped(routing):
    X, y, weights = _data()
    with pytest.raises(sklearn.exceptions.UnsetMetadataPassedError, match="PAClassifier.set_fit_request"):
        GridSearchCV(olearn.PAClassifier(), {"C": [0.1, 1.0]}, cv=2).fit(X, y, sample_weight=weights)


def test_a_request_survives_clone_and_pickling_and_reaches_score(routing):
    X, y, weights = _data()
    learner = olearn.PAClassifier(random_state=0).set_fit_request(sample_weight=True)
    learner.set_score_request(sample_weight="w")
    for copy in (clone(learner), pickle.loads(pickle.dumps(learner))):
        routing_of = copy.get_metadata_routing()
        assert routing_of.fit.requests == {"sample_weight": True}
        assert routing_of.score.requests == {"sample_weight": "w"}
    result = cross_validate(learner, X, y, cv=2, params={"sample_weight": weights, "w": weights})
    assert np.all(np.isfinite(result["test_score"]))
    learner.set_fit_request(sample_weight=UNCHANGED)
    assert learner.get_metadata_routing().fit.requests == {"sample_weight": True}


def test_set_request_exists_only_where_the_method_takes_weights_and_routing_is_on():
    assert not hasattr(olearn.PASequence(), "set_score_request")
    assert hasattr(olearn.PASequence(), "set_fit_request")
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        olearn.PAClassifier().set_fit_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True), pytest.raises(TypeError):
        olearn.PAClassifier().set_fit_request(classes=True)
