"""olearn.metrics against scikit-learn's metrics on the same rounds; revert, Rolling, the undefined cases, bad input."""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn import metrics as skm

from olearn import metrics as M

N = 60
NONE = -1  # stands for a prediction of None when scikit-learn is asked (never a true label here)


def stream(seed, k=3, none_rate=0.1, n=N):
    """Random labels 0..k-1, predictions that agree half of the time, some None, and weights (some 0)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.5, y, rng.integers(0, k, n)).astype(object)
    p[rng.random(n) < none_rate] = None
    w = rng.uniform(0.0, 3.0, n) * (rng.random(n) > 0.1)
    return y, p, w


def fed(metric, y, p, w=None):
    for i in range(len(y)):
        metric.update(y[i], p[i], 1.0 if w is None else w[i])
    return metric


def sk_labels(p):
    return np.array([NONE if v is None else v for v in p])


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("seed", range(3))
def test_accuracy_equals_sklearn(seed):
    y, p, w = stream(seed)
    assert_allclose(fed(M.Accuracy(), y, p, w).get(), skm.accuracy_score(y, sk_labels(p), sample_weight=w),
                    rtol=1e-12)
    assert fed(M.Accuracy(), y, p).get() == skm.accuracy_score(y, sk_labels(p))


SK_PRF = {M.Precision: skm.precision_score, M.Recall: skm.recall_score, M.F1: skm.f1_score}


@pytest.mark.parametrize("cls", list(SK_PRF))
@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 3), (2, 5)])
def test_precision_recall_f1_average_equal_sklearn(cls, average, seed, k):
    y, p, w = stream(seed, k)
    # the classes of the average are those seen in y_true or in the named predictions; None names none
    labels = sorted(set(y.tolist()) | {v for v in p if v is not None})
    for weights in (None, w):
        expected = quiet(SK_PRF[cls], y, sk_labels(p), labels=labels, average=average, sample_weight=weights)
        assert_allclose(fed(cls(average=average), y, p, weights).get(), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("cls", list(SK_PRF))
@pytest.mark.parametrize("seed", range(3))
def test_precision_recall_f1_binary_equal_sklearn(cls, seed):
    y, p, w = stream(seed, k=2)
    ys, ps = np.where(y == 1, "spam", "ham"), np.array([None if v is None else ("spam" if v else "ham") for v in p])
    metric = fed(cls(pos_label="spam"), ys, ps, w)
    expected = quiet(SK_PRF[cls], ys, np.where(ps == None, "none", ps).astype(str), labels=["spam"],  # noqa: E711
                     average="micro", sample_weight=w)
    assert_allclose(metric.get(), expected, rtol=1e-12)
    # on two classes without None, scikit-learn's own binary average
    ys2, ps2 = ys, np.where(ps == None, "ham", ps).astype(str)  # noqa: E711
    expected = SK_PRF[cls](ys2, ps2, pos_label="spam", average="binary", sample_weight=w)
    assert_allclose(fed(cls(pos_label="spam"), ys2, ps2, w).get(), expected, rtol=1e-12)


def test_undefined_ratios_are_zero_as_in_sklearn():
    # no true positives for recall, no prediction of the class for precision, neither for F1
    assert M.Recall().update(0, 0).get() == quiet(skm.recall_score, [0], [0]) == 0.0
    assert M.Precision().update(1, 0).get() == quiet(skm.precision_score, [1], [0]) == 0.0
    assert M.F1().update(0, 0).get() == quiet(skm.f1_score, [0], [0]) == 0.0
    assert M.F1(average="macro").get() == 0.0
    assert math.isnan(M.Accuracy().get()) and math.isnan(M.MAE().get()) and math.isnan(M.LogLoss().get())


@pytest.mark.parametrize("seed", range(3))
def test_log_loss_equals_sklearn_clipped(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    prob = rng.random(N)
    prob[:6] = [0.0, 1.0, 0.0, 1.0, 1e-20, 1.0 - 1e-17]  # clipped to [eps, 1 - eps]
    w = rng.uniform(0.0, 2.0, N)
    assert_allclose(fed(M.LogLoss(), y, prob, w).get(), skm.log_loss(y, prob, sample_weight=w, labels=[0, 1]),
                    rtol=1e-12)
    # a dict {class: probability}, as predict_proba_one gives, is the same round
    as_dicts = [{0: 1.0 - q, 1: q} for q in prob]
    assert_allclose(fed(M.LogLoss(), y, as_dicts, w).get(), fed(M.LogLoss(), y, prob, w).get(), rtol=1e-12)
    # another positive class: the probability is that of pos_label
    labels = np.where(y == 1, "b", "a")
    assert_allclose(fed(M.LogLoss(pos_label="a"), labels, 1.0 - prob).get(), skm.log_loss(labels, prob), rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_roc_auc_equals_sklearn_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    scores = np.round(rng.standard_normal(N) + y, 1)  # many ties, within and across the classes
    w = rng.uniform(0.0, 2.0, N)
    for weights in (None, w):
        assert_allclose(fed(M.ROCAUC(), y, scores, weights).get(), skm.roc_auc_score(y, scores, sample_weight=weights),
                        rtol=1e-12)
    labels = np.where(y == 1, "no", "yes")
    assert_allclose(fed(M.ROCAUC(pos_label="yes"), labels, -scores).get(), skm.roc_auc_score(y, scores), rtol=1e-12)


def test_roc_auc_is_nan_with_one_class_as_sklearn():
    metric = fed(M.ROCAUC(), [1, 1, 1], [0.1, 0.5, 0.2])
    assert math.isnan(metric.get()) and math.isnan(quiet(skm.roc_auc_score, [1, 1, 1], [0.1, 0.5, 0.2]))


@pytest.mark.parametrize("seed", range(3))
def test_regression_metrics_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(N) * 3.0
    p = y + rng.standard_normal(N)
    w = rng.uniform(0.0, 2.0, N)
    for weights in (None, w):
        assert_allclose(fed(M.MAE(), y, p, weights).get(), skm.mean_absolute_error(y, p, sample_weight=weights),
                        rtol=1e-12)
        assert_allclose(fed(M.RMSE(), y, p, weights).get(), skm.root_mean_squared_error(y, p, sample_weight=weights),
                        rtol=1e-12)
        assert_allclose(fed(M.R2(), y, p, weights).get(), skm.r2_score(y, p, sample_weight=weights), rtol=1e-10)


def test_r2_keeps_its_digits_on_large_close_targets():
    # targets 1e9 + O(1): sum(y^2) - n mean^2 would lose all the spread (1e18 against 1e2); Welford keeps it
    rng = np.random.default_rng(7)
    y = 1e9 + rng.standard_normal(500)
    p = y + 0.3 * rng.standard_normal(500)
    assert_allclose(fed(M.R2(), y, p).get(), skm.r2_score(y, p), rtol=1e-7)


def test_r2_undefined_cases_follow_sklearn():
    assert math.isnan(M.R2().update(1.0, 1.0).get())                   # fewer than two rounds
    assert M.R2().update(2.0, 2.0).update(2.0, 2.0).get() == skm.r2_score([2, 2], [2, 2]) == 1.0
    assert M.R2().update(2.0, 1.0).update(2.0, 2.0).get() == skm.r2_score([2, 2], [1, 2]) == 0.0


def constant_target_r2(t, p, w):
    """R2 of a window whose weighted targets are one value, by scikit-learn's rule: 1.0 if all exact, else 0.0."""
    weighted = w > 0
    return 1.0 if np.array_equal(t[weighted], p[weighted]) else 0.0


