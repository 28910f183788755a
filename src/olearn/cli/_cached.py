"""``olearn run -c``: the first reading of FILE also writes its binary cache, which every later reading uses.

As Vowpal Wabbit's ``-c``, but under olearn's own suffix: the cache of
``data.svm`` is ``data.svm.olc``, next to it (``data.svm.cache`` is Vowpal
Wabbit's name, and its format is not olearn's). A cache is used only if it was
written from the same text (the size and modification time recorded when it
was written are the text's now) with the same reading options; otherwise it is
rebuilt, with a note on stderr. Without ``data.svm.olc``, a ``data.svm.cache``
that an older olearn wrote (it starts with olearn's magic bytes) is read if it
is valid, never written; any other ``data.svm.cache`` is left alone. A
stream's cache is a temporary file, removed after the run: it lets
``--passes`` read the stream once.
"""

import errno
import os
import shutil
import tempfile

import click
import numpy as np

from .._sparse import CSRRows
from ..data import detect_format
from ..data._cache import CacheWriter, cache_meta, load_cache_rows
from ..data._markers import CACHE_MAGIC, CACHE_SUFFIX
from ..exceptions import DataFormatError
from ._source import FORMATS, _unless_all_ones, named, naming_examples

LEGACY_SUFFIX = ".cache"  # where olearn run -c wrote its cache before it took its own suffix
_KEY = "olearn run -c"


def reading_options(fmt, zero_based, n_features, bits, label_column, delimiter, initial_model, namespaces=None):
    """The options a cache must have been written with: those given (``namespaces``: VW's namespace options, a
    :class:`~olearn.data._namespaces.Namespaces` or None), and how ``-i MODEL``'s data were read."""
    from .._persistence import read_input_info

    trained = None if initial_model is None else read_input_info(initial_model)
    # "vw_tag": how a VW line's tag is found, a token touching the first '|' being one (a number too, as Vowpal
    # Wabbit reads it), or one starting with "'"; the caches written before read '1 2|a x' as an importance of 2, or
    # '1 yes | a' as a tag (now refused), and are rebuilt
    return {"format": fmt, "zero_based": zero_based, "n_features": n_features, "bits": bits,
            "label_column": label_column, "delimiter": delimiter, "initial_model_input": trained,
            "vw_tag": "touching the bar or quoted", **({} if namespaces is None else {"namespaces": namespaces.info()})}


