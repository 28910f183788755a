"""The write-ahead log: length-prefixed JSON records, each with a CRC-32, appended and fsynced in groups.

A record is ``<length: uint32 LE> <crc32 of the payload: uint32 LE> <payload>``, the payload one of:

* a UTF-8 JSON object (its first byte ``{``): every record of a log written before request bodies were
  logged as received, and now a checkpoint, a rollback, the features of predictions kept for feedback,
  their feedback, and the updates of VW's daemon protocol;
* a request's body as received: the byte ``\x01`` (the version of this kind), a JSON object on one line (the
  record's header: what the update was and the seq it made), a newline, then the body's bytes, written as
  they came (one copy, no re-encoding) and read again on replay into the document the route read (a body it
  accepted reads the same by :func:`json_value`).
An update is acknowledged only after the group holding it is written and
fsynced, so a bad record with nothing valid after it (a record torn by
``kill -9`` or a power cut during a write) was never acknowledged:
:func:`read_log` stops there, and :class:`LogWriter` cuts the file back to
that point before appending, so that a later record is never hidden behind the torn one.

A bad record followed by a valid one is not a crash's doing but damage to
written data (a flipped bit, an overwritten block): the records after it were
acknowledged. :func:`read_log` then raises :class:`LogDamaged`, which names
the record, instead of dropping them; the framing finds the valid records
after the damage (a whole record, its CRC right and its payload a JSON object, or a body after one).
"""

import json
import os
import struct
import zlib

from .._lazy import LazyModule
from ..exceptions import OlearnError

orjson = LazyModule("orjson")  # the serve extra's, imported when a service writes

_HEADER = struct.Struct("<II")
# the first byte of a record holding a request's body as received (a JSON record's is "{")
_BODY_RECORD = b"\x01"
# every digit read as "0", any other byte as a space: a run of 19 digits is then a run of 19 "0"
_DIGITS_AS_ZEROS = bytes(b"0"[0] if b"0"[0] <= byte <= b"9"[0] else b" "[0] for byte in range(256))
# the shortest run of digits that may write an integer past 64 bits
_LONG_NUMBER = b"0" * 19
# write_in_slices: the placeholder of an array written in slices (a NUL byte: JSON holds none raw, and json_bytes
# escapes one within a string), and the bytes of items joined per slice (at least one item)
_SLOT = b"\x00"
_SLICE_BYTES = 1 << 20
# the most buffers one writev takes (POSIX's IOV_MAX, 1024 on Linux)
_IOV_MAX = 1024


def long_digits(payload):
    """Whether the bytes ``payload`` hold a run of 19 digits or more: a number that orjson may read otherwise than
    Python (an integer past 64 bits as a float), or such a run in a string. Two C-level passes over the bytes."""
    return _LONG_NUMBER in payload.translate(_DIGITS_AS_ZEROS)


class RawJSON:
    """A value already written as UTF-8 JSON (``text``: compact, by :func:`json_bytes`, or an example's own bytes of
    a request's body), which :func:`json_bytes` places as it is in the JSON of what holds it: written once, however
    many records hold it."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class RawJSONItems:
    """A JSON array whose items are values already written by :func:`json_bytes` (``items``: their texts, a list or
    an iterable that writes them each time it is iterated; a text may be a tuple of its pieces, any bytes-like
    object), joined only where the array is written: taking one
    (the waiting predictions of a checkpoint, on the event loop) copies references, not texts, and
    :func:`write_in_slices` writes it a slice at a time."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    @property
    def text(self):
        return b"".join(_sliced(self.items)) + b"]"


_SLOT_VALUE = RawJSON(_SLOT)


def _fragment(value):
    if type(value) in (RawJSON, RawJSONItems):
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _decoded(value):
    if type(value) in (RawJSON, RawJSONItems):
        return json_value(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON")


def json_bytes(value):
    """``value`` (JSON-ready, its numbers finite, :class:`RawJSON` and :class:`RawJSONItems` texts included) as
    compact UTF-8 JSON, by orjson; by :mod:`json` a value orjson does not write (an integer past 64 bits), which
    reads back the same."""
    try:
        return orjson.dumps(value, default=_fragment)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), allow_nan=False, default=_decoded).encode()


def json_bytes_each(values):
    """``[json_bytes(value) for value in values]``, by one ``map`` of orjson when it writes every one of them (values
    holding no :class:`RawJSON` nor an integer past 64 bits)."""
    try:
        return [*map(orjson.dumps, values)]
    except TypeError:
        return [*map(json_bytes, values)]