def test_rolling_r2_of_a_constant_window_after_reverts_follows_sklearns_rule():
    # targets near 1e6 leave rounding in the running mean and sums when rounds leave the window; in a window whose
    # weighted targets are one value (spread 0), that rounding decided the value: -1.7e8 for 0, or 0 for 1
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(200):
        rolling, rows = M.Rolling(M.R2(), window=3), []
        for _ in range(12):
            y = rows[-1][0] if rows and rng.random() < 0.5 else 1e6 + rng.normal(0.0, 50.0)
            p = y if rng.random() < 0.5 else y + rng.normal(0.0, 1.0)
            rows.append((y, p, float(rng.integers(0, 2))))
            rolling.update(*rows[-1])
            t, q, w = (np.array(column) for column in zip(*rows[-3:]))
            if len(t) >= 2 and w.sum() > 0 and len(set(t[w > 0].tolist())) == 1:
                assert rolling.get() == constant_target_r2(t, q, w), rows[-3:]
                checked += 1
    assert checked > 300


def test_rolling_r2_window_with_one_exact_weighted_round_is_one():
    # as the streaming-metrics fuzz found: only the weighted round counts, and it is predicted exactly (the rounding
    # the earlier rounds left in the residual sum made it 0.0)
    rolling = M.Rolling(M.R2(), window=3)
    for y, p, w in [(999975.35, 999976.73, 1.0), (1000002.75, 1000002.82, 1.0), (1000010.38, 1000010.16, 0.0),
                    (999934.48, 999934.48, 1.0), (999970.81, 999970.81, 0.0), (1000094.29, 1000094.29, 0.0)]:
        rolling.update(y, p, w)
    assert rolling.get() == 1.0


