"""One example at a time through the one-call path of the linear learners.

Once the settings are built, both classes known and the example within the
learned width, ``predict_one``, ``learn_one`` and ``predict_learn_one`` are
one compiled call each. Here they must give exactly what the batch paths
(separate kernels: the CSR pass and the CSR scores) give, bit for bit, and
leave the model untouched when they refuse an example.
"""

import pickle

import numpy as np
import pytest

import olearn

LEARNERS = {
    "PAClassifier": lambda **kw: olearn.PAClassifier(variant="pa1", C=0.7, **kw),
    "PA2": lambda **kw: olearn.PAClassifier(variant="pa2", C=0.7, fit_intercept=True, **kw),
    "Perceptron": lambda **kw: olearn.Perceptron(**kw),
    "OGDClassifier": lambda **kw: olearn.OGDClassifier(loss="logistic", **kw),
    "OnlineSVM": lambda **kw: olearn.OnlineSVM(radius=1.0, **kw),
}


def _stream(n=120, d=8, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    return X, y


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


@pytest.mark.parametrize("average", [False, True, 40])
@pytest.mark.parametrize("name", list(LEARNERS))
def test_one_call_path_equals_the_batch_paths(name, average):
    X, y = _stream()
    one = LEARNERS[name](average=average)
    batch = LEARNERS[name](average=average)
    for i, (x, label) in enumerate(zip(X, y)):
        row = {j: float(v) for j, v in enumerate(x) if v != 0.0}
        if i >= 2:
            assert one.predict_one(row) == batch.predict(x.reshape(1, -1))[0]
            # the prediction before learning, from the current weights (the average's own only for predict)
            expected = olearn.run(pickled_copy(batch), x.reshape(1, -1), [label]).predictions[0]
        if i % 2:
            prediction = one.predict_learn_one(row, label)
            if i >= 2:
                assert prediction == expected
        else:
            one.learn_one(row, label)
        batch.partial_fit(x.reshape(1, -1), [label])
    np.testing.assert_array_equal(_weights(one), _weights(batch))
    np.testing.assert_array_equal(one.decision_function(X), batch.decision_function(X))


def pickled_copy(est):
    return pickle.loads(pickle.dumps(est))


@pytest.mark.parametrize("average", [False, True])
def test_regressor_one_call_path_equals_the_batch_paths(average):
    X, _ = _stream()
    targets = X @ np.linspace(-1.0, 1.0, X.shape[1])
    one = olearn.PARegressor(variant="pa1", C=0.5, epsilon=0.05, average=average)
    batch = olearn.PARegressor(variant="pa1", C=0.5, epsilon=0.05, average=average)
    for i, (x, target) in enumerate(zip(X, targets)):
        row = dict(enumerate(x.tolist()))
        assert one.predict_one(row) == (batch.predict(x.reshape(1, -1))[0] if i else 0.0)
        expected = olearn.run(pickled_copy(batch), x.reshape(1, -1), [target]).predictions[0] if i else 0.0
        assert one.predict_learn_one(row, float(target)) == expected
        batch.partial_fit(x.reshape(1, -1), [target])
    np.testing.assert_array_equal(one.coef_, batch.coef_)


@pytest.mark.parametrize("name", ["PAClassifier", "OnlineSVM"])
def test_an_overflow_is_refused_and_the_model_left_as_it_was(name):
    est = LEARNERS[name]()
    est.learn_one({0: 1.0, 1: 0.5}, "yes").learn_one({0: -1.0, 1: 0.5}, "no")
    before = _weights(est)
    for call in (est.learn_one, est.predict_learn_one):
        with pytest.raises(FloatingPointError, match="overflowed"):
            call({0: 1e200, 1: 1e200}, "yes")  # ||x||^2 is not finite
        np.testing.assert_array_equal(_weights(est), before)
    est.learn_one({0: 1.0, 1: 1.0}, "no")
    assert not np.array_equal(_weights(est), before)


def test_a_third_class_or_a_bad_weight_is_refused_and_the_model_left_as_it_was():
    est = olearn.PAClassifier().learn_one({0: 1.0}, "yes").learn_one({0: -1.0}, "no")
    before = _weights(est)
    with pytest.raises(ValueError, match="third class"):
        est.learn_one({0: 3.0}, "maybe")
    with pytest.raises(ValueError, match="sample_weight"):
        est.learn_one({0: 3.0}, "no", sample_weight=-1.0)
    np.testing.assert_array_equal(_weights(est), before)
    assert est.classes_.tolist() == ["no", "yes"]


def test_features_never_learned_count_zero():
    # PA-I from w = 0 on x = (2, 0, 1), y = +1: tau = min(C, 1 / 5) = 0.2, w = (0.4, 0, 0.2)
    est = olearn.PAClassifier(C=1.0).learn_one({0: 2.0, 2: 1.0}, 1).learn_one({1: 0.0}, 0)
    np.testing.assert_allclose(est.coef_.ravel(), [0.4, 0.0, 0.2])
    # index 7 has no weight: w.x = 0.4 * -1 + 0.2 * 1 = -0.2, whatever its value
    assert est.predict_one({0: -1.0, 2: 1.0, 7: 1e300}) == 0
    assert est.predict_one({0: 1.0, 2: 1.0, 7: -1e300}) == 1