def json_value(payload):
    """The JSON value of ``payload`` (UTF-8 bytes) as :mod:`json` reads it, by orjson when that reads it the same:
    always but for a number of 19 digits or more (see :func:`long_digits`), or what orjson refuses (which
    :mod:`json` then reads, or refuses)."""
    if not long_digits(payload):
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            pass
    return json.loads(payload)


def encode(record):
    """The bytes of one record (a JSON-ready dict of finite numbers): its :func:`json_bytes`, framed."""
    return _framed(json_bytes(record))


def write_in_slices(fd, record):
    """Write the bytes of :func:`encode` ``(record)`` to the file ``fd`` from its current offset: each
    :class:`RawJSONItems` array among the values of the record's dicts made a slice of about ``_SLICE_BYTES`` at a
    time, and each slice added to the record's CRC and written before the next is made; then the header (the
    length and CRC of them all) written in the place left for it before them. No copy of a whole array is made,
    and a thread writing a checkpoint of many waiting predictions holds the GIL for the making of one slice at a
    time: the CRC and the write of a slice run without it, and the event loop takes the GIL meanwhile. (Made
    whole before the first was written, the slices of a checkpoint of 100,000 waiting predictions held the GIL
    for 8-150 ms of CPU in one stretch, issue #35; a slice holds it for 0.5-1.2 ms.) A record :func:`json_bytes`
    writes by :mod:`json` (an integer past 64 bits), or whose text holds a NUL byte elsewhere, is written whole.
    Until this returns, the record's header is zeros (a record no reader takes as whole)."""
    parts = _payload_parts(record)
    if parts is None:
        write_all(fd, [encode(record)])
        return
    start = os.lseek(fd, 0, os.SEEK_CUR)
    write_all(fd, [bytes(_HEADER.size)])  # the header's place, written once the parts are
    length = crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
        length += len(part)
        write_all(fd, [part])
    os.lseek(fd, start, os.SEEK_SET)
    write_all(fd, [_HEADER.pack(length, crc)])
    os.lseek(fd, 0, os.SEEK_END)


def _payload_parts(record):
    """The payload of :func:`encode` ``(record)`` as an iterator of its parts, each :class:`RawJSONItems` among the
    values of the record's dicts made a slice at a time as the iterator is walked; None for a record that has to be
    encoded whole (see :func:`write_in_slices`)."""
    arrays = []
    slotted = _slotted(record, arrays)
    try:
        pieces = json_bytes(slotted).split(_SLOT)
    except ValueError:  # written by json, which has no place for a slot
        return None
    if len(pieces) != len(arrays) + 1:
        return None
    return _parts(pieces, arrays)


def _parts(pieces, arrays):
    yield pieces[0]
    for array, piece in zip(arrays, pieces[1:]):
        yield from _sliced(array.items)
        yield b"]" + piece


def _sliced(items):
    """The text of a JSON array of the texts ``items`` but for its ``]``, as parts of about ``_SLICE_BYTES`` each,
    each part joined once from the items' bytes (an item is a bytes-like text, or a tuple of the pieces of one),
    made as they are taken."""
    pieces, size, written = [b"["], 0, False
    for item in items:
        if written:
            pieces.append(b",")
        written = True
        if type(item) is tuple:
            pieces += item
            size += sum(map(len, item))
        else:
            pieces.append(item)
            size += len(item)
        if size >= _SLICE_BYTES:
            yield b"".join(pieces)
            pieces, size = [], 0
    if pieces:
        yield b"".join(pieces)


def _slotted(value, arrays):
    """``value`` with each :class:`RawJSONItems` among the values of its dicts replaced by a slot (appended to
    ``arrays``, in the order :func:`json_bytes` writes them: a dict's keys in order)."""
    if type(value) is RawJSONItems:
        arrays.append(value)
        return _SLOT_VALUE
    if type(value) is dict:
        return {key: _slotted(item, arrays) for key, item in value.items()}
    return value


def encode_body(header, body):
    """The bytes of one record holding a request's ``body`` (bytes, as received) after its ``header`` (a JSON-ready
    dict): read back by :func:`read_log` as the header's dict with the body under ``"body"``."""
    return _framed(b"".join((_BODY_RECORD, json_bytes(header), b"\n", body)))


