"""Experiments on built-in data: the ``olearn demo`` job and paper reproductions."""

from ._catalogue import REPRODUCTIONS, Reproduction, get_reproduction
from ._demo import DemoResult, demo_datasets, demo_learners, run_demo

__all__ = [
    "REPRODUCTIONS",
    "DemoResult",
    "Reproduction",
    "demo_datasets",
    "demo_learners",
    "get_reproduction",
    "run_demo",
]
