"""Binary cache of parsed data: one file, arrays memory-mapped back without parsing.

Layout of a cache file (format version 2; all integers little-endian)::

    8 bytes   magic b"\\x93OLCACHE"
    4 bytes   uint32 format version
    4 bytes   uint32 length of the JSON header
    4 bytes   uint32 CRC-32 of the JSON header
    JSON      {"shape": [n, d],
               "arrays": {name: {"dtype", "shape", "offset", "crc32"}},
               "meta": {...}}       (optional: what the writer chose to record)
    arrays    raw C-order bytes, each starting at a 64-byte aligned offset;
              the file ends with the last array

Arrays: ``indptr``, ``indices``, ``data`` (the CSR matrix), ``y`` and, if
given, ``importance``. ``load_cache`` trusts nothing in the file: the header
is checked against its CRC-32 and a strict schema, every array against its
CRC-32 (``zlib.crc32``), and the CSR structure by a compiled O(n + nnz) pass,
so a damaged file raises :class:`~olearn.exceptions.DataFormatError` instead
of loading changed values or an invalid matrix. Version 1 files (no
checksums) are refused with a message to rebuild them.
"""

import json
import os
import struct
import tempfile
import zlib

import numpy as np

from olearn._kernels import _compiled
from olearn._kernels import _parse_codes as K
from olearn._atomic import atomic_write
from olearn.exceptions import DataFormatError
from olearn._sparse import CSRRows

from ._markers import CACHE_MAGIC

VERSION = 2
_START = struct.Struct("<8sI")  # magic, version: the part every version shares
_PREAMBLE = struct.Struct("<8sIII")  # magic, version, header length, header CRC-32
_ALIGN = 64
# A header holds five small entries; anything longer is damage, not data.
_MAX_HEADER = 1 << 16
_REQUIRED = ("indptr", "indices", "data", "y")
_OPTIONAL = ("importance",)
_NUMERIC = frozenset(
    np.dtype(t).str
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64)
)
_SPARSE = _NUMERIC - {np.dtype(np.float16).str}  # scipy.sparse has no float16 matrices
_INDEX = frozenset(np.dtype(t).str for t in (np.int32, np.int64))
_DTYPES = {"indptr": _INDEX, "indices": _INDEX, "data": _SPARSE, "y": _NUMERIC, "importance": _NUMERIC}
_CSR_DEFECTS = {
    K.CSR_INDPTR_START: "indptr does not start at 0",
    K.CSR_INDPTR_DECREASES: "indptr decreases after row {row}",
    K.CSR_INDPTR_END: "indptr ends at a different count than the stored entries",
    K.CSR_INDEX_RANGE: "row {row} holds a column index outside [0, {d})",
    K.CSR_INDEX_ORDER: "the column indices of row {row} are not strictly increasing",
}


