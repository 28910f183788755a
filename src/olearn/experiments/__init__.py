"""Experiments on built-in data: the ``olearn demo`` job and paper reproductions."""

from ._demo import DemoResult, demo_datasets, demo_learners, run_demo

__all__ = ["DemoResult", "demo_datasets", "demo_learners", "run_demo"]
