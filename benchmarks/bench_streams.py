"""olearn against River, example by example, on the same stream of dict rows (issue #14's speed targets).

The stream: ``--rows`` rows (default 20,000) of 100 N(0, 1) features and a
label from a hidden separator with 5% of the labels flipped (seeded), given as
dicts the way a River user writes them, once with integer keys
(``{0: 0.12, 1: -1.3, ...}``) and once with str keys (``{"f0": 0.12, ...}``,
the same key objects in every row, as a CSV reader's header gives them).

Each entry of ``ENTRIES`` is (name, olearn factory, River factory, call style):

* ``"pair"``: ``predict_one(x)`` then ``learn_one(x, y)`` on both sides
  (progressive validation as River writes it);
* ``"predict_learn_one"``: olearn's one call ``predict_learn_one(x, y)``,
  against River's pair (River has no such call).

The entries: PA-I (``variant="pa1", C=1`` against River's
``PAClassifier(C=1, mode=1, learn_intercept=False)``: olearn's learners have
no intercept unless asked, River's ``PAClassifier`` learns one by default)
alone and behind a ``StandardScaler`` (olearn's pipeline against River's
``preprocessing.StandardScaler() | linear_model.PAClassifier(...)``), in both
styles; a new comparison is one more entry.

Every run starts from a fresh model and goes through the whole stream; the
times are best of ``--repeats`` after one untimed warm-up run of everything
(numba's cache loaded or compiled), interleaved run by run so that load from
other processes hits every side alike; wall and CPU (thread) time are both
kept, and the load average at the start and the end. The progressive
mistakes of both sides are printed too. PA-I is the same algorithm in both
libraries, so alone they agree; behind the scaler they differ a little, as
River's pipeline updates the scaler with ``x`` before it scales ``x`` for
learning, olearn's after (docs/river.md).

    PYTHONPATH=src python benchmarks/bench_streams.py              # ~5 min
    PYTHONPATH=src python benchmarks/bench_streams.py --rows 2000 --repeats 2   # a smoke test

Writes ``benchmarks/_work/streams_results.json`` and prints a markdown table
(``--markdown PATH`` writes it to a file as well).
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

WORK = Path(__file__).resolve().parent / "_work"
N_FEATURES = 100


def pa1_olearn():
    import olearn

    return olearn.PAClassifier(variant="pa1", C=1.0)


def pa1_river():
    from river import linear_model

    return linear_model.PAClassifier(C=1, mode=1, learn_intercept=False)


def scaled_pa1_olearn():
    import olearn

    return olearn.preprocessing.StandardScaler() | pa1_olearn()


def scaled_pa1_river():
    from river import preprocessing

    return preprocessing.StandardScaler() | pa1_river()


# (name, olearn factory, River factory, call style)
ENTRIES = [
    ("PA-I, predict_one + learn_one", pa1_olearn, pa1_river, "pair"),
    ("PA-I, predict_learn_one", pa1_olearn, pa1_river, "predict_learn_one"),
    ("StandardScaler + PA-I, predict_one + learn_one", scaled_pa1_olearn, scaled_pa1_river, "pair"),
    ("StandardScaler + PA-I, predict_learn_one", scaled_pa1_olearn, scaled_pa1_river, "predict_learn_one"),
]


def make_stream(n_rows, seed=0):
    """(rows with int keys, rows with str keys, labels): the same values in both kinds of rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, N_FEATURES))
    y = X @ rng.normal(size=N_FEATURES) > 0.0
    y ^= rng.random(n_rows) < 0.05
    names = [f"f{j}" for j in range(N_FEATURES)]
    values = X.tolist()
    return ([dict(enumerate(row)) for row in values], [dict(zip(names, row)) for row in values],
            [bool(label) for label in y])


def run_pair(model, rows, labels):
    mistakes = 0
    for x, y in zip(rows, labels):
        mistakes += model.predict_one(x) != y
        model.learn_one(x, y)
    return mistakes


