"""Seeded generator of the benchmark stream, written in every format the benchmarks read.

The reference stream (the defaults) is 200,000 rows x 2^18 features with 60
non-zeros per row:

* indices: 60 distinct column indices per row, uniform over the 2^18 columns,
  sorted ascending within the row (as LIBSVM requires);
* values: tf-idf-like. A lognormal "term weight" (sigma 0.75) per entry, then
  every row is L2-normalised (as RCV1 and most text data are shipped), then
  rounded to 6 decimals ``0.dddddd`` so that the text files hold the values
  *exactly*: the arrays below are what a correct parser of the text returns
  (``q / 1e6`` is the correctly rounded double of the decimal ``0.dddddd``).
  After rounding ``||x||^2`` is 1 to within ~1e-5;
* labels: the sign of ``w* . x`` for a hidden sparse separator ``w*`` (a random
  quarter of the columns carry N(0, 1) weights, ~15 of them hit per row),
  then 5% of the labels flipped at random (label noise). A row whose score is
  exactly 0 gets a random label. Labels are -1/+1.

Files, cached under ``benchmarks/_work/<name>/`` (regenerated only if missing
or if ``--force``; ``meta.json`` records the parameters):

* ``stream.svm``: LIBSVM text, 1-based indices: ``1 3:0.125000 17:0.500000 ...``
* ``stream.vw``: Vowpal Wabbit text, one namespace ``f`` and the same 1-based
  integer feature names: ``1 |f 3:0.125000 17:0.500000 ...``. VW does not use
  an integer name as the column: it adds the namespace's hash (and masks to
  ``-b`` bits), so its feature ids are a shifted copy of ours. With ``-b 18``
  the shift is a bijection on the 2^18 ids, so VW sees the same features with
  no collision; only the ids differ, which is irrelevant for timing.
* ``indptr.npy`` (int64), ``indices.npy`` (int32, **0-based**: LIBSVM column
  ``j`` is array index ``j - 1``), ``data.npy`` (float64), ``y.npy`` (float64
  -1/+1): the CSR arrays of the same stream, for the in-memory benchmark;
* ``stream.bin``: the same arrays for the C reference, in this layout
  (little-endian): 8 bytes magic ``OLBENCH1``, int64 n_rows, int64
  n_features, int64 nnz, then indptr (n_rows + 1 int64), indices (nnz int32),
  data (nnz float64), y (n_rows float64).

Usage::

    python benchmarks/make_data.py                  # the reference stream
    python benchmarks/make_data.py --rows 1000      # a small one
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

WORK = Path(__file__).resolve().parent / "_work"
MAGIC = b"OLBENCH1"
FORMAT_VERSION = 1
# Written rows per formatting batch: bounds the memory of the text writer.
_BATCH = 5000


def dataset_name(rows, features, nnz, seed):
    return f"stream_r{rows}_d{features}_k{nnz}_s{seed}"


def _sample_indices(rng, rows, features, nnz):
    """``rows x nnz`` distinct-per-row column indices, each row sorted."""
    idx = np.sort(rng.integers(0, features, size=(rows, nnz), dtype=np.int64), axis=1)
    while True:
        bad = np.flatnonzero((np.diff(idx, axis=1) == 0).any(axis=1))
        if bad.size == 0:
            return idx
        idx[bad] = np.sort(rng.integers(0, features, size=(bad.size, nnz), dtype=np.int64), axis=1)


def generate(rows, features, nnz, noise, seed):
    """The stream as (indptr, indices, data, y, quantised values q with data = q / 1e6)."""
    if nnz > features:
        raise SystemExit(f"--nnz {nnz} is more than --features {features}")
    rng = np.random.default_rng(seed)
    idx = _sample_indices(rng, rows, features, nnz)
    raw = rng.lognormal(mean=0.0, sigma=0.75, size=(rows, nnz))
    raw /= np.sqrt((raw * raw).sum(axis=1, keepdims=True))
    q = np.clip(np.rint(raw * 1e6), 1, 1_000_000).astype(np.int64)
    data = q / 1e6

    w_star = np.where(rng.random(features) < 0.25, rng.standard_normal(features), 0.0)
    score = (w_star[idx] * data).sum(axis=1)
    y = np.sign(score)
    ties = y == 0
    y[ties] = rng.choice([-1.0, 1.0], size=int(ties.sum()))
    flip = rng.random(rows) < noise
    y[flip] = -y[flip]

    indptr = np.arange(rows + 1, dtype=np.int64) * nnz
    return indptr, idx.reshape(-1).astype(np.int32), data.reshape(-1), y, q


def _value_token(q):
    return "1" if q == 1_000_000 else f"0.{q:06d}"


def write_text(path_svm, path_vw, idx, q, y):
    """Both text formats, sharing one formatting of each row's features."""
    rows = idx.shape[0]
    with open(path_svm, "w") as svm, open(path_vw, "w") as vw:
        for start in range(0, rows, _BATCH):
            stop = min(start + _BATCH, rows)
            svm_lines, vw_lines = [], []
            for i in range(start, stop):
                body = " ".join(f"{j + 1}:{_value_token(v)}" for j, v in zip(idx[i].tolist(), q[i].tolist()))
                label = "1" if y[i] > 0 else "-1"
                svm_lines.append(f"{label} {body}\n")
                vw_lines.append(f"{label} |f {body}\n")
            svm.write("".join(svm_lines))
            vw.write("".join(vw_lines))


def write_bin(path, indptr, indices, data, y, features):
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(np.array([len(y), features, indices.size], dtype="<i8").tobytes())
        f.write(indptr.astype("<i8").tobytes())
        f.write(indices.astype("<i4").tobytes())
        f.write(data.astype("<f8").tobytes())
        f.write(y.astype("<f8").tobytes())


def ensure(rows=200_000, features=2**18, nnz=60, noise=0.05, seed=0, force=False, verbose=True):
    """Generate the stream unless it is cached; return its folder."""
    params = {
        "rows": rows, "features": features, "nnz": nnz, "noise": noise, "seed": seed, "version": FORMAT_VERSION,
    }
    folder = WORK / dataset_name(rows, features, nnz, seed)
    meta_path = folder / "meta.json"
    if not force and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == params:
            return folder
    folder.mkdir(parents=True, exist_ok=True)
    if meta_path.exists():
        meta_path.unlink()
    t0 = time.perf_counter()
    indptr, indices, data, y, q = generate(rows, features, nnz, noise, seed)
    np.save(folder / "indptr.npy", indptr)
    np.save(folder / "indices.npy", indices)
    np.save(folder / "data.npy", data)
    np.save(folder / "y.npy", y)
    write_bin(folder / "stream.bin", indptr, indices, data, y, features)
    write_text(folder / "stream.svm", folder / "stream.vw", indices.reshape(rows, nnz), q, y)
    meta = {
        "params": params,
        "positive_fraction": float((y > 0).mean()),
        "seconds_to_generate": round(time.perf_counter() - t0, 1),
        "bytes": {p.name: p.stat().st_size for p in sorted(folder.iterdir())},
    }
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    if verbose:
        print(f"wrote {folder} in {meta['seconds_to_generate']} s", file=sys.stderr)
    return folder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=2**18)
    parser.add_argument("--nnz", type=int, default=60, help="non-zeros per row")
    parser.add_argument("--noise", type=float, default=0.05, help="fraction of labels flipped")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="regenerate even if cached")
    args = parser.parse_args(argv)
    folder = ensure(args.rows, args.features, args.nnz, args.noise, args.seed, args.force)
    print(os.fspath(folder))


if __name__ == "__main__":
    main()