class CachedSource:
    """FILE as ``DataSource`` gives it, with ``chunks()`` taken from the cache when there is a valid one.

    ``options`` are the reading options of the command (they must equal those
    the cache was written with; ``chunk_size``, which changes no result, is
    not one of them); ``open_text()`` gives the ``DataSource`` of
    the text, opened only when the cache cannot be used.
    """

    def __init__(self, path, options, chunk_size, open_text):
        self.options = options
        self.chunk_size = chunk_size
        self._loaded = None
        self._temporary = None
        self.text = None
        self.meta = None
        if path == "-" or not _is_regular_or_missing(path):
            self.text = open_text()
            self._temporary = tempfile.mkdtemp(prefix="olearn-cache-")
            self.cache_path = os.path.join(self._temporary, "stream" + CACHE_SUFFIX)
        else:
            self.cache_path = os.fspath(path) + CACHE_SUFFIX
            self.meta, reason = self._recorded(path)
            if self.meta is None and reason is None:
                self._use_legacy_cache(path)
            if self.meta is None:
                if os.path.isfile(path) and options["format"] in ("auto", "cache") \
                        and detect_format(path) == "cache":
                    raise click.UsageError(f"{path} is an olearn cache already, read without parsing: drop -c")
                if reason is not None and not os.path.exists(path):
                    raise FileNotFoundError(errno.ENOENT, f"does not exist, and its cache {self.cache_path} cannot "
                                            f"replace it: {reason}", path)
                if reason is not None:
                    click.echo(f"olearn: rebuilding {self.cache_path}: {reason}", err=True)
                self.text = open_text()
        self.path = self.text.path if self.text is not None else os.fspath(path)
        self.stream = self.text is not None and self.text.stream

    def _use_legacy_cache(self, path):
        """Read ``FILE.cache`` instead of the text if an older olearn wrote it there and it may replace the text.

        A ``FILE.cache`` of another program (Vowpal Wabbit's) is no olearn
        cache and is ignored, as is an olearn one that may not replace the text.
        """
        legacy = os.fspath(path) + LEGACY_SUFFIX
        if _starts_with_cache_magic(legacy):
            meta, _ = self._recorded(path, legacy)
            if meta is not None:
                self.meta, self.cache_path = meta, legacy

    def _recorded(self, path, cache_path=None):
        """(what the cache recorded, None) if it may replace the text; else (None, why not), or (None, None)
        without a cache. ``cache_path`` defaults to the cache's own."""
        cache_path = self.cache_path if cache_path is None else cache_path
        if not os.path.exists(cache_path):
            return None, None
        try:
            meta = (cache_meta(cache_path) or {}).get(_KEY)
        except DataFormatError as err:
            return None, f"it is damaged ({err})"
        if not _well_formed(meta):
            return None, "it was not written by olearn run -c"
        if meta.get("options") != self.options:
            return None, "it was written with other reading options"
        if os.path.exists(path) and meta.get("text") != _stat_of(path):
            return None, f"{path} changed since it was written"
        return meta, None

    @property
    def format(self):
        return self.text.format if self.text is not None else self.meta["input"]["format"]

    @property
    def model_n_features(self):
        return self.text.model_n_features if self.text is not None else self.meta["model_n_features"]

    def input_info(self):
        return self.text.input_info() if self.text is not None else self.meta["input"]

    def chunks(self):
        """Yield (X, y, weight) as the text's ``chunks()`` does; the first reading of the text writes the cache."""
        if self._loaded is None and self.meta is None:
            yield from self._chunks_writing_cache()
            return
        if self._loaded is None:
            X, y, weight = load_cache_rows(self.cache_path)
            self._loaded = X, y, None if weight is None else np.asarray(weight)
        X, y, weight = self._loaded
        for lo in range(0, X.shape[0], self.chunk_size):
            part = slice(lo, lo + self.chunk_size)
            yield _owned(X[part]), y[part], None if weight is None else _unless_all_ones(weight[part])

    def _chunks_writing_cache(self):
        """The text's chunks, each also appended to the cache (written whole after the last; memory holds one chunk)."""
        text_stat = None if self.stream else _stat_of(self.path)
        writer = CacheWriter(self.cache_path)
        try:
            for chunk in self.text.chunks():
                writer.append(*chunk)
                yield chunk
        except BaseException:  # also the consumer stopping early (GeneratorExit): no cache of part of the text
            writer.discard()
            raise
        meta = {_KEY: {"options": self.options, "text": text_stat, "input": self.text.input_info(),
                       "model_n_features": self.text.model_n_features}}
        writer.close(meta)
        self.meta = meta[_KEY]

    def locating(self, first):
        """As ``DataSource.locating`` while the text is read; from the cache, errors name the example number."""
        if self.text is not None and self._loaded is None:
            return self.text.locating(first)
        return naming_examples(first, lambda _, text: f"{named(self.path)} (read from {self.cache_path}): {text}")

    def close(self):
        """Remove a stream's temporary cache."""
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None


def _owned(rows):
    """The rows of the memory-mapped cache (:class:`~olearn._sparse.CSRRows`) with their entries copied into
    arrays of their own: writable, as the compiled kernels of the learners were built for (read-only arrays would
    send them to numba, started at a cost of most of a short run)."""
    return CSRRows(np.array(rows.data), np.array(rows.indices), rows.indptr, rows.shape)


def _well_formed(meta):
    """The record of ``olearn run -c`` has the entries it writes, of the types it writes."""
    if not isinstance(meta, dict) or set(meta) != {"options", "text", "input", "model_n_features"}:
        return False
    dimension = meta["model_n_features"]
    return (isinstance(meta["input"], dict) and meta["input"].get("format") in FORMATS[1:]
            and (dimension is None or (type(dimension) is int and dimension > 0)))


def _starts_with_cache_magic(path):
    """Whether ``path`` is a regular file that begins as an olearn cache does."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(len(CACHE_MAGIC)) == CACHE_MAGIC
    except OSError:
        return False


def _is_regular_or_missing(path):
    return not os.path.exists(path) or os.path.isfile(path)


def _stat_of(path):
    stat = os.stat(path)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
