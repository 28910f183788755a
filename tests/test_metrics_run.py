"""olearn.run(..., metrics=..., checkpoints=...): the metrics equal scikit-learn's on the run's own rounds, at
every checkpoint; they do not change learning; multiclass predictions never hold None."""

import math
import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn import metrics as skm

import olearn
from olearn import metrics as M
from olearn.multiclass import PAMulticlass


def binary_stream(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = np.where(X @ [1.0, -2.0, 0.5, 0.0] + 0.8 * rng.standard_normal(n) > 0, "spam", "ham")
    return X, y


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def shown(res, y):
    """The rounds as the metrics see them: a mistake whose shown prediction is the true class named no class."""
    mistakes = np.diff(np.concatenate([[0], res.cumulative_mistakes])).astype(bool)
    pred = res.predictions.astype(object)
    pred[mistakes & (res.predictions == y)] = None
    return np.array(["none" if p is None else p for p in pred])


def test_binary_metrics_equal_sklearn_at_every_checkpoint():
    X, y = binary_stream()
    metrics = [M.Accuracy(), M.Precision(pos_label="spam"), M.Recall(average="macro"), M.F1(average="micro"),
               M.ROCAUC(pos_label="spam"), M.ROCAUC(pos_label="ham"), M.Rolling(M.F1(pos_label="ham"), 50),
               M.Rolling(M.ROCAUC(pos_label="spam"), 40)]
    res = olearn.run(olearn.PAClassifier(), X, y, metrics=metrics, checkpoints=37)
    assert res.checkpoints.tolist() == [37, 74, 111, 148, 185, 222, 259, 296, 300]
    assert res.history.shape == (9, len(metrics)) and res.metrics == tuple(metrics)
    p = shown(res, y)
    assert (p == "none").sum() >= 1  # the first round's zero score: the comparison below can tell
    classes = ["ham", "spam"]
    for i, end in enumerate(res.checkpoints):
        t, q, s = y[:end], p[:end], res.scores[:end]
        w50, w40 = slice(max(0, end - 50), end), slice(max(0, end - 40), end)
        expected = [
            skm.accuracy_score(t, q),
            quiet(skm.precision_score, t, q, labels=["spam"], average="micro"),
            quiet(skm.recall_score, t, q, labels=sorted(set(t) | (set(q) - {"none"})), average="macro"),
            quiet(skm.f1_score, t, q, labels=classes, average="micro"),
            quiet(skm.roc_auc_score, t == "spam", s),
            quiet(skm.roc_auc_score, t == "ham", -s),
            quiet(skm.f1_score, y[w50], p[w50], labels=["ham"], average="micro"),
            quiet(skm.roc_auc_score, y[w40] == "spam", res.scores[w40]) if len(set(y[w40])) == 2 else math.nan,
        ]
        assert_allclose(res.history[i], expected, rtol=1e-12, err_msg=f"checkpoint {end}")
    assert_allclose([m.get() for m in metrics], res.history[-1], rtol=1e-12)
    assert res.metric_values["Accuracy"] == metrics[0].get()


def test_accuracy_is_one_minus_the_mistake_rate():
    X, y = binary_stream(seed=3)
    X[10:20] = 0.0  # zero rows: zero scores, mistakes whatever the tie-break shows
    res = olearn.run(olearn.Perceptron(), X, y, metrics=[acc := M.Accuracy()])
    ties = np.diff(np.concatenate([[0], res.cumulative_mistakes])).astype(bool) & (res.predictions == y)
    assert ties.sum() > 1
    assert math.isclose(acc.get(), 1.0 - res.mistake_rate, rel_tol=1e-15)
    assert acc.get() < skm.accuracy_score(y, res.predictions)  # which counts those ties as right


def test_log_loss_reads_the_logistic_probabilities():
    X, y = binary_stream(seed=1)
    metrics = [M.LogLoss(pos_label="spam"), M.LogLoss(pos_label="ham"), M.Rolling(M.LogLoss(pos_label="spam"), 25)]
    res = olearn.run(olearn.OGDClassifier(loss="logistic", eta=0.5), X, y, metrics=metrics, checkpoints=[1, 100, 300])
    prob = 1.0 / (1.0 + np.exp(-res.scores))  # sigma(w.x), the probability of classes_[1] = "spam"
    for i, end in enumerate([1, 100, 300]):
        expected = skm.log_loss(y[:end], prob[:end], labels=["ham", "spam"])
        assert_allclose(res.history[i, :2], expected, rtol=1e-12)
        lo = max(0, end - 25)
        assert_allclose(res.history[i, 2], skm.log_loss(y[lo:end], prob[lo:end], labels=["ham", "spam"]), rtol=1e-12)


def test_regression_metrics_equal_sklearn_at_every_checkpoint():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 3))
    y = 100.0 + X @ [1.0, 2.0, -1.0] + 0.1 * rng.standard_normal(200)
    metrics = [M.MAE(), M.RMSE(), M.R2(), M.Rolling(M.R2(), 30), M.Rolling(M.MAE(), 30)]
    res = olearn.run(olearn.PARegressor(fit_intercept=True), X, y, metrics=metrics, checkpoints=16)
    for i, end in enumerate(res.checkpoints):
        t, q = y[:end], res.predictions[:end]
        lo = max(0, end - 30)
        expected = [skm.mean_absolute_error(t, q), skm.root_mean_squared_error(t, q), skm.r2_score(t, q),
                    skm.r2_score(y[lo:end], res.predictions[lo:end]),
                    skm.mean_absolute_error(y[lo:end], res.predictions[lo:end])]
        assert_allclose(res.history[i], expected, rtol=1e-10)


