"""Mercer kernels with memory budgets: the support-set engine shared by the kernel learners.

A learner takes a kernel through ``kernel="linear" | "poly" | "rbf"`` (compiled)
or a callable ``k(A, B)`` (a slower Python path), and keeps its function in
dual form over a :class:`SupportSet`, at most ``budget`` vectors of it; see
``PAClassifier``, ``Perceptron`` and ``PARegressor`` and docs/kernels.md.
"""

from ._hyperparameters import BUDGET_POLICIES, KERNEL_CONSTRAINTS, KERNELS, KernelOption
from ._support import SupportSet

__all__ = ["BUDGET_POLICIES", "KERNELS", "KERNEL_CONSTRAINTS", "KernelOption", "SupportSet"]
