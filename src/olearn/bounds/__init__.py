"""The papers' mistake and loss bounds, evaluated on a stream and a finished run.

Each function evaluates one theorem for a competitor u (every bound holds for
every u); :func:`bound_report` picks the theorems that apply to a learner and
sets them against what its run measured.

>>> import numpy as np
>>> from olearn import Perceptron, run
>>> from olearn.bounds import bound_report, novikoff_bound
>>> X = np.array([[1.0, 0.2], [-1.0, 0.1], [0.8, -0.3], [-0.9, -0.2]])
>>> y = np.array([1, -1, 1, -1])
>>> novikoff_bound(X, y, u=[1.0, 0.0]) < 2       # R^2 = 1.04, gamma = 0.8
True
>>> report = bound_report(Perceptron(), X, y, run(Perceptron(), X, y))
>>> report.all_hold
True
"""

from ._dual import (
    aggressive_dual_loss_bound,
    aggressive_dual_mistake_bound,
    aggressive_pnorm_mistake_bound,
    batch_optimum,
    dual_certificate,
    mitigating_function,
    pnorm_mistake_bound,
    winnow_gamma_bound,
    winnow_mistake_bound,
)
from ._multiclass import (
    cost_sensitive_bound,
    multiclass_pa1_mistake_bound,
    multiclass_pa2_loss_bound,
    multiclass_pa_bound,
)
from ._ogd import ogd_hinge_regret_bound
from ._regression import (
    regression_pa1_bound,
    regression_pa2_loss_bound,
    regression_pa_separable_bound,
    regression_pa_unit_norm_bound,
)
from ._pnorm import aggressive_pnorm_bound
from ._report import bound_report
from ._report_rows import BoundReport, BoundRow
from ._sequence import sequence_loss_bound
from ._second_order import (
    arow_mistake_bound,
    diagonal_narow_bound,
    narow_mistake_bound,
    orabona2010_arow_bound,
    orabona2010_diagonal_arow_bound,
    orabona2010_narow_bound,
    sop_mistake_bound,
)
from ._theorems import (
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
)
from ._uniclass_multilabel import (
    multilabel_pa1_mistake_bound,
    multilabel_pa2_loss_bound,
    multilabel_pa_separable_bound,
    uniclass_pa1_bound,
    uniclass_pa2_bound,
    uniclass_pa_bound,
)

__all__ = [
    "BoundReport",
    "BoundRow",
    "aggressive_dual_loss_bound",
    "aggressive_dual_mistake_bound",
    "aggressive_pnorm_bound",
    "aggressive_pnorm_mistake_bound",
    "arow_mistake_bound",
    "batch_optimum",
    "bound_report",
    "cost_sensitive_bound",
    "diagonal_narow_bound",
    "dual_certificate",
    "mitigating_function",
    "multiclass_pa1_mistake_bound",
    "multiclass_pa2_loss_bound",
    "multiclass_pa_bound",
    "multilabel_pa1_mistake_bound",
    "multilabel_pa2_loss_bound",
    "multilabel_pa_separable_bound",
    "narow_mistake_bound",
    "novikoff_bound",
    "ogd_hinge_regret_bound",
    "orabona2010_arow_bound",
    "orabona2010_diagonal_arow_bound",
    "orabona2010_narow_bound",
    "pa1_mistake_bound",
    "pa2_loss_bound",
    "pa_separable_bound",
    "pa_unit_norm_bound",
    "perceptron_bound",
    "pnorm_mistake_bound",
    "regression_pa1_bound",
    "regression_pa2_loss_bound",
    "regression_pa_separable_bound",
    "regression_pa_unit_norm_bound",
    "sequence_loss_bound",
    "sop_mistake_bound",
    "uniclass_pa1_bound",
    "uniclass_pa2_bound",
    "uniclass_pa_bound",
    "winnow_gamma_bound",
    "winnow_mistake_bound",
]
