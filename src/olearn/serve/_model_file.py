"""``GET /model``: the model of the acknowledged updates as a model file, made in memory.

A read never writes to disk nor takes a snapshot. Between two groups of
updates (when every update applied is acknowledged) the writer hands over a
copy of the estimator, or nothing when the model has not changed since the
last file was made, which is then sent again; the file is written into
memory by a thread of its own, one file at a time. Readers thus cost the
writer one copy of the model per file made, and never an fsync.
"""

import asyncio
import concurrent.futures
import copy
import io

from .._persistence import write_model
from ._versions import is_started


def _file_bytes(estimator, input_info):
    buffer = io.BytesIO()
    write_model(estimator, buffer, input_info)
    return buffer.getvalue()


class ModelFile:
    """The model file of ``model`` (a ServedModel) as of its acknowledged updates, through ``writer`` (its Writer);
    the model's ``input_info`` (how data files are read into its columns, the K of ``--oaa K``) is recorded in it
    (see :func:`olearn.save`), as in the snapshots and versions."""

    def __init__(self, model, writer):
        self.model = model
        self.writer = writer
        self._made = None  # (updates, bytes) of the last file made
        self._made_of = None  # (updates, rollbacks) of the model of that file: a rollback changes it at one seq
        self._lock = asyncio.Lock()
        self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="olearn-model-file")

    async def content(self):
        """``(updates, bytes of the model file)`` of every update acknowledged when called; None before learning."""
        async with self._lock:
            handed = await self.writer.acknowledged(self._copy)
            if handed is None:
                return None
            seq, rollbacks, estimator = handed
            if estimator is not None:
                content = await asyncio.get_running_loop().run_in_executor(self._thread, _file_bytes, estimator,
                                                                          self.model.input_info or None)
                self._made, self._made_of = (seq, content), (seq, rollbacks)
            return self._made

    def _copy(self):
        """Called by the writer: ``(updates, rollbacks, a copy of the estimator)``, with None for the copy when
        the last file made holds this model, or None when the model has learned nothing."""
        model = self.model
        if not is_started(model.estimator):
            return None
        if self._made_of == (model.seq, model.rollbacks):
            return model.seq, model.rollbacks, None
        return model.seq, model.rollbacks, copy.deepcopy(model.estimator)
