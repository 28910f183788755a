"""The hyperparameters every kernel learner shares, their checks and their compiled codes.

``kernel``: None (no kernel: the primal learner), ``"linear"``, ``"poly"``,
``"rbf"``, or a callable ``k(A, B)`` taking two dense float64 arrays of shapes
(n_a, d) and (n_b, d) and returning the (n_a, n_b) array of ``K(a_i, b_j)``;
``degree``, ``gamma``, ``coef0`` of the built-in kernels; ``budget`` (the
largest number of support vectors, None for no limit), ``budget_policy`` and
``random_state`` (the seed of the "random" policy).
"""

import math

import numpy as np

from .._kernels import _codes
from .._params import INT64_MAX, Interval, NoneOr, Options

KERNELS = {"linear": _codes.KERNEL_LINEAR, "poly": _codes.KERNEL_POLY, "rbf": _codes.KERNEL_RBF}
BUDGET_POLICIES = {
    "oldest": _codes.BUDGET_OLDEST,
    "random": _codes.BUDGET_RANDOM,
    "smallest": _codes.BUDGET_SMALLEST,
}


class KernelOption:
    """None, the name of a built-in kernel, or a callable k(A, B) (not a class).

    >>> KernelOption().accepts("rbf"), KernelOption().accepts("RBF"), KernelOption().accepts(min)
    (True, False, True)
    """

    def accepts(self, value):
        if value is None or callable(value):
            return not isinstance(value, type)
        return isinstance(value, str) and value in KERNELS

    def describe(self):
        return "None, one of " + ", ".join(repr(name) for name in KERNELS) + ", or a callable k(A, B)"


KERNEL_CONSTRAINTS = {
    "kernel": KernelOption(),
    "degree": Interval(1, INT64_MAX, integer=True),
    "gamma": Interval(0, math.inf, closed="neither"),
    "coef0": Interval(-math.inf, math.inf, closed="neither"),
    "budget": NoneOr(Interval(1, INT64_MAX, integer=True)),
    "budget_policy": Options(*BUDGET_POLICIES),
    "random_state": NoneOr(Interval(0, 2**64 - 1, integer=True)),
}


def mercer_arrays(est, offset):
    """The ``mcodes`` and ``mparams`` arrays of :mod:`olearn._kernels._mercer` for ``est``'s hyperparameters.

    ``offset`` is added to every kernel value (1 for an intercept's constant
    feature). A callable kernel gets the code -1: it never enters compiled code.
    """
    mcodes = np.zeros(_codes.N_MCODES, dtype=np.int64)
    mcodes[_codes.M_KERNEL] = KERNELS.get(est.kernel, -1) if isinstance(est.kernel, str) else -1
    mcodes[_codes.M_DEGREE] = est.degree
    mcodes[_codes.M_BUDGET] = 0 if est.budget is None else est.budget
    mcodes[_codes.M_POLICY] = BUDGET_POLICIES[est.budget_policy]
    mparams = np.zeros(_codes.N_MPARAMS)
    mparams[_codes.M_GAMMA] = est.gamma
    mparams[_codes.M_COEF0] = est.coef0
    mparams[_codes.M_OFFSET] = offset
    return mcodes, mparams


def initial_seed(random_state):
    """The generator's first state: ``random_state`` itself, or fresh entropy when it is None."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    return int(random_state)


def with_drawn_seed(estimator):
    """``estimator`` (a learner that has learned nothing), its ``random_state`` set to a seed drawn now
    (:func:`initial_seed`) where the "random" budget policy would otherwise draw its generator's first state from
    fresh entropy at the first update: the seed is then among its hyperparameters, so that a replay of its updates
    from them (``olearn serve``'s recovery, see :mod:`olearn.serve._store`) removes the support vectors it removed."""
    params = estimator.get_params(deep=False)
    if params.get("budget_policy") == "random" and "random_state" in params and params["random_state"] is None:
        estimator.set_params(random_state=initial_seed(None))
    return estimator


def call_kernel(kernel, A, B, owner):
    """``kernel(A, B)`` checked: a finite float array of shape (len(A), len(B)); ValueError naming ``kernel`` otherwise."""
    try:
        gram = np.asarray(kernel(A, B), dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{owner}: parameter kernel={kernel!r} failed on arrays of shapes {A.shape} and "
                         f"{B.shape}: {err}") from None
    expected = (A.shape[0], B.shape[0])
    if gram.shape != expected:
        raise ValueError(f"{owner}: parameter kernel={kernel!r} returned shape {gram.shape} for arrays of shapes "
                         f"{A.shape} and {B.shape}; expected {expected}")
    if not np.isfinite(gram).all():
        raise ValueError(f"{owner}: parameter kernel={kernel!r} returned a non-finite value")
    return gram
