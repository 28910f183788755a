"""Feedback by id: the features of recent predictions, kept until their label arrives (River's chantilly does so).

``/predict`` names each prediction with an id (the caller's, or one made
here) and keeps the features it predicted on; ``/learn`` with
``{"id": ..., "y": ...}`` then learns them, once. A prediction waits at most
``ttl`` seconds, and at most ``max_pending`` wait (the oldest goes first):
past that its id is unknown (404), as is an id never given. The ids labelled
are remembered (the last ``labelled_window``), so that a second label is
told apart (409) from an unknown id.

The waiting predictions are in the log and in each checkpoint, so that they
survive a restart. A ``/predict`` is answered once its features are kept, as
the writer applies them, before they are durable (a crash before the fsync
of their group loses them: their ids are then unknown, 404, and never learn
other features).

The predictions of one ``/predict`` are kept together, as one record of the
batch (:class:`_Kept`): the JSON texts of their features as one bytes object
(the request's body itself, for a batch read from its bytes) with each
example's span in it, and the time of each prediction. Those of a small
``/predict`` (fewer than :attr:`Pending.small`, the production loop's usual
one prediction) are added to the newest record while it is open, their texts
copied into it, so that 100,000 single predictions are about a hundred
records, not 100,000: a snapshot's work is per record (:meth:`Pending.state`
on the event loop, each entry's text in the snapshot's thread, which holds
the GIL meanwhile). A larger ``/predict``, or a snapshot, closes the open
record, so that the records stay in the order of their predictions and a
snapshot's records are never added to. Each waiting id points to its record
and its place there (one integer: the record's number and the place), so
that keeping a batch of 100 costs a few passes over the batch in C, not a
Python entry per prediction (an ordered dict's tuple, the entry's text
joined), and the oldest go first, by whole records then the first ones of
the next. A record is dropped once none of its predictions waits, and its
waiting texts are copied out of it (compacted) once fewer than half of them
wait, so that a record holds at most about twice the bytes of its waiting
features. An example's text is read out of its record only when a label
needs it (its features decoded from that text, as a replay decodes them from
the log). A checkpoint writes an entry ``[ids, xs, time]`` per record, or
``[ids, xs, times]`` with the time of each when they differ (in the
snapshot's thread: the features of a record all of whose predictions wait
are one view of its bytes), and reads back those of a checkpoint written
before, ``[ids, xs, time]`` per record and ``[id, x, time]`` per prediction,
too. A replay keeps the log's records (one per ``/predict``) by the same
:meth:`Pending.add`, so that small ones share records as they did live
(where a record ends may differ, a snapshot having closed it, never which
predictions wait, in which order, with which features and times). Each
prediction's age is its own, measured on the wall clock, which goes on
while the service is down: a restart drops the predictions that expired
meanwhile. Removing the expired ones is left to the live service
(:meth:`Pending.expire`); a replay keeps every prediction its records add,
up to ``max_pending``, and the service then expires them by the clock: the
same ones as had it run on.
"""

import os
import time
from array import array
from collections import OrderedDict
from itertools import accumulate, compress, islice

from ._requests import RequestError
from ._wal import RawJSON, RawJSONItems, json_bytes, json_bytes_each, json_value

# a waiting id's place: its record's number shifted by this many bits, plus its place in the record
_PLACE_BITS = 32
_PLACE_MASK = (1 << _PLACE_BITS) - 1


def new_ids(n):
    """Ids for ``n`` predictions the caller did not name (random: 32 hexadecimal digits each, from one read of the
    system's random source)."""
    digits = os.urandom(16 * n).hex()
    return [digits[i:i + 32] for i in range(0, 32 * n, 32)]


class JSONTexts:
    """The features of examples as JSON texts already, within one bytes object: example ``i``'s is
    ``text[starts[i]:ends[i]]`` (decoding to its dict), and ``array`` is a JSON array of them all (for the log
    record). :meth:`Pending.add` keeps them as they are."""

    __slots__ = ("text", "starts", "ends", "array")

    def __init__(self, text, starts, ends, array):
        self.text, self.starts, self.ends, self.array = text, starts, ends, array

    @classmethod
    def joined(cls, texts):
        """The texts ``texts`` (a list of bytes) joined into one JSON array, which holds them all."""
        array = b"[" + b",".join(texts) + b"]"
        ends = [*accumulate([len(text) + 1 for text in texts], initial=0)][1:]  # each text's end: after "[" or ","
        return cls(array, [end - len(text) for end, text in zip(ends, texts)], ends, array)

    def __len__(self):
        return len(self.starts)


