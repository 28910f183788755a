"""Recognising a data file's format and reading any of them."""

import os
import re

import numpy as np

from olearn.exceptions import DataFormatError

from ._io import open_raw, read_head, strip_compression_suffix
from ._markers import CACHE_MAGIC, CACHE_SUFFIX, DOCUMENT_START

FORMATS = ("libsvm", "vw", "csv", "cache")
_SUFFIXES = {
    ".conll": "conll",
    ".svm": "libsvm",
    ".libsvm": "libsvm",
    ".svmlight": "libsvm",
    ".vw": "vw",
    ".csv": "csv",
    CACHE_SUFFIX: "cache",
}
_LIBSVM_FEATURE = re.compile(r"(\d+|qid):\S+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def detect_format(path):
    """Name the format of a data file: ``"libsvm"``, ``"vw"``, ``"csv"``, ``"cache"`` or ``"conll"``.

    The suffix decides first, after stripping ``.gz`` / ``.bz2`` / ``.xz``:
    ``.svm``, ``.libsvm``, ``.svmlight`` -> libsvm; ``.vw`` -> vw;
    ``.csv`` -> csv; ``.olc`` -> cache; ``.conll`` -> conll (sequences, see
    :func:`load_conll`). Otherwise (``.txt``, no suffix, ...)
    a cache is recognised by its magic bytes, and a text file by its first
    line that is neither blank nor a ``#`` comment: ``-DOCSTART-`` first
    means CoNLL; a ``|`` means VW; a label
    followed by ``index:value`` tokens (or a lone number) means LIBSVM;
    commas without colons mean CSV. Any other CoNLL file
    (``The DT B-NP``) is not recognised: name its format.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist (and its suffix did not decide).
    olearn.exceptions.DataFormatError
        If the file is empty or its first line fits none of the formats.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import detect_format
    >>> folder = tempfile.mkdtemp()
    >>> detect_format(os.path.join(folder, "train.vw.gz"))
    'vw'
    >>> path = os.path.join(folder, "train.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# my data\\n-1 3:0.5 10:1\\n")
    >>> detect_format(path)
    'libsvm'
    """
    path = os.fspath(path)
    suffix = os.path.splitext(strip_compression_suffix(path))[1].lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    with open_raw(path) as f:
        if f.read(len(CACHE_MAGIC)) == CACHE_MAGIC:
            return "cache"
    head = read_head(path).decode("utf-8", "replace")
    for line_number, line in enumerate(head.split("\n"), start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            break
    else:
        raise DataFormatError("cannot detect the format of a file with no data lines", path)
    tokens = text.split()
    if tokens[0] == DOCUMENT_START.decode():
        return "conll"
    if "|" in text:
        return "vw"
    if all(_LIBSVM_FEATURE.fullmatch(t) for t in tokens[1:]) and (
        len(tokens) > 1 or _NUMBER.fullmatch(tokens[0])
    ):
        return "libsvm"
    if "," in text and ":" not in text:
        return "csv"
    raise DataFormatError(
        f"cannot detect the format from {text[:60]!r}: expected LIBSVM ('label index:value ...'), "
        "VW ('label | features'), CSV ('x1,x2,...') or CoNLL sequences ('feature ... tag'); name the format "
        "explicitly",
        path,
        line_number,
        1,
    )


def read_any(path, format=None, **kwargs):
    """Read a LIBSVM, VW, CSV or cache file into ``(X, y, importance)``.

    Parameters
    ----------
    path : str or os.PathLike
    format : {"libsvm", "vw", "csv", "cache"}, optional
        Default: :func:`detect_format`.
    **kwargs
        Passed to the reader (:func:`load_libsvm`, :func:`load_vw`,
        :func:`load_csv`; none for :func:`load_cache`).

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64
        Converted to float64 if the reader or cache held another dtype.
    y : ndarray (or list of tuples for multilabel LIBSVM)
    importance : ndarray or None
        Importance weights (VW, or a cache that stores them), else None.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import read_any
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0,1,1\\n2,0,-1\\n")
    >>> X, y, importance = read_any(path)
    >>> X.shape, y, importance
    ((2, 2), array([ 1., -1.]), None)
    """
    fmt = detect_format(path) if format is None else format
    if fmt == "conll":
        raise ValueError(f"{os.fspath(path)} is a CoNLL file of sequences, which is no (X, y) of rows: read it "
                         "with olearn.data.load_conll")
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    importance = None
    # each reader is imported when read, so that detecting a format loads none of the others
    if fmt == "libsvm":
        from ._libsvm import load_libsvm

        X, y = load_libsvm(path, **kwargs)
    elif fmt == "vw":
        from ._vw import load_vw

        X, y, importance = load_vw(path, **kwargs)
    elif fmt == "csv":
        from ._csv import load_csv

        X, y = load_csv(path, **kwargs)
    else:
        if kwargs:
            raise TypeError(f"load_cache takes no options, got {sorted(kwargs)}")
        from ._cache import load_cache

        X, y, importance = load_cache(path)
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    return X, y, importance
