"""Fuzzing ``olearn.load`` with mutated model files of every learner family.

Each input is a saved model (``tests/saved_models.py``) with one structure-aware
mutation: a metadata value replaced by one of another type or range, a key
dropped or added, the metadata's JSON cut short or replaced by another JSON value, an array dropped, added, reshaped, retyped or given a NaN,
infinity or extreme value, or bytes of the zip flipped, inserted or cut off;
or no mutation at all. The invariant: ``olearn.load`` raises ModelFormatError,
or the model it returns predicts and keeps learning without any error other
than the documented refusals (an overflow's FloatingPointError, a ValueError
naming the estimator, such as a label the mutated model does not know); after no mutation it behaves exactly
as the original.
"""

import io
import json
import os
import tempfile
import warnings

import numpy as np

import olearn
from olearn.exceptions import FeatureLimitError, ModelFormatError
from saved_models import CASES

_VALUES = [0, 1, -1, -5, 2, 3, 100_000, 2**63, -(2**70), 0.5, -0.0, 1e308, -1e-300, float("inf"),
           float("nan"), True, False, None, "", "pa1", "rbf", "full", "diag", "last-k", [], [1, 2], [[0, 1], [1, 0]],
           {}, {"a": 1}]
_DTYPES = ["float32", "float16", "int64", "int32", "uint64", "int8", "bool", "<U3", ">f8", ">i8", "complex128", "S2"]
_SPECIAL = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e308, -1e308, 1e-310, 2.0**53, 7.0]


def _pick(rng, items):
    return items[int(rng.integers(len(items)))]


def _archive_bytes(meta, arrays, meta_text=None):
    buffer = io.BytesIO()
    text = json.dumps(meta) if meta_text is None else meta_text
    np.savez(buffer, __meta__=np.array(text), **arrays)
    return buffer.getvalue()


def _mutate_meta(rng, meta):
    """A copy of ``meta`` with one value replaced, one key dropped or one key added, anywhere in it."""
    meta = json.loads(json.dumps(meta))
    containers = [meta, meta["params"], meta["state"]] + [v for v in meta["state"].values() if isinstance(v, dict)]
    target = _pick(rng, containers)
    keys = list(target)
    action = int(rng.integers(3)) if keys else 2
    if action == 0:
        target[_pick(rng, keys)] = _pick(rng, _VALUES)
    elif action == 1:
        del target[_pick(rng, keys)]
    else:
        target[_pick(rng, ["extra", "n_features_in", "budget", "kernel", "rng", "pending", "k", "C"])] = _pick(rng, _VALUES)
    return meta


def _mutate_array(rng, array):
    """``array`` reshaped, retyped, cut, grown or with one special value."""
    action = int(rng.integers(6))
    if action == 0 and array.size:
        out = array.astype(np.float64) if array.dtype.kind in "biuf" else array.copy()
        if out.dtype.kind == "f":
            out.flat[int(rng.integers(out.size))] = _pick(rng, _SPECIAL)
            return out.astype(array.dtype) if array.dtype.kind == "f" else out
        return out
    if action == 1:
        try:
            return array.astype(_pick(rng, _DTYPES))
        except (ValueError, TypeError, OverflowError):
            return array
    if action == 2:
        return array.reshape(-1) if array.ndim != 1 else array[None, :]
    if action == 3:
        return array[: int(rng.integers(array.shape[0] + 1))] if array.ndim else array
    if action == 4:
        return np.concatenate([array, array[:1]]) if array.ndim and array.size else np.zeros(2)
    if array.dtype.kind in "iu" and array.size:
        out = array.copy()
        info = np.iinfo(array.dtype)
        values = [v for v in (info.min, -1, 0, 1, 2**31 - 1, info.max) if info.min <= v <= info.max]
        out.flat[int(rng.integers(out.size))] = _pick(rng, values)
        return out
    return array.T.copy() if array.ndim == 2 else array


