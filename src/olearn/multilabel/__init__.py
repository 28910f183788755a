"""Multilabel ranking: sets of relevant labels (Crammer et al. 2006, Sec. 7).

>>> import numpy as np
>>> from olearn.multilabel import PAMultilabel
>>> from olearn import run
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]])
>>> Y = np.array([[1, 1, 0], [0, 0, 1], [1, 1, 0]])     # indicator matrix: labels 0, 1, 2
>>> res = run(PAMultilabel(variant="pa"), X, Y)
>>> res.cumulative_mistakes.tolist()       # a round is a mistake when its ranking is wrong
[1, 2, 2]
>>> res.scores.round(2).tolist()           # the margins: lowest relevant minus highest irrelevant score
[0.0, 0.0, 0.45]
"""

from ._pa import PAMultilabel

__all__ = ["PAMultilabel"]
