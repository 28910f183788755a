"""``calibration="platt"`` on every binary margin classifier: the second-order, quasi-additive and dual learners
and OnlineSVM learn the same online Platt map as PAClassifier (olearn._calibration), from their own scores."""

import json

import numpy as np
import pytest

import olearn
from olearn.exceptions import ModelFormatError
from olearn.metrics import LogLoss, ROCAUC

FAMILIES = {
    "AROW": lambda **kw: olearn.AROW(**kw),
    "AROW-diag": lambda **kw: olearn.AROW(covariance="diag", **kw),
    "NAROW": lambda **kw: olearn.NAROW(**kw),
    "CW": lambda **kw: olearn.CW(**kw),
    "AdaGrad": lambda **kw: olearn.AdaGrad(**kw),
    "SOP": lambda **kw: olearn.SecondOrderPerceptron(**kw),
    "Fig1AROW": lambda **kw: olearn.Fig1AROW(**kw),
    "PNorm": lambda **kw: olearn.PNorm(p=3.0, **kw),
    "Winnow": lambda **kw: olearn.Winnow(**kw),
    "DualAscent": lambda **kw: olearn.DualAscent(update="aggressive", **kw),
    "OnlineSVM": lambda **kw: olearn.OnlineSVM(**kw),
}


def _stream(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X @ [1.0, -2.0, 0.5, 0.0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _platt_by_hand(scores, y):
    """The module's online Newton step on the log loss, transcribed with NumPy: from the prior (a, b) = (1, 0)
    of precision 1, for each round H += p(1-p) z z', theta -= H^-1 (p - y) z with z = (score, 1)."""
    theta, H = np.array([1.0, 0.0]), np.eye(2)
    for s, label in zip(scores, y):
        z = np.array([s, 1.0])
        p = 1.0 / (1.0 + np.exp(-(theta @ z)))
        H = H + p * (1.0 - p) * np.outer(z, z)
        theta = theta - np.linalg.solve(H, (p - (label == 1)) * z)
    return theta


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_calibration_is_platts_map_fitted_on_the_scores_before_each_update(name):
    X, y = _stream()
    make = FAMILIES[name]
    # the uncalibrated learner's own scores before each update: the calibration does not change the learner
    scores = olearn.run(make(), X, y).scores
    a, b = _platt_by_hand(scores, y)
    probe = np.array([[0.3, -0.2, 1.0, 2.0], [-1.0, 0.5, 0.0, 0.1]])
    batch = make(calibration="platt").partial_fit(X, y)
    stream = make(calibration="platt")
    for row, label in zip(X, y):
        stream.learn_one(dict(enumerate(row.tolist())), label)
    plain = make().partial_fit(X, y)
    np.testing.assert_array_equal(batch.decision_function(probe), plain.decision_function(probe))
    expected = 1.0 / (1.0 + np.exp(-(a * plain.decision_function(probe) + b)))
    for learner in (batch, stream):
        np.testing.assert_allclose(learner.predict_proba(probe)[:, 1], expected, rtol=1e-9)
        np.testing.assert_allclose(learner.predict_log_proba(probe)[:, 1], np.log(expected), rtol=1e-9)
        assert learner.predict_proba_one(dict(enumerate(probe[0].tolist())))[1] == pytest.approx(expected[0],
                                                                                                   rel=1e-9)
    assert not hasattr(make(), "predict_proba")


@pytest.mark.parametrize("name", ["AROW", "PNorm", "OnlineSVM"])
def test_not_with_average(name):
    clf = FAMILIES[name](calibration="platt", average=True)
    with pytest.raises(ValueError, match="not available with average"):
        clf.partial_fit(*_stream(5))
    assert not hasattr(clf, "classes_")


@pytest.mark.parametrize("name", ["AROW", "CW", "Winnow", "DualAscent", "OnlineSVM"])
def test_saved_with_the_model_and_checked_at_load(tmp_path, name):
    X, y = _stream()
    clf = FAMILIES[name](calibration="platt").partial_fit(X, y)
    path = clf.save(tmp_path / "model.npz")
    loaded = olearn.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    with np.load(path) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    del arrays["calibration"]
    np.savez(tmp_path / "damaged.npz", __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match="calibration"):
        olearn.load(tmp_path / "damaged.npz")


@pytest.mark.parametrize("name", ["AROW", "SOP", "PNorm", "DualAscent", "OnlineSVM"])
def test_a_file_saved_before_the_hyperparameter_existed_loads_without_calibration(tmp_path, name):
    # such a file records every hyperparameter of its time (all_params) but calibration
    X, y = _stream()
    clf = FAMILIES[name]().partial_fit(X, y)
    path = clf.save(tmp_path / "model.npz")
    with np.load(path) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    assert meta["all_params"] is True
    del meta["params"]["calibration"]
    np.savez(tmp_path / "older.npz", __meta__=np.array(json.dumps(meta)), **arrays)
    loaded = olearn.load(tmp_path / "older.npz")
    assert loaded.calibration is None and not hasattr(loaded, "predict_proba")
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))


def test_a_pa_file_lacking_calibration_is_still_refused(tmp_path):
    # PAClassifier's files have recorded calibration since all_params began: its absence is damage
    path = olearn.PAClassifier().partial_fit(*_stream()).save(tmp_path / "model.npz")
    with np.load(path) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    del meta["params"]["calibration"]
    np.savez(tmp_path / "damaged.npz", __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match=r"lacks the PAClassifier hyperparameters \['calibration'\]"):
        olearn.load(tmp_path / "damaged.npz")


def test_arow_probabilities_match_a_batch_calibration():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import log_loss, roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    X, y = StandardScaler().fit_transform(X)[order], y[order]
    result = olearn.run(olearn.AROW(r=10.0, covariance="diag", calibration="platt"), X, y,
                        metrics=[LogLoss(), ROCAUC()])
    online_loss, online_auc = result.history[-1]
    reference = CalibratedClassifierCV(olearn.AROW(r=10.0, covariance="diag"), method="sigmoid", cv=5)
    held_out = cross_val_predict(reference, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0),
                                 method="predict_proba")[:, 1]
    assert abs(online_loss - log_loss(y, held_out)) < 0.05
    assert abs(online_auc - roc_auc_score(y, held_out)) < 0.02
