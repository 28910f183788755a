"""Group commit: one writer applies the updates in order, logs them with one fsync per group, then answers.

Requests queue their updates; the writer applies each to the model in turn
as it arrives (on the event loop's thread, so that a prediction never sees
half an update) and adds its record to the open group. A group is written to
the log and fsynced once (in a worker thread) as soon as the group before it
is durable, with every update applied by then, and only then are its
requests answered. Under load a group holds every update that arrived while
the one before was fsynced, so the cost of an fsync is shared, and a request
waits for the rest of one fsync and its own, not for a third: the learning,
the wait for the disk and the collection of the next group overlap, and the
log's writes stay in order (one group at a time, each after the one before
is durable).

Predictions made while a group is being fsynced see its updates already
(they are applied, not yet acknowledged); ``GET /model`` and the snapshots
see only acknowledged ones. A failure to log, or an error the learner should
never raise, stops the writer: the model in memory may then differ from the
log, and a restart recovers from the log. A snapshot that cannot be written
does not stop it: the log stays the durable record (it keeps growing), the
failure is reported (:meth:`Writer.snapshot_state`, on ``/health`` and
``/metrics``) and the snapshot is tried again ``snapshot_seconds`` later.

The features of predictions kept for feedback (``/predict`` with feedback
on) are logged in the groups too, and answered as soon as they are kept
(applied), before their group is durable: a label by id is acknowledged only
once its own group is, after every group before it, so that it never
outlives the features it names; a crash before they are durable leaves their
ids unknown (404). The prediction itself is made as its request arrives, on
the model as the updates applied so far left it (the writer applies each
update whole, without yielding). Kept predictions count towards a snapshot
as the examples learned do, but a snapshot writes every waiting prediction
in its checkpoint: it is due by count once the examples logged since the
last one reach ``snapshot_every`` and the predictions that one wrote, so
that the checkpoints of a service that mostly predicts write at most twice
the predictions its log does.

A snapshot does not hold the writer up: between two turns, the model is
copied (its estimator's arrays, the checkpoint's records; the open group's
records come before the copy, in the log in use), its files are written
from the copy in a thread of their own while the writer goes on applying
and logging to the log in use, and once they are written, between two
groups, the records logged since the copy are appended to the new log,
which takes over (:meth:`~olearn.serve._store.Store.switch_log`), by the
task that logs the groups: the writer goes on applying meanwhile (a kept
prediction is answered at once; an update waits for its group, logged
after the switch, to the new log). A version
taken and a rollback run between two groups, once the updates before them
are acknowledged and a snapshot being written is complete; a rollback is
logged, then snapshotted (see :mod:`._versions`).
"""

import asyncio
import concurrent.futures
import contextlib
import sys
import time

from ._model import ServedModel
from ._requests import RequestError
from ._store import SnapshotFailed
from ._wal import encode, encode_body

# examples applied per turn of the writer (at least one update), so that the event loop also serves predictions
# between turns under a heavy write load
_MAX_TURN = 1000
# the items of the queue that are applied in groups (one fsync each); the others run between groups
_UPDATES = ("update", "keep", "feedback")


class WriterStopped(Exception):
    """The writer stopped after an unexpected failure; the service must be restarted."""


