"""Fuzzing the online transformers with streams of dicts, good and bad.

Random streams mix names and integer keys, absent features, values of every
scale (zeros, tiny, huge enough to overflow the statistics), categories, None,
and bad values (NaN, infinities, lists, complex numbers). Invariants: an example
is either refused with ValueError or TypeError and the transformer is left
exactly as it was, or accepted; after the stream, the scaler's statistics are
NumPy's mean and variance of the accepted examples as a dense matrix (absent
features as 0), the MaxAbs scaler's are the largest absolute values, and a
batch ``partial_fit`` of the accepted examples learns the same statistics.
"""

import math
import pickle

import numpy as np

from olearn.preprocessing import MaxAbsScaler, StandardScaler

KEYS = ["a", "b", ("t", 1), 0, 3, "city"]
BAD = [float("nan"), float("inf"), -float("inf"), [1.0], 1j, object()]


def _value(rng):
    draw = rng.random()
    if draw < 0.05:
        return BAD[int(rng.integers(len(BAD)))]
    if draw < 0.10:
        return None
    if draw < 0.15:
        return str(rng.choice(["Paris", "Rome"]))
    if draw < 0.20:
        return float(rng.choice([1e200, -1e250, 1e-300, 0.0]))
    return float(rng.normal(rng.uniform(-5, 5), rng.uniform(0.1, 100.0)))


def _example(rng):
    keys = rng.permutation(len(KEYS))[: int(rng.integers(0, len(KEYS) + 1))]
    return {KEYS[k]: _value(rng) for k in keys}


def _dense(rows, fm):
    """The accepted rows as a dense matrix over the transformer's columns (categories one-hot, None absent)."""
    columns = {}
    for name, column in fm.vocabulary().items():
        columns[name] = column
    width = max([*columns.values(), *[k for row in rows for k in row if isinstance(k, int)]], default=-1) + 1
    X = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        for key, value in row.items():
            if value is None:
                continue
            if isinstance(value, str):
                X[i, columns[f"{key}={value}"]] += 1.0
            elif isinstance(key, int):
                X[i, key] += value
            else:
                X[i, columns[key]] += value
    return X


def campaign_scalers(n_examples, seed):
    rng = np.random.default_rng(seed)
    tried = 0
    for _ in range(n_examples):
        scaler, peak = StandardScaler(), MaxAbsScaler()
        accepted = {id(scaler): [], id(peak): []}
        for _ in range(int(rng.integers(1, 25))):
            x = _example(rng)
            tried += 1
            for transformer in (scaler, peak):
                before = pickle.dumps(transformer)
                try:
                    transformer.learn_one(x)
                except (ValueError, TypeError):
                    assert pickle.dumps(transformer) == before, f"a refused {x!r} changed the transformer"
                    continue
                accepted[id(transformer)].append(x)
                out = transformer.transform_one(x)
                assert all(math.isfinite(v) for v in out.values()), (x, out)
        for transformer, check in ((scaler, "moments"), (peak, "peak")):
            rows = accepted[id(transformer)]
            if not rows:
                assert not hasattr(transformer, "n_features_in_")
                continue
            X = _dense(rows, transformer.feature_map_)[:, : transformer.n_features_in_]
            assert transformer.n_seen_ == len(rows)
            batch = type(transformer)().partial_fit(rows)
            if check == "moments":
                with np.errstate(over="ignore", invalid="ignore"):
                    mean, var = X.mean(axis=0), X.var(axis=0)
                finite = np.isfinite(var)
                np.testing.assert_allclose(scaler.mean_[finite], mean[finite], rtol=1e-7, atol=1e-9)
                np.testing.assert_allclose(scaler.var_[finite], var[finite], rtol=1e-6, atol=1e-9)
                np.testing.assert_allclose(batch.var_, scaler.var_, rtol=1e-12)
            else:
                np.testing.assert_array_equal(peak.max_abs_, np.abs(X).max(axis=0))
                np.testing.assert_array_equal(batch.max_abs_, peak.max_abs_)
    return tried


def test_campaign_scalers(campaign):
    assert campaign("fuzz.test_transformer_streams:campaign_scalers", 60) >= 60


def _pipeline_state(pipe):
    state = {}
    for owner, obj in [("pipeline", pipe)] + list(pipe.steps):
        for key, value in obj.__getstate__().items():
            if key not in ("steps", "_plan_cache", "_config_cache", "_last_one"):
                state[owner, key] = pickle.dumps(value)
    return state


def campaign_pipelines(n_examples, seed):
    """Pipelines on the same streams, labels good and bad, one at a time and in batches.

    Invariants: a refused example or batch leaves the pipeline exactly as it
    was; a pipeline that learned the accepted examples one by one predicts as
    one that learned them in one batch and as one that ran them.
    """
    from olearn import PAClassifier, run

    rng = np.random.default_rng(seed)
    tried = 0
    for _ in range(n_examples):
        pipe = MaxAbsScaler() | StandardScaler(with_mean=bool(rng.random() < 0.5)) | PAClassifier()
        accepted, labels = [], []
        for _ in range(int(rng.integers(1, 20))):
            x = _example(rng)
            label = str(rng.choice(["a", "b", "c"] if rng.random() < 0.1 else ["a", "b"]))
            tried += 1
            before = _pipeline_state(pipe) if hasattr(pipe, "feature_map_") else None
            predict_first = rng.random() < 0.5
            try:
                if predict_first:
                    pipe.predict_one(x)
                pipe.learn_one(x, label)
            except (ValueError, TypeError):
                if before is None:
                    assert not hasattr(pipe, "feature_map_"), f"a refused first {x!r} started the pipeline"
                else:
                    assert _pipeline_state(pipe) == before, f"a refused {x!r}, {label!r} changed the pipeline"
                continue
            accepted.append(x)
            labels.append(label)
        if not accepted:
            continue
        batch = MaxAbsScaler() | StandardScaler(with_mean=pipe[1].with_mean) | PAClassifier()
        batch.partial_fit(accepted, labels)
        ran = MaxAbsScaler() | StandardScaler(with_mean=pipe[1].with_mean) | PAClassifier()
        run(ran, accepted, labels)
        for other in (batch, ran):
            np.testing.assert_allclose(other[-1].coef_, pipe[-1].coef_, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(other[1].var_, pipe[1].var_, rtol=1e-12)
            assert other.feature_map_ == pipe.feature_map_
    return tried


def test_campaign_pipelines(campaign):
    assert campaign("fuzz.test_transformer_streams:campaign_pipelines", 40) >= 40
