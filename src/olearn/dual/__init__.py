"""Online learning as incremental dual ascent (Shalev-Shwartz & Singer 2006).

:class:`DualAscent` raises the dual of a regularized hinge-loss problem round
by round (conservative, aggressive, last-k and all-examples updates, in the
Euclidean, entropic and p-norm geometries) and records the dual objective;
:mod:`olearn.bounds` turns it into the certificate of the paper's Thm. 1.
"""

from ._dual_ascent import DualAscent

__all__ = ["DualAscent"]
