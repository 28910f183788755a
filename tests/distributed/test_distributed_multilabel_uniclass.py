"""Parameter mixing of PAMultilabel and PAUniclass, on a local cluster of threads.

References, computed independently of the mixing code: the serial learners
(one shard for E epochs must be E serial passes, bit for bit), and plain
NumPy averages of k models each trained serially on its own shard (one
epoch of mixing k shards from a fresh model): label by label, each model's
rows laid by label name, for the multilabel learner; the centers and the
radii's lifted coordinates a = B - gap (Crammer et al. 2006, Sec. 6) for the
uniclass one.
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.multilabel import PAMultilabel
from olearn.uniclass import PAUniclass

TIMEOUT = 300  # a hang guard only


def multilabel(n, d, labels, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(len(labels), d))
    return X, [{labels[j] for j in np.flatnonzero(row > 0.3)} or {labels[int(np.argmax(row))]} for row in X @ W.T]


def test_multilabel_mixing_of_one_shard_is_the_serial_learner(client):
    X, y = multilabel(90, 4, ["news", "sport", "tech"], seed=1)
    res = parameter_mixing(PAMultilabel(variant="pa1", C=0.5, fit_intercept=True), [(X, y)], epochs=2,
                           timeout=TIMEOUT)
    serial = PAMultilabel(variant="pa1", C=0.5, fit_intercept=True).partial_fit(X, y).partial_fit(X, y)
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    assert np.array_equal(res.estimator.intercept_, serial.intercept_)


def test_multilabel_mixing_averages_independent_models_label_by_label(client):
    # the shards meet different labels and have different widths
    shards = [multilabel(40, 3, ["b", "c"], seed=2), multilabel(40, 5, ["a", "b", "c", "d"], seed=3),
              multilabel(40, 5, ["d", "a"], seed=4)]
    res = parameter_mixing(PAMultilabel(fit_intercept=True), shards, timeout=TIMEOUT)
    models = [PAMultilabel(fit_intercept=True).partial_fit(X, y) for X, y in shards]
    labels = ["a", "b", "c", "d"]
    coef, intercept = np.zeros((3, 4, 5)), np.zeros((3, 4))
    for i, m in enumerate(models):
        rows = [labels.index(label) for label in m.classes_]
        coef[i][np.ix_(rows, range(m.coef_.shape[1]))] = m.coef_
        intercept[i, rows] = m.intercept_
    got = res.estimator
    assert got.classes_.tolist() == labels
    np.testing.assert_allclose(got.coef_, coef.mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.intercept_, intercept.mean(axis=0), rtol=1e-12, atol=1e-14)
    X, _ = shards[1]
    assert got.predict(X).shape == (40, 4)


def test_multilabel_held_out_rows_are_mistakes_when_their_set_differs(client):
    X, y = multilabel(60, 4, ["x", "y", "z"], seed=5)
    res = parameter_mixing(PAMultilabel(), [(X, y)], holdout_every=4, timeout=TIMEOUT)
    learned = [i for i in range(60) if (i + 1) % 4]
    expected = 0
    for i in range(3, 60, 4):
        before = [j for j in learned if j < i]
        model = PAMultilabel().partial_fit(X[before], [y[j] for j in before])
        predicted = set(model.classes_[model.predict(X[i : i + 1])[0].astype(bool)].tolist())
        expected += predicted != y[i]
    assert res.held_out[0, 0].tolist() == [15, expected]
    with pytest.raises(ValueError, match=r"PAMultilabel takes its labels as they come.*partial_fit\(X, y, classes"):
        parameter_mixing(PAMultilabel(), [(X, y)], classes=["x", "y", "z"])


@pytest.mark.parametrize("make", [lambda: PAUniclass(variant="pa1", C=0.5, epsilon=0.3),
                                  lambda: PAUniclass(variant="pa", learn_radius=True, B=2.0)])
def test_uniclass_mixing_averages_the_lifted_centers(client, make):
    rng = np.random.default_rng(6)
    Y = rng.normal(loc=[1.0, -2.0, 0.5], size=(90, 3))
    one = parameter_mixing(make(), [(Y, None)], epochs=2, timeout=TIMEOUT).estimator
    serial = make().partial_fit(Y).partial_fit(Y)
    assert np.array_equal(one.center_, serial.center_) and one.radius_ == serial.radius_
    shards = [(Y[i::3], None) for i in range(3)]
    res = parameter_mixing(make(), shards, timeout=TIMEOUT).estimator
    models = [make().partial_fit(Ys) for Ys, _ in shards]
    np.testing.assert_allclose(res.center_, np.mean([m.center_ for m in models], axis=0), rtol=1e-12)
    if make().learn_radius:
        # radius^2 = B^2 - a^2, a the lifted coordinate: a of the mixture is the mean of the shards' a
        lifted = [np.sqrt(m.B**2 - m.radius_**2) for m in models]
        np.testing.assert_allclose(res.radius_, np.sqrt(2.0**2 - np.mean(lifted) ** 2), rtol=1e-12)
    with pytest.raises(ValueError, match="the shards stream vectors of different dimensions"):
        parameter_mixing(make(), [(Y[:30], None), (Y[30:, :2], None)], timeout=TIMEOUT)
    with pytest.raises(ValueError, match="holdout_every counts the mistakes of held-out rows, and PAUniclass"):
        parameter_mixing(make(), shards, epochs=2, holdout_every=3)
