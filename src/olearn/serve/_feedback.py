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
example's span in it, and the time of the prediction. Each waiting id points
to its record and its place there (one integer: the record's number and the
place), so that keeping a batch of 100 costs a few passes over the batch in
C, not a Python entry per prediction (an ordered dict's tuple, the entry's
text joined), and the oldest go first by whole records. A record is dropped
once none of its predictions waits, and its waiting texts are copied out of
it (compacted) once fewer than half of them wait, so that a record holds at
most about twice the bytes of its waiting features. An example's text is
read out of its record only when a label needs it (its features decoded from
that text, as a replay decodes them from the log). A checkpoint writes an
entry ``[ids, xs, time]`` per record (in the snapshot's thread: the features
of a record all of whose predictions wait are one view of its bytes), and
reads back those of a checkpoint written before, ``[id, x, time]`` per
prediction, too. The ages are measured on the wall clock, which goes on
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
from itertools import accumulate, compress, groupby
from operator import itemgetter

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
    """The predictions of one ``/predict`` (or of a replayed record, or of a checkpoint's entry): their ids, which of
    them still wait (``waits``, 1 or 0 each), their features' texts (:class:`JSONTexts`' ``text``, ``starts`` and
    ``ends``), the wall-clock time they were made, how many still wait and the bytes of their features.

    Only the record itself is a container the cyclic garbage collector walks: its ids are a tuple of strings (which
    the collector stops tracking), the rest bytes and arrays of integers, so that the collections of the young
    objects do not walk a list per prediction, nor one per record."""

    __slots__ = ("number", "ids", "waits", "text", "starts", "ends", "created", "live", "size")

    def __init__(self, number, ids, texts, created):
        self.number, self.ids, self.created = number, ids, created
        self.waits = bytearray(b"\x01") * len(ids)
        self.text, self.starts, self.ends = texts.text, array("q", texts.starts), array("q", texts.ends)
        self.live = len(ids)
        self.size = sum(self.ends) - sum(self.starts)

    def feature_text(self, place):
        return self.text[self.starts[place]:self.ends[place]]

    def waiting_texts(self):
        """The texts of the features of the predictions still waiting, in order."""
        text, waits = self.text, self.waits
        return [text[start:end] for start, end in zip(compress(self.starts, waits), compress(self.ends, waits))]


