"""PA-I and PA-II against independent implementations: scikit-learn and River.

scikit-learn (1.8+): ``SGDClassifier(loss="hinge", penalty=None,
learning_rate="pa1"|"pa2", eta0=C)`` is Crammer et al.'s PA-I/PA-II
(``PassiveAggressiveClassifier`` is a deprecated wrapper of it). One in-order
pass is ``partial_fit`` with ``shuffle=False``; ``fit_intercept=False`` because
scikit-learn's intercept is not an augmented feature (it does not count in
||x||^2); ``average=False`` so that coef_ is the last iterate.

River: ``linear_model.PAClassifier(C, mode=0|1|2, learn_intercept=False)`` via
``learn_one`` over dict rows with bool labels (True is the positive class).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import olearn

RTOL = 1e-10



def _sgd_pa(variant, C):
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(
        loss="hinge",
        penalty=None,
        alpha=0.0,
        learning_rate=variant,  # "pa1" or "pa2"
        eta0=C,
        fit_intercept=False,
        shuffle=False,
        average=False,
        class_weight=None,
    )


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("C", [0.01, 0.3, 5.0])
@pytest.mark.parametrize("variant", ["pa1", "pa2"])
def test_sklearn_sgd_pa(variant, C, layout, make_stream):
    X, y = make_stream(150, 9, density=0.4, seed=31)
    X[5] = 0.0  # a zero row: both libraries leave w unchanged
    data = sp.csr_matrix(X) if layout == "csr" else X
    labels = np.where(y > 0, "pos", "neg")
    ref = _sgd_pa(variant, C).partial_fit(data, labels, classes=["neg", "pos"])
    est = olearn.PAClassifier(variant=variant, C=C).partial_fit(data, labels)
    assert list(ref.classes_) == list(est.classes_)
    assert_allclose(est.coef_, ref.coef_, rtol=RTOL, atol=1e-13)
    assert_allclose(est.intercept_, [0.0])
    assert_allclose(est.decision_function(data), ref.decision_function(data), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("variant", ["pa1", "pa2"])
def test_sklearn_deprecated_passive_aggressive_classifier(variant, make_stream):
    linear_model = pytest.importorskip("sklearn.linear_model")
    if not hasattr(linear_model, "PassiveAggressiveClassifier"):
        pytest.skip("PassiveAggressiveClassifier was removed from this scikit-learn")
    X, y = make_stream(100, 6, seed=32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = linear_model.PassiveAggressiveClassifier(
            C=0.4, loss="hinge" if variant == "pa1" else "squared_hinge", fit_intercept=False,
            shuffle=False, average=False,
        ).partial_fit(X, y, classes=[-1, 1])
    est = olearn.PAClassifier(variant=variant, C=0.4).partial_fit(X, y)
    assert_allclose(est.coef_, ref.coef_, rtol=RTOL, atol=1e-13)


@pytest.mark.parametrize("C", [0.05, 1.0, 8.0])
@pytest.mark.parametrize("mode,variant", [(0, "pa"), (1, "pa1"), (2, "pa2")])
def test_river_pa_classifier(mode, variant, C, make_stream):
    linear_model = pytest.importorskip("river.linear_model")
    X, y = make_stream(150, 8, density=0.5, seed=33)
    X[7] = 0.0
    ref = linear_model.PAClassifier(C=C, mode=mode, learn_intercept=False)
    est = olearn.PAClassifier(variant=variant, C=C)
    for x, label in zip(X, y > 0):
        row = {int(j): float(x[j]) for j in np.flatnonzero(x)}
        ref.learn_one(row, bool(label))
        est.learn_one(row, bool(label))
    assert list(est.classes_) == [False, True]
    ref_w = np.zeros(X.shape[1])
    for j, v in ref.weights.items():
        ref_w[j] = v
    assert ref.intercept == 0.0
    assert_allclose(est.coef_.ravel(), ref_w, rtol=RTOL, atol=1e-13)
    assert_allclose(est.intercept_, [0.0])
    # and the predictions agree (River: True iff the score is > 0)
    for x in X[:20]:
        row = {int(j): float(x[j]) for j in np.flatnonzero(x)}
        assert est.predict_one(row) == ref.predict_one(row)