def _framed(payload):
    return _HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def _payload_record(payload):
    """The record of a payload whose CRC is right: the dict of a JSON record, or of a body record's header with
    its body under ``"body"``; None if it holds neither (ValueError for a header or JSON record that is not JSON)."""
    if payload[:1] == _BODY_RECORD:
        end = payload.find(b"\n")
        if end < 0:
            return None
        record = json_value(payload[1:end])
        if isinstance(record, dict):
            record["body"] = payload[end + 1:]
        return record
    return json_value(payload)


class LogDamaged(OlearnError, ValueError):
    """A log holds a bad record followed by valid ones.

    ``record`` is the number of the bad record (0 for the first), ``offset``
    the byte where it starts, and ``following`` the valid records found after it.
    """

    def __init__(self, path, record, offset, following, advice=None):
        super().__init__(f"{path}: record {record} (at byte {offset}) is damaged and {following} valid record(s) "
                         "follow it: the log was damaged after it was written, not torn by a crash"
                         + (f"; {advice}" if advice else ""))
        self.path, self.record, self.offset, self.following = path, record, offset, following


def _record_at(content, offset):
    """The record starting at ``offset`` and the offset after it, or None if no whole, valid record starts there."""
    if offset + _HEADER.size > len(content):
        return None
    length, crc = _HEADER.unpack_from(content, offset)
    end = offset + _HEADER.size + length
    if end > len(content):
        return None
    payload = content[offset + _HEADER.size:end]
    if zlib.crc32(payload) != crc:
        return None
    try:
        record = _payload_record(payload)
    except ValueError:
        return None
    return (record, end) if isinstance(record, dict) else None


def _count_after(content, offset):
    """The valid records after a bad one at ``offset``, found by trying each later byte as a record's start."""
    count, position = 0, offset + 1
    while position + _HEADER.size <= len(content):
        found = _record_at(content, position)
        if found is None:
            position += 1
        else:
            count += 1
            position = found[1]
    return count


def read_log(path):
    """The records of the log at ``path`` up to a torn tail, and the bytes they take.

    Raises :class:`LogDamaged` when a bad record is followed by a valid one.
    """
    with open(path, "rb") as fh:
        content = fh.read()
    records, offset = [], 0
    while offset < len(content):
        found = _record_at(content, offset)
        if found is None:
            following = _count_after(content, offset)
            if following:
                raise LogDamaged(path, len(records), offset, following)
            break
        records.append(found[0])
        offset = found[1]
    return records, offset


def read_checkpoint(path):
    """The first record of the log at ``path`` (its checkpoint), or None if it is not whole."""
    with open(path, "rb") as fh:
        header = fh.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return None
        content = header + fh.read(_HEADER.unpack(header)[0])
    found = _record_at(content, 0)
    return None if found is None else found[0]


def write_all(fd, buffers):
    """Write the ``buffers`` (bytes, or views of bytes) to the file ``fd``, whole and in order, by ``os.writev``:
    the buffers are not copied into one first, and the system call runs without the GIL. A group's ``b"".join``
    of its records held the GIL while it copied them, and so did that of the records a snapshot's new log takes
    over (tens of megabytes after a snapshot, issue #35): the event loop waited for the copy."""
    views = [view for view in (memoryview(buffer).cast("B") for buffer in buffers) if view.nbytes]  # by bytes
    first = 0
    while first < len(views):
        written = _writev(fd, views[first:first + _IOV_MAX])
        while written:  # the buffers written whole, then the part written of the next
            size = views[first].nbytes
            if written < size:
                views[first] = views[first][written:]
                break
            written -= size
            first += 1


def _writev_by_join(fd, buffers):
    """``os.writev`` where the system has none: one write of the buffers joined."""
    return os.write(fd, b"".join(buffers))


_writev = getattr(os, "writev", _writev_by_join)


def sync_folder(folder):
    """fsync a folder, so that the files created, renamed or removed in it stay so after a crash."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogWriter:
    """Appends groups of records to a log file, one write and one fsync per group."""

    def __init__(self, path, valid_length=None):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o666)
        if valid_length is not None:
            os.ftruncate(self._fd, valid_length)
            os.fsync(self._fd)
        os.lseek(self._fd, 0, os.SEEK_END)

    def append(self, records):
        """Write the encoded ``records`` (a list of bytes) and fsync them: durable when this returns."""
        write_all(self._fd, records)
        os.fsync(self._fd)

    def close(self):
        os.close(self._fd)