class _Kept:
    """Predictions kept together: those of one ``/predict`` (or of a replayed record, or of a checkpoint's entry), or
    those of successive small ones (the open record, :meth:`Pending.add`). Their ids, which of them still wait
    (``waits``, 1 or 0 each), their features' texts (``text``, with each one's span ``starts[i]:ends[i]``), the
    wall-clock time each was made (``times``), how many still wait and the bytes of their features.

    Only the record itself is a container the cyclic garbage collector walks: its ids are a tuple of strings (which
    the collector stops tracking; a list while the record is open), the rest bytes and arrays of numbers, so that the
    collections of the young objects do not walk a list per prediction, nor one per record."""

    __slots__ = ("number", "ids", "waits", "text", "starts", "ends", "times", "live", "size")

    def __init__(self, number, ids, text, starts, ends, times):
        self.number, self.ids, self.text, self.starts, self.ends, self.times = number, ids, text, starts, ends, times
        self.waits = bytearray(b"\x01") * len(ids)
        self.live = len(ids)
        self.size = sum(ends) - sum(starts)

    @classmethod
    def whole(cls, number, ids, texts, times):
        """The record of the predictions ``ids`` alone: their texts where they are (the request's body, for a batch
        read from its bytes)."""
        return cls(number, tuple(ids), texts.text, array("q", texts.starts), array("q", texts.ends), times)

    @classmethod
    def opened(cls, number):
        """An open record, empty: :meth:`append` adds to it."""
        return cls(number, [], bytearray(), array("q"), array("q"), array("d"))

    def append(self, ids, texts, times):
        """Add the predictions ``ids`` at the end of this open record: their texts (and what separates them in
        ``texts``) copied in after a comma, so that the texts of all of them are the items of a JSON array; the bytes
        of their features."""
        if self.ids:
            self.text += b","
        shift = len(self.text) - texts.starts[0]
        self.text += memoryview(texts.text)[texts.starts[0]:texts.ends[-1]]
        self.starts.extend([start + shift for start in texts.starts])
        self.ends.extend([end + shift for end in texts.ends])
        self.ids += ids
        self.waits += bytearray(b"\x01") * len(ids)
        self.times += times
        self.live += len(ids)
        size = sum(texts.ends) - sum(texts.starts)
        self.size += size
        return size

    def feature_text(self, place):
        return self.text[self.starts[place]:self.ends[place]]

    def waiting_texts(self):
        """The texts of the features of the predictions still waiting, in order."""
        text, waits = self.text, self.waits
        return [text[start:end] for start, end in zip(compress(self.starts, waits), compress(self.ends, waits))]


