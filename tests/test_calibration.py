"""Online Platt calibration of the margin classifiers (``calibration="platt"``, olearn._calibration)."""

import json

import numpy as np
import pytest

import olearn
from olearn.exceptions import ModelFormatError
from olearn.metrics import ROCAUC, LogLoss


def _sigmoid(m):
    return 1.0 / (1.0 + np.exp(-m))


def _newton_step(theta, H, s, y01):
    """One step of the module docstring, transcribed with NumPy: H += p(1-p) z z', theta -= H^-1 (p - y) z."""
    z = np.array([s, 1.0])
    p = _sigmoid(theta @ z)
    H = H + p * (1.0 - p) * np.outer(z, z)
    return theta - np.linalg.solve(H, (p - y01) * z), H


def test_two_rows_by_hand():
    # PA on x1 = (2, 0), y = +1: score 0, tau = 1/4, w = (1/2, 0); x2 = (1, 0), y = -1: score 1/2, loss 3/2,
    # tau = 3/2, w = (-1, 0)
    theta, H = np.array([1.0, 0.0]), np.eye(2)            # the prior: sigma(s), precision 1
    theta, H = _newton_step(theta, H, 0.0, 1.0)          # after row 1: b = 0.5 / 1.25 = 0.4
    assert theta == pytest.approx([1.0, 0.4])
    theta, H = _newton_step(theta, H, 0.5, 0.0)
    expected = _sigmoid(theta @ [-3.0, 1.0])            # x = (3, 0) scores -3
    X, y = np.array([[2.0, 0.0], [1.0, 0.0]]), np.array([1, -1])
    batch = olearn.PAClassifier(variant="pa", calibration="platt").partial_fit(X, y)
    stream = olearn.PAClassifier(variant="pa", calibration="platt")
    stream.learn_one({0: 2.0, 1: 0.0}, 1)
    stream.learn_one({0: 1.0, 1: 0.0}, -1)
    for learner in (batch, stream):
        assert learner.decision_function([[3.0, 0.0]]) == pytest.approx([-3.0])
        assert learner.predict_proba([[3.0, 0.0]])[0] == pytest.approx([1.0 - expected, expected], rel=1e-12)
        assert learner.predict_log_proba([[3.0, 0.0]])[0, 1] == pytest.approx(np.log(expected), rel=1e-12)
        assert learner.predict_proba_one({0: 3.0})[1] == pytest.approx(expected, rel=1e-12)


def test_a_batch_stopped_by_an_overflow_calibrates_on_the_rows_kept():
    # the two rows of test_two_rows_by_hand, then a row whose squared norm overflows: the learner keeps rows 1-2,
    # and so does its calibration (the NumPy transcription of their two steps)
    theta, H = np.array([1.0, 0.0]), np.eye(2)
    theta, H = _newton_step(theta, H, 0.0, 1.0)
    theta, H = _newton_step(theta, H, 0.5, 0.0)
    expected = _sigmoid(theta @ [-3.0, 1.0])
    X, y = np.array([[2.0, 0.0], [1.0, 0.0], [1e200, 1e200]]), np.array([1, -1, 1])
    for kernel in (None, "linear"):
        learner = olearn.PAClassifier(variant="pa", calibration="platt", kernel=kernel)
        with pytest.raises(olearn.exceptions.PartialUpdateError) as stopped:
            learner.partial_fit(X, y)
        assert stopped.value.rows_kept == 2
        assert learner.predict_proba([[3.0, 0.0]])[0, 1] == pytest.approx(expected, rel=1e-12), kernel


def test_opt_in():
    assert not hasattr(olearn.PAClassifier(), "predict_proba")
    assert not hasattr(olearn.Perceptron(), "predict_proba_one")
    with pytest.raises(AttributeError, match="calibration='platt'"):
        olearn.PAClassifier().predict_proba
    assert hasattr(olearn.PAClassifier(calibration="platt"), "predict_proba")
    assert hasattr(olearn.Perceptron(calibration="platt"), "predict_log_proba")
    with pytest.raises(ValueError, match="calibration"):
        olearn.PAClassifier(calibration="isotonic").partial_fit([[1.0]], [1])


def test_not_with_average():
    clf = olearn.PAClassifier(calibration="platt", average=True)
    with pytest.raises(ValueError, match="average"):
        clf.partial_fit([[1.0, 0.0]], [1])
    assert not hasattr(clf, "classes_")


