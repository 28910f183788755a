"""Second-order and adaptive binary learners: AROW, NAROW, the Second-Order Perceptron, CW and AdaGrad.

Each keeps a mean weight vector (``coef_``) and a covariance (``covariance_``,
full or diagonal) that shrinks along the directions already seen, so that
rare features keep large steps. See ``docs/second_order.md``.
"""

from ._adagrad import AdaGrad
from ._arow import AROW
from ._base import SecondOrderClassifier
from ._cw import CW
from ._narow import NAROW
from ._sop import SecondOrderPerceptron

__all__ = ["AROW", "CW", "NAROW", "AdaGrad", "SecondOrderClassifier", "SecondOrderPerceptron"]
