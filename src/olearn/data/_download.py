"""Downloading a dataset's files once: mirrors, checksums, an atomic local cache.

A fetcher names its files by (file name, MD5 of the file as published) and a list
of base URLs. The first call downloads each missing file into the data home,
checks its checksum and only then moves it into place (:mod:`olearn._atomic`), so
that the cache never holds a partial or corrupted file; later calls read the cache
and need no network.
"""

import hashlib
import os
import urllib.error
import urllib.request

from .._atomic import atomic_write

_CHUNK = 1 << 16
_TIMEOUT = 60


def get_data_home(data_home=None, create=True):
    """The folder where fetched datasets are kept, created if needed (and ``create``).

    In order: the ``data_home`` argument, the ``OLEARN_DATA`` environment
    variable, ``~/olearn_data``.

    >>> import os, tempfile
    >>> folder = os.path.join(tempfile.mkdtemp(), "datasets")
    >>> get_data_home(folder) == folder and os.path.isdir(folder)
    True
    """
    if data_home is None:
        data_home = os.environ.get("OLEARN_DATA") or os.path.join("~", "olearn_data")
    data_home = os.path.expanduser(os.fspath(data_home))
    if create:
        os.makedirs(data_home, exist_ok=True)
    return data_home


def _md5_of(path):
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _download_to(url, path, md5):
    """Download ``url`` and move it to ``path`` once its checksum is right; a bad download leaves no file."""
    with atomic_write(path) as out, urllib.request.urlopen(url, timeout=_TIMEOUT) as response:  # noqa: S310
        digest = hashlib.md5(usedforsecurity=False)
        for block in iter(lambda: response.read(_CHUNK), b""):
            digest.update(block)
            out.write(block)
        if digest.hexdigest() != md5:
            raise OSError(
                f"{url}: checksum mismatch (MD5 {digest.hexdigest()}, expected {md5}); the download was discarded"
            )


def fetch_file(name, md5, base_urls, folder, download_if_missing=True):
    """The local path of the dataset file ``name``, downloaded from the first base URL that serves it.

    A file already in ``folder`` is trusted only if its checksum is right (a
    corrupted one is downloaded again). Raises FileNotFoundError when the file
    is missing and ``download_if_missing`` is False, and OSError naming every
    URL tried when no mirror gives a file with the right checksum.
    """
    path = os.path.join(folder, name)
    if os.path.exists(path) and _md5_of(path) == md5:
        return path
    if not download_if_missing:
        raise FileNotFoundError(f"{path}: not downloaded yet, and download_if_missing=False")
    failures = []
    for base in base_urls:
        url = base.rstrip("/") + "/" + name
        try:
            _download_to(url, path, md5)
        except (OSError, urllib.error.URLError, ValueError) as error:
            failures.append(f"{url}: {error}")
            continue
        return path
    raise OSError(f"could not download {name}; tried:\n  " + "\n  ".join(failures))
