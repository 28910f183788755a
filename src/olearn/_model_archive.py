"""The archive of a model file: a NumPy ``.npz`` (a zip of uncompressed ``.npy`` members), written and read back.

:func:`write_archive` writes the metadata (JSON text, the member
``__meta__``) and the arrays, a mostly-zero float array as its non-zero
entries when that is smaller (:func:`stored_arrays`). :func:`read_archive`
reads them back member by member, each checked to be a stored, unencrypted
``.npy`` of the size its header declares, and :func:`dense_arrays` makes the
arrays stored sparse dense again, their parts checked (indices in range,
sorted and distinct). What the metadata and the arrays must hold for a model
is :mod:`olearn._persistence`'s to check.
"""

import json
import math
import struct
import zipfile

import numpy as np

from ._config import format_bytes, get_config
from .exceptions import ModelFormatError


def write_archive(fh, text, arrays):
    """Write the metadata ``text`` and the members ``arrays`` (from :func:`stored_arrays`) to the binary file ``fh``."""
    np.savez(fh, __meta__=np.array(text), **arrays)


# -- arrays stored as their non-zero entries ----------------------------------------------------------

# the members of an array stored as its non-zero entries: "<name>@shape", "<name>@nonzero", "<name>@values"
_SPARSE_PARTS = ("shape", "nonzero", "values")
# what a sparse array costs besides its entries: two more members (zip records and .npy headers) and its shape
_SPARSE_OVERHEAD = 512


def _stored_entries(array):
    """Whether an entry is stored: every entry but +0.0 (-0.0 is kept, so that the array comes back bit for bit)."""
    return (array != 0) | np.signbit(array)


def stored_arrays(arrays):
    """The members a file holds for ``arrays``: a float array of mostly +0.0 as its non-zero entries when that
    is smaller (as Vowpal Wabbit writes only the non-zero weights), every other array as it is.

    A sparse array ``a`` becomes three members: ``a@shape`` (int64, its
    shape), ``a@nonzero`` (int64, the increasing flat C-order indices of the
    stored entries) and ``a@values`` (those entries, of ``a``'s dtype); the
    entries left out are +0.0. :func:`dense_arrays` reads them back.
    """
    stored = {}
    for name, array in arrays.items():
        array = np.asarray(array)
        if array.dtype.kind == "f" and array.ndim:
            flat = array.ravel()
            nonzero = np.flatnonzero(_stored_entries(flat))
            if nonzero.size * (8 + array.itemsize) + _SPARSE_OVERHEAD < array.nbytes:
                stored[f"{name}@shape"] = np.array(array.shape, dtype=np.int64)
                stored[f"{name}@nonzero"] = nonzero.astype(np.int64, copy=False)
                stored[f"{name}@values"] = flat[nonzero]
                continue
        stored[name] = array
    return stored


def _sparse_problem(name, parts, limit):
    """What is wrong with the three members of an array stored sparse, or None."""
    shape, nonzero, values = parts
    if shape.dtype != np.int64 or shape.ndim != 1 or not 1 <= shape.size <= 32 or (shape < 0).any():
        return f"{name}@shape must be 1 to 32 int64 sizes >= 0 (it is {shape!r:.200})"
    if nonzero.dtype != np.int64 or nonzero.ndim != 1:
        return f"{name}@nonzero must be a 1-d int64 array (it has dtype {nonzero.dtype.str}, shape {nonzero.shape})"
    if values.dtype.kind != "f" or values.ndim != 1 or values.size != nonzero.size:
        return (f"{name}@values must be a 1-d float array as long as {name}@nonzero ({nonzero.size}); it has dtype "
                f"{values.dtype.str}, shape {values.shape}")
    size = math.prod(int(n) for n in shape)
    if size * values.itemsize > limit:
        return (f"its shape {tuple(int(n) for n in shape)} of {values.dtype} would take "
                f"{format_bytes(size * values.itemsize)}, past max_state_bytes={format_bytes(limit)} (raise it with "
                "olearn.set_config(max_state_bytes=...))")
    if nonzero.size and (nonzero[0] < 0 or nonzero[-1] >= size):
        bad = nonzero[0] if nonzero[0] < 0 else nonzero[-1]
        return f"{name}@nonzero has index {int(bad)}, out of range for {size} entries"
    if nonzero.size > 1:
        steps = np.diff(nonzero)
        if (steps <= 0).any():
            at = int(np.argmax(steps <= 0)) + 1
            return (f"{name}@nonzero must increase strictly (sorted, each index once); it has {int(nonzero[at])} "
                    f"after {int(nonzero[at - 1])} at position {at}")
    return None


