"""Second-order and adaptive binary learners: AROW, NAROW, Orabona & Crammer's AROW (Fig1AROW), the Second-Order
Perceptron, CW and AdaGrad.

Each keeps a mean weight vector (``coef_``) and a covariance (``covariance_``,
full or diagonal) that shrinks along the directions already seen, so that
rare features keep large steps. See ``docs/second_order.md``.
"""

from .._lazy import lazy_names

# Every learner loads with its module on first use, so ``olearn run --algo arow`` does not import the others.
_HOMES = {
    "AdaGrad": "_adagrad",
    "AROW": "_arow",
    "SecondOrderClassifier": "_base",
    "CW": "_cw",
    "Fig1AROW": "_fig1_arow",
    "NAROW": "_narow",
    "SecondOrderPerceptron": "_sop",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)

__all__ = ["AROW", "CW", "Fig1AROW", "NAROW", "AdaGrad", "SecondOrderClassifier", "SecondOrderPerceptron"]
