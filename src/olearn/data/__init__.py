"""Data: file readers and streams, a binary cache, synthetic generators of the papers, dataset fetchers.

Readers return ``scipy.sparse.csr_matrix`` features with sorted,
duplicate-free rows. Text is parsed by compiled kernels
(``olearn._kernels._parse_*``); every format error is a
:class:`olearn.exceptions.DataFormatError` naming file, line and column.
"""

from .._lazy import lazy_names

# Every public name loads with its module on first use, so reading one format (``olearn run`` on a LIBSVM
# file) does not import the other readers, the dataset fetchers (urllib) or the generators.
_HOMES = {
    "load_cache": "_cache", "save_cache": "_cache",
    "iter_conll": "_conll", "load_conll": "_conll",
    "csv_columns": "_csv", "load_csv": "_csv", "csv_text_columns": "_csv_table", "load_csv_table": "_csv_table",
    "fetch_mnist": "_digits", "fetch_usps": "_digits", "read_idx": "_digits",
    "get_data_home": "_download",
    "detect_format": "_formats", "read_any": "_formats",
    "iter_libsvm": "_libsvm", "load_libsvm": "_libsvm",
    "ORABONA2010_ORDERINGS": "_orabona2010", "make_orabona2010_stream": "_orabona2010",
    "orabona2010_order": "_orabona2010", "orabona2010_separator": "_orabona2010",
    "make_pa_paper_stream": "_synthetic",
    "iter_vw": "_vw", "load_vw": "_vw",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES)

__all__ = [
    "ORABONA2010_ORDERINGS",
    "csv_columns",
    "csv_text_columns",
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
    "load_csv_table",
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
