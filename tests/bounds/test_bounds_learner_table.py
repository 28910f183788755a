"""Which learners have theorems is told without loading the reports (:mod:`olearn.bounds._learners`), and agrees
with the reports: ``bound_report`` takes exactly those learners."""

import importlib

import numpy as np
import pytest

import olearn
from olearn.bounds import bound_report
from olearn.bounds._learners import EXACTLY, WITH_SUBCLASSES, has_theorems
from olearn.bounds._report_dual import DUAL_REPORTS
from olearn.bounds._report_tasks import TASK_REPORTS


def _classes(table):
    return {getattr(importlib.import_module(module), name) for module, name in table}


def test_the_learners_of_the_task_and_dual_reports_are_those_of_the_table():
    assert _classes(EXACTLY) == set(TASK_REPORTS) | set(DUAL_REPORTS)


class _PerceptronOfMine(olearn.Perceptron):
    pass


class _RegressorOfMine(olearn.PARegressor):
    pass


@pytest.mark.parametrize("learner, expected", [
    *((cls(), True) for cls in sorted(_classes(WITH_SUBCLASSES) | _classes(EXACTLY), key=lambda cls: cls.__name__)),
    (_PerceptronOfMine(), True),   # the binary linear report covers the subclasses
    (_RegressorOfMine(), False),   # the task reports, their classes only
    (olearn.CW(), False),
    (olearn.AdaGrad(), False),
])
def test_has_theorems(learner, expected):
    assert has_theorems(learner) is expected
    if not expected:
        X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1])
        with pytest.raises(TypeError, match=f"got {type(learner).__name__}"):
            bound_report(learner, X, y, olearn.run(learner, X, y))
