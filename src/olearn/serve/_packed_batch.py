"""Batch bodies of named features read by compiled passes over their bytes, with no Python object per feature.

The steady state of a service of named features is a batch
``{"x": [{"name": number, ...}, ...], "y": [...]}`` whose names the learner
all knows. Decoding it makes a ``str`` and a ``float`` per feature and a
dict per example, and the learner's conversion walks them again; here the
body's bytes go to the learner's rows by two compiled passes instead
(:mod:`olearn._kernels._json_batch`):

* :func:`read_packed_labelled` (``/learn``) and :func:`read_packed_features`
  (``/predict``) scan the examples of a body of the strict subset that
  :func:`~olearn._kernels._json_batch.scan_batch` takes (``"x"`` its first
  key, an array of objects of plain keys and numbers of at most 18
  significant digits, converted as ``float()`` converts them: by Clinger's
  exact fast path or the Eisel-Lemire algorithm in the scan, the few these
  leave undecided by ``float()`` itself; no key repeated, within
  ``--max-batch`` and ``--max-features``),
  and decode the rest of the body (``"y"``, ``"sample_weight"``, ``"id"``)
  with the route's own reader, on ``{"x":0`` followed by the bytes after
  ``"x"``'s array, its labels and weights read by the route's functions;
  any other body, or one whose reading raises an error, is None, and the
  route reads it as it always does (that reading names every fault). A
  body it takes is one that reading takes: the same JSON, read to the same
  values, with no fault to name. ``/learn`` with an update id goes that way
  too (the id's digest is of the decoded examples), as does a service whose
  keys are indices (``--feature-keys indices``).
* :meth:`PackedExamples.packed_rows` looks the keys up, when the model uses
  them, in the columns of the learner's vocabulary as it is then
  (:meth:`~olearn._features.FeatureMap.name_table`), each row's columns
  sorted: the rows :func:`~olearn.serve._model._canonical_rows` makes of
  :meth:`~olearn._features.FeatureMap.known_rows` of the decoded examples,
  bit for bit (the same columns, the same ``float()`` of each literal). A
  name the vocabulary lacks gives None, and the examples are decoded; in a
  batch to predict it is left out of its row, as ``known_rows`` leaves it out
  of the rows it predicts.
* Whatever needs the examples as dicts (a learner not started, a batch its
  checks cannot vouch for, frozen or fixed features, a bound's rounds, a
  pipeline) reads :attr:`PackedExamples.dicts`: the body decoded by the
  route's reader, once, when first asked.

The body is logged as received either way, and a replay reads it as the
route's reader does: the same examples, learned into the same model.
Predictions kept for feedback keep each example's own bytes of the body
(:meth:`PackedExamples.kept_features`), a JSON text that decodes to the
example's dict.
"""

import re

import numpy as np

from .._features import FeatureMap
from .._lazy import LazyModule
from .._sparse import CSRRows
from ._fast_json import parse_json_fast
from ._feedback import JSONTexts
from ._requests import Examples, Limits, RequestError, _labels_and_weights, read_features

_compiled = LazyModule("olearn._kernels._compiled")
_json_batch = LazyModule("olearn._kernels._json_batch")

# how the bodies the scan may take begin: an object whose first key is "x", its value an array
_BATCH_START = re.compile(rb'[ \t\n\r]*\{[ \t\n\r]*"x"[ \t\n\r]*:[ \t\n\r]*\[')
# a cap past any batch (the log's replay reads without caps)
_NO_CAP = 1 << 62


def _cap(limit):
    return int(min(limit, _NO_CAP))