def _aligned(offset):
    return -(-offset // _ALIGN) * _ALIGN


def save_cache(path, X, y, importance=None, *, meta=None):
    """Write ``X`` (as CSR), ``y`` and optional importance weights to a cache file.

    The write is atomic: the file is assembled under a temporary name in the
    same directory and renamed over ``path``, so readers see the old file or
    the new one, never a partial one; the temporary file of a writer that was
    killed is removed by the next save of the same path
    (:mod:`olearn._atomic`). The conventional suffix is ``.olc``.
    Rows are stored with sorted, duplicate-free column indices (repeated
    entries of a row are summed, as scipy does); each array and the header
    carry a CRC-32 that :func:`load_cache` checks.

    Parameters
    ----------
    path : str or os.PathLike
    X : sparse matrix or array-like of shape (n_samples, n_features)
        Real (boolean, integer or floating-point) values.
    y : array-like of shape (n_samples,)
        Numeric labels.
    importance : array-like of shape (n_samples,), optional
    meta : dict, optional
        JSON-serialisable facts to record in the header (for instance how the
        data were read); :func:`cache_meta` gives them back.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from olearn.data import load_cache, save_cache
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.olc")
    >>> save_cache(path, np.array([[0.0, 1.5], [2.0, 0.0]]), np.array([1.0, -1.0]))
    >>> X, y, importance = load_cache(path)
    >>> X.toarray(), y, importance
    (array([[0. , 1.5],
           [2. , 0. ]]), memmap([ 1., -1.]), None)
    """
    X = _canonical(X)
    arrays = {
        "indptr": X.indptr,
        "indices": X.indices,
        "data": X.data,
        "y": _vector("y", y, X.shape[0]),
    }
    if importance is not None:
        arrays["importance"] = _vector("importance", importance, X.shape[0])
    index = _index_dtype(X.shape[0], X.shape[1], X.nnz)
    arrays["indptr"] = arrays["indptr"].astype(index, copy=False)
    arrays["indices"] = arrays["indices"].astype(index, copy=False)
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    _check_meta(meta)
    specs = {name: (a.dtype, a.size) for name, a in arrays.items()}
    offsets = _offsets(X.shape, specs, meta)
    header = _header(X.shape, specs, offsets, {name: zlib.crc32(a) for name, a in arrays.items()}, meta)
    with atomic_write(os.fspath(path)) as f:
        f.write(_PREAMBLE.pack(CACHE_MAGIC, VERSION, len(header), zlib.crc32(header)) + header)
        for name, a in arrays.items():
            f.seek(offsets[name])
            f.write(memoryview(a).cast("B"))
        f.truncate()


class CacheWriter:
    """A cache file written chunk by chunk, holding one chunk in memory at a time.

    ``append`` the chunks in order, then ``close(meta)``: the file is the one
    :func:`save_cache` writes from the chunks stacked (as wide as the widest
    chunk; importance weights of 1 for the chunks that have none, if any
    chunk has some), and the write is as atomic. The chunks' arrays wait in
    anonymous temporary files in the cache's folder, which the system removes
    even when the process is killed; ``discard()`` (or an error in ``close``)
    drops them and leaves any existing cache as it was.
    """

    _PARTS = ("indptr", "indices", "data", "y", "importance")

    def __init__(self, path):
        self.path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(self.path))
        self._spills = {}
        try:
            for name in self._PARTS:
                self._spills[name] = tempfile.TemporaryFile(dir=folder)
        except BaseException:
            self.discard()
            raise
        self._spills["indptr"].write(np.zeros(1, dtype=np.int64).tobytes())
        self.n_rows = self.nnz = self.n_features = 0
        self._dtypes = {}
        self._weighted = False

    def append(self, X, y, importance=None):
        """Add the rows of one chunk: ``X`` (CSR or array-like), ``y``, optional importance weights."""
        X = _canonical(X)
        n = X.shape[0]
        y = _vector("y", y, n)
        for name, a in (("data", X.data), ("y", y)):
            known = self._dtypes.setdefault(name, a.dtype)
            if a.dtype != known:
                raise ValueError(f"the {name} of this chunk are {a.dtype}, those of the chunks before {known}")
        weights = np.ones(n) if importance is None else _vector("importance", importance, n).astype(np.float64)
        self._weighted |= importance is not None
        self._spills["indptr"].write((X.indptr[1:].astype(np.int64) + self.nnz).tobytes())
        self._spills["indices"].write(X.indices.astype(np.int64).tobytes())
        self._spills["data"].write(np.ascontiguousarray(X.data).tobytes())
        self._spills["y"].write(np.ascontiguousarray(y).tobytes())
        self._spills["importance"].write(weights.tobytes())
        self.n_rows += n
        self.nnz += X.nnz
        self.n_features = max(self.n_features, X.shape[1])

    def close(self, meta=None):
        """Write the cache file from the chunks appended; ``meta`` as in :func:`save_cache`."""
        try:
            _check_meta(meta)
            shape = (self.n_rows, self.n_features)
            index = _index_dtype(self.n_rows, self.n_features, self.nnz)
            specs = {"indptr": (index, self.n_rows + 1), "indices": (index, self.nnz),
                     "data": (self._dtypes.get("data", np.dtype(np.float64)), self.nnz),
                     "y": (self._dtypes.get("y", np.dtype(np.float64)), self.n_rows)}
            if self._weighted:
                specs["importance"] = (np.dtype(np.float64), self.n_rows)
            offsets = _offsets(shape, specs, meta)
            with atomic_write(self.path) as f:
                crcs = {name: self._copy(name, dtype, f, offsets[name]) for name, (dtype, _) in specs.items()}
                f.truncate(max(offsets[name] + dtype.itemsize * length for name, (dtype, length) in specs.items()))
                header = _header(shape, specs, offsets, crcs, meta)
                f.seek(0)
                f.write(_PREAMBLE.pack(CACHE_MAGIC, VERSION, len(header), zlib.crc32(header)) + header)
        finally:
            self.discard()

    def _copy(self, name, dtype, out, offset, block=1 << 20):
        """Copy spill ``name`` into ``out`` at ``offset`` as ``dtype`` (indices narrowed from int64); its CRC-32."""
        spill = self._spills[name]
        stored = np.dtype(np.int64) if name in ("indptr", "indices") else dtype
        spill.seek(0)
        out.seek(offset)
        crc = 0
        while True:
            raw = spill.read(block * stored.itemsize)
            if not raw:
                return crc
            part = np.frombuffer(raw, dtype=stored).astype(dtype, copy=False)
            crc = zlib.crc32(part, crc)
            out.write(memoryview(np.ascontiguousarray(part)).cast("B"))

    def discard(self):
        """Drop the chunks appended (their temporary files)."""
        for spill in self._spills.values():
            spill.close()
        self._spills = {}


