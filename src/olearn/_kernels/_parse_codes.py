"""The codes the text parsers exchange with the Python layer, without numba.

The slots of a parser's ``counts`` output, its status and error codes, and the
kinds of fix-up rows: :mod:`olearn.data` reads them after every parse, and
:mod:`._compiled` runs the LIBSVM parser without starting numba, so they live
here rather than in the compiled modules (which import them from here).
"""

# Leading counts[] slots of every parser; a parser's own slots follow from N_SHARED_COUNTS.
OK = 0  # status of a parse without error; error codes are the parser's own
C_STATUS = 0
C_ERR_POS = 1
C_ERR_INFO = 2  # extra detail of some errors (e.g. the offending index), else 0
C_FIXUPS = 3
N_SHARED_COUNTS = 4

# Kinds of fix-up targets (column 2 of a fix-up row).
FIX_DATA = 0
FIX_LABEL = 1
FIX_WEIGHT = 2

# The LIBSVM parser (:mod:`._parse_libsvm`).
E_LABEL = 1  # label is not a number
E_LABEL_INT = 2  # multilabel: a label is not an integer
E_MISSING_COLON = 3  # feature token without ':'
E_EMPTY_INDEX = 4  # ':value'
E_INDEX = 5  # index part is not a non-negative integer
E_INDEX_ZERO = 6  # index 0 in a 1-based file
E_INDEX_RANGE = 7  # index above the limit; info = index
E_EMPTY_VALUE = 8  # 'index:'
E_VALUE = 9  # value is not a number
E_DUPLICATE = 10  # index repeated in a sorted run; info = index
E_QID = 11  # 'qid:' token
E_LABEL_RANGE = 12  # multilabel: an integer label beyond the int64 range

# counts[] slots of parse_libsvm: the shared ones (C_STATUS, C_ERR_POS,
# C_ERR_INFO, C_FIXUPS; see _parse_number), then
C_ROWS = N_SHARED_COUNTS  # rows in the outputs (read at the start, then updated)
C_NNZ = N_SHARED_COUNTS + 1  # entries of indices/data in use (likewise)
C_MLABELS = N_SHARED_COUNTS + 2  # entries of mlabels in use (likewise)
C_UNSORTED = N_SHARED_COUNTS + 3  # output: rows listed in unsorted
C_STOP = N_SHARED_COUNTS + 4  # output: the offset where parsing stopped (end, or a line start)
N_COUNTS = N_SHARED_COUNTS + 5

# Status of a parse that stopped at a line start because an output array is
# full (not an error): grow the outputs and parse on from counts[C_STOP].
# counts[C_ERR_INFO] then says which is full:
OUT_OF_ROOM = -1
FULL_ROWS = 0  # indptr (and labels or mlabel_ptr)
FULL_ENTRIES = 1  # indices and data
FULL_MLABELS = 2
FULL_UNSORTED = 3  # unsorted (the caller has sorted the rows listed; it only needs more room)
FULL_FIXUPS = 4  # fixups (likewise converted already)

# Codes of check_csr (:mod:`._parse_rows`): what is wrong with the arrays of a CSR matrix read from a file.
CSR_OK = 0
CSR_INDPTR_START = 1  # indptr[0] != 0
CSR_INDPTR_DECREASES = 2  # indptr[row + 1] < indptr[row]
CSR_INDPTR_END = 3  # indptr[-1] != len(indices)
CSR_INDEX_RANGE = 4  # an index outside [0, n_columns)
CSR_INDEX_ORDER = 5  # indices of a row not strictly increasing (unsorted or repeated)
