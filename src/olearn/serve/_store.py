"""The state folder: snapshots of the model and the write-ahead log that follows each.

Files, for ``S`` the number of examples learned when the snapshot was taken
(16 digits, so that names sort as numbers):

``snapshot-S.npz``
    the model after S updates, a file written by the estimator's ``save``
    (absent for S = 0 when the service started from a learner that had learned nothing);
``log-S.wal``
    a :mod:`~olearn.serve._wal` log: first a checkpoint record (S, the recent
    update ids, the service's feature keys, the predictions waiting for
    feedback and the labelled ids, the progressive metric, the version last
    rolled back to, the input entry its model files record and, without a
    snapshot, the learner's class and hyperparameters), then the updates
    S+1, S+2, ... up to the next snapshot (or the last update), in the order
    they were learned, with the predictions kept for feedback and the
    rollbacks among them;
``version-N.npz``, ``versions.json``
    the numbered versions of the model (:mod:`~olearn.serve._versions`);
``lock``
    the :mod:`~olearn.serve._lock` of the service using the folder, taken before anything else is read.

A snapshot is taken in three steps, each durable before the next: the model
file (written atomically), the new log holding its checkpoint (atomically
too), then the pairs older than the last ``keep`` are removed. The service
writes the first two from a copy of the model while it learns on
(:meth:`Store.write_snapshot`, the log under a partial name, which recovery
removes), logging to the log in use; between two groups, the records logged
since the copy are appended to the new log, which then takes its name and
the log in use (:meth:`Store.switch_log`). Each kept log
continues the one before it, so the state can be rebuilt from any kept
snapshot: recovery takes the newest snapshot whose log's checkpoint is whole
and replays that log and every later one. A crash between two steps leaves
the older pair in use, still complete; a snapshot that cannot be loaded (a
damaged or missing file) is reported, and the one before it is used instead,
with a longer replay. A snapshot that cannot be written raises
:class:`SnapshotFailed` and leaves the folder as it was: the service keeps
logging to the current log.

A rollback is a record of the log (replayed: the version's learner is served
again), followed by a snapshot of the rolled-back model (at the same S when
nothing was learned since the last one: its files are then replaced, each
atomically), so that a restart replays nothing learned before it: those
updates stay in the older logs as history.
"""

import contextlib
import datetime
import os
import re
import shutil
import sys
import time

from .._persistence import load, save
from ..exceptions import OlearnError
from ..kernel._hyperparameters import with_drawn_seed
from ._lock import FolderLock
from ._model import ServedModel, feature_keys_for
from ._versions import Versions, is_started, learner_spec, unfitted_learner
from ._wal import LogDamaged, LogWriter, read_checkpoint, read_log, sync_folder, write_in_slices

_NAME = re.compile(r"(snapshot|log)-([0-9]{16})\.(npz|wal)")
# the log of a snapshot being written (see Store.write_snapshot): left only by a service stopped meanwhile
_PARTIAL = re.compile(r"\.log-[0-9]{16}\.wal\.partial")


class SnapshotFailed(OlearnError):
    """A snapshot could not be written; the folder and the log in use are as they were."""


def _snapshot_path(folder, seq):
    return os.path.join(folder, f"snapshot-{seq:016d}.npz")


def _log_path(folder, seq):
    return os.path.join(folder, f"log-{seq:016d}.wal")


def _partial_log_path(folder, seq):
    return os.path.join(folder, f".log-{seq:016d}.wal.partial")


