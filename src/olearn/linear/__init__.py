"""Linear online learners: Perceptron, Passive-Aggressive (classification and regression), online gradient descent."""

from ._base import BinaryLinearClassifier, LinearLearner
from ._ogd import OGDClassifier, OnlineSVM
from ._pa import PAClassifier
from ._perceptron import Perceptron
from ._regressor import PARegressor

__all__ = [
    "BinaryLinearClassifier",
    "LinearLearner",
    "OGDClassifier",
    "OnlineSVM",
    "PAClassifier",
    "PARegressor",
    "Perceptron",
]