def test_r2_reverted_to_a_constant_target_reads_zero_spread():
    # without a window to add afresh, a spread within the rounding reverts leave is a constant target's
    r2 = M.R2()
    for y, p in [(1000070.8, 1000071.0), (1000067.2, 1000066.7), (1000070.8, 1000072.0)]:
        r2.update(y, p)
    r2.revert(1000067.2, 1000066.7)  # was -7.1e9
    assert r2.get() == skm.r2_score([1000070.8, 1000070.8], [1000071.0, 1000072.0]) == 0.0


def all_metrics():
    """Each metric with a stream of its kind: (metric, y_true, y_pred, weights, scikit-learn's value of a slice)."""
    y, p, w = stream(11, k=3, n=40)
    rng = np.random.default_rng(11)
    yb = rng.integers(0, 2, 40)
    scores = np.round(rng.standard_normal(40) + yb, 1)
    prob = rng.random(40)
    yr = rng.standard_normal(40)
    pr = yr + rng.standard_normal(40)
    labels = [0, 1, 2]

    def prf(fn, average):
        def value(t, q, sw):
            labels = sorted(set(t.tolist()) | {v for v in q if v is not None})
            return quiet(fn, t, sk_labels(q), labels=labels, average=average, sample_weight=sw)

        return value

    return [
        (M.Accuracy(), y, p, w, lambda t, q, sw: skm.accuracy_score(t, sk_labels(q), sample_weight=sw)),
        (M.Precision(average="macro"), y, p, w, prf(skm.precision_score, "macro")),
        (M.Recall(average="micro"), y, p, w, prf(skm.recall_score, "micro")),
        (M.F1(average="macro"), y, p, w, prf(skm.f1_score, "macro")),
        (M.F1(pos_label=2), y, p, w,
         lambda t, q, sw: quiet(skm.f1_score, t, sk_labels(q), labels=[2], average="micro", sample_weight=sw)),
        (M.LogLoss(), yb, prob, w, lambda t, q, sw: skm.log_loss(t, q, sample_weight=sw, labels=[0, 1])),
        (M.ROCAUC(), yb, scores, w, lambda t, q, sw: quiet(skm.roc_auc_score, t, q, sample_weight=sw)
         if len(set(t.tolist())) == 2 else math.nan),
        (M.MAE(), yr, pr, w, lambda t, q, sw: skm.mean_absolute_error(t, q, sample_weight=sw)),
        (M.RMSE(), yr, pr, w, lambda t, q, sw: skm.root_mean_squared_error(t, q, sample_weight=sw)),
        (M.R2(), yr, pr, w, lambda t, q, sw: quiet(skm.r2_score, t, q, sample_weight=sw)),
    ], labels


METRIC_IDS = ["accuracy", "precision", "recall", "f1-macro", "f1", "logloss", "rocauc", "mae", "rmse", "r2"]


