"""Averaged against plain prediction, family by family, on a hashed-width model (issue #34).

For every averaged family (binary linear, regression, multiclass,
cost-sensitive, multilabel, second-order, quasi-additive, dual ascent and the
sequence tagger) two learners of the same class, ``average=False`` and
``average=True``, learn the same sparse stream over ``2**bits`` columns (30
non-zeros a row; the tagger reads it as sentences of 10 rows); then the same
predictions are timed on both, call by call, the two learners alternating so
that load from other processes hits both alike (best of N calls, wall time; the
ratio of the best CPU times too, which other processes disturb less):

* ``predict_one, learned``: one row (a sentence for the tagger), each call
  right after both learners learned one more row (untimed): the first
  prediction after learning, as in a stream that alternates the two;
* ``predict_one``: the same call again and again, nothing learned between;
* ``predict 100, learned`` and ``predict 100``: ``predict`` on 100 rows (10
  sentences), after learning and again and again;
* ``predict 20k``: ``predict`` on 20,000 rows (2,000 sentences).

The ratio averaged / plain is the number issue #34 asks to keep within 1.5x.
Run it against another tree to compare before/after a change::

    PYTHONPATH=src python benchmarks/bench_averaged_predict.py --repeats 7
    PYTHONPATH=/tmp/before/src python benchmarks/bench_averaged_predict.py --repeats 7
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp

import olearn
from olearn.dual import DualAscent
from olearn.linear import PAClassifier, PARegressor
from olearn.multiclass import PACostSensitive, PAMulticlass
from olearn.multilabel import PAMultilabel
from olearn.quasi_additive import PNorm
from olearn.second_order import AROW
from olearn.sequence import PASequence

NNZ = 30
SENTENCE = 10  # rows of a sentence of the tagger


def stream(n_rows, n_columns, seed):
    """CSR rows of NNZ distinct columns each, and binary, real, 5-class and 2-of-4-label targets."""
    rng = np.random.default_rng(seed)
    indices = np.concatenate([np.sort(rng.choice(n_columns, NNZ, replace=False)) for _ in range(n_rows)])
    X = sp.csr_matrix((rng.standard_normal(n_rows * NNZ), indices, np.arange(n_rows + 1) * NNZ),
                      shape=(n_rows, n_columns))
    real = X @ rng.standard_normal(n_columns)
    labels = np.arange(n_rows)
    return X, {
        "binary": np.where(real > 0, 1, -1),
        "real": real,
        "multiclass": labels % 5,
        "multilabel": [[int(i % 4), int((i + 1) % 4)] for i in labels],
    }


class Rows:
    """Rows as a family reads them: CSR rows, or sentences of SENTENCE rows for the tagger (``tags`` labels)."""

    def __init__(self, X, targets, target, tags):
        self.X, self.targets, self.target, self.tags = X, targets, target, tags

    def sequences(self, lo, hi):
        return [self.X[i:i + SENTENCE] for i in range(lo, hi, SENTENCE)]

    def inputs(self, lo, hi):
        """Rows lo..hi of X as ``predict`` takes them."""
        return self.sequences(lo, hi) if self.target == "tags" else self.X[lo:hi]

    def one(self):
        """One example as ``predict_one`` takes it."""
        return self.X[:SENTENCE] if self.target == "tags" else self.X[0]

    def learn(self, learner, lo, hi, **kwargs):
        """``partial_fit`` of rows lo..hi (of the sentences they make, for the tagger)."""
        if self.target == "tags":
            labels = [np.arange(i, i + SENTENCE) % self.tags for i in range(lo, hi, SENTENCE)]
            return learner.partial_fit(self.sequences(lo, hi), labels)
        y = self.targets[self.target][lo:hi]
        return learner.partial_fit(self.X[lo:hi], y, **kwargs)


COSTS = np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float)

# family, factory of a learner given average=..., n_features=..., its target
FAMILIES = [
    ("binary linear (PAClassifier)", lambda **kw: PAClassifier(**kw), "binary"),
    ("regression (PARegressor)", lambda **kw: PARegressor(**kw), "real"),
    ("multiclass (PAMulticlass)", lambda **kw: PAMulticlass(**kw), "multiclass"),
    ("cost-sensitive (PACostSensitive)", lambda **kw: PACostSensitive(cost=COSTS, **kw), "multiclass"),
    ("multilabel (PAMultilabel)", lambda **kw: PAMultilabel(**kw), "multilabel"),
    ("second-order (AROW diag)", lambda **kw: AROW(covariance="diag", **kw), "binary"),
    ("quasi-additive (PNorm)", lambda **kw: PNorm(p=2.0, **kw), "binary"),
    ("dual ascent (DualAscent)", lambda **kw: DualAscent(**kw), "binary"),
    ("sequence (PASequence)", lambda **kw: PASequence(**kw), "tags"),
]

CLASSES = {"binary": [-1, 1], "multiclass": list(range(5)), "multilabel": list(range(4))}


def best_times(learners, call, repeats, learn_between):
    """Best wall and best CPU time of ``call(learner)`` for each learner, alternating: two lists;
    ``learn_between(learner, r)`` untimed before the r-th call of each, when given."""
    wall = [float("inf")] * len(learners)
    cpu = [float("inf")] * len(learners)
    for r in range(repeats):
        for i, learner in enumerate(learners):
            if learn_between is not None:
                learn_between(learner, r)
            start, start_cpu = time.perf_counter(), time.process_time()
            call(learner)
            cpu[i] = min(cpu[i], time.process_time() - start_cpu)
            wall[i] = min(wall[i], time.perf_counter() - start)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=20, help="log2 of the number of columns (default 20)")
    parser.add_argument("--rows", type=int, default=2000, help="rows learned (default 2000)")
    parser.add_argument("--repeats", type=int, default=5, help="best of N (default 5); N * 20 calls of the small ones")
    parser.add_argument("--tags", type=int, default=12, help="labels of the tagger (default 12)")
    parser.add_argument("--only", default="", help="comma-separated words: run the families whose name has one")
    args = parser.parse_args()
    n_columns = 2**args.bits
    olearn.set_config(max_state_bytes=2**36)
    X, targets = stream(args.rows, n_columns, 0)
    # rows learned between the calls "learned"
    extra, extra_targets = stream(args.repeats * 40 * SENTENCE, n_columns, 2)
    Q, _ = stream(20_000, n_columns, 1)
    print(f"olearn {olearn.__version__}, 2**{args.bits} columns, {args.rows} rows learned, {NNZ} non-zeros a row, "
          f"best of {args.repeats} (x20 for the small calls); times in ms")
    print(f"{'family':34s} {'call':22s} {'plain':>9s} {'averaged':>9s} {'ratio':>6s} {'CPU ratio':>9s}")
    wanted = [word for word in args.only.split(",") if word]
    for name, make, target in FAMILIES:
        if wanted and not any(word in name for word in wanted):
            continue
        tags = list(range(args.tags))
        rows, more, queries = (Rows(*data, target, args.tags) for data in ((X, targets), (extra, extra_targets),
                                                                            (Q, {})))
        classes = {"classes": tags} if target == "tags" else {}
        fit_classes = {"classes": CLASSES[target]} if target in CLASSES else {}
        learners = [rows.learn(make(average=average, n_features=n_columns, **classes), 0, args.rows, **fit_classes)
                    for average in (False, True)]
        step = SENTENCE if target == "tags" else 1
        learned = iter(range(0, more.X.shape[0], step))
        current = {}

        def learn_one_more(learner, r):
            # both learners learn the same row: the next one for the r-th call of a run
            if current.get("r") != r:
                current["r"], current["lo"] = r, next(learned)
            more.learn(learner, current["lo"], current["lo"] + step)

        one, hundred, whole = queries.one(), queries.inputs(0, 100), queries.inputs(0, 20_000)
        for call, function, n, learn in (
                ("predict_one, learned", lambda m: m.predict_one(one), 20, learn_one_more),
                ("predict_one", lambda m: m.predict_one(one), 20, None),
                ("predict 100, learned", lambda m: m.predict(hundred), 20, learn_one_more),
                ("predict 100", lambda m: m.predict(hundred), 20, None),
                ("predict 20k", lambda m: m.predict(whole), 1, None)):
            for m in learners:
                function(m)  # compiles, warms the caches
            wall, cpu = best_times(learners, function, args.repeats * n, learn)
            plain, averaged = (t * 1e3 for t in wall)
            print(f"{name:34s} {call:22s} {plain:9.3f} {averaged:9.3f} {averaged / plain:6.2f} "
                  f"{cpu[1] / cpu[0] if cpu[0] > 0 else float('nan'):9.2f}", flush=True)


if __name__ == "__main__":
    main()
