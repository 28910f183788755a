"""The state folder: snapshots of the model and the write-ahead log that follows each.

Files, for ``S`` the number of examples learned when the snapshot was taken
(16 digits, so that names sort as numbers):

``snapshot-S.npz``
    the model after S updates, an :func:`olearn.save` file (absent for S = 0
    when the service started from a learner that had learned nothing);
``log-S.wal``
    a :mod:`~olearn.serve._wal` log: first a checkpoint record (S, the recent
    update ids and, without a snapshot, the learner's class and
    hyperparameters), then the updates S+1, S+2, ... in the order they were learned.

A snapshot is taken in three steps, each durable before the next: the model
file (written atomically), the new log holding its checkpoint (atomically
too), then the old snapshot and log are removed. Recovery takes the newest
log whose checkpoint is whole and whose snapshot exists, so a crash between
two steps leaves the older pair in use, still complete.
"""

import os
import re
import sys

from .._atomic import atomic_write
from .._params import check_params
from .._persistence import _estimator_class, _json_ready, load, save
from ._model import ServedModel
from ._wal import LogWriter, encode, read_log, sync_folder

_NAME = re.compile(r"(snapshot|log)-([0-9]{16})\.(npz|wal)")


def _snapshot_path(folder, seq):
    return os.path.join(folder, f"snapshot-{seq:016d}.npz")


def _log_path(folder, seq):
    return os.path.join(folder, f"log-{seq:016d}.wal")


def _is_fitted(estimator):
    return estimator._is_started() if hasattr(estimator, "_is_started") else True


class Store:
    """The state folder of a service: where its snapshots and log live.

    Use :meth:`open` to recover (or start) the served model; then
    :meth:`append` makes updates durable and :meth:`snapshot` takes a snapshot.
    """

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        self.snapshot_seq = None
        self.log = None

    def _files(self):
        found = {"snapshot": set(), "log": set()}
        for entry in os.listdir(self.folder):
            match = _NAME.fullmatch(entry)
            if match and (match[1] == "snapshot") == (match[3] == "npz"):
                found[match[1]].add(int(match[2]))
        return found

    def open(self, initial, window=100_000, frozen=False, say=None):
        """The served model: recovered from the folder if it holds a state, else ``initial()`` (a fresh start).

        ``initial`` is called only for a fresh start. ``say`` receives one
        line describing what was done.
        """
        say = say or (lambda text: print(text, file=sys.stderr))
        os.makedirs(self.folder, exist_ok=True)
        files = self._files()
        for seq in sorted(files["log"], reverse=True):
            records, valid = read_log(_log_path(self.folder, seq))
            if not records or records[0].get("op") != "checkpoint" or records[0].get("seq") != seq:
                continue
            checkpoint = records[0]
            if "estimator" in checkpoint:
                estimator = _unfitted(checkpoint["estimator"], _log_path(self.folder, seq))
            elif seq in files["snapshot"]:
                estimator = load(_snapshot_path(self.folder, seq))
            else:
                continue
            model = ServedModel(estimator, seq, window)
            model.restore_recent(checkpoint["window"])
            for record in records[1:]:
                model.replay(record)
            if frozen:
                model.freeze()
            self.snapshot_seq = seq
            self.log = LogWriter(_log_path(self.folder, seq), valid_length=valid)
            self._remove_others(files, seq)
            say(f"olearn serve: resumed from {self.folder}: snapshot of {seq} updates and {len(records) - 1} "
                f"logged update(s) replayed; {model.seq} updates in all")
            return model
        if files["log"] or files["snapshot"]:
            raise ValueError(f"{self.folder}: holds snapshot or log files but no usable log (a whole checkpoint "
                             "record and its snapshot); move them away to start afresh")
        model = ServedModel(initial(), 0, window, frozen)
        self._start_log(model)
        say(f"olearn serve: started a new state in {self.folder}")
        return model

    def _start_log(self, model):
        """Take a snapshot of ``model`` (the model file, then the log with its checkpoint) and log to it from now."""
        seq = model.seq
        checkpoint = {"op": "checkpoint", "seq": seq, "window": model.recent_entries()}
        if _is_fitted(model.estimator):
            save(model.estimator, _snapshot_path(self.folder, seq))
        else:
            est = model.estimator
            cls = type(est)
            checkpoint["estimator"] = {"class": f"{cls.__module__}:{cls.__qualname__}",
                                       "params": _json_ready(est.get_params(deep=False), cls.__name__)}
        with atomic_write(_log_path(self.folder, seq)) as fh:
            fh.write(encode(checkpoint))
        sync_folder(self.folder)
        if self.log is not None:
            self.log.close()
        self.log = LogWriter(_log_path(self.folder, seq))
        self.snapshot_seq = seq

    def _remove_others(self, files, keep):
        for kind, seqs in files.items():
            for seq in seqs:
                if seq != keep:
                    path = (_snapshot_path if kind == "snapshot" else _log_path)(self.folder, seq)
                    os.unlink(path)
        sync_folder(self.folder)

    def append(self, records):
        """Make the encoded ``records`` durable (one write, one fsync)."""
        self.log.append(records)

    def snapshot(self, model):
        """Snapshot ``model`` (all of whose updates are durable) and truncate the log; the snapshot's path or None."""
        if model.seq != self.snapshot_seq:
            files = self._files()
            self._start_log(model)
            self._remove_others(files, model.seq)
        return self.snapshot_path()

    def snapshot_path(self):
        """The path of the latest snapshot, or None when the model has learned nothing yet."""
        path = _snapshot_path(self.folder, self.snapshot_seq)
        return path if os.path.exists(path) else None

    def close(self):
        if self.log is not None:
            self.log.close()
            self.log = None


def _unfitted(spec, path):
    """The learner a checkpoint names by class and hyperparameters."""
    cls = _estimator_class(path, spec["class"])
    estimator = cls(**spec["params"])
    check_params(estimator, estimator._all_constraints())
    return estimator