def _vector(name, values, n):
    values = np.asarray(values)
    if values.ndim != 1 or values.shape[0] != n or values.dtype.str not in _NUMERIC:
        raise ValueError(f"{name} must be a numeric 1-d array of length {n}, got {values!r:.80}")
    return values


def _canonical(X):
    """``X`` as a CSR matrix of real numbers with sorted, duplicate-free rows (the caller's matrix untouched)."""
    if not isinstance(X, CSRRows):  # a file's parsed rows (``olearn run -c``) need no scipy
        import scipy.sparse as sp

        X = sp.csr_matrix(X)
    if X.dtype.str not in _SPARSE:
        raise ValueError(f"X must hold real numbers, got dtype {X.dtype}")
    if isinstance(X, CSRRows):
        return X  # sorted, duplicate-free rows by its contract
    if not X.has_canonical_format:
        X = X.copy()  # sum_duplicates works in place; the caller's matrix stays as it was
        X.sum_duplicates()
    return X


def _index_dtype(n_rows, n_features, nnz):
    # int32 index arrays keep scipy from converting (and reading) them on load.
    return np.dtype(np.int32) if max(nnz, n_rows, n_features) < 2**31 else np.dtype(np.int64)


def _check_meta(meta):
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict, got {type(meta).__name__}")


def _offsets(shape, specs, meta):
    """Where each array starts: after a header whose room is reserved with the longest CRC-32s and offsets.

    ``specs`` is ``{name: (dtype, length)}``. The offsets are part of the
    header, and the CRC-32s may be known only once the arrays are written, so
    the room is that of a draft header with 10-digit CRCs and 20-digit offsets.
    """
    draft = _header(shape, specs, dict.fromkeys(specs, 10**19), dict.fromkeys(specs, 2**32 - 1), meta)
    offset = _aligned(_PREAMBLE.size + len(draft))
    offsets = {}
    for name, (dtype, length) in specs.items():
        offsets[name] = offset
        offset = _aligned(offset + dtype.itemsize * length)
    return offsets


def _header(shape, specs, offsets, crcs, meta):
    """The JSON header bytes."""
    layout = {name: {"dtype": dtype.str, "shape": [length], "offset": offsets[name], "crc32": crcs[name]}
              for name, (dtype, length) in specs.items()}
    extra = {} if meta is None else {"meta": meta}
    header = json.dumps({"shape": list(shape), "arrays": layout, **extra}).encode()
    if len(header) > _MAX_HEADER:
        raise ValueError(f"meta is too large: the cache header may hold {_MAX_HEADER} bytes")
    return header


