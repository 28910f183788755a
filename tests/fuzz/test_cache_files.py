"""Fuzzing load_cache with structure-aware damage to cache files.

Random caches (shapes, dtypes, with and without importance weights) are
saved, then damaged where it matters: bits flipped and bytes overwritten in
the preamble, the header, each array and the padding; the file truncated,
extended or a range copied over another. Invariant: ``load_cache`` raises
DataFormatError or returns exactly the saved arrays (values and dtypes) --
a change of any stored value must be caught by a checksum.

Forged damage recomputes every checksum after editing an array's values or a
header field, as a deliberate (or buggy) writer would: then the structure
checks alone stand between the file and the kernels. Invariant: DataFormatError,
or a matrix that an independent NumPy check finds valid and whose arrays are
the file's bytes as its header describes them. Either way the loaded matrix is
used (a product, a dense copy) to show that nothing reads out of bounds.

The file layout is read here from its documentation, independently of olearn.
"""

import json
import os
import struct
import tempfile
import zlib

import numpy as np
import scipy.sparse as sp

from olearn.data import load_cache, save_cache
from olearn.exceptions import DataFormatError

PREAMBLE = struct.Struct("<8sIII")  # magic, version, header length, header CRC-32
NAMES = ("indptr", "indices", "data", "y", "importance")


def read_layout(raw):
    """``(header length, header dict)`` of an undamaged cache file."""
    _, _, length, _ = PREAMBLE.unpack_from(raw)
    return length, json.loads(raw[PREAMBLE.size : PREAMBLE.size + length])


def array_of(raw, entry):
    return np.frombuffer(raw, dtype=entry["dtype"], count=entry["shape"][0], offset=entry["offset"])


def random_cache(rng, path):
    """Save a random cache at ``path``; return its arrays as saved (dict) and its shape."""
    n, d = int(rng.integers(0, 12)), int(rng.integers(0, 9))
    dense = rng.standard_normal((n, d)) * (rng.random((n, d)) < rng.random())
    dtype = rng.choice(["float64", "float32", "int64", "int8", "bool"])
    X = sp.csr_matrix(dense.astype(dtype))
    y = (rng.standard_normal(n) * 3).astype(rng.choice(["float64", "int32", "float32"]))
    weights = rng.random(n) if rng.random() < 0.5 else None
    save_cache(path, X, y, importance=weights)
    arrays = {"indptr": X.indptr, "indices": X.indices, "data": X.data, "y": y, "importance": weights}
    return arrays, (n, d)


def regions(raw):
    """Byte ranges worth damaging: preamble, header, each array, padding gaps, anywhere."""
    length, header = read_layout(raw)
    spans = {"preamble": (0, PREAMBLE.size), "header": (PREAMBLE.size, PREAMBLE.size + length)}
    end = PREAMBLE.size + length
    for name, entry in sorted(header["arrays"].items(), key=lambda item: item[1]["offset"]):
        if entry["offset"] > end:
            spans[f"padding before {name}"] = (end, entry["offset"])
        end = entry["offset"] + np.dtype(entry["dtype"]).itemsize * entry["shape"][0]
        if end > entry["offset"]:
            spans[name] = (entry["offset"], end)
    spans["anywhere"] = (0, len(raw))
    return spans


def damage(rng, raw):
    """A randomly damaged copy of ``raw`` and a description of the damage."""
    raw = bytearray(raw)
    kind = rng.choice(["flip", "flip", "byte", "truncate", "extend", "splice"])
    spans = regions(raw)
    where = rng.choice(sorted(spans))
    lo, hi = spans[where]
    if kind == "flip":
        at = int(rng.integers(lo, hi))
        raw[at] ^= 1 << int(rng.integers(0, 8))
    elif kind == "byte":
        at = int(rng.integers(lo, hi))
        raw[at] = int(rng.integers(0, 256))
    elif kind == "truncate":
        at = int(rng.integers(0, len(raw)))
        del raw[at:]
    elif kind == "extend":
        raw += rng.bytes(int(rng.integers(1, 100)))
    else:
        size = int(rng.integers(1, 16))
        src, dst = (int(rng.integers(0, max(1, len(raw) - size))) for _ in range(2))
        raw[dst : dst + size] = raw[src : src + size]
        at = dst
    return bytes(raw), f"{kind} in {where}" + (f" at {at}" if kind != "extend" else "")