class Pending:
    """The predictions waiting for their label, oldest first, and the ids labelled recently."""

    def __init__(self, ttl=3600.0, max_pending=100_000, labelled_window=100_000):
        self.ttl = ttl
        self.max_pending = max_pending
        self.labelled_window = labelled_window
        self.waiting = {}  # id -> its place (its record's number, shifted by _PLACE_BITS, plus its place there)
        self.kept = OrderedDict()  # number -> the _Kept record of predictions among which one waits, oldest first
        self.labelled = OrderedDict()  # id -> seq of the update that learned it
        self.bytes = 0
        self._numbered = 0  # the records numbered so far

    @property
    def enabled(self):
        return self.max_pending > 0

    def __len__(self):
        return len(self.waiting)

    def expire(self, now=None):
        """Forget the predictions older than ``ttl`` seconds (those of one record were made at one time)."""
        horizon = (time.time() if now is None else now) - self.ttl
        while self.kept:
            kept = next(iter(self.kept.values()))
            if kept.created >= horizon:
                break
            self._forget(kept)

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
        """Keep the features ``xs`` of the predictions ``ids``, made at the time ``created``: dicts, or a
        :class:`JSONTexts` of them; the features as one :class:`~olearn.serve._wal.RawJSON` array, for the log
        record. An id waiting already (a replayed or restored one kept again) takes its new place, the newest;
        ``checked``: the ids were checked new (:meth:`check_new`: none waits), which is not looked up again."""
        texts = xs if type(xs) is JSONTexts else JSONTexts.joined(json_bytes_each(xs))
        if not ids:
            return RawJSON(texts.array)
        ids = tuple(ids)
        waiting = self.waiting
        if not checked and not waiting.keys().isdisjoint(ids):
            for key in ids:
                self._drop(key)
        number = self._numbered
        self._numbered += 1
        kept = self.kept[number] = _Kept(number, ids, texts, created)
        self.bytes += kept.size
        before = len(waiting)
        base = number << _PLACE_BITS
        waiting.update(zip(ids, range(base, base + len(ids))))
        if len(waiting) - before != len(ids):  # an id repeated within ``ids``: its last place, as if kept one by one
            for key in ids:
                waiting.pop(key, None)
            for place, key in enumerate(ids):
                earlier = waiting.pop(key, None)
                if earlier is not None:
                    self._clear(kept, earlier & _PLACE_MASK, compact=False)
                waiting[key] = base + place
        self._evict()
        return RawJSON(texts.array)

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
            del self.kept[kept.number]
        elif compact and 2 * kept.live < len(kept.ids):
            self._compact(kept)

    def _compact(self, kept):
        """Copy the texts of the predictions still waiting in ``kept`` out of it (its bytes, the request's body for
        a batch read from it, are released), and give them their new places."""
        texts = JSONTexts.joined(kept.waiting_texts())
        kept.ids = tuple(compress(kept.ids, kept.waits))
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
        del self.kept[kept.number]

    def _evict(self):
        """Forget the oldest predictions past ``max_pending``: whole records, then the first ones of the next."""
        excess = len(self.waiting) - self.max_pending
        while excess > 0:
            kept = next(iter(self.kept.values()))
            if kept.live <= excess:
                excess -= kept.live
                self._forget(kept)
            else:
                for key in [*compress(kept.ids, kept.waits)][:excess]:
                    self._drop(key)
                excess = 0

    def state(self):
        """The waiting predictions and the labelled ids, oldest first, for a checkpoint: the predictions as one
        entry ``[ids, xs, time]`` per record (the ids still waiting in it, their features, the time they were made),
        written when the checkpoint is (in the snapshot's thread, a record's features as one slice of its bytes
        when all of them wait), and the labelled ids as ``(id, seq)`` pairs, written as arrays. Taken at once, on
        the event loop: a copy of each record's ``waits`` (its other parts are never changed, only replaced).

        The labelled ids are walked in the order of the dict's own entries, which is the ordered dict's (an entry
        is only ever added at the end or removed, never moved), without the ordered dict's lookup of each key."""
        records = [(kept.created, kept.ids, bytes(kept.waits), kept.text, kept.starts, kept.ends,
                    kept.live == len(kept.ids)) for kept in self.kept.values()]
        return {"waiting": RawJSONItems(_Records(records)), "labelled": [*dict.items(self.labelled)]}

    def restore(self, state):
        """Take back the waiting predictions and the labelled ids of a checkpoint: its entries ``[ids, xs, time]``
        each kept as one record, or, in a checkpoint written before predictions were kept by record, its entries
        ``[id, x, time]``, those of one time as one record."""
        for created, entries in groupby(state["waiting"], key=itemgetter(2)):
            ids, xs = [], []
            for key, x, _ in entries:
                if type(key) is list:
                    ids += key
                    xs += x
                else:
                    ids.append(key)
                    xs.append(x)
            self.add(ids, xs, created)
        for key, seq in state["labelled"]:
            self.labelled[key] = seq


class _Records:
    """The checkpoint entries ``[ids, xs, time]`` of the records of waiting predictions taken at once (``records``,
    as :meth:`Pending.state` takes them), written each time they are iterated: the pieces of a JSON text per
    record, joined where the array is written (:func:`~olearn.serve._wal.write_in_slices`)."""

    __slots__ = ("_records",)

    def __init__(self, records):
        self._records = records

    def __iter__(self):
        return map(_record_entry, self._records)


def _record_entry(record):
    """The pieces of the JSON text of a record's entry: its features one view of its bytes when all of them wait."""
    created, ids, waits, text, starts, ends, all_wait = record
    if all_wait:
        xs = memoryview(text)[starts[0]:ends[-1]]  # the texts and what separates them (commas and whitespace)
    else:
        ids = [*compress(ids, waits)]
        xs = b",".join(map(text.__getitem__, map(slice, compress(starts, waits), compress(ends, waits))))
    return b"[", json_bytes(ids), b",[", xs, b"],", json_bytes(created), b"]"
