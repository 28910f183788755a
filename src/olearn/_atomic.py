"""Atomic file writes that clean up after a killed writer.

Every file olearn writes for later use (a saved model, a data cache, a
downloaded dataset) is written under a temporary name in the target's folder
and renamed over the target once complete, so a reader never sees half a file.
The temporary name is ``.<target name>.<pid>.<random>.olearn-tmp``: a writer
killed with ``kill -9`` cannot remove its own temporary file, so each write of
the same target first removes the temporary files of that target whose
process is no longer alive. (On systems other than POSIX the liveness of a
process is not checked, and leftovers are kept.)
"""

import contextlib
import os

_SUFFIX = ".olearn-tmp"


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


def _remove_stale(folder, name):
    """Remove the temporary files of target ``name`` in ``folder`` left by processes that died."""
    prefix = f".{name}."
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
    removed and ``path`` is left as it was. The file gets the permissions of
    any file the user creates (0o666 less the umask).
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    _remove_stale(folder, name)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}{_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
