"""Numbered versions of a served model, to return to one (``POST /rollback``) when a stream went wrong.

A version is the model at one point of the service's history: its number
(1, 2, ... in the order taken), the updates it holds (the ``seq`` then), the
time it was taken, and the progressive metric then (see :mod:`._progress`,
whose state it keeps, so that a rollback returns to its numbers too). One is
taken at every periodic snapshot (the last ``keep`` of these are kept) and
on ``POST /versions`` (kept). Each is a model file ``version-N.npz`` (an
``est.save`` file recording the service's input entry, as ``GET /model``
does; a learner that has learned nothing is kept as its class and
hyperparameters instead) listed in ``versions.json``, both written
atomically: the model file first, so that a crash between the two leaves
an unlisted file, which is not a version, and is overwritten by the next one.
"""

import json
import os
import time

from .._atomic import atomic_write
from .._params import check_params
from .._persistence import _estimator_class, _json_ready, load, save
from ._requests import RequestError
from ._wal import sync_folder

INDEX = "versions.json"


def is_started(estimator):
    """Whether ``estimator`` has learned (and so has a model file to save)."""
    return estimator._is_started() if hasattr(estimator, "_is_started") else True


def learner_spec(estimator):
    """The class and hyperparameters of a learner that has learned nothing, as JSON."""
    cls = type(estimator)
    return {"class": f"{cls.__module__}:{cls.__qualname__}",
            "params": _json_ready(estimator.get_params(deep=False), cls.__name__)}


def unfitted_learner(spec, path):
    """The learner a :func:`learner_spec` names (``path``: the file holding it, named in errors)."""
    cls = _estimator_class(path, spec["class"])
    estimator = cls(**spec["params"])
    check_params(estimator, estimator._all_constraints())
    return estimator


class Versions:
    """The versions kept in a state folder (``keep``: the periodic ones kept)."""

    def __init__(self, folder, keep=20):
        self.folder = folder
        self.keep = keep
        self.index = os.path.join(folder, INDEX)
        self.entries = []
        self.pinned = set()  # versions a rollback record of the log in use may need at a restart
        self.learned_rounds = {}  # version -> the rounds its learner learned, of the versions taken by this process
        if os.path.exists(self.index):
            with open(self.index, encoding="utf-8") as fh:
                self.entries = json.load(fh)["versions"]

    def _file(self, number):
        return os.path.join(self.folder, f"version-{number:010d}.npz")

    def add(self, model, requested, snapshot_file=None):
        """Take a version of ``model`` (a ServedModel whose updates are all durable); its listing entry.

        ``snapshot_file``, the snapshot just written of the same model, is
        linked instead of saved again when the file system allows.
        """
        number = self.entries[-1]["version"] + 1 if self.entries else 1
        entry = {"version": number, "updates": model.seq, "created": time.time(),
                 "requested": requested, "progressive": model.progress.summary(),
                 "progress_state": model.progress.state()}
        path = self._file(number)
        if not is_started(model.estimator):
            entry["estimator"] = learner_spec(model.estimator)
        elif snapshot_file is not None and _linked(snapshot_file, path):
            entry["file"] = os.path.basename(path)
        else:
            save(model.estimator, path, model.input_info or None)
            entry["file"] = os.path.basename(path)
        self.entries.append(entry)
        if model.rounds is not None:
            self.learned_rounds[number] = model.rounds.copy()
        self._prune()
        self._write()
        return public(entry)

    def _prune(self):
        """Remove the periodic versions older than the last ``keep`` (not those a rollback record needs)."""
        periodic = [entry for entry in self.entries if not entry["requested"]]
        dropped = {entry["version"] for entry in periodic[:-self.keep]} - self.pinned
        for number in dropped:
            try:
                os.unlink(self._file(number))
            except FileNotFoundError:
                pass
        self.entries = [entry for entry in self.entries if entry["version"] not in dropped]
        for number in dropped:
            self.learned_rounds.pop(number, None)

    def _write(self):
        with atomic_write(self.index) as fh:
            fh.write(json.dumps({"versions": self.entries}).encode())
        sync_folder(self.folder)

    def entry(self, number):
        """The listing entry of version ``number``; 404 if there is none (never taken, or removed)."""
        for entry in self.entries:
            if entry["version"] == number:
                return entry
        known = ", ".join(str(entry["version"]) for entry in self.entries) or "none"
        raise RequestError(404, f"no version {number}; the versions kept are: {known}")

    def load(self, number):
        """The learner of version ``number`` and its listing entry (404 if there is no such version), with the
        rounds its learner learned as ``"learned_rounds"`` when this process took it (None otherwise; see
        :mod:`._bound`)."""
        entry = {**self.entry(number), "learned_rounds": self.learned_rounds.get(number)}
        if "estimator" in entry:
            return unfitted_learner(entry["estimator"], self.index), entry
        return load(os.path.join(self.folder, entry["file"])), entry

    def listing(self):
        return [public(entry) for entry in self.entries]


def public(entry):
    """A version's entry as ``GET /versions`` lists it."""
    return {key: entry[key] for key in ("version", "updates", "created", "requested", "progressive")}


def _linked(source, path):
    """Hard-link ``source`` as ``path`` (replacing it); False where the file system cannot."""
    try:
        if os.path.exists(path):
            os.unlink(path)
        os.link(source, path)
    except OSError:
        return False
    return True
