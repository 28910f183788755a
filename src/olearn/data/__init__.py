"""Data: file readers and streams, a binary cache, synthetic generators of the papers, dataset fetchers.

Readers return ``scipy.sparse.csr_matrix`` features with sorted,
duplicate-free rows. Text is parsed by compiled kernels
(``olearn._kernels._parse_*``); every format error is a
:class:`olearn.exceptions.DataFormatError` naming file, line and column.
"""

from ._cache import load_cache, save_cache
from ._conll import iter_conll, load_conll
from ._csv import csv_columns, load_csv
from ._digits import fetch_mnist, fetch_usps, read_idx
from ._download import get_data_home
from ._formats import detect_format, read_any
from ._libsvm import iter_libsvm, load_libsvm
from ._orabona2010 import (
    ORABONA2010_ORDERINGS,
    make_orabona2010_stream,
    orabona2010_order,
    orabona2010_separator,
)
from ._synthetic import make_pa_paper_stream
from ._vw import iter_vw, load_vw

__all__ = [
    "ORABONA2010_ORDERINGS",
    "csv_columns",
    "detect_format",
    "fetch_mnist",
    "fetch_usps",
    "get_data_home",
    "iter_conll",
    "iter_libsvm",
    "iter_vw",
    "load_cache",
    "load_conll",
    "load_csv",
    "load_libsvm",
    "load_vw",
    "make_orabona2010_stream",
    "make_pa_paper_stream",
    "orabona2010_order",
    "orabona2010_separator",
    "read_any",
    "read_idx",
    "save_cache",
]
