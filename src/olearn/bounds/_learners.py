"""The learners :func:`~olearn.bounds.bound_report` knows theorems of, told without loading the reports.

``olearn serve`` asks :func:`has_theorems` at its start (:mod:`olearn.serve._bound`), while the reports load
the learner families they cover (the second-order learners, the p-norm ones, the dual framework, the uniclass
learner, ...): only ``GET /bound`` needs them. A class is named here by the public module that holds it and
looked up only if that module is loaded (:func:`olearn._lazy.is_loaded_instance`): a learner cannot exist before
its class's module does.
"""

import sys

from .._lazy import is_loaded_instance

# the learners of the reports of the binary linear learners, PAMulticlass, the second-order learners, OGD,
# p-norm and sequences (:mod:`._report`): these classes and their subclasses
WITH_SUBCLASSES = (
    ("olearn.linear", "Perceptron"), ("olearn.linear", "PAClassifier"), ("olearn.multiclass", "PAMulticlass"),
    ("olearn.second_order", "SecondOrderPerceptron"), ("olearn.second_order", "AROW"),
    ("olearn.second_order", "NAROW"), ("olearn.second_order", "Fig1AROW"), ("olearn.linear", "OGDClassifier"),
    ("olearn.quasi_additive", "PNorm"), ("olearn.sequence", "PASequence"),
)
# the learners of the reports of the other tasks and of the dual framework (the keys of
# :data:`._report_tasks.TASK_REPORTS` and :data:`._report_dual.DUAL_REPORTS`): these classes only
EXACTLY = (
    ("olearn.linear", "PARegressor"), ("olearn.uniclass", "PAUniclass"), ("olearn.multiclass", "PACostSensitive"),
    ("olearn.multilabel", "PAMultilabel"), ("olearn.quasi_additive", "Winnow"), ("olearn.dual", "DualAscent"),
)


def has_theorems(estimator):
    """Whether :func:`~olearn.bounds.bound_report` knows theorems of ``estimator``'s class (its hyperparameters may
    still rule them out: a kernel, a budget, class weights)."""
    return (any(is_loaded_instance(estimator, module, name) for module, name in WITH_SUBCLASSES)
            or any(type(estimator) is getattr(sys.modules.get(module), name, None) for module, name in EXACTLY))


def learner_names():
    """The names of the learners of :func:`has_theorems`, for the message refusing another one."""
    return [name for _, name in (*WITH_SUBCLASSES, *EXACTLY)]