class Pending:
    """The predictions waiting for their label, oldest first, and the ids labelled recently.

    A ``/predict`` of fewer than ``small`` predictions is kept in the open record, the newest, which holds at most
    ``open_predictions`` predictions and about ``open_bytes`` bytes of their texts; a larger one is a record of its own,
    which closes the open one (the order of the records is the order of the predictions), as does a snapshot
    (:meth:`state`). 16: from there a batch's own record (its body kept by reference) holds about the Python memory
    of its copy in the open record (451 bytes a prediction against 432, batches of 20 features, measured) and costs
    its keep less, and 100,000 waiting predictions are at most 6,250 such records; 1,024 predictions and 256 KiB:
    100,000 single predictions are about a hundred records, and an entry of one is at most a quarter of the slice a
    checkpoint is written by (:func:`~olearn.serve._wal.write_in_slices`)."""

    small = 16
    open_predictions = 1024
    open_bytes = 256 * 1024

    def __init__(self, ttl=3600.0, max_pending=100_000, labelled_window=100_000):
        self.ttl = ttl
        self.max_pending = max_pending
        self.labelled_window = labelled_window
        self.waiting = {}  # id -> its place (its record's number, shifted by _PLACE_BITS, plus its place there)
        self.kept = OrderedDict()  # number -> the _Kept record of predictions among which one waits, oldest first
        self.labelled = OrderedDict()  # id -> seq of the update that learned it
        self.bytes = 0
        self._numbered = 0  # the records numbered so far
        self._open = None  # the newest record, while small /predict's predictions are added to it

    @property
    def enabled(self):
        return self.max_pending > 0

    def __len__(self):
        return len(self.waiting)

    def expire(self, now=None):
        """Forget the predictions older than ``ttl`` seconds, oldest first, up to the first one that is not: each by
        its own time (those of one ``/predict`` were made at one time, those of an open record at theirs)."""
        horizon = (time.time() if now is None else now) - self.ttl
        while self.kept:
            kept = next(iter(self.kept.values()))
            times, waits = kept.times, kept.waits
            place = waits.find(1)
            if times[place] >= horizon:
                return
            if times[waits.rfind(1)] < horizon and max(times) < horizon:  # all of them at once (a batch's, of one
                # time); the newest first, so that the usual record, expiring from its front, is not walked
                self._forget(kept)
                continue
            expired = []
            while place >= 0 and times[place] < horizon:
                expired.append(place)
                place = waits.find(1, place + 1)
            if place < 0:
                self._forget(kept)
                continue
            for place in expired:
                del self.waiting[kept.ids[place]]
                self._clear(kept, place, compact=False)
            if 2 * kept.live < len(kept.ids):
                self._compact(kept)
            return

    def check_new(self, ids):
        """Refuse (409) ids that name a waiting or a labelled prediction, or that repeat within ``ids``."""
        distinct = set(ids)
        if len(distinct) == len(ids) and self.waiting.keys().isdisjoint(distinct) \
                and self.labelled.keys().isdisjoint(distinct):
            return  # at once, by lookups in C; else the id at fault is looked for, in order
        seen = set()
        for key in ids:
            if key in self.waiting or key in self.labelled or key in seen:
                raise RequestError(409, f"id {key!r} names a prediction already; an id names one prediction")
            seen.add(key)

    def add(self, ids, xs, created, checked=False):
        """Keep the features ``xs`` of the predictions ``ids``, made at the time ``created`` (or at the times of the
        list ``created``, one per id: a checkpoint's): dicts, or a :class:`JSONTexts` of them; the features as one
        :class:`~olearn.serve._wal.RawJSON` array, for the log record. Fewer than ``small`` predictions are added to
        the open record (see :class:`Pending`). An id waiting already (a replayed or restored one kept again) takes
        its new place, the newest; ``checked``: the ids were checked new (:meth:`check_new`: none waits), which is
        not looked up again."""
        texts = xs if type(xs) is JSONTexts else JSONTexts.joined(json_bytes_each(xs))
        if not ids:
            return RawJSON(texts.array)
        count = len(ids)
        times = array("d", created) if type(created) is list else array("d", (created,)) * count
        waiting = self.waiting
        if not checked and not waiting.keys().isdisjoint(ids):
            for key in ids:
                self._drop(key)
        if count >= self.small:
            kept = self._new(_Kept.whole(self._numbered, ids, texts, times))
            self._open, start = None, 0
            self.bytes += kept.size
        else:
            kept = self._open
            if kept is None or len(kept.ids) + count > self.open_predictions \
                    or len(kept.text) + texts.ends[-1] - texts.starts[0] > self.open_bytes:
                kept = self._open = self._new(_Kept.opened(self._numbered))
            start = len(kept.ids)
            self.bytes += kept.append(ids, texts, times)
        before = len(waiting)
        base = (kept.number << _PLACE_BITS) + start
        waiting.update(zip(ids, range(base, base + count)))
        if len(waiting) - before != count:  # an id repeated within ``ids``: its last place, as if kept one by one
            for key in ids:
                waiting.pop(key, None)
            for place, key in enumerate(ids, base):
                earlier = waiting.pop(key, None)
                if earlier is not None:
                    self._clear(kept, earlier & _PLACE_MASK, compact=False)
                waiting[key] = place
        self._evict()
        return RawJSON(texts.array)

    def _new(self, kept):
        """``kept``, numbered ``_numbered``, the newest record."""
        self.kept[kept.number] = kept
        self._numbered += 1
        return kept

    def features(self, ids):
        """The features of the predictions ``ids``: 404 for an unknown or expired id, 409 for one labelled already."""
        seen = set()
        xs = []
        for key in ids:
            if key in self.labelled or key in seen:
                where = "by this request" if key in seen else f"by update {self.labelled[key]}"
                raise RequestError(409, f"id {key!r} was labelled already ({where}); a prediction is learned once")
            place = self.waiting.get(key)
            if place is None:
                raise RequestError(404, f"id {key!r} names no waiting prediction: unknown, or expired (predictions "
                                        f"wait {self.ttl:g} s, and at most {self.max_pending} of them)")
            seen.add(key)
            kept = self.kept[place >> _PLACE_BITS]
            xs.append(json_value(kept.feature_text(place & _PLACE_MASK)))  # as a replay reads the log's
        return xs

    def learned(self, ids, seq):
        """The predictions ``ids`` are learned by the update ending at ``seq``: no longer waiting, and labelled."""
        for key in ids:
            self._drop(key)
            self.labelled[key] = seq
        while len(self.labelled) > self.labelled_window:
            self.labelled.popitem(last=False)

    def _drop(self, key):
        """The prediction ``key`` no longer waits (if it did)."""
        place = self.waiting.pop(key, None)
        if place is not None:
            self._clear(self.kept[place >> _PLACE_BITS], place & _PLACE_MASK)

    def _clear(self, kept, place, compact=True):
        """The prediction at ``place`` in ``kept`` no longer waits: the record is dropped once none does, and
        (``compact``) compacted once fewer than half do."""
        kept.waits[place] = 0
        size = kept.ends[place] - kept.starts[place]
        kept.size -= size
        self.bytes -= size
        kept.live -= 1
        if not kept.live:
            self._remove(kept)
        elif compact and 2 * kept.live < len(kept.ids):
            self._compact(kept)

    def _compact(self, kept):
        """Copy the texts of the predictions still waiting in ``kept`` out of it (its bytes, the request's body for
        a batch read from it, are released), and give them their new places; an open record is closed."""
        if kept is self._open:
            self._open = None
        texts = JSONTexts.joined(kept.waiting_texts())
        kept.ids = tuple(compress(kept.ids, kept.waits))
        kept.times = array("d", compress(kept.times, kept.waits))
        kept.waits = bytearray(b"\x01") * len(kept.ids)
        kept.text, kept.starts, kept.ends = texts.text, array("q", texts.starts), array("q", texts.ends)
        base = kept.number << _PLACE_BITS
        self.waiting.update(zip(kept.ids, range(base, base + len(kept.ids))))  # their order stays theirs

    def _forget(self, kept):
        """None of the predictions of ``kept`` waits any longer."""
        waiting = self.waiting
        for key in compress(kept.ids, kept.waits):
            del waiting[key]
        self.bytes -= kept.size
        self._remove(kept)

    def _remove(self, kept):
        del self.kept[kept.number]
        if kept is self._open:
            self._open = None

    def _evict(self):
        """Forget the oldest predictions past ``max_pending``: whole records, then the first ones of the next."""
        excess = len(self.waiting) - self.max_pending
        while excess > 0:
            kept = next(iter(self.kept.values()))
            if kept.live <= excess:
                excess -= kept.live
                self._forget(kept)
            else:
                for key in [*islice(compress(kept.ids, kept.waits), excess)]:  # not the whole open record's
                    self._drop(key)
                excess = 0

    def state(self):
        """The waiting predictions and the labelled ids, oldest first, for a checkpoint: the predictions as one
        entry ``[ids, xs, time]`` per record (the ids still waiting in it, their features, the time they were made,
        or a list of their times when they differ), written when the checkpoint is (in the snapshot's thread, a
        record's features as one slice of its bytes when all of them wait), and the labelled ids as ``(id, seq)``
        pairs, written as arrays. Taken at once, on the event loop: the open record is closed (its ids made a
        tuple), and a copy made of each record's ``waits`` (its other parts are never changed once it is closed,
        only replaced).

        The labelled ids are walked in the order of the dict's own entries, which is the ordered dict's (an entry
        is only ever added at the end or removed, never moved), without the ordered dict's lookup of each key."""
        if self._open is not None:
            self._open.ids = tuple(self._open.ids)
            self._open = None
        records = [(kept.times, kept.ids, bytes(kept.waits), kept.text, kept.starts, kept.ends,
                    kept.live == len(kept.ids)) for kept in self.kept.values()]
        return {"waiting": RawJSONItems(_Records(records)), "labelled": [*dict.items(self.labelled)]}

    def restore(self, state):
        """Take back the waiting predictions and the labelled ids of a checkpoint: its entries ``[ids, xs, time]``
        (``time`` a list of one time per id when they differ) each kept as :meth:`add` keeps a ``/predict``'s, or, in
        a checkpoint written before predictions were kept by record, its entries ``[id, x, time]``, each as a single
        prediction's."""
        for ids, xs, created in state["waiting"]:
            if type(ids) is list:
                self.add(ids, xs, created)
            else:
                self.add([ids], [xs], created)
        for key, seq in state["labelled"]:
            self.labelled[key] = seq


class _Records:
    """The checkpoint entries ``[ids, xs, time]`` (or ``[ids, xs, times]``) of the records of waiting predictions taken at once (``records``,
    as :meth:`Pending.state` takes them), written each time they are iterated: the pieces of a JSON text per
    record, joined where the array is written (:func:`~olearn.serve._wal.write_in_slices`)."""

    __slots__ = ("_records",)

    def __init__(self, records):
        self._records = records

    def __iter__(self):
        return map(_record_entry, self._records)


def _record_entry(record):
    """The pieces of the JSON text of a record's entry: its features one view of its bytes when all of them wait, its
    time one number when those of the waiting ones are equal, else their list."""
    times, ids, waits, text, starts, ends, all_wait = record
    if all_wait:
        xs = memoryview(text)[starts[0]:ends[-1]]  # the texts and what separates them (commas and whitespace)
    else:
        ids = [*compress(ids, waits)]
        xs = b",".join(map(text.__getitem__, map(slice, compress(starts, waits), compress(ends, waits))))
        times = array("d", compress(times, waits))
    created = times[0] if times.count(times[0]) == len(times) else times.tolist()
    return b"[", json_bytes(ids), b",[", xs, b"],", json_bytes(created), b"]"
