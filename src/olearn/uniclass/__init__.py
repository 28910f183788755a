"""Uniclass prediction: a ball that follows a stream of vectors (Crammer et al. 2006, Sec. 6).

>>> import numpy as np
>>> from olearn.uniclass import PAUniclass
>>> from olearn import run
>>> res = run(PAUniclass(variant="pa", epsilon=0.5), np.array([[1.0, 0.0], [0.8, 0.0], [5.0, 0.0]]))
>>> res.n_mistakes, res.losses.tolist()       # rounds whose vector fell outside the ball
(2, [0.5, 0.0, 4.0])
"""

from ._pa import PAUniclass

__all__ = ["PAUniclass"]
