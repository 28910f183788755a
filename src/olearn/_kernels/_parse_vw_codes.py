"""The codes of the VW text parser (:mod:`._parse_vw`) and of its namespace crossing (:mod:`._interactions`),
without numba.

Its error codes and its slots of the ``counts`` output, after the slots every
parser shares (:mod:`._parse_codes`): :mod:`olearn.data` reads them after every
parse, and :mod:`._compiled` runs the parser and the crossing without starting
numba. (The LIBSVM parser's codes of the same names have other values, hence a
module of their own.)
"""

from ._parse_codes import N_SHARED_COUNTS

E_NO_BAR = 1  # a non-blank line without '|'
E_HEADER = 2  # unexpected token before the first '|'
E_NEGATIVE_WEIGHT = 3
E_NAMESPACE_WEIGHT = 4  # '|ns:w' is not supported
E_EMPTY_NAME = 5  # ':value' without a feature name
E_EMPTY_VALUE = 6  # 'name:'
E_VALUE = 7  # value is not a number
FULL_FIXUPS = 8  # the fixups output is full: the caller parses again with one of room for every number
E_LABEL_WORD = 9  # the label is a word: no number, no tag (a tag touches the '|' or starts with "'")
E_WEIGHT_WORD = 10  # the importance weight is a word: no number, no tag

# counts[] slots filled by parse_vw: the shared ones (C_STATUS, C_ERR_POS,
# C_FIXUPS; see _parse_number), then
C_ROWS = N_SHARED_COUNTS
C_NNZ = N_SHARED_COUNTS + 1
N_COUNTS = N_SHARED_COUNTS + 2

# the letter of an interaction's ':' (any namespace of the row) in the terms the crossing takes: no byte's value
WILDCARD = 256
