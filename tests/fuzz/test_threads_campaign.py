"""Fuzz one estimator shared by threads: every call holds its lock once, and a serial replay agrees.

Each input is an estimator of every registered kind (and its extra settings,
``fuzz._learners.cases``), alone or behind a ``StandardScaler``, and three
threads making random calls on it at once with a tiny switch interval:
``learn_one``, ``predict_one``, ``partial_fit`` and ``predict``, on rows,
dicts with names of their own and shared ones, some refused. The estimator's
lock is replaced by one that records which call took it (the outermost
acquisition of each): every call must take it exactly once, and replaying the
calls serially, in that order, on a fresh estimator must give every call's
outcome (its prediction, or its error) and the final state bit for bit. Any
lost update, torn read or name given a shared column shows up as a
difference.
"""

import sys
import threading

import numpy as np
import scipy.sparse as sp

from fuzz._learners import CLASSES, DOCUMENTED, EVERY_ESTIMATOR, cases, differences, snapshot, valid_batch
from olearn.preprocessing import StandardScaler

pytestmark = EVERY_ESTIMATOR

N_THREADS = 3
CALLS_PER_THREAD = 8
# cases whose examples are not rows of named features: their calls take arrays only
_UNNAMED = ("uniclass", "sequence")
# the tasks of the learners that end a pipeline
_PIPED = ("binary", "multiclass", "regression", "multilabel")


class RecordingLock:
    """A re-entrant lock that logs which call (the thread's ``call``) took it first, at each outermost hold."""

    def __init__(self):
        self._lock = threading.RLock()
        self._depth = 0
        self.log = []
        self.current = threading.local()

    def acquire(self, blocking=True, timeout=-1):
        taken = self._lock.acquire(blocking, timeout)
        if taken:
            self._depth += 1
            if self._depth == 1:
                self.log.append(self.current.call)
        return taken

    def release(self):
        self._depth -= 1
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()

    def _is_owned(self):
        return self._lock._is_owned()


def _make(case, piped):
    _, task, factory = case
    return (StandardScaler() | factory()) if piped else factory()


def _start(est, task, rng):
    """A first batch, learned before the threads: the classes declared, the learner started."""
    X, y = valid_batch(task, rng, n=3)
    if task == "uniclass":
        est.partial_fit(X)
    elif task in ("binary", "multiclass"):
        est.partial_fit(X, y, classes=CLASSES[task])
    else:
        est.partial_fit(X, y)


def _named(x, thread, k, rng):
    """Row ``x`` as a dict: shared names, one of the thread's own, now and then a refused value."""
    row = {f"s{j}": float(v) for j, v in enumerate(x[:2])}
    row[f"t{thread}-{k}"] = float(x[2])
    if rng.random() < 0.1:
        row["s0"] = float("nan")
    return row


def _program(task, thread, rng):
    """The calls of one thread: (method, args), with rows of ``task``."""
    calls = []
    for k in range(CALLS_PER_THREAD):
        X, y = valid_batch(task, rng, n=int(rng.integers(1, 4)))
        roll = rng.random()
        if roll < 0.35:
            x = X[0] if task in _UNNAMED else _named(X[0], thread, k, rng)
            calls.append(("learn_one", (x,) if task == "uniclass" else (x, y[0])))
        elif roll < 0.55:
            x = X[0] if task in _UNNAMED else _named(X[0], thread, k, rng)
            calls.append(("predict_one", () if task == "uniclass" else (x,)))
        elif roll < 0.85:
            if task in _UNNAMED:
                rows = X
            elif rng.random() < 0.5:
                rows = [_named(x, thread, 100 + k + j, rng) for j, x in enumerate(X)]
            else:
                rows = sp.csr_matrix(X)  # any width: the dicts' names widen the model
            calls.append(("partial_fit", (rows,) if task == "uniclass" else (rows, y)))
        elif task != "uniclass":
            calls.append(("predict", (X if task == "sequence" else sp.csr_matrix(X),)))
    return calls


def _outcome(est, method, args):
    try:
        result = getattr(est, method)(*args)
    except DOCUMENTED as err:
        return ("error", type(err).__name__, str(err))
    return ("ok",) if result is est else ("ok", result)


def _one(case, piped, seed):
    _, task, _ = case
    rng = np.random.default_rng(seed)
    est = _make(case, piped)
    try:
        _start(est, task, np.random.default_rng(seed))
    except TypeError:
        if not piped:
            raise
        # a learner that does not learn rows of features cannot end a pipeline: it runs alone
        return _one(case, False, seed)
    programs = [_program(task, thread, rng) for thread in range(N_THREADS)]
    recorder = RecordingLock()
    est._lock = recorder
    outcomes = {}
    errors = []
    start = threading.Barrier(N_THREADS)

    def run(thread):
        try:
            start.wait()
            for k, (method, args) in enumerate(programs[thread]):
                recorder.current.call = (thread, k)
                outcomes[thread, k] = _outcome(est, method, args)
        except BaseException as err:  # noqa: BLE001 - raised below on the campaign's thread
            errors.append(err)

    threads = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(N_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not any(thread.is_alive() for thread in threads), f"{case[0]}: a thread hung"
    if errors:
        raise errors[0]
    calls = [(t, k) for t in range(N_THREADS) for k in range(len(programs[t]))]
    assert sorted(recorder.log) == calls, f"{case[0]}: a call did not take the lock exactly once: {recorder.log}"

    replay = _make(case, piped)
    _start(replay, task, np.random.default_rng(seed))
    for t, k in recorder.log:
        method, args = programs[t][k]
        expected = _outcome(replay, method, args)
        diff = differences(expected, outcomes[t, k], "outcome")
        assert not diff, f"{case[0]}{' piped' if piped else ''}: call {method} of thread {t}: {diff[:3]}"
    est._lock = recorder._lock
    diff = differences(_state(replay, piped), _state(est, piped))
    assert not diff, f"{case[0]}{' piped' if piped else ''}: the state differs from a serial replay: {diff[:5]}"


def _state(est, piped):
    if not piped:
        return snapshot(est)
    return {name: snapshot(step) for name, step in est.steps} | {
        "map": snapshot(est.feature_map_), "n_features_in_": est.n_features_in_}


def campaign_threads(n_examples, seed):
    """``n_examples`` programs of three threads, cycling through every case, alone and piped."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        all_cases = cases()
        for i in range(n_examples):
            case = all_cases[i % len(all_cases)]
            piped = case[1] in _PIPED and (i // len(all_cases)) % 2 == 1
            _one(case, piped, seed * 1_000_003 + i)
    finally:
        sys.setswitchinterval(before)
    return n_examples


def test_threads(campaign):
    assert campaign("fuzz.test_threads_campaign:campaign_threads", len(cases()) * 2, seed=0) > 0