class PackedExamples(Examples):
    """The examples of a batch body scanned by :func:`~olearn._kernels._json_batch.scan_batch`: their labels and
    weights, their rows on demand (:meth:`packed_rows`), and their dicts decoded from the body when first asked
    (:attr:`dicts`, :attr:`xs`)."""

    def __init__(self, body, scanned, ys, weights, limits):  # noqa: D107 - Examples' own attributes, some lazy
        self.body = body
        self.buffer, self.spans, self.counts, self.keys, self.hashes, self.values = scanned
        self.ys = ys
        self.weights = weights
        self.batch = True
        self._limits = limits
        self._decoded = None

    def __len__(self):
        return self.counts.size

    @property
    def xs(self):
        return self._decoded_examples().xs

    @property
    def dicts(self):
        return self._decoded_examples().dicts

    def _decoded_examples(self):
        """The examples as the route reads them from the body (a body the scan took reads without an error)."""
        if self._decoded is None:
            self._decoded = read_features({"x": parse_json_fast(self.body)["x"]}, self._limits)
        return self._decoded

    def packed_rows(self, features, width=None, drop_unknown=False):
        """The examples' rows in the columns of ``features`` (a FeatureMap) as a :class:`~olearn._sparse.CSRRows`
        of ``width`` columns (by default one more than the largest column of the rows), each row's columns in
        increasing order; None when it hashes, or when a name is not in its vocabulary, unless ``drop_unknown``:
        a name it lacks is then left out of its row (the rows of
        :meth:`~olearn._features.FeatureMap.known_rows` with ``drop_unknown``, a batch to predict)."""
        table = features.name_table()
        if table is None:
            return None
        status, indptr, indices, data, largest = _compiled.packed_rows(
            self.buffer, self.counts, self.keys, self.hashes, self.values, table.slots, table.names, table.bounds,
            table.hashes, table.columns, drop_unknown)
        if status != _json_batch.OK:
            return None
        return CSRRows(data, indices, indptr, (self.counts.size, largest if width is None else width))

    def kept_features(self):
        """The body itself, each example's span of it a JSON text that decodes to its dict (see
        :meth:`~olearn.serve._requests.Examples.kept_features`), and the examples' array: the bytes from the first
        one's ``{`` to the last one's ``}`` (the examples and what separates them in the body's array: commas and
        whitespace) in brackets. No copy of each example's bytes is made."""
        starts, ends = self.spans[:, 0].tolist(), self.spans[:, 1].tolist()
        return JSONTexts(self.body, starts, ends, b"[" + self.body[starts[0]:ends[-1]] + b"]")


def _fixed_up(body, values, fixups):
    """Whether the numbers the scan left to ``float()`` (``fixups``: byte spans and places in ``values``), now
    written in ``values``, are all finite (``float()`` reads an overflow such as ``1e400`` as infinite)."""
    if fixups.shape[0] == 0:
        return True
    places = fixups[:, 2]
    values[places] = [float(body[start:end]) for start, end, _ in fixups.tolist()]
    return bool(np.isfinite(values[places]).all())


def _scanned(body, limits, known):
    """``(scanned, document)`` of a batch body :func:`~olearn._kernels._json_batch.scan_batch` takes, the rest of
    it decoded (``document``, its ``"x"`` a placeholder) with entries among ``known`` only, or None."""
    if limits.feature_keys != "names" or type(body) is not bytes or _BATCH_START.match(body) is None:
        return None  # a single example's body, feedback by ids...: one match, not a compiled call's checks
    buffer = np.frombuffer(body, dtype=np.uint8)
    status, x_end, *scanned, fixups = _compiled.scan_batch(buffer, _cap(limits.max_batch), _cap(limits.max_features))
    if status != _json_batch.OK or not _fixed_up(body, scanned[-1], fixups):
        return None
    try:
        document = parse_json_fast(b'{"x":0' + body[x_end:])
    except RequestError:
        return None
    if not all(map(known.__contains__, document)):
        return None
    return (buffer, *scanned), document


def read_packed_labelled(body, limits):
    """The :class:`PackedExamples` of a ``/learn`` batch body with no update id, or None (see the module's
    docstring)."""
    found = _scanned(body, limits, ("x", "y", "sample_weight"))
    if found is None:
        return None
    scanned, document = found
    try:
        ys, weights = _labels_and_weights(document, scanned[2].size, True, limits)
    except RequestError:
        return None
    return PackedExamples(body, scanned, ys, weights, limits)


def read_packed_features(body, limits, known):
    """``(examples, document)``: the :class:`PackedExamples` of a ``/predict`` batch body whose entries are among
    ``known``, and the body's other entries; or None (see the module's docstring)."""
    found = _scanned(body, limits, known)
    if found is None:
        return None
    scanned, document = found
    return PackedExamples(body, scanned, None, None, limits), document


def warm_up():
    """Run the compiled passes once, on a batch of one name, so that a service's first batch does not wait for
    them to compile (see :mod:`~olearn.serve._warmup`)."""
    features = FeatureMap()
    features.add([("a", 0)])
    read_packed_features(b'{"x":[{"a":1}]}', Limits(), ("x",))[0].packed_rows(features)
