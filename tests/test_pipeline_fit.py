"""``Pipeline.fit``, ``score`` and ``predict_proba``: what a scikit-learn user calls first.

References: the passes built by hand from ``partial_fit`` of fresh pipelines in the documented orders, NumPy's
column statistics, the accuracy counted by hand and scikit-learn's ``r2_score``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import r2_score

from olearn import OGDClassifier, PAClassifier, PARegressor
from olearn.exceptions import ConvergenceWarning
from olearn.preprocessing import MaxAbsScaler, OneHotEncoder, StandardScaler


@pytest.fixture
def unscaled():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 3)) * [1.0, 100.0, 1e4] + [0.0, 50.0, 0.0]
    y = np.where(X[:, 0] + (X[:, 1] - 50) / 100 - X[:, 2] / 1e4 > 0, 1, -1)
    return X, y


def test_one_pass_in_order_is_one_partial_fit_of_a_fresh_pipeline(unscaled):
    X, y = unscaled
    pipe = StandardScaler() | PAClassifier(shuffle=False, max_iter=1)
    pipe.fit(X[:50], y[:50])  # learned, then forgotten by the next fit
    pipe.fit(X, y)
    by_hand = (StandardScaler() | PAClassifier()).partial_fit(X, y)
    np.testing.assert_array_equal(pipe[-1].coef_, by_hand[-1].coef_)
    np.testing.assert_allclose(pipe[0].mean_, X.mean(axis=0), rtol=1e-12)
    assert pipe[-1].n_iter_ == 1


def test_shuffled_passes_are_partial_fits_in_the_seeded_orders(unscaled):
    X, y = unscaled
    pipe = MaxAbsScaler() | PAClassifier(max_iter=3, tol=None, random_state=11)
    pipe.fit(X, y)
    by_hand = MaxAbsScaler() | PAClassifier()
    rng = np.random.default_rng(11)
    for _ in range(3):
        order = rng.permutation(len(y))
        by_hand.partial_fit(X[order], y[order])
    np.testing.assert_array_equal(pipe[-1].coef_, by_hand[-1].coef_)
    np.testing.assert_array_equal(pipe[0].max_abs_, np.abs(X).max(axis=0))
    assert pipe[-1].n_iter_ == 3 and pipe[0].n_seen_ == 3 * len(y)


def test_weights_travel_with_their_rows_and_balanced_classes_are_those_of_y(unscaled):
    X, y = unscaled
    weight = np.linspace(0.5, 2.0, len(y))
    pipe = StandardScaler() | PAClassifier(max_iter=2, tol=None, random_state=3, class_weight="balanced")
    pipe.fit(X, y, sample_weight=weight)
    counts = {label: np.sum(y == label) for label in (-1, 1)}
    balanced = np.array([len(y) / (2 * counts[label]) for label in y])  # scikit-learn's n / (k * count)
    by_hand = StandardScaler() | PAClassifier()
    rng = np.random.default_rng(3)
    for _ in range(2):
        order = rng.permutation(len(y))
        by_hand.partial_fit(X[order], y[order], sample_weight=(weight * balanced)[order])
    np.testing.assert_allclose(pipe[-1].coef_, by_hand[-1].coef_, rtol=1e-12)


def test_passes_stop_by_the_learners_rule_or_warn(unscaled):
    X, y = unscaled
    pipe = StandardScaler() | PAClassifier(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pipe.fit(X, y)
    assert 1 < pipe[-1].n_iter_ < 1000
    # the loss of the second and third passes still falls (by more than tol=0): the passes run out
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        (StandardScaler() | PAClassifier(max_iter=3, tol=0.0, n_iter_no_change=2, random_state=0)).fit(X, y)


def test_a_refused_fit_leaves_the_pipeline_as_it_was(unscaled):
    X, y = unscaled
    pipe = (StandardScaler() | PAClassifier(random_state=0)).fit(X, y)
    before, mean = pipe.decision_function(X), pipe[0].mean_.copy()
    with pytest.raises(ValueError):
        pipe.fit(X, np.arange(len(y)))  # many classes for a binary learner
    np.testing.assert_array_equal(pipe.decision_function(X), before)
    np.testing.assert_array_equal(pipe[0].mean_, mean)


def test_score_is_the_learners_metric(unscaled):
    X, y = unscaled
    pipe = (StandardScaler() | PAClassifier(random_state=0)).fit(X[:80], y[:80])
    assert pipe.score(X[80:], y[80:]) == np.mean(pipe.predict(X[80:]) == y[80:])
    target = X @ [1.0, 0.01, 1e-4]
    regressor = (StandardScaler() | PARegressor(fit_intercept=True, random_state=0)).fit(X[:80], target[:80])
    assert regressor.score(X[80:], target[80:]) == pytest.approx(r2_score(target[80:], regressor.predict(X[80:])),
                                                                  rel=1e-12)


def test_predict_proba_only_where_the_learner_has_it(unscaled):
    X, y = unscaled
    assert not hasattr(StandardScaler() | PAClassifier(), "predict_proba")
    pipe = (StandardScaler() | OGDClassifier(loss="logistic", random_state=0)).fit(X, y)
    proba = pipe.predict_proba(X[:5])
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-pipe.decision_function(X[:5]))), rtol=1e-12)
    assert not hasattr(StandardScaler(), "fit") and not hasattr(StandardScaler() | MaxAbsScaler(), "fit")


def test_a_dataframe_with_text_columns_through_a_one_hot_pipeline():
    rng = np.random.default_rng(2)
    n = 400
    df = pd.DataFrame({"age": rng.normal(40, 10, n), "city": rng.choice(["paris", "lyon", "nice"], n),
                       "income": rng.normal(5e4, 1e4, n)})
    y = np.where((df["age"] - 40) / 10 + 1.5 * (df["city"] == "paris") - (df["income"] - 5e4) / 1e4 - 0.5 > 0, 1, -1)
    pipe = OneHotEncoder() | StandardScaler() | PAClassifier(random_state=0)
    pipe.fit(df, y)
    assert {"age", "income", "city=paris", "city=lyon", "city=nice"} == set(pipe.feature_map_.vocabulary())
    assert pipe.score(df, y) > 0.9
    # a raw learner on the same table stays far behind
    assert (OneHotEncoder() | PAClassifier(random_state=0)).fit(df, y).score(df, y) < 0.8
