"""Sequence labelling: Passive-Aggressive learning of first-order chains, with Viterbi inference.

:class:`PASequence` learns from lists of sequences (each a (T, n_features) matrix
with T labels); :class:`HammingCost` declares a cost of the Hamming distance;
:func:`hamming_errors` counts the wrong positions of each predicted sequence.
"""

from ._costs import HammingCost
from ._inputs import hamming_errors
from ._pa import PASequence

__all__ = ["HammingCost", "PASequence", "hamming_errors"]
