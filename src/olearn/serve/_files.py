"""The permissions of a service's files: its state kept to its user, and a warning for what others can read.

The service runs with the umask 0o077, so that the files and folders it
creates (snapshots, logs, the state folder) are its user's only (0600 and
0700): they hold every feature name and category value that was learned. A
token file or a state folder that other users may open is reported at start.
"""

import os
import sys

PRIVATE_UMASK = 0o077


def warn_if_readable_by_others(path, what):
    """Print a warning when ``path`` (``what`` names it) grants any access to its group or other users (POSIX)."""
    if os.name != "posix":
        return
    mode = os.stat(path).st_mode & 0o777
    if mode & 0o077:
        private = "700" if os.path.isdir(path) else "600"
        print(f"olearn serve: warning: {what} {path} can be read by other users (mode {mode:o}); "
              f"chmod {private} {path}", file=sys.stderr, flush=True)
