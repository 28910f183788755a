"""The write-ahead log: length-prefixed JSON records, each with a CRC-32, appended and fsynced in groups.

A record is ``<length: uint32 LE> <crc32 of the payload: uint32 LE> <payload: UTF-8 JSON>``.
An update is acknowledged only after the group holding it is written and
fsynced, so whatever follows the last whole record with a good CRC (a record
torn by ``kill -9`` or a power cut during a write) was never acknowledged:
:func:`read_log` stops there, and :class:`LogWriter` cuts the file back to
that point before appending, so that a later record is never hidden behind the torn one.
"""

import json
import os
import struct
import zlib

_HEADER = struct.Struct("<II")


def encode(record):
    """The bytes of one record (a JSON-ready dict)."""
    payload = json.dumps(record, separators=(",", ":"), allow_nan=False).encode()
    return _HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def read_log(path):
    """The records of the log at ``path`` up to the first torn or damaged one, and the bytes they take."""
    with open(path, "rb") as fh:
        content = fh.read()
    records, offset = [], 0
    while offset + _HEADER.size <= len(content):
        length, crc = _HEADER.unpack_from(content, offset)
        start, end = offset + _HEADER.size, offset + _HEADER.size + length
        payload = content[start:end]
        if end > len(content) or zlib.crc32(payload) != crc:
            break
        try:
            record = json.loads(payload)
        except ValueError:
            break
        records.append(record)
        offset = end
    return records, offset


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
        data = b"".join(records)
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self):
        os.close(self._fd)
