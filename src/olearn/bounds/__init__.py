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

from .._lazy import lazy_names

# Every public name loads with its module on first use: ``olearn serve`` asks :mod:`._learners` at its start
# which learners have theorems, without loading the theorems and their reports (see :mod:`olearn.serve._bound`).
_HOMES = {
    "aggressive_dual_loss_bound": "_dual", "aggressive_dual_mistake_bound": "_dual",
    "aggressive_pnorm_mistake_bound": "_dual", "batch_optimum": "_dual", "dual_certificate": "_dual",
    "mitigating_function": "_dual", "pnorm_mistake_bound": "_dual", "winnow_gamma_bound": "_dual",
    "winnow_mistake_bound": "_dual",
    "cost_sensitive_bound": "_multiclass", "multiclass_pa1_mistake_bound": "_multiclass",
    "multiclass_pa2_loss_bound": "_multiclass", "multiclass_pa_bound": "_multiclass",
    "ogd_hinge_regret_bound": "_ogd",
    "aggressive_pnorm_bound": "_pnorm",
    "regression_pa1_bound": "_regression", "regression_pa2_loss_bound": "_regression",
    "regression_pa_separable_bound": "_regression", "regression_pa_unit_norm_bound": "_regression",
    "bound_report": "_report",
    "BoundReport": "_report_rows", "BoundRow": "_report_rows",
    "arow_mistake_bound": "_second_order", "diagonal_narow_bound": "_second_order",
    "narow_mistake_bound": "_second_order", "orabona2010_arow_bound": "_second_order",
    "orabona2010_diagonal_arow_bound": "_second_order", "orabona2010_narow_bound": "_second_order",
    "sop_mistake_bound": "_second_order",
    "sequence_loss_bound": "_sequence",
    "novikoff_bound": "_theorems", "pa1_mistake_bound": "_theorems", "pa2_loss_bound": "_theorems",
    "pa_separable_bound": "_theorems", "pa_unit_norm_bound": "_theorems", "perceptron_bound": "_theorems",
    "multilabel_pa1_mistake_bound": "_uniclass_multilabel", "multilabel_pa2_loss_bound": "_uniclass_multilabel",
    "multilabel_pa_separable_bound": "_uniclass_multilabel", "uniclass_pa1_bound": "_uniclass_multilabel",
    "uniclass_pa2_bound": "_uniclass_multilabel", "uniclass_pa_bound": "_uniclass_multilabel",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)

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