class Store:
    """The state folder of a service: where its snapshots and log live.

    Use :meth:`open` to lock the folder and recover (or start) the served
    model; then :meth:`append` makes updates durable and :meth:`snapshot`
    takes a snapshot. ``keep`` snapshots (with their logs) are kept; with
    ``recover_log``, a damaged log is copied aside and cut at the damage
    instead of refused.
    """

    def __init__(self, folder, keep=3, recover_log=False, keep_versions=20):
        self.folder = os.path.abspath(folder)
        self.keep = keep
        self.keep_versions = keep_versions
        self.versions = None  # the Versions of the folder, once it is locked
        self.recover_log = recover_log
        self.snapshot_seq = None
        self.log = None
        self.resumed = False  # whether open found a state to resume
        self._snapshot_of = None  # (seq, rollbacks) of the model the last snapshot written holds
        self._lock = None
        self._say = None

    def lock(self):
        """Take the folder's lock (created if missing), unless this store holds it already."""
        if self._lock is None:
            self._lock = FolderLock(self.folder)
            self.versions = Versions(self.folder, self.keep_versions)

    def _files(self):
        found = {"snapshot": set(), "log": set()}
        for entry in os.listdir(self.folder):
            match = _NAME.fullmatch(entry)
            if match and (match[1] == "snapshot") == (match[3] == "npz"):
                found[match[1]].add(int(match[2]))
        return found

    def open(self, initial, window=100_000, frozen=False, say=None, feature_keys=None, pending=None, input_info=None):
        """The served model: recovered from the folder if it holds a state, else ``initial()`` (a fresh start).

        ``initial`` is called only for a fresh start; a learner it returns
        that has learned nothing and would seed a random budget from fresh
        entropy gets a seed drawn now (:func:`~olearn.kernel._hyperparameters.with_drawn_seed`),
        recorded with its hyperparameters in the log's checkpoint: a replay
        draws what it drew. ``say`` receives the
        lines describing what was done (one, and a warning for each snapshot
        that could not be used). ``feature_keys`` ("names", "indices" or None
        for the default of :func:`~olearn.serve._model.feature_keys_for`) are
        those of a fresh start; a state keeps those it was started with (and
        refuses others, ValueError), and a state of before they were kept
        gets them and a snapshot recording them. ``pending`` (a
        :class:`~olearn.serve._feedback.Pending`, empty) keeps the predictions
        waiting for feedback; those of the state are restored into it.
        ``input_info``, the metadata ``input`` entry of the model file that
        ``initial`` reads (None: none), is kept with a fresh start's state
        (:attr:`ServedModel.input_info`); a state keeps its own, and a state
        of before it was kept takes ``input_info`` and a snapshot recording it
        (the command line then read the K of ``--oaa K`` from MODEL at every
        start).
        """
        self._say = say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.lock()
        try:
            return self._recover(initial, window, frozen, say, feature_keys, pending, input_info)
        except BaseException:
            self.close()  # nothing is served from the folder: free it
            raise

    def _recover(self, initial, window, frozen, say, feature_keys, pending, input_info):
        for entry in os.listdir(self.folder):
            if _PARTIAL.fullmatch(entry):
                os.unlink(os.path.join(self.folder, entry))
        files = self._files()
        checkpoints = {}
        for seq in files["log"]:
            checkpoint = read_checkpoint(_log_path(self.folder, seq))
            if checkpoint is not None and checkpoint.get("op") == "checkpoint" and checkpoint.get("seq") == seq:
                checkpoints[seq] = checkpoint
            else:
                self._read(_log_path(self.folder, seq))  # a torn checkpoint, unless valid records follow it
        bases = sorted(checkpoints, reverse=True)
        unusable = []
        for seq in bases:
            try:
                estimator = self._base_estimator(seq, checkpoints[seq], seq in files["snapshot"])
            except Exception as err:  # whatever stops a snapshot from loading: use the one before it
                unusable.append(f"{os.path.basename(_snapshot_path(self.folder, seq))} ({type(err).__name__}: "
                                f"{err})")
                continue
            for text in unusable:
                say(f"olearn serve: warning: snapshot {text} cannot be used; recovering from the snapshot of "
                    f"{seq} updates and the logs after it instead")
            started = time.perf_counter()
            model = self._replay(estimator, seq, checkpoints, [s for s in bases if s >= seq], window, pending)
            replay_seconds = time.perf_counter() - started
            self._keep_feature_keys(model, checkpoints[bases[0]].get("feature_keys"), feature_keys)
            self._keep_input_info(model, checkpoints[bases[0]].get("input"), input_info)  # its snapshot: the keys too
            if frozen:
                model.freeze()
            self._remove(lambda kind, s: s not in checkpoints, files)  # torn logs, snapshots without a log
            self._prune(oldest_needed=seq)
            self.resumed = True
            say(f"olearn serve: resumed from {self.folder}: snapshot of {seq} updates and "
                f"{model.seq - seq} logged update(s) replayed in {replay_seconds:.2f} s; {model.seq} updates in all")
            return model
        if unusable:
            raise ValueError(f"{self.folder}: no snapshot can be used: " + "; ".join(unusable))
        if files["log"] or files["snapshot"]:
            raise ValueError(f"{self.folder}: holds snapshot or log files but no usable log (a whole checkpoint "
                             "record and its snapshot); move them away to start afresh")
        estimator = initial()
        if not is_started(estimator):
            with_drawn_seed(estimator)
        model = ServedModel(estimator, 0, window, frozen, feature_keys, pending)
        model.input_info = dict(input_info or {})
        self._start_log(model)
        say(f"olearn serve: started a new state in {self.folder}")
        return model

    def _base_estimator(self, seq, checkpoint, has_snapshot):
        """The learner a snapshot (or, without one, the checkpoint) holds."""
        if "estimator" in checkpoint:
            return unfitted_learner(checkpoint["estimator"], _log_path(self.folder, seq))
        if not has_snapshot:
            raise FileNotFoundError("the file is missing")
        return load(_snapshot_path(self.folder, seq))

    def _replay(self, estimator, seq, checkpoints, chain, window, pending):
        """The model ``estimator`` (after ``seq`` updates) makes once the logs ``chain`` (in order) are replayed,
        each with the feature keys of its checkpoint; a rollback record returns to its version."""
        model = ServedModel(estimator, seq, window, pending=pending)
        model.restore_checkpoint(checkpoints[seq])
        for start in sorted(chain):
            path = _log_path(self.folder, start)
            if model.seq != start:
                raise ValueError(f"{path}: starts after update {start}, but the logs before it end at update "
                                 f"{model.seq}: the state folder is inconsistent")
            records, valid = self._read(path)
            for record in records[1:]:
                if record["op"] == "rollback":
                    self.versions.pinned.add(record["version"])
                    model.roll_back(*self.versions.load(record["version"]))
                else:
                    model.replay(record, checkpoints[start].get("feature_keys"))
        self.snapshot_seq = max(chain)
        self.log = LogWriter(_log_path(self.folder, self.snapshot_seq), valid_length=valid)
        return model

    def _keep_input_info(self, model, kept, given):
        """Serve the recovered ``model`` with the input entry ``kept`` by the newest log, or, for a state of before
        it was kept (``kept`` None), with ``given`` (MODEL's), then snapshot it so that it is kept from now on."""
        if kept is not None:
            model.input_info = kept
            return
        model.input_info = dict(given or {})
        if model.input_info:
            self._start_log(model)

    def _keep_feature_keys(self, model, kept, asked):
        """Serve the recovered ``model`` with the feature keys ``kept`` by the newest log (refusing others
        ``asked``), or, for a state of before they were kept, with those ``asked`` or its default, then snapshot
        it so that they are kept from now on."""
        if kept is None:
            model.feature_keys = feature_keys_for(model.estimator, asked)
            self._start_log(model)
        elif asked not in (None, kept):
            raise ValueError(f"{self.folder}: this state reads feature keys as {kept} (chosen when it started); "
                             f"--feature-keys {asked} would read its keys otherwise: omit the option, or move the "
                             "folder away to start afresh")
        else:
            model.feature_keys = kept

    def _read(self, path):
        """The records of a log and the bytes they take; a damaged log is refused, or cut with ``recover_log``."""
        try:
            return read_log(path)
        except LogDamaged as err:
            if not self.recover_log:
                raise LogDamaged(path, err.record, err.offset, err.following,
                                 advice="nothing was changed. Restore the state folder from a backup, or start "
                                        f"with --recover-log to keep a copy of the log and drop record {err.record} "
                                        f"and the {err.following} after it") from None
            stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")
            copy = f"{path}.damaged-{stamp}"
            shutil.copyfile(path, copy)
            with open(copy, "rb+") as fh:
                os.fsync(fh.fileno())
            with open(path, "rb+") as fh:
                fh.truncate(err.offset)
                os.fsync(fh.fileno())
            sync_folder(self.folder)
            self._say(f"olearn serve: warning: {err}; the log was copied to {copy} and cut at byte {err.offset}: "
                      f"record {err.record} and the {err.following} valid record(s) after it are dropped")
            return read_log(path)

    def _start_log(self, model):
        """Take a snapshot of ``model`` (the model file, then the log with its checkpoint) and log to it from now.

        Raises SnapshotFailed, leaving the log in use as it was, if either file cannot be written.
        """
        copied = model.snapshot_copy()
        self.switch_log(copied, self.write_snapshot(copied), [])

    def write_snapshot(self, copied):
        """Write the files of the snapshot of ``copied`` (a :class:`~olearn.serve._model.ModelCopy`): the model
        file, then its log's checkpoint, fsynced under a partial name that recovery ignores (and removes); the
        partial log's path, for :meth:`switch_log`. Written while the service logs on to the log in use.

        Raises SnapshotFailed, leaving the folder's snapshots and logs as they were, if either cannot be written.
        """
        seq, checkpoint = copied.seq, copied.checkpoint
        partial = _partial_log_path(self.folder, seq)
        try:
            if is_started(copied.estimator):
                save(copied.estimator, _snapshot_path(self.folder, seq), copied.input_info or None)
            else:
                checkpoint = {**checkpoint, "estimator": learner_spec(copied.estimator)}
                with contextlib.suppress(FileNotFoundError):  # a rollback to a version that learned nothing
                    os.unlink(_snapshot_path(self.folder, seq))
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
            try:
                write_in_slices(fd, checkpoint)
                os.fsync(fd)
            finally:
                os.close(fd)
        except Exception as err:
            self.discard(partial)
            raise SnapshotFailed(f"the snapshot of {seq} updates cannot be written: {type(err).__name__}: {err}") \
                from err
        return partial

    def discard(self, partial):
        """Remove the partial log of a snapshot that is not to be used."""
        with contextlib.suppress(OSError):
            os.unlink(partial)

    def switch_log(self, copied, partial, since):
        """Complete the snapshot of ``copied`` whose files :meth:`write_snapshot` wrote (``partial``, its log) and
        log to it from now: ``since``, the encoded records logged (and durable) after the copy was taken, are
        appended to its log after the checkpoint and fsynced, then the log takes its name (atomically: a crash
        before recovers from the log in use, which holds the same records) and the log in use. Run by the thread
        that appends to the log, between two groups.

        Raises SnapshotFailed, leaving the log in use as it was, if the log cannot be completed.
        """
        seq = copied.seq
        path = _log_path(self.folder, seq)
        try:
            if since:
                log = LogWriter(partial)
                try:
                    log.append(since)
                finally:
                    log.close()
            os.replace(partial, path)
        except OSError as err:
            self.discard(partial)
            raise SnapshotFailed(f"the log after the snapshot of {seq} updates cannot be written: {err}") from err
        try:
            sync_folder(self.folder)
            log = LogWriter(path)
        except OSError as err:
            if seq == self.snapshot_seq:
                # the new log replaced the one in use, whose file is gone: nothing more can be logged. It holds
                # the whole state, as the snapshot does: a restart recovers from them (the writer stops)
                raise
            # the new log must not outlive this failure: a restart would take it and skip the current log
            os.unlink(path)
            sync_folder(self.folder)
            raise SnapshotFailed(f"the log after the snapshot of {seq} updates cannot be opened: {err}") from err
        if self.log is not None:
            self.log.close()
        self.log = log
        self.snapshot_seq = seq
        self.versions.pinned.clear()  # the log in use holds no rollback record now
        self._snapshot_of = (seq, copied.rollbacks)
        try:
            self._prune(oldest_needed=seq)
        except OSError as err:  # the snapshot is taken: older files left behind are no loss
            self._say(f"olearn serve: warning: the snapshots before the last {self.keep} cannot be removed "
                      f"({err})")

    def _prune(self, oldest_needed):
        """Remove the snapshots and logs older than the last ``keep`` and than ``oldest_needed``."""
        files = self._files()
        kept = set(sorted(files["log"], reverse=True)[:self.keep]) | {s for s in files["log"] if s >= oldest_needed}
        self._remove(lambda kind, seq: seq not in kept, files)

    def _remove(self, unwanted, files):
        """Remove the files ``unwanted(kind, seq)`` names; one that cannot be removed is reported and left."""
        for kind, seqs in files.items():
            for seq in sorted(seqs):
                if not unwanted(kind, seq):
                    continue
                path = (_snapshot_path if kind == "snapshot" else _log_path)(self.folder, seq)
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    continue  # removed already: nothing left to do
                except OSError as err:
                    self._say(f"olearn serve: warning: {path} cannot be removed ({err.strerror}); it is left")
        sync_folder(self.folder)

    def append(self, records):
        """Make the encoded ``records`` durable (one write, one fsync)."""
        self.log.append(records)

    def snapshot(self, model):
        """Snapshot ``model`` (all of whose updates are durable). At the seq of the last snapshot (nothing learned
        since: predictions kept for feedback, or a rollback) the snapshot and log of that seq are replaced, each
        atomically: a crash between the two replays the old log's records onto the new snapshot, to the same state.

        Raises SnapshotFailed if it cannot be written; the log in use is then kept.
        """
        self._start_log(model)

    def take_version(self, model, requested):
        """Take a version of ``model`` (all of whose updates are durable); its listing entry. A version at the
        seq of the last snapshot links its file."""
        path = _snapshot_path(self.folder, model.seq)
        snapshot = path if self._snapshot_of == (model.seq, model.rollbacks) and os.path.exists(path) else None
        return self.versions.add(model, requested, snapshot)

    def close(self):
        if self.log is not None:
            self.log.close()
            self.log = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