def _mutate_bytes(rng, content):
    content = bytearray(content)
    action = int(rng.integers(3))
    if action == 0:
        for _ in range(int(rng.integers(1, 4))):
            content[int(rng.integers(len(content)))] ^= int(rng.integers(1, 256))
        return bytes(content)
    if action == 1:
        return bytes(content[: int(rng.integers(len(content)))])
    at = int(rng.integers(len(content)))
    return bytes(content[:at] + bytes(rng.integers(0, 256, int(rng.integers(1, 9)), dtype=np.uint8)) + content[at:])


def _mutated(rng, meta, arrays, content):
    """(kind of mutation, bytes of the mutated file)."""
    kind = _pick(rng, ["none", "meta", "meta", "text", "array", "array", "array", "drop", "add", "swap", "bytes", "bytes"])
    if kind == "none":
        return kind, content
    if kind == "meta":
        return kind, _archive_bytes(_mutate_meta(rng, meta), arrays)
    if kind == "bytes":
        return kind, _mutate_bytes(rng, content)
    if kind == "text":
        text = json.dumps(meta)
        cut = text[: int(rng.integers(len(text)))]
        return kind, _archive_bytes(meta, arrays, meta_text=_pick(rng, [cut, "[1, 2]", "null", '"olearn-model"', "NaN"]))
    arrays = dict(arrays)
    names = sorted(arrays)
    if kind == "array":
        name = _pick(rng, names)
        arrays[name] = _mutate_array(rng, arrays[name])
    elif kind == "drop":
        del arrays[_pick(rng, names)]
    elif kind == "add":
        arrays[_pick(rng, ["extra", "weights", "covariance", "covariance_root", "classes"])] = np.ones(int(rng.integers(4)))
    else:
        a, b = _pick(rng, names), _pick(rng, names)
        arrays[a], arrays[b] = arrays[b], arrays[a]
    return kind, _archive_bytes(meta, arrays)


def _documented(err, model):
    """True for the refusals a working model may give on new data: an overflow, or a ValueError of
    olearn's that names the estimator or the hyperparameter the data breaks (a label a mutated
    model does not know, a feature past its n_features or its memory limit)."""
    if isinstance(err, (FloatingPointError, FeatureLimitError)):
        return True
    message = str(err)
    return type(err) is ValueError and (message.startswith(type(model).__name__) or "n_features" in message)


def campaign_model_files(n_examples, seed):
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(seed)
    folder = tempfile.mkdtemp()
    originals = {}
    for name, (make, use) in CASES.items():
        path = os.path.join(folder, f"{name}.npz")
        make().save(path)
        with open(path, "rb") as fh:
            content = fh.read()
        with np.load(path) as archive:
            arrays = {key: archive[key] for key in archive.files}
        meta = json.loads(str(arrays.pop("__meta__")))
        originals[name] = (meta, arrays, content, use(make()))
    outcomes = {}
    path = os.path.join(folder, "mutated.npz")
    for i in range(n_examples):
        name = _pick(rng, sorted(CASES))
        meta, arrays, content, expected = originals[name]
        kind, mutated = _mutated(rng, meta, arrays, content)
        with open(path, "wb") as fh:
            fh.write(mutated)
        try:
            model = olearn.load(path)
        except ModelFormatError as err:
            assert path in str(err), f"input {i} ({name}, {kind}): the error does not name the file: {err}"
            outcomes["refused"] = outcomes.get("refused", 0) + 1
            continue
        except Exception as err:
            raise AssertionError(f"input {i} ({name}, {kind}): load raised {err!r}") from err
        try:
            got = CASES[name][1](model)
        except Exception as err:
            if not _documented(err, model):
                raise AssertionError(f"input {i} ({name}, {kind}): the loaded model failed: {err!r}") from err
            outcomes["documented refusal in use"] = outcomes.get("documented refusal in use", 0) + 1
            continue
        if kind == "none":
            assert np.array_equal(got, expected, equal_nan=True), f"input {i} ({name}): a no-op changed the model"
        outcomes[f"loaded ({kind})"] = outcomes.get(f"loaded ({kind})", 0) + 1
    print("outcomes:", json.dumps(outcomes, sort_keys=True))
    return n_examples


def test_mutated_model_files_are_refused_or_work(campaign):
    assert campaign("fuzz.test_model_files:campaign_model_files", 400, seed=1) >= 400
