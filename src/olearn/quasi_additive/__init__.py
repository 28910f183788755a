"""The quasi-additive family: theta <- theta + alpha y x, predictions with w = grad F*(theta).

Balanced Winnow (entropic geometry) and the p-norm algorithms (conservative and
aggressive); :class:`olearn.dual.DualAscent` covers the same geometries with
the other dual updates.
"""

from ._base import QuasiAdditiveClassifier
from ._pnorm import PNorm
from ._winnow import Winnow

__all__ = ["PNorm", "QuasiAdditiveClassifier", "Winnow"]
