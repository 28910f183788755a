"""One service per state folder: an exclusive lock on the folder, held for the life of the process.

Two services on one folder would both append to its log (or one would cut the
log the other is writing), losing acknowledged updates. A service therefore
takes ``fcntl.flock`` on the file ``lock`` in the folder before it reads
anything there, and writes its pid into it; a second service finds the lock
taken and stops, naming that pid. The operating system releases the lock when
the process ends, however it ends (``kill -9`` too), so a lock is never stale.
"""

import os

from ..exceptions import OlearnError

LOCK_NAME = "lock"


class StateDirLocked(OlearnError, RuntimeError):
    """Another process serves from this state folder."""


class FolderLock:
    """The exclusive lock of a state folder (created if missing); :meth:`release` or the process's end frees it."""

    def __init__(self, folder):
        import fcntl

        os.makedirs(folder, exist_ok=True)
        self.path = os.path.join(folder, LOCK_NAME)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 32, 0).decode("ascii", "replace").strip()
            os.close(self._fd)
            raise StateDirLocked(f"{folder}: another olearn serve (pid {holder or 'unknown'}) is serving from "
                                 "this state folder; stop it first, or give another --state-dir") from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
