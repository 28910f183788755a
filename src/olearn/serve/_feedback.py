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
other features). Each is kept as the JSON text of its checkpoint entry,
written once: a checkpoint (and the log record of the ``/predict``) places
those texts as they are, and a label reads its features back from them, as a
replay does, so that a snapshot of many waiting predictions costs little more
than copying their bytes. The
ages are measured on the wall clock, which goes on while the service is
down: a restart drops the predictions that expired meanwhile.
Removing the expired ones is left to the live service (:meth:`Pending.expire`);
a replay keeps every prediction its records add, up to ``max_pending``, and
the service then expires them by the clock: the same ones as had it run on.
"""

import os
import time
from collections import OrderedDict
from operator import itemgetter

from ._requests import RequestError
from ._wal import RawJSON, RawJSONItems, json_bytes, json_bytes_each, json_value


def new_ids(n):
    """Ids for ``n`` predictions the caller did not name (random: 32 hexadecimal digits each, from one read of the
    system's random source)."""
    digits = os.urandom(16 * n).hex()
    return [digits[i:i + 32] for i in range(0, 32 * n, 32)]


class JSONTexts:
    """The features of examples as JSON texts already (``texts``, bytes), each decoding to one example's dict,
    which :meth:`Pending.add` keeps as they are."""

    __slots__ = ("texts",)

    def __init__(self, texts):
        self.texts = texts

    def __len__(self):
        return len(self.texts)


class Pending:
    """The predictions waiting for their label, oldest first, and the ids labelled recently."""

    def __init__(self, ttl=3600.0, max_pending=100_000, labelled_window=100_000):
        self.ttl = ttl
        self.max_pending = max_pending
        self.labelled_window = labelled_window
        # id -> (its checkpoint entry [id, x, time] as JSON, the wall-clock time of the prediction, bytes of x as JSON)
        self.waiting = OrderedDict()
        self.labelled = OrderedDict()  # id -> seq of the update that learned it
        self.bytes = 0

    @property
    def enabled(self):
        return self.max_pending > 0

    def __len__(self):
        return len(self.waiting)

    def expire(self, now=None):
        """Forget the predictions older than ``ttl`` seconds."""
        horizon = (time.time() if now is None else now) - self.ttl
        while self.waiting:
            key, (_, created, size) = next(iter(self.waiting.items()))
            if created >= horizon:
                break
            del self.waiting[key]
            self.bytes -= size

    def check_new(self, ids):
        """Refuse (409) ids that name a waiting or a labelled prediction, or that repeat within ``ids``."""
        distinct = set(ids)
        if len(distinct) == len(ids) and not any(map(self.waiting.__contains__, distinct)) \
                and not any(map(self.labelled.__contains__, distinct)):
            return  # at once, by lookups in C; else the id at fault is looked for, in order
        seen = set()
        for key in ids:
            if key in self.waiting or key in self.labelled or key in seen:
                raise RequestError(409, f"id {key!r} names a prediction already; an id names one prediction")
            seen.add(key)

    def add(self, ids, xs, created):
        """Keep the features ``xs`` of the predictions ``ids``, made at the time ``created``: dicts, or a
        :class:`JSONTexts` of them; the features as one :class:`~olearn.serve._wal.RawJSON` array, for the log
        record."""
        stamp = json_bytes(created)
        texts = xs.texts if type(xs) is JSONTexts else json_bytes_each(xs)
        waiting = self.waiting
        for key, key_text, text in zip(ids, json_bytes_each(ids), texts):
            if key in waiting:  # a replayed or restored id kept again: its place is the newest
                self._drop(key)
            size = len(text)
            waiting[key] = (b"".join((b"[", key_text, b",", text, b",", stamp, b"]")), created, size)
            self.bytes += size
        while len(self.waiting) > self.max_pending:
            self._drop(next(iter(self.waiting)))
        return RawJSON(b"[" + b",".join(texts) + b"]")

    def features(self, ids):
        """The features of the predictions ``ids``: 404 for an unknown or expired id, 409 for one labelled already."""
        seen = set()
        xs = []
        for key in ids:
            if key in self.labelled or key in seen:
                where = "by this request" if key in seen else f"by update {self.labelled[key]}"
                raise RequestError(409, f"id {key!r} was labelled already ({where}); a prediction is learned once")
            if key not in self.waiting:
                raise RequestError(404, f"id {key!r} names no waiting prediction: unknown, or expired (predictions "
                                        f"wait {self.ttl:g} s, and at most {self.max_pending} of them)")
            seen.add(key)
            xs.append(json_value(self.waiting[key][0])[1])  # the features as the log holds them
        return xs

    def learned(self, ids, seq):
        """The predictions ``ids`` are learned by the update ending at ``seq``: no longer waiting, and labelled."""
        for key in ids:
            self._drop(key)
            self.labelled[key] = seq
        while len(self.labelled) > self.labelled_window:
            self.labelled.popitem(last=False)

    def _drop(self, key):
        entry = self.waiting.pop(key, None)
        if entry is not None:
            self.bytes -= entry[2]

    def state(self):
        """The waiting predictions (their entries' JSON texts, placed as they are) and the labelled ids (``(id, seq)``
        pairs, written as arrays), oldest first, for a checkpoint: lists of references to immutable texts and
        pairs, taken at once (on the event loop: a pass in C over up to ``max_pending`` entries), and written
        later, in the snapshot's thread (:func:`~olearn.serve._wal.encode_in_slices`).

        Both are walked in the order of their dicts' own entries, which is their ordered dicts' (an entry is only
        ever added at the end or removed, never moved), without the ordered dict's lookup of each key: 7-8 ms for
        100,000 waiting predictions, against 19-24 ms (measured on a shared 2-core machine)."""
        return {"waiting": RawJSONItems([*map(itemgetter(0), dict.values(self.waiting))]),
                "labelled": [*dict.items(self.labelled)]}

    def restore(self, state):
        for key, x, created in state["waiting"]:
            self.add([key], [x], created)
        for key, seq in state["labelled"]:
            self.labelled[key] = seq