@pytest.mark.parametrize("labels", [np.array(["cat", "dog", "eel"]), np.array([3, 7, 11])])
def test_multiclass_predictions_hold_no_none_and_metrics_equal_sklearn(labels):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((150, 5))
    y = labels[np.argmax(X @ rng.standard_normal((5, 3)), axis=1)]
    metrics = [M.Accuracy(), M.F1(average="macro"), M.Precision(average="micro"), M.Recall(pos_label=labels[1])]
    res = olearn.run(est := PAMulticlass(), X, y, metrics=metrics, checkpoints=50)
    assert res.predictions.dtype == labels.dtype and None not in res.predictions.tolist()
    # the first round knew no class: it shows classes_[0] and is a mistake
    assert res.predictions[0] == est.classes_[0] and res.cumulative_mistakes[0] == 1
    p = shown(res, y)
    sentinel = "none" if labels.dtype.kind == "U" else "-1"
    p = np.where(p == "none", sentinel, p).astype(labels.dtype)
    for i, end in enumerate(res.checkpoints):
        t, q = y[:end], p[:end]
        named = sorted(set(t.tolist()) | set(q.tolist()) - {labels.dtype.type(sentinel)})
        expected = [skm.accuracy_score(t, q), quiet(skm.f1_score, t, q, labels=named, average="macro"),
                    quiet(skm.precision_score, t, q, labels=named, average="micro"),
                    quiet(skm.recall_score, t, q, labels=[labels[1]], average="micro")]
        assert_allclose(res.history[i], expected, rtol=1e-12)
    assert math.isclose(metrics[0].get(), 1.0 - res.mistake_rate, rel_tol=1e-15)


@pytest.mark.parametrize("make", [lambda: olearn.OGDClassifier(loss="logistic"), lambda: PAMulticlass(),
                                  lambda: olearn.PARegressor(), lambda: olearn.AROW()])
def test_metrics_do_not_change_learning_and_work_without_record(make):
    X, y = binary_stream(seed=4)
    if isinstance(make(), olearn.PARegressor):
        y = (y == "spam") + 0.1 * X[:, 0]
    kinds = {"binary": [M.Accuracy(), M.ROCAUC(pos_label="spam"), M.F1(average="macro")],
             "multiclass": [M.Accuracy(), M.F1(average="macro")], "regression": [M.MAE(), M.R2()]}
    plain, with_metrics, unrecorded = make(), make(), make()
    first = olearn.run(plain, X, y)
    recorded = olearn.run(with_metrics, X, y, metrics=kinds[plain._task], checkpoints=64)
    fresh = [m.clone() for m in kinds[plain._task]]
    blind = olearn.run(unrecorded, X, y, record=False, metrics=fresh, checkpoints=64)
    for other in (with_metrics, unrecorded):
        assert pickle.dumps(other) == pickle.dumps(plain)
    for res in (recorded, blind):
        assert (res.n_rounds, res.n_mistakes, res.n_updates, res.cumulative_loss) == (
            first.n_rounds, first.n_mistakes, first.n_updates, first.cumulative_loss)
    assert blind.predictions.size == blind.scores.size == blind.losses.size == blind.cumulative_mistakes.size == 0
    assert np.array_equal(blind.history, recorded.history, equal_nan=True)
    assert np.array_equal(recorded.predictions, first.predictions) and np.array_equal(recorded.scores, first.scores)


def test_metrics_carry_on_across_runs():
    X, y = binary_stream(seed=6)
    whole = [M.ROCAUC(pos_label="spam"), M.F1(average="macro"), M.Rolling(M.Accuracy(), 70)]
    halves = [m.clone() for m in whole]
    full = olearn.run(olearn.PAClassifier(), X, y, metrics=whole)
    est = olearn.PAClassifier()
    olearn.run(est, X[:130], y[:130], metrics=halves)
    second = olearn.run(est, X[130:], y[130:], metrics=halves, checkpoints=[10, 170])
    assert_allclose([m.get() for m in halves], full.history[-1], rtol=1e-12)
    # after 10 rounds of the second run, the window holds 60 rounds of the first
    p = shown(full, y)
    assert_allclose(second.history[0, 2], skm.accuracy_score(y[70:140], p[70:140]), rtol=1e-12)
    assert_allclose(second.history[0, 0], skm.roc_auc_score(y[:140] == "spam", full.scores[:140]), rtol=1e-12)
    assert_allclose(full.history[-1, 0], skm.roc_auc_score(y == "spam", full.scores), rtol=1e-12)
    # and a metric updated by hand after the run goes on from where the run left it
    rolling = halves[2]
    rolling.update("spam", "spam")
    assert_allclose(rolling.get(), skm.accuracy_score(list(y[-69:]) + ["spam"],
                                                      list(shown(full, y)[-69:]) + ["spam"]), rtol=1e-12)


