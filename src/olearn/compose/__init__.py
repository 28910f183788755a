"""Pipelines: online transformers chained before a learner (``StandardScaler() | PAClassifier()``)."""

from ._pipeline import Pipeline

__all__ = ["Pipeline"]