def rewrite_header(raw, header):
    """``raw`` with ``header`` written in (fresh CRC), or None if it does not fit before the first array."""
    text = json.dumps(header).encode()
    first = min(e["offset"] for e in read_layout(raw)[1]["arrays"].values())
    if PREAMBLE.size + len(text) > first:
        return None
    head = PREAMBLE.pack(b"\x93OLCACHE", 2, len(text), zlib.crc32(text)) + text
    return head + raw[len(head) :]


def forge_array(rng, raw, n, d):
    """Edit values of one array and fix its checksum (and the header's)."""
    _, header = read_layout(raw)
    name = rng.choice(sorted(header["arrays"]))
    entry = header["arrays"][name]
    a = array_of(raw, entry).copy()
    if a.size == 0:
        return None, "nothing to edit"
    at = int(rng.integers(0, a.size))
    if rng.random() < 0.3 and a.size > 1:
        other = int(rng.integers(0, a.size))
        a[at], a[other] = a[other], a[at]
        what = f"swap {name}[{at}] and [{other}]"
    else:
        candidates = [-1, 0, 1, d - 1, d, d + 1, n, a.size, a.size + 1, 2**31 - 1, -(2**31)]
        if a.dtype.kind == "f":
            candidates += [np.nan, np.inf, -0.0, 1e300]
        value = candidates[int(rng.integers(0, len(candidates)))]
        if a.dtype.kind == "f":
            with np.errstate(over="ignore"):
                a[at] = value
        elif a.dtype.kind == "b":
            a[at] = bool(value)
        else:
            info = np.iinfo(a.dtype)
            a[at] = min(max(int(value), info.min), info.max)
        what = f"{name}[{at}] = {a[at]}"
    out = bytearray(raw)
    out[entry["offset"] : entry["offset"] + a.nbytes] = a.tobytes()
    entry["crc32"] = zlib.crc32(a.tobytes())
    return rewrite_header(bytes(out), header), "forged " + what


HEADER_VALUES = [
    -1, 0, 1, 2, 63, 64, 2**31, 2**63, 2**64, 1.5, True, None, "", "x", [], [1], [1, 2], {}, {"a": 1},
    "<f8", "<f4", "<f2", "<i4", "<i8", "<u8", ">f8", "|b1", "<c16", "|O", "<U4", "V8", "<M8[s]", "float64",
]


def forge_header(rng, raw):
    """Change, remove or add one field of the header and fix its checksum."""
    header = read_layout(raw)[1]
    paths = [("shape", 0), ("shape", 1), ("shape",), ("arrays",), ("extra",)]
    for name, entry in header["arrays"].items():
        paths += [("arrays", name)] + [("arrays", name, key) for key in entry]
        paths += [("arrays", name, "shape", 0), ("arrays", name, "extra")]
    path = paths[int(rng.integers(0, len(paths)))]
    parent = header
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    present = isinstance(parent, list) or key in parent
    if rng.random() < 0.2 and isinstance(parent, dict) and present:
        del parent[key]
        what = f"removed {path}"
    else:
        old = parent[key] if present else None
        if type(old) is int and rng.random() < 0.5:
            value = old + int(rng.choice([-64, -1, 1, 64]))
        else:
            value = HEADER_VALUES[int(rng.integers(0, len(HEADER_VALUES)))]
        parent[key] = value
        what = f"set {path} = {value!r}"
    return rewrite_header(raw, header), "forged header: " + what


def valid_csr(indptr, indices, shape):
    """An independent NumPy check of the CSR structure."""
    n, d = shape
    if indptr.shape != (n + 1,) or indptr[0] != 0 or indptr[-1] != indices.size:
        return False
    if (np.diff(indptr.astype(np.int64)) < 0).any():
        return False
    if indices.size and (indices.min() < 0 or indices.max() >= d):
        return False
    steps = np.diff(indices.astype(np.int64))
    row_starts = np.zeros(indices.size, dtype=bool)
    row_starts[indptr[1:-1][indptr[1:-1] < indices.size]] = True
    return bool((steps > 0)[~row_starts[1:]].all()) if steps.size else True