def test_a_metric_the_learner_cannot_feed_is_refused_before_learning():
    X, y = binary_stream(n=20)
    cases = [
        (olearn.PAClassifier(), [M.LogLoss(pos_label="spam")], "reads probabilities.*calibration='platt'"),
        (olearn.OGDClassifier(), [M.LogLoss(pos_label="spam")], "reads probabilities.*only loss='logistic'"),
        (olearn.PAClassifier(), [M.MAE()], "reads the values of a regressor"),
        (PAMulticlass(), [M.ROCAUC(pos_label="spam")], "scores of a binary classifier"),
        (olearn.PARegressor(), [M.Accuracy()], "labels of a classifier"),
        (olearn.PAClassifier(), [M.ROCAUC()], "pos_label 1 is not one of the classes"),
        (olearn.PAClassifier(), [M.F1()], "pos_label 1 is not one of the classes"),
        (olearn.PAClassifier(), M.Accuracy(), "a list of olearn.metrics"),
        (olearn.PAClassifier(), [skm.accuracy_score], "olearn.metrics metrics"),
    ]
    acc = M.Accuracy()
    cases.append((olearn.PAClassifier(), [acc, acc], "given twice"))
    for est, metrics, message in cases:
        target = (y == "spam").astype(float) if isinstance(est, olearn.PARegressor) else y
        with pytest.raises((ValueError, TypeError), match=message):
            olearn.run(est, X, target, metrics=metrics)
        assert not est._is_started()
    for checkpoints, message in [(0, "int >= 1"), ([5, 3], "increasing"), ([5, 21], "from 1 to the 20"),
                                 ([1.5], "ints"), (True, "ints")]:
        est = olearn.PAClassifier()
        with pytest.raises(ValueError, match=message):
            olearn.run(est, X, y, metrics=[M.Accuracy()], checkpoints=checkpoints)
        assert not est._is_started()
    assert acc._n == 0


def test_default_checkpoint_is_the_last_round_and_an_empty_run_reads_nothing():
    X, y = binary_stream(n=10)
    res = olearn.run(olearn.PAClassifier(), X, y, metrics=[M.Accuracy()])
    assert res.checkpoints.tolist() == [10] and res.history.shape == (1, 1)
    res = olearn.run(olearn.PAClassifier(), X[:0], y[:0], metrics=[acc := M.Accuracy()], checkpoints=5)
    assert res.checkpoints.size == 0 and res.history.shape == (0, 1) and math.isnan(acc.get())
    assert olearn.run(olearn.PAClassifier(), X, y).history.shape == (1, 0)


@pytest.mark.parametrize("name", [name for name, cls in olearn.all_estimators()
                                  if cls._task in ("binary", "multiclass", "regression")])
def test_every_learner_feeds_its_metrics(name):
    cls = dict(olearn.all_estimators())[name]
    X, y = binary_stream(n=120, seed=8)
    if cls._task == "regression":
        target = np.where(y == "spam", 1.0, -1.0) + 0.1 * X[:, 0]
        res = olearn.run(cls(), X, target, metrics=[mae := M.MAE()])
        assert_allclose(mae.get(), skm.mean_absolute_error(target, res.predictions), rtol=1e-12)
        return
    metrics = [acc := M.Accuracy(), M.F1(average="macro")]
    if cls._task == "binary":
        metrics.append(auc := M.ROCAUC(pos_label="spam"))
    res = olearn.run(cls(), X, y, metrics=metrics, checkpoints=40)
    assert math.isclose(acc.get(), 1.0 - res.mistake_rate, rel_tol=1e-15)
    assert_allclose(res.history[:, 0], [skm.accuracy_score(y[:e], shown(res, y)[:e]) for e in (40, 80, 120)])
    if cls._task == "binary":
        assert_allclose(auc.get(), skm.roc_auc_score(y == "spam", res.scores), rtol=1e-12)


def test_checkpoints_in_groups_give_the_values_of_one_group(monkeypatch):
    rng = np.random.default_rng(9)
    X = rng.standard_normal((400, 5))
    y = np.array(list("abcd"))[np.argmax(X @ rng.standard_normal((5, 4)), axis=1)]

    def history():
        metrics = [M.F1(average="macro"), M.Precision(average="micro"), M.Recall(pos_label="c")]
        res = olearn.run(PAMulticlass(), X, y, metrics=metrics, checkpoints=1)
        return res.history, [m._counts for m in metrics]

    whole = history()
    from olearn.metrics import _classification

    monkeypatch.setattr(_classification, "TABLE_CELLS", 9)  # groups of 2 checkpoints of the 4 classes
    grouped = history()
    assert np.array_equal(grouped[0], whole[0]) and grouped[1] == whole[1]
    p = shown(olearn.run(PAMulticlass(), X, y), y)
    assert_allclose(whole[0][-1, 0], quiet(skm.f1_score, y, p, labels=list("abcd"), average="macro"), rtol=1e-12)
