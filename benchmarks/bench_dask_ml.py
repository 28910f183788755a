"""olearn on Dask against dask-ml's Incremental, on the same Parquet shards: wall time and held-out accuracy.

The anchor a Dask user would pick is dask-ml's ``Incremental`` around a
scikit-learn ``partial_fit`` learner; it trains its blocks one after another.
olearn's iterative parameter mixing (McDonald, Hall & Mann 2010) trains the
shards in parallel and mixes the models after each epoch. Both read the same
Parquet files (a synthetic linear stream with label noise) on a local cluster
of 2 single-threaded worker processes; accuracy is measured on a held-out
test set. Printed as ratios to olearn's serial run (one process, the same
rows, one pass), all in one run.

    python benchmarks/bench_dask_ml.py            # 200,000 rows x 50 in 4 shards (~1-2 min)
    python benchmarks/bench_dask_ml.py --quick    # a smoke test

Needs dask-ml (``pip install "olearn[bench]"``).
"""

import argparse
import math
import os
import tempfile
import time
import warnings

import numpy as np


def stream(n, d, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    y = np.where(X @ w > 0, 1, -1)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    return X, y


def write_parquet(folder, X, y, n_shards):
    import pandas as pd

    paths = []
    for i, rows in enumerate(np.array_split(np.arange(len(y)), n_shards)):
        frame = pd.DataFrame(X[rows], columns=[f"x{j}" for j in range(X.shape[1])])
        frame["y"] = y[rows]
        paths.append(os.path.join(folder, f"part-{i}.parquet"))
        frame.to_parquet(paths[-1])
    return paths


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, d, n_shards = (40_000, 20, 4) if args.quick else (200_000, 50, 4)
    X, y = stream(n + n // 10, d, seed=0)
    X, y, X_test, y_test = X[:n], y[:n], X[n:], y[n:]  # the test rows: later rows of the same stream

    # scikit-learn >= 1.8 deprecates PassiveAggressiveClassifier, the anchor named here; it is still the PA-I learner
    warnings.filterwarnings("ignore", category=FutureWarning, module="sklearn")
    import dask.dataframe as dd
    from dask_ml.wrappers import Incremental
    from sklearn.linear_model import PassiveAggressiveClassifier, SGDClassifier

    from olearn.distributed import connect, parameter_mixing
    from olearn.linear import PAClassifier

    print(f"load average before: {os.getloadavg()[0]:.1f}; {n:,} rows x {d} in {n_shards} Parquet shards, 2 workers")
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = write_parquet(folder, X, y, n_shards)
        PAClassifier(C=0.1).partial_fit(X[:100], y[:100])  # compile in this process
        seconds, est = timed(lambda: PAClassifier(C=0.1).partial_fit(X, y))
        rows["olearn serial (1 pass)"] = (seconds, est.score(X_test, y_test))
        with connect(workers=2) as client:
            parameter_mixing(PAClassifier(C=0.1), [(X[:100], y[:100])] * 2, client=client)  # compile on the workers
            # the workers import pyarrow and pandas once, untimed: dask-ml's runs, after olearn's, find them imported
            parameter_mixing(PAClassifier(C=0.1), paths, label_column="y", client=client)
            for epochs in (1, 5):
                seconds, res = timed(lambda: parameter_mixing(PAClassifier(C=0.1), paths, epochs=epochs,
                                                              label_column="y", client=client))
                # the vocabulary names the columns in the table's order, so the test rows are read as arrays
                assert list(res.estimator.vocabulary_) == [f"x{j}" for j in range(d)]
                rows[f"olearn mixing, {epochs} epoch{'s' if epochs > 1 else ''}"] = (
                    seconds, res.estimator.score(X_test, y_test))
            for name, model in (("SGDClassifier(hinge)", SGDClassifier(loss="hinge")),
                                ("PassiveAggressiveClassifier", PassiveAggressiveClassifier(C=0.1))):
                def fit(model=model):
                    table = dd.read_parquet(paths).to_dask_array(lengths=True)  # x0..x{d-1}, then y
                    return Incremental(model).fit(table[:, :d], table[:, d], classes=[-1, 1])

                seconds, inc = timed(fit)
                rows[f"dask-ml Incremental({name})"] = (seconds, float(np.mean(inc.predict(X_test) == y_test)))
    serial_seconds, serial_accuracy = rows["olearn serial (1 pass)"]
    print(f"{'run':<46}{'wall s':>8}{'x serial speed':>16}{'accuracy':>10}{'/ serial':>10}")
    for name, (seconds, accuracy) in rows.items():
        print(f"{name:<46}{seconds:>8.2f}{serial_seconds / seconds:>16.2f}{accuracy:>10.4f}"
              f"{accuracy / serial_accuracy:>10.3f}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
