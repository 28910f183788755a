"""Linear online learners: Perceptron, Passive-Aggressive (classification and regression), online gradient descent."""

from .._lazy import lazy_names

# Every learner loads with its module on first use, so ``olearn run --algo pa1`` does not import the others.
_HOMES = {
    "BinaryLinearClassifier": "_binary",
    "LinearLearner": "_base",
    "OGDClassifier": "_ogd",
    "OnlineSVM": "_ogd",
    "PAClassifier": "_pa",
    "PARegressor": "_regressor",
    "Perceptron": "_perceptron",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)

__all__ = [
    "BinaryLinearClassifier",
    "LinearLearner",
    "OGDClassifier",
    "OnlineSVM",
    "PAClassifier",
    "PARegressor",
    "Perceptron",
]
