"""Feedback by id: the features of recent predictions, kept until their label arrives (River's chantilly does so).

``/predict`` names each prediction with an id (the caller's, or one made
here) and keeps the features it predicted on; ``/learn`` with
``{"id": ..., "y": ...}`` then learns them, once. A prediction waits at most
``ttl`` seconds, and at most ``max_pending`` wait (the oldest goes first):
past that its id is unknown (404), as is an id never given. The ids labelled
are remembered (the last ``labelled_window``), so that a second label is
told apart (409) from an unknown id.

The waiting predictions are in the log (each ``/predict`` is logged before
it is answered) and in each checkpoint, so that they survive a restart. The
ages are measured on the wall clock, which goes on while the service is
down: a restart drops the predictions that expired meanwhile.
Removing the expired ones is left to the live service (:meth:`Pending.expire`);
a replay keeps every prediction its records add, up to ``max_pending``, and
the service then expires them by the clock: the same ones as had it run on.
"""

import os
import time
from collections import OrderedDict

from ._requests import RequestError
from ._wal import json_bytes


def new_ids(n):
    """Ids for ``n`` predictions the caller did not name (random: 32 hexadecimal digits each, from one read of the
    system's random source)."""
    digits = os.urandom(16 * n).hex()
    return [digits[i:i + 32] for i in range(0, 32 * n, 32)]


class Pending:
    """The predictions waiting for their label, oldest first, and the ids labelled recently."""

    def __init__(self, ttl=3600.0, max_pending=100_000, labelled_window=100_000):
        self.ttl = ttl
        self.max_pending = max_pending
        self.labelled_window = labelled_window
        self.waiting = OrderedDict()  # id -> (x as sent, wall-clock time of the prediction, bytes of x as UTF-8 JSON)
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
        seen = set()
        for key in ids:
            if key in self.waiting or key in self.labelled or key in seen:
                raise RequestError(409, f"id {key!r} names a prediction already; an id names one prediction")
            seen.add(key)

    def add(self, ids, xs, created):
        """Keep the features ``xs`` of the predictions ``ids``, made at the time ``created``."""
        for key, x in zip(ids, xs):
            self._drop(key)
            size = len(json_bytes(x))
            self.waiting[key] = (x, created, size)
            self.bytes += size
        while len(self.waiting) > self.max_pending:
            self._drop(next(iter(self.waiting)))

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
            xs.append(self.waiting[key][0])
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
        """The waiting predictions and the labelled ids, as JSON (for a checkpoint)."""
        return {"waiting": [[key, x, created] for key, (x, created, _) in self.waiting.items()],
                "labelled": [[key, seq] for key, seq in self.labelled.items()]}

    def restore(self, state):
        for key, x, created in state["waiting"]:
            self.add([key], [x], created)
        for key, seq in state["labelled"]:
            self.labelled[key] = seq