@pytest.mark.parametrize("case", range(len(METRIC_IDS)), ids=METRIC_IDS)
def test_revert_of_update_restores_the_value(case):
    metric, y, p, w, _ = all_metrics()[0][case]
    values = []
    for i in range(len(y)):
        values.append(metric.get())
        metric.update(y[i], p[i], w[i])
        metric.revert(y[i], p[i], w[i])
        assert_allclose(metric.get(), values[-1], rtol=1e-9, atol=1e-12)
        metric.update(y[i], p[i], w[i])
    for i in reversed(range(len(y))):  # take every round back: each earlier value again
        metric.revert(y[i], p[i], w[i])
        assert_allclose(metric.get(), values[i], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", range(len(METRIC_IDS)), ids=METRIC_IDS)
def test_rolling_equals_sklearn_on_the_window_at_every_step(case, weighted):
    metric, y, p, w, sk = all_metrics()[0][case]
    window = 7
    rolling = M.Rolling(metric, window)
    for i in range(len(y)):
        rolling.update(y[i], p[i], w[i] if weighted else 1.0)
        lo = max(0, i + 1 - window)
        expected = sk(y[lo: i + 1], p[lo: i + 1], w[lo: i + 1] if weighted else None)
        assert_allclose(rolling.get(), expected, rtol=1e-9, atol=1e-12, err_msg=f"round {i}")
    assert rolling.get() is not None and rolling.metric is metric


def test_names_directions_and_what_each_metric_reads():
    assert repr(M.Accuracy().update(1, 1)) == "Accuracy: 1.000000"
    assert repr(M.Rolling(M.F1(average="micro"), 5)) == "Rolling(F1(average='micro'), window=5): 0.000000"
    assert [m.consumes for m in (M.Accuracy(), M.F1(), M.MAE(), M.ROCAUC(), M.LogLoss())] == [
        "labels", "labels", "values", "scores", "probabilities"]
    assert [m.bigger_is_better for m in (M.Accuracy(), M.R2(), M.ROCAUC(), M.MAE(), M.RMSE(), M.LogLoss())] == [
        True, True, True, False, False, False]
    rolling = M.Rolling(M.MAE(), 3)
    assert rolling.consumes == "values" and rolling.bigger_is_better is False


def test_bad_input_is_refused_and_leaves_the_metric_as_it_was():
    metric = M.ROCAUC().update(1, 0.5).update(0, 0.2)
    for args, err in [((1, math.nan), "finite"), ((1, "x"), "real number"), ((None, 0.3), "None")]:
        with pytest.raises(ValueError, match=err):
            metric.update(*args)
    with pytest.raises(ValueError, match="sample_weight"):
        metric.update(1, 0.3, -1.0)
    assert metric.get() == 1.0 and metric._n == 2
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        M.LogLoss().update(1, 1.5)
    with pytest.raises(TypeError, match="unhashable"):
        M.F1(average="macro").update([1], 1)
    with pytest.raises(ValueError, match="no round to take back"):
        M.MAE().revert(1.0, 2.0)
    with pytest.raises(ValueError, match="average must be one of"):
        M.F1(average="weighted")
    with pytest.raises(ValueError, match="fresh"):
        M.Rolling(M.Accuracy().update(1, 1), 3)
    with pytest.raises(ValueError, match="window must be an integer"):
        M.Rolling(M.Accuracy(), 0)
    with pytest.raises(ValueError, match="cannot take a round back"):
        M.Rolling(M.Accuracy(), 3).update(1, 1).revert(1, 1)


def test_clone_is_fresh_with_the_same_parameters():
    metric = M.F1(average="binary", pos_label="b").update("b", "b")
    twin = metric.clone()
    assert twin.name == metric.name and twin._n == 0 and metric._n == 1


def test_olearn_metrics_loads_on_first_use():
    import subprocess
    import sys

    code = "import sys, olearn; before = 'olearn.metrics' in sys.modules; olearn.metrics.Accuracy; print(before)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