def load_cache(path):
    """Open a cache file written by :func:`save_cache`; its arrays are memory-mapped.

    Nothing is parsed or copied: ``X.data``, ``X.indices``, ``X.indptr``,
    ``y`` and ``importance`` are read-only ``numpy.memmap`` views of the file.
    Opening reads the file once to verify it (a CRC-32 of every array and a
    compiled check that the CSR structure is valid: ``indptr`` starts at 0,
    never decreases and ends at the number of entries, and each row's column
    indices strictly increase within ``[0, n_features)``); later passes cost
    only page reads.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    X : scipy.sparse.csr_matrix
    y : numpy.memmap of shape (n_samples,)
    importance : numpy.memmap of shape (n_samples,), or None if none was saved

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        Naming the file and what is wrong: not a cache file, another format
        version (version 1 caches, without checksums, must be rebuilt with
        ``save_cache``), a damaged or inconsistent header, an array that is
        cut off or fails its checksum, extra bytes at the end, or an invalid
        CSR structure.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from olearn.data import load_cache, save_cache
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.olc")
    >>> save_cache(path, np.eye(2), np.array([0.0, 1.0]), importance=np.array([1.0, 3.0]))
    >>> X, y, importance = load_cache(path)
    >>> type(X.data).__name__, importance.tolist()
    ('memmap', [1.0, 3.0])
    """
    rows, y, importance = load_cache_rows(path)
    import scipy.sparse as sp

    X = sp.csr_matrix(rows.shape, dtype=rows.dtype)
    # Assigned directly: the arrays were checked, and the constructor
    # would wrap them in plain ndarray views (and check them again).
    X.data, X.indices, X.indptr = rows.data, rows.indices, rows.indptr
    X.has_sorted_indices = True
    X.has_canonical_format = True
    return X, y, importance


def load_cache_rows(path):
    """:func:`load_cache`, whose ``X`` is :class:`~olearn._sparse.CSRRows` of the same memory-mapped arrays
    (the command line's: importing scipy.sparse would cost more than reading a small cache, issue #33).

    Checked as :func:`load_cache` checks, raising the same errors.
    """
    path = os.fspath(path)
    shape, specs, _ = _read_header(path)
    arrays = {}
    for name, (dtype, length, offset, crc) in specs.items():
        a = np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(length,))
        if zlib.crc32(a) != crc:
            raise DataFormatError(f"cache array {name!r} fails its checksum: the file is corrupt", path)
        arrays[name] = a
    code, row = _compiled.check_csr(arrays["indptr"], arrays["indices"], shape[1])
    if code != K.CSR_OK:
        detail = _CSR_DEFECTS[code].format(row=row, d=shape[1])
        raise DataFormatError(f"invalid CSR structure in the cache: {detail}", path)
    X = CSRRows(arrays["data"], arrays["indices"], arrays["indptr"], shape)
    return X, arrays["y"], arrays.get("importance")


def cache_meta(path):
    """The ``meta`` dict that :func:`save_cache` recorded in the header of ``path``, or None.

    Only the preamble and the header are read and checked (magic bytes,
    version, the header's CRC-32 and schema, the layout of the arrays against
    the file size); :func:`load_cache` checks the arrays themselves.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        As :func:`load_cache`, for a damaged preamble or header.
    """
    return _read_header(os.fspath(path))[2]