class Writer:
    """The one writer of a service's model and log.

    Parameters
    ----------
    model : ServedModel
    store : Store
    metrics : Metrics
    snapshot_every : int
        Take a snapshot (and start a new log) after this many examples logged (see the module's docstring)...
    snapshot_seconds : float
        ... or this many seconds after the last one, whichever comes first.
    on_failure : callable
        Called with the exception when the writer stops.
    """

    def __init__(self, model, store, metrics, snapshot_every=10_000, snapshot_seconds=60.0, on_failure=None):
        self.model = model
        self.store = store
        self.metrics = metrics
        self.snapshot_every = snapshot_every
        self.snapshot_seconds = snapshot_seconds
        self.on_failure = on_failure
        self.failure = None
        self._queue = None
        self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="olearn-log")
        self._snapshot_thread = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                                      thread_name_prefix="olearn-snapshot")
        self._last_snapshot = time.monotonic()
        # examples logged (learned, or predicted and kept for feedback) since the last snapshot
        self._logged = model.seq - store.snapshot_seq
        self._checkpointed = len(model.pending)  # the predictions waiting at the last snapshot (its checkpoint's)
        self.snapshot_error = None  # why the last snapshot failed, until one succeeds
        self._task = None
        self._pending = []  # the items of the turn being applied
        self._records, self._answers = [], []  # the open group: its log records, its requests' futures and answers
        self._committing = None  # the task logging the groups in turn, while one is open or being logged
        self._alarm = None  # the timer that wakes the writer when a snapshot falls due by time
        # the snapshot being written meanwhile: (its ModelCopy, the task writing its files, whether it follows a
        # rollback, the examples logged before its copy since the last snapshot), until its log is in use
        self._snapshot = None
        self._since = None  # the records logged since its copy was taken, which its log holds after its checkpoint
        self._open_at_copy = None  # the open group when the copy was taken, and how many of its records came before

    def start(self):
        self._queue = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self):
        self._reset_alarm()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, WriterStopped):
                await self._task
        self._snapshot_thread.shutdown(wait=True)
        self._thread.shutdown(wait=True)
        self.store.close()

    async def update(self, op, examples, request_id, body=None):
        """Apply and log one update; its answer once it is durable (RequestError if refused). ``body`` is the
        request's body (bytes) the examples were read from, logged as received; None logs the examples."""
        return await self._submit(("update", op, examples, request_id, body))

    async def keep(self, xs, ids):
        """Keep the features ``xs`` of predictions for feedback under ``ids``; the ids once kept (their log record
        then on its way to the disk, see the module's docstring)."""
        return await self._submit(("keep", xs, ids))

    async def feedback(self, ids, ys, weights, batch):
        """Learn the labels of the waiting predictions ``ids``; the answer once it is durable."""
        return await self._submit(("feedback", ids, ys, weights, batch))

    async def take_version(self):
        """Take a version of the model (every update applied then acknowledged); its listing entry."""
        return await self._submit(("version",))

    async def roll_back(self, number):
        """Return to version ``number`` (logged, then snapshotted); the answer once it is durable."""
        return await self._submit(("rollback", number))

    async def acknowledged(self, func):
        """The result of ``func()``, called between two groups, when every update applied is acknowledged."""
        return await self._submit(("call", func))

    async def _submit(self, item):
        if self.failure is not None:
            raise WriterStopped(str(self.failure))
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((*item, future))
        return await future

    async def _run(self):
        try:
            while True:
                self._set_alarm()
                items = [await self._queue.get()]
                size = _examples(items[0])
                while size < _MAX_TURN and not self._queue.empty():
                    items.append(self._queue.get_nowait())
                    size += _examples(items[-1])
                self._pending = items
                if self.failure is not None:  # the log of a group before failed: nothing more is applied
                    raise WriterStopped(str(self.failure))
                for item in items:  # the updates join the open group; the others run once it is acknowledged
                    if item[0] in _UPDATES:
                        self._take(item)
                    elif item[0] == "wake":  # a turn, nothing more: it waits for no group
                        _answer(item[-1], None)
                    else:
                        await self._drain()
                        await self._control(item)
                self._pending = []
                if self._snapshot is None and self._snapshot_due():
                    self._begin_snapshot()
                self._start_commit()  # which puts a snapshot's log in use once its files are written
                if not self._queue.empty():  # a turn cut at _MAX_TURN: the requests and the log's answers run first
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            if self._committing is not None:
                self._committing.cancel()
            if self._snapshot is not None:
                self._snapshot[1].cancel()
            self._fail_waiting(WriterStopped("the service is shutting down"))
            raise
        except WriterStopped:
            self._fail_waiting(WriterStopped(str(self.failure)))
            raise
        except Exception as err:  # the model may differ from the log: stop writing
            self._stop_writing(err)
            raise WriterStopped(str(err)) from err

    def _stop_writing(self, err):
        """Stop after ``err`` (the model may differ from the log): every waiting request is answered 503."""
        if self.failure is not None:
            return
        self.failure = err
        self._fail_waiting(WriterStopped(f"the service stopped after an error: {type(err).__name__}: {err}"))
        if self.on_failure is not None:
            self.on_failure(err)

    async def _control(self, item):
        """Run an item other than an update, once the updates before it are acknowledged, and answer it."""
        kind, future = item[0], item[-1]
        if kind == "call":
            _answer(future, _outcome(item[1]))
        elif kind == "version":
            await self._finish_snapshot()  # its periodic version comes first, and this one links its file
            taken = await self._in_thread(_outcome, lambda: self.store.take_version(self.model, True))
            if isinstance(taken, OSError):
                taken = RequestError(507, f"the version cannot be written: {taken}")
            _answer(future, taken)
        else:
            _answer(future, await self._roll_back(item[1]))

    async def _roll_back(self, number):
        """Serve version ``number`` again: a rollback record in the log, then a snapshot, so that a restart
        replays nothing before it (a crash in between replays the record: the same version). A snapshot being
        written is completed first."""
        await self._finish_snapshot()
        loaded = await self._in_thread(_outcome, lambda: self.store.versions.load(number))
        if isinstance(loaded, RequestError):
            return loaded
        if isinstance(loaded, Exception):  # a version file damaged or removed: the model served stays
            return RequestError(500, f"version {number} cannot be loaded ({type(loaded).__name__}: {loaded}); the "
                                     "model served is unchanged")
        estimator, entry = loaded
        try:
            self.model.roll_back(estimator, entry)
        except RequestError as err:  # a version the service cannot serve: the model served stays
            return err
        self.store.versions.pinned.add(number)
        await self._in_thread(self.store.append, [encode({"op": "rollback", "version": number,
                                                          "seq": self.model.seq})])
        await self._take_snapshot(after_rollback=True)
        self.metrics.updates.set(self.model.seq)
        return {"version": number, "updates": entry["updates"], "seq": self.model.seq}

    async def _take_snapshot(self, after_rollback=False):
        """Snapshot the model and wait until its log is in use (see :meth:`_begin_snapshot`)."""
        self._begin_snapshot(after_rollback)
        await self._finish_snapshot()

    def _begin_snapshot(self, after_rollback=False):
        """Copy the model (between two requests' turns: every update applied, with the open group's records, comes
        before the copy, and is logged to the log in use) and write its snapshot's files in a thread of their own,
        while the writer goes on logging to the log in use; the records logged from now on are kept for the new
        log (:meth:`_end_snapshot`, once the files are written)."""
        copied = self.model.snapshot_copy()
        self._snapshot = (copied, asyncio.get_running_loop().create_task(self._write_snapshot(copied)),
                          after_rollback, self._logged)
        self._since = []
        self._open_at_copy = (self._records, len(self._records))  # the open group, and its records before the copy
        self._logged = 0
        self._last_snapshot = time.monotonic()
        self._reset_alarm()

    async def _write_snapshot(self, copied):
        """The partial log of the snapshot of ``copied``, or the SnapshotFailed that stopped it; wakes the writer
        up once written."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._snapshot_thread, _outcome, lambda: self.store.write_snapshot(copied))
        finally:
            self._wake()

    async def _finish_snapshot(self):
        """Wait until the snapshot being written (if any) is complete and its log in use, or failed (called once
        every update applied is acknowledged: the log's task then completes the snapshot, and ends)."""
        if self._snapshot is not None:
            await asyncio.wait([self._snapshot[1]])
            await self._drain()

    def _snapshot_ready(self):
        """Whether the log of the snapshot being written is to be put in use next: its files are written (or
        failed), and the open group holds no record taken before its copy. Such records (taken in the turn that
        copied the model, while a group before was being logged) are in the copy: they go to the log in use, with
        their group, before the new log takes over, which must not hold them again (its replay would learn them
        twice)."""
        if self._snapshot is None or not self._snapshot[1].done():
            return False
        group, held = self._open_at_copy
        return self._records is not group or not held

    async def _end_snapshot(self):
        """Complete the snapshot whose files are written, in the log's task between two groups (the records logged
        since its copy and not in the open group are then durable in the log in use): they are appended to its log,
        which becomes the log in use (:meth:`Store.switch_log`); take a version of it when it learned since the
        last one, unless it follows a rollback. On a failure, report it, keep the last snapshot and try again
        ``snapshot_seconds`` later. A snapshot at the seq of the last one (only predictions kept since, or a
        rollback) replaces it.

        The writer goes on applying meanwhile (a prediction's features are kept, and answered, while the new log
        is fsynced and takes its name): what it applies joins the open group, logged after the switch, to the log
        then in use, as any group after the one before; an update is still acknowledged only once its group is."""
        copied, task, after_rollback, logged_before = self._snapshot
        learned = copied.seq != self.store.snapshot_seq
        written = task.result()
        if not isinstance(written, SnapshotFailed):
            # the records since the copy, but for those of the open group (the last ones: not yet logged)
            durable = self._since[:len(self._since) - self._open_since_copy()]
            self._since = None  # the open group and those after go to the log in use after the switch
            try:
                written = await self._in_thread(self.store.switch_log, copied, written, durable)
            except SnapshotFailed as err:
                written = err
        self._snapshot, self._since, self._open_at_copy = None, None, None
        if isinstance(written, SnapshotFailed):
            if self.snapshot_error is None:
                print(f"olearn serve: warning: {written}; the log keeps every update, and the snapshot is tried "
                      f"again every {self.snapshot_seconds:g} s", file=sys.stderr, flush=True)
            self.snapshot_error = str(written)
            self.metrics.snapshot_failures.inc()
            self._logged += logged_before
        else:
            if self.snapshot_error is not None:
                print(f"olearn serve: the snapshot of {copied.seq} updates succeeded", file=sys.stderr, flush=True)
            self.snapshot_error = None
            self._checkpointed = copied.waiting
            if learned and not after_rollback:
                await self._take_periodic_version(copied)
        self.metrics.snapshot_updates.set(self.store.snapshot_seq)
        self._last_snapshot = time.monotonic()
        self._reset_alarm()
        self._wake()  # a turn of the writer sets the alarm of the next snapshot (and takes one already due)

    def _open_since_copy(self):
        """The records of the open group taken since the snapshot's copy (all of them, unless the group was open
        when the copy was taken: then those after the ones it held)."""
        group, held = self._open_at_copy
        return len(self._records) - (held if self._records is group else 0)

    def _set_alarm(self):
        """Wake the writer (an item that does nothing, queued) when a snapshot falls due by time, once per
        snapshot: a timed wait for every update would cost a task and a timer each."""
        until = self._until_snapshot()
        # none while a snapshot is being written: its thread wakes the writer up once it is
        if self._alarm is None and until is not None and self._snapshot is None:
            self._alarm = asyncio.get_running_loop().call_later(until, self._ring)

    def _ring(self):
        self._alarm = None
        self._wake()

    def _wake(self):
        """Queue an item that does nothing, so that the writer takes a turn (without waiting for the group being
        logged, nor for the snapshot's log taking over)."""
        self._queue.put_nowait(("wake", asyncio.get_running_loop().create_future()))

    def _reset_alarm(self):
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None

    async def _take_periodic_version(self, copied):
        """A version of the model ``copied`` for a periodic snapshot; one that cannot be written is reported and
        stops nothing."""
        try:
            await self._in_thread(self.store.take_version, copied, False)
        except OSError as err:
            print(f"olearn serve: warning: the version of {copied.seq} updates cannot be written ({err})",
                  file=sys.stderr, flush=True)

    def snapshot_state(self):
        """``{"ok": ..., "updates": ...}`` (the updates the last snapshot holds), with ``"error"`` while failing."""
        state = {"ok": self.snapshot_error is None, "updates": self.store.snapshot_seq}
        if self.snapshot_error is not None:
            state["error"] = self.snapshot_error
        return state

    def _until_snapshot(self):
        """Seconds until a snapshot is due by time; None (no limit) while the last one holds every update."""
        if not self._logged:
            return None
        return max(0.0, self._last_snapshot + self.snapshot_seconds - time.monotonic())

    def _snapshot_due(self):
        """Whether a snapshot is due by count (see the module's docstring) or by time; after a failure, only by
        time (the retry's delay)."""
        behind = self._logged
        by_count = behind >= max(self.snapshot_every, self._checkpointed) and self.snapshot_error is None
        return by_count or (behind > 0 and self._until_snapshot() == 0.0)

    def _apply(self, item):
        """Apply one update of the queue: its answer, its encoded log record (None for a duplicate), the examples
        that record logs and its progressive rounds (the predictions made before learning, with their labels)."""
        model = self.model
        if item[0] == "keep":
            _, xs, ids, _ = item
            return ids, encode(model.keep(ids, xs, time.time())), len(xs), ()
        if item[0] == "feedback":
            _, ids, ys, weights, batch, _ = item
            answer, record = model.feedback(ids, ys, weights, batch, time.time())
            return answer, encode(record), len(ids), _rounds(answer, ys, batch)
        _, op, examples, request_id, body, _ = item
        fingerprint = ServedModel.fingerprint(op, examples, request_id)
        answer = model.apply(op, examples, request_id, fingerprint)
        if answer.get("duplicate"):
            return answer, None, 0, ()
        if body is None:
            record = encode(ServedModel.record(op, examples, request_id, fingerprint, answer))
        else:
            record = encode_body(ServedModel.body_header(op, fingerprint, answer), body)
        return answer, record, len(examples), _rounds(answer, examples.ys, examples.batch) if op == "predict_learn" \
            else ()

    def _take(self, item):
        """Apply the update ``item`` and add it to the open group; a kept prediction is answered at once (see the
        module's docstring), the others once the group is durable."""
        try:
            outcome, record, examples, rounds = self._apply(item)
        except RequestError as err:
            outcome, record, examples, rounds = err, None, 0, ()
        if record is not None:
            self._records.append(record)
            if self._since is not None:
                self._since.append(record)
            self._logged += examples
        for guess, y in rounds:
            self.metrics.observe_round(guess, y)
        if item[0] == "keep":
            _answer(item[-1], outcome)
        else:
            self._answers.append((item[-1], outcome))

    def _start_commit(self):
        """Log the open group (and put a snapshot's log in use once its files are written), unless a group is being
        logged (the open one is logged next) or there is nothing to do."""
        if self._committing is None and (self._records or self._answers or self._snapshot_ready()) \
                and self.failure is None:
            self._committing = asyncio.get_running_loop().create_task(self._commit())

    async def _commit(self):
        """Log the open group with one fsync, then give its requests their answers; again while a group was opened
        meanwhile. Between two groups, put the log of a snapshot whose files are written in use. On a failure to
        log, stop the writer (the group's requests answered 503 with the others waiting)."""
        try:
            while self.failure is None:
                if self._snapshot_ready():
                    await self._end_snapshot()
                elif self._records or self._answers:
                    records, answers = self._records, self._answers
                    self._records, self._answers = [], []
                    await self._log_group(records, answers)
                else:
                    break
        except asyncio.CancelledError:
            raise
        except Exception as err:  # the log in use cannot be replaced nor kept (see Store.switch_log)
            self._stop_writing(err)
        finally:
            self._committing = None

    async def _log_group(self, records, answers):
        try:
            if records:
                await self._in_thread(self.store.append, records)
                self.metrics.groups.observe(len(records))
        except asyncio.CancelledError:
            for future, _ in answers:
                _answer(future, WriterStopped("the service is shutting down"))
            raise
        except Exception as err:
            for future, _ in answers:
                _answer(future, WriterStopped(f"the service stopped after an error: {type(err).__name__}: {err}"))
            self._stop_writing(err)
            return
        learned = 0
        for future, answer in answers:
            if isinstance(answer, dict) and "learned" in answer and not answer.get("duplicate"):
                learned += answer["learned"]
            _answer(future, answer)
        self.metrics.learned.inc(learned)  # once per group: a count costs a lock
        self.metrics.updates.set(self.model.seq)

    async def _drain(self):
        """Wait until every update applied is durable and answered (WriterStopped if a log failed)."""
        self._start_commit()
        if self._committing is not None:
            await self._committing
        if self.failure is not None:
            raise WriterStopped(str(self.failure))

    def _fail_waiting(self, err):
        for future, _ in self._answers:
            _answer(future, err)
        self._records, self._answers = [], []
        for item in self._pending:
            _answer(item[-1], err)
        while self._queue is not None and not self._queue.empty():
            _answer(self._queue.get_nowait()[-1], err)

    async def _in_thread(self, func, *args):
        return await asyncio.get_running_loop().run_in_executor(self._thread, func, *args)


def _outcome(func):
    """``func()``, or the exception it raised."""
    try:
        return func()
    except Exception as err:
        return err


def _examples(item):
    """The examples an item of the queue learns (0 for anything else: the predictions' features a keep logs cost
    no learning, so that all the keeps waiting share a group, and one fsync)."""
    if item[0] not in ("update", "feedback"):
        return 0
    return len(item[2] if item[0] == "update" else item[1])  # the examples of an update, else the ids


def _rounds(answer, labels, batch):
    """The progressive rounds of an update's ``answer``: its predictions (``"y"``, a list for a ``batch``) with
    their ``labels``."""
    return zip(answer["y"] if batch else [answer["y"]], labels)


def _answer(future, result):
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
