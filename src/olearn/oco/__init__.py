"""Online convex optimization: Euclidean projections and projected online gradient descent.

Sources: Zinkevich, *Online Convex Programming and Generalized Infinitesimal
Gradient Ascent* (ICML 2003); the OCO lecture notes (OGD on the simplex,
online SVM, delayed updates); Langford, Smola & Zinkevich, *Slow Learners are
Fast* (NIPS 2009); Duchi et al., *Efficient Projections onto the l1-Ball*
(ICML 2008).

>>> import numpy as np
>>> from olearn.oco import L2Ball, ProjectedOGD
>>> ogd = ProjectedOGD(L2Ball(2, radius=1.0), eta=1.0, schedule="constant")
>>> ogd.learn_one(np.array([-3.0, -4.0])).x_.tolist()     # step to (3, 4), projected back
[0.6, 0.8]
"""

from ._domains import (
    Box,
    Domain,
    L1Ball,
    L2Ball,
    Simplex,
    project_box,
    project_l1_ball,
    project_l2_ball,
    project_simplex,
)
from ._ogd import ConvexLoss, OGDResult, ProjectedOGD

__all__ = [
    "Box",
    "ConvexLoss",
    "Domain",
    "L1Ball",
    "L2Ball",
    "OGDResult",
    "ProjectedOGD",
    "Simplex",
    "project_box",
    "project_l1_ball",
    "project_l2_ball",
    "project_simplex",
]