def _read_header(path):
    """``(shape, specs, meta)`` of the cache at ``path``: preamble, header and layout checked."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        start = f.read(_START.size)
        if len(start) < _START.size or start[:8] != CACHE_MAGIC:
            raise DataFormatError("not an olearn cache file (bad magic bytes)", path)
        version = _START.unpack(start)[1]
        if version != VERSION:
            raise DataFormatError(
                f"cache format version {version} is not supported (this olearn reads version {VERSION}, "
                "whose arrays carry checksums); rebuild the cache from the source data with save_cache",
                path,
            )
        rest = f.read(_PREAMBLE.size - _START.size)
        if len(rest) < _PREAMBLE.size - _START.size:
            raise DataFormatError("cache file is truncated (in the preamble)", path)
        _, _, header_size, header_crc = _PREAMBLE.unpack(start + rest)
        if header_size > min(_MAX_HEADER, size - _PREAMBLE.size):
            raise DataFormatError(f"corrupt cache header: declared length {header_size} is impossible", path)
        raw = f.read(header_size)
    if zlib.crc32(raw) != header_crc:
        raise DataFormatError("corrupt cache header: checksum mismatch", path)
    shape, specs, meta = _parse_header(raw, path)
    _check_layout(specs, _PREAMBLE.size + header_size, size, path)
    return shape, specs, meta


def _is_count(value):
    """A non-negative integer that fits an int64 (JSON integers are unbounded)."""
    return type(value) is int and 0 <= value < 2**63


def _parse_header(raw, path):
    """``(shape, {name: (dtype, length, offset, crc)})`` from the header bytes, schema-checked."""

    def bad(what):
        return DataFormatError(f"corrupt cache header: {what}", path)

    try:
        header = json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise bad("not valid JSON") from None
    if not isinstance(header, dict) or not {"shape", "arrays"} <= set(header) <= {"shape", "arrays", "meta"}:
        raise bad("expected the keys 'shape' and 'arrays', and optionally 'meta'")
    meta = header.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise bad("'meta' must be an object")
    shape, layout = header["shape"], header["arrays"]
    if not (isinstance(shape, list) and len(shape) == 2 and all(_is_count(v) for v in shape)):
        raise bad(f"shape must be two non-negative integers, found {shape!r:.60}")
    if not isinstance(layout, dict) or not set(_REQUIRED) <= set(layout) <= set(_REQUIRED + _OPTIONAL):
        raise bad(f"expected the arrays {', '.join(_REQUIRED)} and optionally importance")
    n, d = shape
    specs = {}
    for name, entry in layout.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "offset", "crc32"}:
            raise bad(f"array {name!r}: expected the keys dtype, shape, offset and crc32")
        dtype, a_shape, offset, crc = entry["dtype"], entry["shape"], entry["offset"], entry["crc32"]
        if not isinstance(dtype, str) or dtype not in _DTYPES[name]:
            raise bad(f"array {name!r}: unsupported dtype {dtype!r:.30}")
        if not (isinstance(a_shape, list) and len(a_shape) == 1 and _is_count(a_shape[0])):
            raise bad(f"array {name!r}: shape must be one non-negative integer")
        if not (_is_count(offset) and offset % _ALIGN == 0):
            raise bad(f"array {name!r}: offset must be a multiple of {_ALIGN}")
        if not (_is_count(crc) and crc < 2**32):
            raise bad(f"array {name!r}: crc32 must be a 32-bit unsigned integer")
        specs[name] = (np.dtype(dtype), a_shape[0], offset, crc)
    expected = {"indptr": n + 1, "y": n, "importance": n, "indices": specs["data"][1]}
    for name, length in expected.items():
        if name in specs and specs[name][1] != length:
            raise bad(f"array {name!r} holds {specs[name][1]} values, expected {length}")
    index_dtype = specs["indptr"][0]
    if specs["indices"][0] != index_dtype:
        raise bad("indptr and indices have different dtypes")
    if max(n, d, specs["indices"][1]) > np.iinfo(index_dtype).max:
        raise bad(f"shape {shape} and {specs['indices'][1]} entries exceed the {index_dtype} indices")
    return (n, d), specs, meta


def _check_layout(specs, header_end, size, path):
    """Arrays follow the header in the file without overlapping, and the file ends with the last."""
    end = header_end
    for name, (dtype, length, offset, _) in sorted(specs.items(), key=lambda item: item[1][2]):
        if offset < end:
            raise DataFormatError(f"corrupt cache header: array {name!r} overlaps what precedes it", path)
        end = offset + dtype.itemsize * length
        if end > size:
            raise DataFormatError(f"cache file is truncated (array {name!r} is cut off)", path)
    if end != size:
        raise DataFormatError(f"cache file has {size - end} unexpected bytes after its last array", path)
