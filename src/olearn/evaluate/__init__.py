"""Evaluating online learners on a stream."""

from ._progressive import RunResult, run

__all__ = ["RunResult", "run"]