def use(X, y, importance):
    """Compute with the loaded arrays: scipy's full check, a product over every entry, a dense copy.

    A forged header may declare millions of columns for a few entries; the
    dense steps are left out then.
    """
    X.check_format(full_check=True)
    if X.shape[1] <= 10**6:
        assert (X @ np.ones(X.shape[1])).shape == (X.shape[0],)
    if X.shape[0] * X.shape[1] <= 10**6:
        assert X.toarray().shape == X.shape
    assert y.shape == (X.shape[0],)
    assert importance is None or importance.shape == (X.shape[0],)


def same_array(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def campaign_damage(n_examples, seed):
    """Random damage: DataFormatError or the exact saved arrays."""
    rng = np.random.default_rng(seed)
    folder = tempfile.mkdtemp()
    tried = 0
    while tried < n_examples:
        path = os.path.join(folder, f"{tried}.olc")
        saved, shape = random_cache(rng, path)
        with open(path, "rb") as f:
            raw = f.read()
        for _ in range(min(20, n_examples - tried)):
            damaged, what = damage(rng, raw)
            target = os.path.join(folder, f"{tried}-damaged.olc")
            with open(target, "wb") as f:
                f.write(damaged)
            tried += 1
            try:
                X, y, importance = load_cache(target)
            except DataFormatError as e:
                assert e.path == target, (str(e), what)
                continue
            finally:
                os.unlink(target)
            loaded = {"indptr": X.indptr, "indices": X.indices, "data": X.data, "y": y, "importance": importance}
            assert X.shape == shape, what
            for name in NAMES:
                if saved[name] is None:
                    assert loaded[name] is None, what
                else:
                    expected = np.asarray(saved[name])
                    if name in ("indptr", "indices"):
                        expected = expected.astype(loaded[name].dtype)
                    assert same_array(np.asarray(loaded[name]), expected), f"{what}: {name} changed"
            use(X, y, importance)
        os.unlink(path)
    return tried


def campaign_forged(n_examples, seed):
    """Forged checksums: DataFormatError or a valid matrix of the file's own bytes."""
    rng = np.random.default_rng(seed)
    folder = tempfile.mkdtemp()
    tried = 0
    while tried < n_examples:
        path = os.path.join(folder, f"{tried}.olc")
        _, shape = random_cache(rng, path)
        with open(path, "rb") as f:
            raw = f.read()
        for _ in range(min(20, n_examples - tried)):
            n, d = shape
            forged, what = forge_array(rng, raw, n, d) if rng.random() < 0.5 else forge_header(rng, raw)
            if forged is None:
                continue
            target = os.path.join(folder, f"{tried}-forged.olc")
            with open(target, "wb") as f:
                f.write(forged)
            tried += 1
            try:
                X, y, importance = load_cache(target)
            except DataFormatError as e:
                assert e.path == target, (str(e), what)
                continue
            finally:
                os.unlink(target)
            _, header = read_layout(forged)
            assert X.shape == tuple(header["shape"]), what
            assert valid_csr(np.asarray(X.indptr), np.asarray(X.indices), X.shape), f"{what}: invalid CSR loaded"
            loaded = {"indptr": X.indptr, "indices": X.indices, "data": X.data, "y": y, "importance": importance}
            for name in NAMES:
                if name in header["arrays"]:
                    assert same_array(np.asarray(loaded[name]), array_of(forged, header["arrays"][name])), what
                else:
                    assert loaded[name] is None, what
            use(X, y, importance)
        os.unlink(path)
    return tried


def test_damaged_caches(campaign):
    assert campaign("fuzz.test_cache_files:campaign_damage", 3000) >= 3000


def test_forged_caches(campaign):
    assert campaign("fuzz.test_cache_files:campaign_forged", 2000) >= 2000
