"""The locks a pipeline holds: its own, then its steps', as one estimator's lock (:func:`holding_steps`)."""

from .._estimator import wrapper
from ._plan import locks_of


def holding_steps(method):
    """``method`` called holding the pipeline's lock, then its steps' (in a fixed order), as one estimator's.

    The pipeline reads and writes its steps' state through their row-level
    protocol, not their public (locked) methods, so it holds their locks too:
    a thread reading a step (``pipeline["standardscaler"].mean_``) sees it
    between two of the pipeline's rounds. The steps' locks are taken in the
    order of their ids, so that two pipelines sharing steps take them alike.
    """
    return wrapper(method, _HOLDING_STEPS, _step_locks_=_step_locks)


_HOLDING_STEPS = """pipeline_lock_ = {self}._lock
pipeline_lock_.acquire()
try:
    locks_ = _step_locks_({self})
    for lock_ in locks_:
        lock_.acquire()
    try:
        return _method_({arguments})
    finally:
        for lock_ in locks_:
            lock_.release()
finally:
    pipeline_lock_.release()"""


def _step_locks(pipeline):
    """The locks of the pipeline's steps in the order of their ids: the plan's, while the steps are the plan's."""
    plan = pipeline.__dict__.get("_plan_cache")
    if plan is not None and plan.key[0] == tuple(pipeline.steps):
        return plan.locks
    return locks_of(pipeline.steps)
