"""olearn's estimators work inside scikit-learn's tools, which only see the conventions.

scikit-learn's own common checks run on every estimator of
``olearn.all_estimators()`` (``parametrize_with_checks``): a check may be an
expected failure only when the estimator lists it, with its reason, in
``_expected_failed_checks`` (a check whose data is not that learner's kind of
input or target), and such a listed check must really fail (it runs once more,
alone, to tell a failure from a skip).
"""

import functools
import unittest
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    check_class_weight_classifiers,
    check_dict_unchanged,
    check_estimators_pickle,
    check_methods_sample_order_invariance,
    check_methods_subset_invariance,
    estimator_checks_generator,
    parametrize_with_checks,
)

import olearn

def _expected_failures(est):
    return est._expected_failed_checks()


# olearn's estimators do not inherit from BaseEstimator (scikit-learn stays out of `import olearn`);
# scikit-learn warns about it when it lists the checks and when it runs them
_NOT_BASE = ".*does not inherit from `sklearn.base.BaseEstimator`"
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=_NOT_BASE)
    _every_check = parametrize_with_checks(
        [cls() for _, cls in olearn.all_estimators()], expected_failed_checks=_expected_failures
    )


@_every_check
def test_sklearn_common_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_NOT_BASE)
        check(estimator)


def _check_name(check):
    """The name of a check that ``estimator_checks_generator`` yields (a partial of the check function)."""
    if hasattr(check, "__wrapped__"):
        return _check_name(check.__wrapped__)
    return check.func.__name__ if isinstance(check, functools.partial) else check.__name__


def _outcome(check, estimator):
    """How ``check(estimator)`` ends: "failed", "skipped" or "passed", as ``check_estimator`` tells them."""
    try:
        check(estimator)
    except unittest.SkipTest:
        return "skipped"
    except Exception:  # noqa: BLE001 - any error of a check is its failure, as check_estimator counts it
        return "failed"
    return "passed"


@pytest.mark.parametrize("name, cls", olearn.all_estimators(), ids=[n for n, _ in olearn.all_estimators()])
def test_expected_failures_are_listed_with_reasons_and_really_fail(name, cls):
    # the checks not listed are test_sklearn_common_checks' (which fails on any of them failing); the listed
    # ones run here: each must fail on at least one of its instances
    est = cls()
    expected = _expected_failures(est)
    assert all(isinstance(reason, str) and len(reason) > 40 for reason in expected.values())
    status = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for instance, check in estimator_checks_generator(est, expected_failed_checks=expected):
            if _check_name(check) in expected:
                status.setdefault(_check_name(check), set()).add(_outcome(check, instance))
    stale = sorted(check for check in expected if "failed" not in status.get(check, set()))
    assert not stale, f"{name} lists {stale} as expected failures, yet they pass or do not run: remove them"




@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_pa1_weights_are_copies_in_place_which_the_equivalence_check_does_not_keep(sparse):
    # the premise of the reason PAClassifier lists for the sample-weight equivalence checks: on the
    # check's rows and integer weights (0 included), one online pass in order with the weights equals the
    # pass over the rows repeated in place; the check compares with another order, and fit shuffles
    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)
    y = np.where(rng.randint(0, 3, size=15) > 0, 1, -1)
    weights = rng.randint(0, 5, size=15)
    repeated = X.repeat(weights, axis=0)
    convert = sp.csr_array if sparse else np.asarray
    weighted = olearn.PAClassifier(C=0.05, fit_intercept=True).partial_fit(convert(X), y, sample_weight=weights)
    copies = olearn.PAClassifier(C=0.05, fit_intercept=True).partial_fit(convert(repeated), y.repeat(weights))
    np.testing.assert_allclose(weighted.decision_function(X), copies.decision_function(X), rtol=1e-12, atol=1e-12)
    assert "check_sample_weight_equivalence_on_dense_data" in weighted._expected_failed_checks()