@pytest.fixture(scope="module")
def breast_cancer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    return StandardScaler().fit_transform(X)[order], y[order]


def test_progressive_probabilities_match_a_batch_calibration(breast_cancer):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.metrics import log_loss, roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    X, y = breast_cancer
    result = olearn.run(olearn.PAClassifier(C=0.01, calibration="platt"), X, y, metrics=[LogLoss(), ROCAUC()])
    online_loss, online_auc = result.history[-1]
    # the reference: Platt's sigmoid fitted in batch on held-out folds of the same learner
    reference = CalibratedClassifierCV(olearn.PAClassifier(C=0.01), method="sigmoid", cv=5)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    held_out = cross_val_predict(reference, X, y, cv=folds, method="predict_proba")[:, 1]
    assert abs(online_loss - log_loss(y, held_out)) < 0.05
    assert abs(online_auc - roc_auc_score(y, held_out)) < 0.02
    # the raw score through the logistic link is far worse calibrated
    assert online_loss < 0.7 * log_loss(y, _sigmoid(result.scores))
    # each row's probability was given before its label was seen: the stream of predict_proba_one agrees
    # with run's, row by row, once it knows both classes (before, it gives the one class known probability 1)
    per_round = olearn.run(olearn.PAClassifier(C=0.01, calibration="platt"), X, y, metrics=[LogLoss()],
                           checkpoints=1).history[:, 0]
    run_losses = np.diff(per_round * np.arange(1, y.size + 1), prepend=0.0)
    stream, stream_losses = olearn.PAClassifier(C=0.01, calibration="platt"), []
    for row, label in zip(X, y):
        x = dict(enumerate(row.tolist()))
        proba = stream.predict_proba_one(x)
        stream_losses.append(-np.log(proba[label]) if proba is not None and len(proba) == 2 else np.nan)
        stream.learn_one(x, label)
    both = ~np.isnan(stream_losses)
    assert both.sum() > y.size - 10
    np.testing.assert_allclose(np.array(stream_losses)[both], run_losses[both], rtol=1e-7, atol=1e-9)


def test_a_second_class_on_the_other_side_keeps_the_probabilities():
    X = np.array([[1.0, 0.5], [-1.0, 0.2], [0.8, -0.3], [-0.5, -1.0], [0.3, 0.9]])
    y = np.array(["b", "a", "b", "a", "b"])
    declared = olearn.Perceptron(calibration="platt").partial_fit(X, y, classes=["a", "b"])
    discovered = olearn.Perceptron(calibration="platt")
    for row, label in zip(X, y):
        discovered.learn_one(row, label)
    probe = np.array([[0.4, 0.1], [-2.0, 0.3]])
    np.testing.assert_allclose(discovered.predict_proba(probe), declared.predict_proba(probe), rtol=1e-12)


def test_saved_with_the_model_and_checked_at_load(tmp_path, breast_cancer):
    X, y = breast_cancer
    clf = olearn.PAClassifier(C=0.01, calibration="platt").partial_fit(X[:300], y[:300])
    path = tmp_path / "model.npz"
    clf.save(path)
    loaded = olearn.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X[300:]), clf.predict_proba(X[300:]))
    loaded.partial_fit(X[300:], y[300:])
    clf.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(loaded.predict_proba(X[:10]), clf.predict_proba(X[:10]))

    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))

    def refused(changed_arrays, changed_params, match):
        bad = tmp_path / "bad.npz"
        with open(bad, "wb") as fh:
            np.savez(fh, __meta__=np.array(json.dumps({**meta, "params": {**meta["params"], **changed_params}})),
                     **{**arrays, **changed_arrays})
        with pytest.raises(ModelFormatError, match=match):
            olearn.load(bad)

    not_definite = arrays["calibration"].copy()
    not_definite[2:] = [1.0, 2.0, 1.0]
    refused({"calibration": not_definite}, {}, "positive definite")
    refused({"calibration": np.append(arrays["calibration"], 0.0)}, {}, "calibration")
    # the calibration of a model saved without it, or missing from a model saved with it
    refused({}, {"calibration": None}, "calibration")
    del arrays["calibration"]
    refused({}, {}, "calibration")