def run_predict_learn_one(model, rows, labels):
    mistakes = 0
    for x, y in zip(rows, labels):
        mistakes += model.predict_learn_one(x, y) != y
    return mistakes


STYLES = {"pair": run_pair, "predict_learn_one": run_predict_learn_one}


def timed(factory, style, rows, labels):
    """(wall s, cpu s, mistakes) of one fresh model through the stream."""
    model = factory()
    c0, t0 = time.thread_time(), time.perf_counter()
    mistakes = STYLES[style](model, rows, labels)
    return time.perf_counter() - t0, time.thread_time() - c0, int(mistakes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=WORK / "streams_results.json")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    import olearn
    import river

    int_rows, str_rows, labels = make_stream(args.rows)
    streams = {"int keys": int_rows, "str keys": str_rows}
    # every (entry, keys, side) run: River runs its pair whatever the style
    runs = {}
    for name, olearn_factory, river_factory, style in ENTRIES:
        for keys in streams:
            runs[name, keys, "olearn"] = (olearn_factory, style)
            runs[name, keys, "river"] = (river_factory, "pair")
    results = {key: {"wall": [], "cpu": [], "mistakes": None, "error": None} for key in runs}
    load_start = os.getloadavg()
    for key, (factory, style) in runs.items():  # the warm-up: compile, or load numba's cache
        try:
            results[key]["mistakes"] = timed(factory, style, streams[key[1]], labels)[2]
        except (TypeError, ValueError) as err:  # an olearn without named features refuses str keys
            results[key]["error"] = f"{type(err).__name__}: {err}"
    for _ in range(args.repeats):
        for key, (factory, style) in runs.items():
            if results[key]["error"] is None:
                wall, cpu, _ = timed(factory, style, streams[key[1]], labels)
                results[key]["wall"].append(wall)
                results[key]["cpu"].append(cpu)
    load_end = os.getloadavg()

    def per_row(key, what="wall"):
        times = results[key][what]
        return 1e6 * min(times) / args.rows if times else None

    lines = [
        f"{args.rows} rows of {N_FEATURES} features, best of {args.repeats} (wall; CPU in brackets), "
        f"load average {load_start[0]:.1f} at start, {load_end[0]:.1f} at end",
        "",
        "| entry | keys | olearn us/row | River us/row | River / olearn | mistakes olearn / River |",
        "|---|---|---|---|---|---|",
    ]
    table = []
    for name, _, _, _ in ENTRIES:
        for keys in streams:
            mine, theirs = results[name, keys, "olearn"], results[name, keys, "river"]
            if mine["error"] is not None:
                lines.append(f"| {name} | {keys} | n/a ({mine['error'][:60]}) | {per_row((name, keys, 'river')):.2f} "
                             "| | |")
                continue
            o, r = per_row((name, keys, "olearn")), per_row((name, keys, "river"))
            oc, rc = per_row((name, keys, "olearn"), "cpu"), per_row((name, keys, "river"), "cpu")
            lines.append(f"| {name} | {keys} | {o:.2f} ({oc:.2f}) | {r:.2f} ({rc:.2f}) | {r / o:.1f}x ({rc / oc:.1f}x) "
                         f"| {mine['mistakes']} / {theirs['mistakes']} |")
            table.append({"entry": name, "keys": keys, "olearn_us": o, "river_us": r, "ratio": r / o,
                          "ratio_cpu": rc / oc})
    text = "\n".join(lines)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    args.json.parent.mkdir(exist_ok=True)
    args.json.write_text(json.dumps({
        "machine": {"python": platform.python_version(), "olearn": olearn.__file__, "river": river.__version__,
                    "loadavg_start": load_start, "loadavg_end": load_end, "rows": args.rows,
                    "repeats": args.repeats},
        "table": table,
        "runs": {" / ".join(key): value for key, value in results.items()},
    }, indent=1))


if __name__ == "__main__":
    sys.exit(main())
