"""Prediction with expert advice: Halving, Weighted Majority, weighted average, Hedge, Fixed Share.

Sources: the UCL online-learning slides (Part I), Littlestone & Warmuth 1994,
Freund & Schapire 1997, Herbster & Warmuth 1998. Every learner keeps its
weights in the log domain and its ``run`` returns an :class:`ExpertsResult`
with the regret after each round next to the theorem's bound.

>>> from olearn.experts import WeightedMajority
>>> res = WeightedMajority(beta=0.5).run([[1, 0], [1, 0], [0, 1]], [0, 0, 0])
>>> res.n_mistakes, res.expert_losses.tolist()
(2, [2.0, 1.0])
"""

from ._average import WeightedAverage
from ._ensemble import LearnerEnsemble
from ._hedge import FixedShare, Hedge
from ._result import ExpertsResult
from ._voting import Halving, RandomizedWeightedMajority, WeightedMajority

__all__ = [
    "ExpertsResult",
    "FixedShare",
    "Halving",
    "Hedge",
    "LearnerEnsemble",
    "RandomizedWeightedMajority",
    "WeightedAverage",
    "WeightedMajority",
]