def test_river_metrics_read_the_calibrated_probabilities(breast_cancer):
    pytest.importorskip("river")
    from river import evaluate, metrics, stream

    from olearn.river import to_river

    X, y = breast_cancer
    # both classes declared, as run knows them from its batch's labels
    model = to_river(olearn.PAClassifier(C=0.01, calibration="platt"), classes=[0, 1])
    river_loss, river_auc = metrics.LogLoss(), metrics.ROCAUC()
    evaluate.progressive_val_score(stream.iter_array(X, y), model, river_loss + river_auc)
    online_loss, online_auc = olearn.run(olearn.PAClassifier(C=0.01, calibration="platt"), X, y,
                                         metrics=[LogLoss(), ROCAUC()]).history[-1]
    assert river_loss.get() == pytest.approx(online_loss, rel=1e-9)
    assert river_auc.get() == pytest.approx(online_auc, abs=0.01)   # River's ROCAUC: 10 thresholds by default
    with pytest.raises(NotImplementedError, match='calibration="platt"'):
        to_river(olearn.PAClassifier()).predict_proba_one({0: 1.0})


def test_run_records_each_rounds_probabilities():
    X = np.array([[1.0, 0.5], [-1.0, 0.2], [0.8, -0.3], [-0.5, -1.0], [0.3, 0.9]])
    y = np.array([1, -1, 1, -1, -1])
    result = olearn.run(olearn.PAClassifier(calibration="platt"), X, y)
    stream = olearn.PAClassifier(calibration="platt").partial_fit(X[:0], y[:0], classes=[-1, 1])
    for row, label, proba in zip(X, y, result.probabilities):
        assert proba.tolist() == pytest.approx(list(stream.predict_proba([row])[0]), rel=1e-12)
        stream.partial_fit([row], [label])
    assert olearn.run(olearn.PAClassifier(), X, y).probabilities.size == 0


def test_a_pipeline_runs_with_its_learners_calibration(breast_cancer):
    from olearn.compose import Pipeline
    from olearn.preprocessing import StandardScaler

    X, y = breast_cancer
    X = X[:200] * 10.0 + 3.0   # unscaled again: the pipeline scales with the statistics of past rows

    def pipeline():
        return Pipeline(StandardScaler(), olearn.PAClassifier(C=0.01, calibration="platt"))

    result = olearn.run(pipeline(), X, y[:200], metrics=[LogLoss()])
    stream, streamed = pipeline(), np.full((200, 2), np.nan)
    for i, (row, label) in enumerate(zip(X, y)):
        x = dict(enumerate(row.tolist()))
        if i and len(stream.classes_) == 2:
            proba = stream.predict_proba_one(x)
            streamed[i] = proba[0], proba[1]
        stream.learn_one(x, label)
    both = ~np.isnan(streamed[:, 0])
    assert both.sum() > 190
    np.testing.assert_allclose(result.probabilities[both], streamed[both], rtol=1e-9)
    assert result.history[-1, 0] == pytest.approx(-np.mean(np.log(result.probabilities[np.arange(200), y[:200]])))


def test_dask_modes_refuse_a_calibration():
    from olearn.distributed._models import check_supported

    for mode in ("parameter mixing", "delayed updates"):
        with pytest.raises(ValueError, match="does not mix calibrations"):
            check_supported(olearn.PAClassifier(calibration="platt"), mode)
        assert check_supported(olearn.PAClassifier(), mode) == "linear"


def test_a_score_too_large_for_the_step_leaves_the_calibration_as_it_was():
    from olearn import _calibration

    # a = 1e-160 maps s = 1e158 to log-odds 0.01, where p (1 - p) = 1/4: H_ss would be 1e316, not a float
    state = np.array([1e-160, 0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(_calibration.updated(state, [1e158], [-1.0]), state)
    assert not np.array_equal(_calibration.updated(state, [1e150], [-1.0]), state)


def test_a_kernel_learner_calibrates_and_saves_alike(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    ran = olearn.PAClassifier(kernel="rbf", gamma=0.5, calibration="platt")
    result = olearn.run(ran, X, y)
    assert result.support_sizes.shape == (200,) and result.probabilities.shape == (200, 2)
    fitted = olearn.PAClassifier(kernel="rbf", gamma=0.5, calibration="platt").partial_fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X[:20]), ran.predict_proba(X[:20]))
    fitted.save(tmp_path / "kernel.npz")
    np.testing.assert_array_equal(olearn.load(tmp_path / "kernel.npz").predict_proba(X[:20]), fitted.predict_proba(X[:20]))
