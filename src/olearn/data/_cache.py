"""Binary cache of parsed data: one file, arrays memory-mapped back without parsing.

Layout of a cache file (all integers little-endian)::

    8 bytes   magic b"\\x93OLCACHE"
    4 bytes   uint32 format version
    4 bytes   uint32 length of the JSON header
    JSON      {"shape": [n, d], "arrays": {name: {"dtype", "shape", "offset"}}}
    arrays    raw C-order bytes, each starting at a 64-byte aligned offset

Arrays: ``indptr``, ``indices``, ``data`` (the CSR matrix), ``y`` and, if
given, ``importance``.
"""

import json
import os
import struct

import numpy as np
import scipy.sparse as sp

from olearn._atomic import atomic_write
from olearn.exceptions import DataFormatError

MAGIC = b"\x93OLCACHE"
VERSION = 1
CACHE_SUFFIX = ".olc"
_PREAMBLE = struct.Struct("<8sII")
_ALIGN = 64


def _aligned(offset):
    return -(-offset // _ALIGN) * _ALIGN


def save_cache(path, X, y, importance=None):
    """Write ``X`` (as CSR), ``y`` and optional importance weights to a cache file.

    The write is atomic: the file is assembled under a temporary name in the
    same directory and renamed over ``path``, so readers see the old file or
    the new one, never a partial one; the temporary file of a writer that was
    killed is removed by the next save of the same path
    (:mod:`olearn._atomic`). The conventional suffix is ``.olc``.

    Parameters
    ----------
    path : str or os.PathLike
    X : sparse matrix or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Numeric labels.
    importance : array-like of shape (n_samples,), optional

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
    X = sp.csr_matrix(X)
    arrays = {
        "indptr": X.indptr,
        "indices": X.indices,
        "data": X.data,
        "y": _vector("y", y, X.shape[0]),
    }
    if importance is not None:
        arrays["importance"] = _vector("importance", importance, X.shape[0])
    # int32 index arrays keep scipy from converting (and reading) them on load.
    if X.nnz < 2**31 and X.shape[1] < 2**31:
        arrays["indptr"] = arrays["indptr"].astype(np.int32, copy=False)
        arrays["indices"] = arrays["indices"].astype(np.int32, copy=False)
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    header, offset = _header(X.shape, arrays)
    path = os.fspath(path)
    with atomic_write(path) as f:
        f.write(_PREAMBLE.pack(MAGIC, VERSION, len(header)) + header)
        for name, a in arrays.items():
            f.seek(offset[name])
            f.write(memoryview(a).cast("B"))
        f.truncate()


def _vector(name, values, n):
    values = np.asarray(values)
    if values.ndim != 1 or values.shape[0] != n or values.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric 1-d array of length {n}, got {values!r:.80}")
    return values


def _header(shape, arrays):
    """The JSON header bytes and the offset of each array.

    The header length determines where the arrays start, and the offsets are
    part of the header, so the offsets are computed from a padded header size.
    """
    layout = {
        name: {"dtype": a.dtype.str, "shape": list(a.shape), "offset": 0} for name, a in arrays.items()
    }
    draft = json.dumps({"shape": list(shape), "arrays": layout})
    # Offsets have at most 20 digits; reserve room for them.
    offset = _aligned(_PREAMBLE.size + len(draft) + 20 * len(arrays))
    for name, a in arrays.items():
        layout[name]["offset"] = offset
        offset = _aligned(offset + a.nbytes)
    header = json.dumps({"shape": list(shape), "arrays": layout}).encode()
    return header, {name: entry["offset"] for name, entry in layout.items()}


def load_cache(path):
    """Open a cache file written by :func:`save_cache`; its arrays are memory-mapped.

    Nothing is parsed or copied: ``X.data``, ``X.indices``, ``X.indptr``,
    ``y`` and ``importance`` are read-only ``numpy.memmap`` views of the file,
    so repeated passes over large data cost only page reads.

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
        If the file is not a cache file, is truncated, or has another format
        version.

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
    path = os.fspath(path)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        preamble = f.read(_PREAMBLE.size)
        if len(preamble) < _PREAMBLE.size or preamble[:8] != MAGIC:
            raise DataFormatError("not an olearn cache file (bad magic bytes)", path)
        _, version, header_size = _PREAMBLE.unpack(preamble)
        if version != VERSION:
            raise DataFormatError(
                f"cache format version {version} is not supported (this olearn reads version "
                f"{VERSION}); re-create the cache with save_cache",
                path,
            )
        try:
            header = json.loads(f.read(header_size))
            shape = tuple(header["shape"])
            layout = header["arrays"]
            specs = {
                name: (np.dtype(layout[name]["dtype"]), tuple(layout[name]["shape"]), layout[name]["offset"])
                for name in ("indptr", "indices", "data", "y", "importance")
                if name in layout
            }
        except (ValueError, KeyError, TypeError) as e:
            raise DataFormatError(f"corrupt cache header: {e}", path) from None
    arrays = {}
    for name, (dtype, a_shape, offset) in specs.items():
        if offset + dtype.itemsize * int(np.prod(a_shape)) > size:
            raise DataFormatError(f"cache file is truncated (array {name!r} is cut off)", path)
        arrays[name] = np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=a_shape)
    X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape, copy=False)
    # scipy wraps its inputs in plain ndarray views; put the memmaps back.
    X.data, X.indices, X.indptr = arrays["data"], arrays["indices"], arrays["indptr"]
    return X, arrays["y"], arrays.get("importance")
