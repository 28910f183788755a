"""olearn: online learning from streams, on compiled kernels.

>>> import olearn
>>> clf = olearn.PAClassifier(variant="pa1", C=1.0)
>>> res = olearn.run(clf, [[1.0, 0.0], [0.0, 1.0]], ["spam", "ham"])
>>> res.n_rounds, clf.classes_.tolist()
(2, ['ham', 'spam'])
"""

from ._lazy import lazy_names

__version__ = "0.1.0"

_SUBPACKAGES = (
    "bounds", "compose", "data", "distributed", "dual", "evaluate", "experiments", "experts", "kernel", "linear",
    "metrics", "multiclass", "multilabel", "oco", "plots", "preprocessing", "quasi_additive", "second_order",
    "sequence", "serve", "uniclass",
)
# Every public name loads with its module on first use, so ``import olearn`` costs a few milliseconds: a
# command-line run pays only for the families it uses, and a Ctrl-C while they load is the command's to handle.
_HOMES = {
    "config_context": "_config", "get_config": "_config", "set_config": "_config",
    "load": "_persistence",
    "all_estimators": "_registry",
    "RunResult": "evaluate", "run": "evaluate",
    "DualAscent": "dual",
    "OGDClassifier": "linear", "OnlineSVM": "linear", "PAClassifier": "linear", "PARegressor": "linear",
    "Perceptron": "linear",
    "MIRA": "multiclass", "MulticlassPerceptron": "multiclass", "PACostSensitive": "multiclass",
    "PAMulticlass": "multiclass",
    "PAMultilabel": "multilabel",
    "AROW": "second_order", "CW": "second_order", "NAROW": "second_order", "AdaGrad": "second_order",
    "SecondOrderPerceptron": "second_order", "Fig1AROW": "second_order",
    "PNorm": "quasi_additive", "Winnow": "quasi_additive",
    "PASequence": "sequence",
    "PAUniclass": "uniclass",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, _SUBPACKAGES)

__all__ = [
    "AROW",
    "CW",
    "DualAscent",
    "Fig1AROW",
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
