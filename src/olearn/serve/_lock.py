"""One service per state folder: an exclusive lock on the folder, held for the life of the process.

Two services on one folder would both append to its log (or one would cut the
log the other is writing), losing acknowledged updates. A service therefore
takes ``fcntl.flock`` on the file ``lock`` in the folder before it reads
anything there, and writes its pid into it; a second service finds the lock
taken and stops, naming that pid. The operating system releases the lock when
the process ends, however it ends (``kill -9`` too), so a lock is never stale.
(On Windows, ``msvcrt.locking`` locks a byte of the file past the pid instead.)
"""

import errno
import os

from ..exceptions import OlearnError

LOCK_NAME = "lock"
# what a lock taken by another process raises (flock: EWOULDBLOCK; msvcrt.locking: EACCES or EDEADLOCK)
_HELD = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, errno.EDEADLK}


class StateDirLocked(OlearnError, RuntimeError):
    """Another process serves from this state folder."""


def _lock(fd):
    """Lock the file ``fd`` for this process, or raise OSError at once if another process holds it."""
    if os.name == "nt":
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class FolderLock:
    """The exclusive lock of a state folder (created if missing); :meth:`release` or the process's end frees it."""

    def __init__(self, folder):
        os.makedirs(folder, exist_ok=True)
        self.path = os.path.join(folder, LOCK_NAME)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            _lock(self._fd)
        except OSError as err:
            if err.errno not in _HELD:
                os.close(self._fd)
                raise
            os.lseek(self._fd, 0, os.SEEK_SET)
            holder = os.read(self._fd, 32).decode("ascii", "replace").strip()
            os.close(self._fd)
            raise StateDirLocked(f"{folder}: another olearn serve (pid {holder or 'unknown'}) is serving from "
                                 "this state folder; stop it first, or give another --state-dir") from None
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def release(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
