"""Binary linear online learners: Perceptron, Passive-Aggressive, online gradient descent."""

from ._base import BinaryLinearClassifier
from ._ogd import OGDClassifier, OnlineSVM
from ._perceptron import Perceptron
from ._pa import PAClassifier

__all__ = ["BinaryLinearClassifier", "OGDClassifier", "OnlineSVM", "PAClassifier", "Perceptron"]
