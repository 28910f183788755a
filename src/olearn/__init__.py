"""olearn: online learning from streams, on compiled kernels.

>>> import olearn
>>> clf = olearn.PAClassifier(variant="pa1", C=1.0)
>>> res = olearn.run(clf, [[1.0, 0.0], [0.0, 1.0]], ["spam", "ham"])
>>> res.n_rounds, clf.classes_.tolist()
(2, ['ham', 'spam'])
"""

import importlib

from ._config import config_context, get_config, set_config
from ._persistence import load
from ._registry import all_estimators
from .evaluate import RunResult, run
from .dual import DualAscent
from .linear import OGDClassifier, OnlineSVM, PAClassifier, PARegressor, Perceptron
from .multiclass import MIRA, MulticlassPerceptron, PACostSensitive, PAMulticlass
from .multilabel import PAMultilabel
from .second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron
from .quasi_additive import PNorm, Winnow
from .sequence import PASequence
from .uniclass import PAUniclass

__version__ = "0.1.0"

_SUBPACKAGES = (
    "bounds", "compose", "data", "distributed", "experiments", "experts", "metrics", "oco", "plots", "preprocessing",
    "serve",
)


def __getattr__(name):
    # the subpackages load on first use, keeping the command line's start quick
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "AROW",
    "CW",
    "DualAscent",
    "MIRA",
    "MulticlassPerceptron",
    "AdaGrad",
    "NAROW",
    "OGDClassifier",
    "OnlineSVM",
    "PAClassifier",
    "PACostSensitive",
    "PAMulticlass",
    "PAMultilabel",
    "PARegressor",
    "PASequence",
    "PNorm",
    "PAUniclass",
    "Perceptron",
    "RunResult",
    "SecondOrderPerceptron",
    "Winnow",
    "all_estimators",
    "bounds",
    "compose",
    "config_context",
    "data",
    "distributed",
    "get_config",
    "load",
    "metrics",
    "preprocessing",
    "run",
    "set_config",
]