# the instances on which scikit-learn's class-weight check must pass: the defaults fail it for want of an
# intercept (the reason each lists); OnlineSVM's default ball is too small for class 0's weight of 1000, and
# PACostSensitive's prediction-based update does not move on rightly predicted rows
_WEIGHED = {"OnlineSVM": {"radius": 1e4}, "PACostSensitive": {"update": "max-loss"}}
_CLASS_WEIGHTED = [(name, cls) for name, cls in olearn.all_estimators()
                   if "class_weight" in cls._get_param_names() and name != "CW"]


@pytest.mark.parametrize("name, cls", _CLASS_WEIGHTED, ids=[name for name, _ in _CLASS_WEIGHTED])
def test_class_weights_pass_sklearns_check_with_an_intercept(name, cls):
    est = cls(fit_intercept=True, **_WEIGHED.get(name, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_class_weight_classifiers(name, est)


@pytest.mark.parametrize(
    "est",
    [olearn.CW(fit_intercept=True), olearn.OnlineSVM(), olearn.PACostSensitive(fit_intercept=True)],
    ids=["CW", "OnlineSVM", "PACostSensitive"],
)
def test_class_weight_check_fails_where_listed_with_an_intercept(est):
    assert "check_class_weight_classifiers" in est._expected_failed_checks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AssertionError):
            check_class_weight_classifiers(type(est).__name__, est)

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
    # seeded: fit's passes are shuffled, and the two searches must see the same fits
    grid = GridSearchCV(olearn.PAClassifier(random_state=0), {"C": [1e-3, 1.0], "variant": ["pa1", "pa2"]}, cv=3).fit(X, y)
    scores = {
        (C, v): cross_val_score(olearn.PAClassifier(C=C, variant=v, random_state=0), X, y, cv=3).mean()
        for C in (1e-3, 1.0)
        for v in ("pa1", "pa2")
    }
    best = max(scores, key=scores.get)
    assert (grid.best_params_["C"], grid.best_params_["variant"]) == best
    assert grid.best_score_ == pytest.approx(scores[best])


def test_pipeline_and_nested_parameters(stream):
    X, y = stream
    pipe = make_pipeline(StandardScaler(), olearn.Perceptron(random_state=0))
    pipe.set_params(perceptron__eta=0.5, perceptron__fit_intercept=True).fit(X, y)
    assert pipe[-1].eta == 0.5 and pipe[-1].fit_intercept is True
    expected = olearn.Perceptron(eta=0.5, fit_intercept=True, random_state=0).fit(StandardScaler().fit_transform(X), y)
    np.testing.assert_array_equal(pipe.predict(X), expected.predict(StandardScaler().fit_transform(X)))


def test_score_is_accuracy_and_repr_shows_changed_parameters(stream):
    X, y = stream
    est = olearn.PAClassifier(variant="pa2", C=0.5).fit(X, y)
    assert est.score(X, y) == pytest.approx(np.mean(est.predict(X) == y))
    assert repr(est) == "PAClassifier(C=0.5, variant='pa2')"
    with pytest.raises(ValueError, match="invalid parameter 'Cee'.*valid parameters: C, .*budget"):
        est.set_params(Cee=1.0)


# every learner with averaging, averaged: what it keeps between predictions (its whole averaged weights) is no
# attribute, so scikit-learn's checks of the prediction methods see a learner that prediction leaves unchanged
# (a multilabel learner's or a tagger's targets are not the checks' kind: see their expected failures)
_AVERAGED = [(name, cls) for name, cls in olearn.all_estimators()
             if "average" in cls._get_param_names()
             and "check_dict_unchanged" not in cls(average=True)._expected_failed_checks()
             and name != "PASequence"]
_PREDICTION_CHECKS = [check_dict_unchanged, check_methods_subset_invariance, check_methods_sample_order_invariance,
                      check_estimators_pickle]


@pytest.mark.parametrize("check", _PREDICTION_CHECKS, ids=[check.__name__ for check in _PREDICTION_CHECKS])
@pytest.mark.parametrize("name, cls", _AVERAGED, ids=[name for name, _ in _AVERAGED])
def test_averaged_learners_pass_sklearns_prediction_checks(name, cls, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(name, cls(average=True))
