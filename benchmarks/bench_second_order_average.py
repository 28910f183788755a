"""Cost of averaging and of importance weights for the second-order and quasi-additive learners (numbers for the docs).

On the core's sparse stream (make_data.py: 2^18 features, 60 non-zeros a
row), ``olearn.run(..., record=False)`` of each learner plain, with
``average=True`` and with a ``sample_weight`` array, as times and as ratios to
the plain pass. Run it once against the olearn to compare with (e.g. main,
``PYTHONPATH=/path/to/main/src``) to see that the plain pass kept its speed:
learners without ``average`` there report the plain pass only.

Every timing is the best of ``--repeats`` runs after one warm-up run, wall time.

    python benchmarks/bench_second_order_average.py            # 200,000 sparse rows
    python benchmarks/bench_second_order_average.py --quick    # 20,000 sparse rows
"""

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import make_data
from bench_core import best_of, load_csr

LEARNERS = {
    "AROW diag": ("olearn.second_order", "AROW", {"r": 1.0, "covariance": "diag"}),
    "NAROW diag": ("olearn.second_order", "NAROW", {"b": 1.0, "covariance": "diag"}),
    "AdaGrad": ("olearn.second_order", "AdaGrad", {"eta": 1.0, "delta": 1.0}),
    "DualAscent l2 aggressive": ("olearn.dual", "DualAscent", {"update": "aggressive"}),
}


def bench(folder, repeats):
    import importlib

    import olearn

    X, y = load_csr(folder)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, size=y.size)
    out = {"olearn": os.fspath(Path(olearn.__file__).parent)}
    for name, (module, cls_name, params) in LEARNERS.items():
        cls = getattr(importlib.import_module(module), cls_name)
        variants = {"plain": (params, None)}
        if "average" in cls().get_params():
            variants["average=True"] = ({**params, "average": True}, None)
            variants["sample_weight"] = (params, weights)
        row = {}
        for variant, (kwargs, sample_weight) in variants.items():
            extra = {} if sample_weight is None else {"sample_weight": sample_weight[:10]}
            olearn.run(cls(**kwargs), X[:10], y[:10], record=False, **extra)  # compile or load from the cache
            extra = {} if sample_weight is None else {"sample_weight": sample_weight}
            timing, _ = best_of(lambda kwargs=kwargs, extra=extra: olearn.run(cls(**kwargs), X, y, record=False,
                                                                             **extra), repeats)
            row[variant] = {"seconds": timing["best"], "times": timing["times"]}
        for variant in row.values():
            variant["ratio_to_plain"] = variant["seconds"] / row["plain"]["seconds"]
        out[name] = row
    return {"rows": X.shape[0], "learners": out}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 rows")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=os.fspath(make_data.WORK / "second_order_average_results.json"))
    args = parser.parse_args(argv)
    folder = make_data.ensure(rows=20_000 if args.quick else 200_000)
    results = bench(folder, args.repeats)
    Path(args.json).write_text(json.dumps(results, indent=2))
    for name, row in results["learners"].items():
        if name == "olearn":
            continue
        cells = ", ".join(f"{variant} {v['seconds']:.3f} s ({v['ratio_to_plain']:.2f}x)" for variant, v in row.items())
        print(f"{name}: {cells}")


if __name__ == "__main__":
    main()
