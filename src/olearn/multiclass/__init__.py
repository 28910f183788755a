"""Multiclass and cost-sensitive online classification.

Passive-Aggressive multiclass learners (Crammer et al. 2006, Sec. 7-8), with one
prototype per class or one vector and a feature map, and the comparison baselines
of Crammer & Singer (2003): the ultraconservative multiclass Perceptrons and MIRA.
Labels are any sortable hashable values; a new class may appear mid-stream.

>>> import numpy as np
>>> from olearn.multiclass import PAMulticlass
>>> from olearn import run
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
>>> res = run(PAMulticlass(), X, ["cat", "dog", "cat", "dog"])
>>> res.predictions.tolist(), res.n_mistakes
(['cat', 'cat', 'dog', 'dog'], 3)
"""

from ._feature_maps import BlockFeatureMap
from ._pa import PACostSensitive, PAMulticlass
from ._ultraconservative import MIRA, MulticlassPerceptron

__all__ = [
    "MIRA",
    "BlockFeatureMap",
    "MulticlassPerceptron",
    "PACostSensitive",
    "PAMulticlass",
]
