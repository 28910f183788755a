"""Atomic file writes that clean up after a killed writer.

Every file olearn writes for later use (a saved model, a data cache, a
downloaded dataset) is written under a temporary name in the target's folder
and renamed over the target once complete, so a reader never sees half a file.
The temporary name is ``.<stem>.<pid>.<random>.olearn-tmp``, where the stem is
the target's name, or for a name too long to leave room for the rest within
the 255 bytes a file name may take (``NAME_MAX``), its start and a digest of
it. A writer killed with ``kill -9`` cannot remove its own temporary file, so
each write of the same target first removes the temporary files of that
target whose process is no longer alive. (On systems other than POSIX the
liveness of a process is not checked, and leftovers are kept.)
"""

import contextlib
import hashlib
import os

_SUFFIX = ".olearn-tmp"
_NAME_MAX = 255
# the bytes of a temporary name besides its stem: two dots, a pid (at most 10 digits), a dot, 8 hex digits, the suffix
_STEM_MAX = _NAME_MAX - (2 + 10 + 1 + 8 + len(_SUFFIX))
_DIGEST_HEX = 16


def _stem(name):
    """The target ``name`` if short enough for its temporary names, else its start, ``~`` and a digest of it."""
    raw = os.fsencode(name)
    if len(raw) <= _STEM_MAX:
        return name
    digest = hashlib.blake2b(raw, digest_size=_DIGEST_HEX // 2).hexdigest()
    return os.fsdecode(raw[: _STEM_MAX - 1 - _DIGEST_HEX]) + "~" + digest


def _alive(pid):
    """True unless no process ``pid`` exists (a process of another user counts as alive)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove_stale(folder, stem):
    """Remove the temporary files of the target of ``stem`` in ``folder`` left by processes that died."""
    prefix = f".{stem}."
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith(_SUFFIX)):
            continue
        pid, _, token = entry[len(prefix):-len(_SUFFIX)].partition(".")
        if not (pid.isdigit() and token) or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, entry))


@contextlib.contextmanager
def atomic_write(path):
    """Write ``path`` atomically: yields a binary file open on a temporary name in its folder.

    When the block completes the file is flushed to disk and renamed over
    ``path``; when it raises (even KeyboardInterrupt) the temporary file is
    removed and ``path`` is left as it was. An error of the system writing
    the file (a full disk: "No space left on device") names ``path``. The
    file gets the permissions of any file the user creates (0o666 less the
    umask).
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    stem = _stem(name)
    _remove_stale(folder, stem)
    tmp = os.path.join(folder, f".{stem}.{os.getpid()}.{os.urandom(4).hex()}{_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.errno is not None and err.filename is None:
            raise OSError(err.errno, err.strerror, path) from err
        raise