def dense_arrays(path, arrays):
    """``arrays`` (a file's members, changed in place) with every array stored sparse made dense again.

    Every part is checked first (:func:`_sparse_problem`): the three members
    present and alone, the shape within ``max_state_bytes``, the indices
    int64, in range, sorted and distinct, the values floats, one per index;
    ModelFormatError otherwise. Files of dense arrays only come back unchanged.
    """
    names = sorted({key.rpartition("@")[0] for key in arrays if "@" in key})
    limit = get_config()["max_state_bytes"]
    for name in names:
        wanted = [f"{name}@{part}" for part in _SPARSE_PARTS]
        missing = [key for key in wanted if key not in arrays]
        if missing or name in arrays:
            why = f"lacks {missing}" if missing else f"also has a member {name!r}"
            raise ModelFormatError(f"{path}: array {name!r} is stored as its non-zero entries but the file {why}")
        parts = [arrays.pop(key) for key in wanted]
        problem = _sparse_problem(name, parts, limit)
        if problem:
            raise ModelFormatError(f"{path}: array {name!r} stored as its non-zero entries: {problem}")
        shape, nonzero, values = parts
        dense = np.zeros(math.prod(int(n) for n in shape), dtype=values.dtype)
        dense[nonzero] = values
        arrays[name] = dense.reshape(tuple(int(n) for n in shape))
    return arrays


# -- reading -------------------------------------------------------------------------------------------

# what zipfile and NumPy's .npy reader raise on a damaged archive (a version or method they do not
# know, a bad CRC, a truncated or garbled record)
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError, EOFError,
                   OSError, struct.error)


# a member's data is read into its array in pieces of this many bytes (not as one bytes object, then copied)
_READ_PIECE = 1 << 24


def _read_member(archive, info):
    """The array of one ``.npy`` member: stored, unencrypted, exactly as long as its header says.

    The data is read straight into the array, a piece at a time, after its
    size was checked against the member's: reading a member holds the array
    and one piece, not copies of the member.
    """
    if info.flag_bits & 0x1:
        raise ValueError("it is encrypted")
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"it is compressed (method {info.compress_type}); olearn writes uncompressed members")
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"it is a .npy of version {version}")
        if dtype.hasobject:
            raise ValueError("it holds Python objects")
        size = math.prod(shape) * dtype.itemsize
        held = info.file_size - fh.tell()
        if held != size:
            raise ValueError(f"it holds {held} bytes of data; its header declares shape {shape} of {dtype}")
        if not size:
            return np.empty(0, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        data = np.empty(size, dtype=np.uint8)
        view = memoryview(data)
        done = 0
        while done < size:
            count = fh.readinto(view[done : done + _READ_PIECE])
            if not count:
                raise EOFError(f"it ends after {done} of its {size} bytes of data")
            done += count
        fh.read(1)  # the end of the member: zipfile checks its CRC there
    return data.view(dtype).reshape(shape, order="F" if fortran else "C")


def read_archive(path, arrays=True):
    """The metadata dict and the arrays of a model file (no arrays with ``arrays=False``), or ModelFormatError.

    The file is read member by member from disk: the metadata alone reads
    none of the arrays, and the arrays are read once each.
    """
    with open(path, "rb") as fh:
        try:
            archive = zipfile.ZipFile(fh)
        except _ARCHIVE_ERRORS as err:
            raise ModelFormatError(f"{path}: not an olearn model file (not a readable zip archive: {err})") from None
        members, read = set(), {}
        with archive:
            for info in archive.infolist():
                name = info.filename
                if not name.endswith(".npy") or name[:-4] in members:
                    raise ModelFormatError(f"{path}: not an olearn model file (member {name!r} is not one .npy array)")
                members.add(name[:-4])
                if not arrays and name != "__meta__.npy":
                    continue
                try:
                    read[name[:-4]] = _read_member(archive, info)
                except _ARCHIVE_ERRORS as err:
                    raise ModelFormatError(f"{path}: member {name!r} is unreadable ({err})") from None
    meta = read.pop("__meta__", None)
    if meta is None:
        raise ModelFormatError(f"{path}: not an olearn model file (no metadata)")
    if meta.dtype.kind != "U" or meta.ndim != 0:
        raise ModelFormatError(f"{path}: the metadata is not a JSON string")
    try:
        meta = json.loads(str(meta))
    except ValueError as err:
        raise ModelFormatError(f"{path}: the metadata is not JSON ({err})") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: the metadata nests too deeply to be read") from None
    if not isinstance(meta, dict):
        raise ModelFormatError(f"{path}: the metadata is not a JSON object")
    return meta, read
