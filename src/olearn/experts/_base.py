"""Shared machinery of the experts learners: state, input checks, chunked runs.

A learner keeps one log-weight per expert (:mod:`olearn._kernels._experts`), the
cumulative loss of every expert, and a small state array (rounds, its own
expected and realised cumulative loss). ``learn_one`` and ``run`` call the
same compiled round, so a run equals the same rounds learned one by one, and the
random draws of the randomized learners come from one stream in the same order.
"""

import itertools

import numpy as np

from .._estimator import Estimator
from .._kernels import _experts as K
from .._params import check_params
from .._persistence import PersistenceMixin
from .._state_schema import COUNT, Array, Count, Scalar, StateSchema
from .._validation import check_vector
from ..exceptions import NotFittedError
from ._result import ExpertsResult

# Rounds converted and learned at a time when the experts come as a stream.
CHUNK_ROUNDS = 4096


def as_matrix(data, name, offset=0):
    """A finite float64 matrix of rounds (rows) by experts (columns)."""
    try:
        matrix = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} could not be read as rows of numbers (one row per round): {err}") from None
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be 2-d (rounds, experts); got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        row, col = np.argwhere(~np.isfinite(matrix))[0]
        raise ValueError(
            f"{name} has {matrix[row, col]} at round {offset + int(row)}, expert {int(col)}; expected a finite number"
        )
    return np.ascontiguousarray(matrix)


def as_vector(data, name):
    """A finite float64 vector, one entry per expert."""
    return check_vector(data, name)


def chunks_of(data, name):
    """Matrices of consecutive rounds: the whole matrix at once, or blocks of a stream of vectors."""
    if isinstance(data, (np.ndarray, list, tuple)):
        yield 0, as_matrix(data, name)
        return
    rows = iter(data)
    offset = 0
    while True:
        block = list(itertools.islice(rows, CHUNK_ROUNDS))
        if not block:
            return
        yield offset, as_matrix(block, name, offset)
        offset += len(block)


class Outcomes:
    """The outcomes y of a run, read alongside the advice: an array or any iterable."""

    def __init__(self, y):
        self._iterator = None
        self._array = None
        if isinstance(y, (np.ndarray, list, tuple)):
            self._array = self._convert(y, 0)
        else:
            self._iterator = iter(y)
        self.taken = 0

    @staticmethod
    def _convert(values, offset):
        return check_vector(values, "y", position="round", offset=offset)

    def take(self, k):
        """The next k outcomes; ValueError if there are fewer."""
        if self._array is not None:
            y = self._array[self.taken : self.taken + k]
        else:
            y = self._convert(list(itertools.islice(self._iterator, k)), self.taken)
        if y.size < k:
            raise ValueError(f"the advice has more rounds than y has outcomes ({self.taken + y.size})")
        self.taken += k
        return y

    def check_used_up(self):
        if self._array is not None:
            extra = self._array.size > self.taken
        else:
            extra = next(self._iterator, None) is not None
        if extra:
            raise ValueError(f"y has more outcomes than the advice has rounds ({self.taken})")


def first_outside(matrix, low, high):
    """(row, column) of the first entry outside [low, high], or None."""
    bad = (matrix < low) | (matrix > high)
    if not bad.any():
        return None
    row, col = np.argwhere(bad)[0]
    return int(row), int(col)


class ExpertsLearner(PersistenceMixin, Estimator):
    """Base class: log-weights over n experts, fixed by the first round.

    Subclasses define ``_constraints`` (checked when learning starts), and
    ``_loss_bound(best_losses, rounds)``: the theorem's bound on the learner's
    cumulative loss after each round, given the best expert's cumulative loss
    and the 1-based round numbers.
    """

    _constraints = {}
    _has_rng = False  # the class has a ``random_state`` hyperparameter
    bound_formula = ""

    def _check_params(self):
        check_params(self, self._constraints)

    # -- learned state --------------------------------------------------------

    def _is_started(self):
        return hasattr(self, "_log_w")

    def _check_started(self):
        if not self._is_started():
            raise NotFittedError(
                f"this {type(self).__name__} has not seen any round yet; call learn_one or run first"
            )

    def _start(self, n_experts):
        if n_experts < 1:
            raise ValueError(f"{type(self).__name__} needs at least one expert; got {n_experts}")
        self._log_w = np.zeros(n_experts)
        self._expert_losses = np.zeros(n_experts)
        self._state = np.zeros(K.N_STATE)
        self.n_experts_ = n_experts
        if self._has_rng:
            self._rng = np.random.default_rng(self.random_state)
            self._pending = None

    def _is_random(self):
        """True when the learner predicts by drawing (one uniform per round)."""
        return self._has_rng

    def _ensure_started(self, n_experts, name):
        if not self._is_started():
            self._start(n_experts)
        elif n_experts != self.n_experts_:
            raise ValueError(
                f"{name} has {n_experts} experts; this {type(self).__name__} has {self.n_experts_} "
                "(fixed by its first round)"
            )

    @property
    def weights_(self):
        """Normalised weights of the experts (they sum to 1)."""
        self._check_started()
        out = np.empty(self.n_experts_)
        K.allocation_weights(self._log_w, out)
        return out

    @property
    def log_weights_(self):
        """Log-weights, shifted so that the largest is 0."""
        self._check_started()
        return self._log_w.copy()

    @property
    def expert_losses_(self):
        """Cumulative loss of each expert since the first round."""
        self._check_started()
        return self._expert_losses.copy()

    @property
    def cumulative_loss_(self):
        """The learner's cumulative expected loss since the first round."""
        self._check_started()
        return float(self._state[K.S_LOSS])

    @property
    def realized_loss_(self):
        """The learner's cumulative realised loss (its mistakes, for the voting learners) since the first round."""
        self._check_started()
        return float(self._state[K.S_REALIZED])

    @property
    def n_rounds_(self):
        """Rounds learned so far."""
        self._check_started()
        return int(self._state[K.S_ROUNDS])

    # -- randomness -----------------------------------------------------------

    def _draw_one(self):
        """The uniform of the coming round, kept until that round is learned."""
        if self._pending is None:
            self._pending = float(self._rng.random())
        return self._pending

    def _uniforms(self, k):
        """The uniforms of the next k rounds, from one stream in round order."""
        if not self._is_random():
            return np.zeros(k)
        out = np.empty(k)
        start = 0
        if k and self._pending is not None:
            out[0] = self._pending
            self._pending = None
            start = 1
        out[start:] = self._rng.random(k - start)
        return out

    # -- results --------------------------------------------------------------

    def _result(self, parts, rounds_before, mistakes=False, **extra):
        """Assemble an ExpertsResult from the per-chunk outputs of a run."""
        cat = {key: np.concatenate([p[key] for p in parts]) if parts else np.empty(0) for key in
               ("predictions", "losses", "expected_losses", "best_losses", "etas")}
        m = cat["losses"].size
        rounds = np.arange(rounds_before + 1, rounds_before + m + 1, dtype=np.float64)
        cumulative = self._state[K.S_LOSS] - np.sum(cat["expected_losses"]) + np.cumsum(cat["expected_losses"])
        realized = np.cumsum(cat["losses"]).astype(np.int64) if mistakes else None
        return ExpertsResult(
            algorithm=repr(self),
            bound_formula=self.bound_formula,
            n_rounds=m,
            n_experts=self.n_experts_,
            predictions=cat["predictions"],
            losses=cat["losses"],
            expected_losses=cat["expected_losses"],
            cumulative_losses=cumulative,
            best_losses=cat["best_losses"],
            loss_bound=self._loss_bound(cat["best_losses"], rounds),
            learning_rates=cat["etas"],
            expert_losses=self._expert_losses.copy(),
            n_mistakes=int(realized[-1]) if mistakes and m else (0 if mistakes else None),
            cumulative_mistakes=realized,
            **extra,
        )

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: log-weights and cumulative losses of the experts, the kernel's state vector and,
        for a randomized learner, its generator's state and the uniform drawn for the next round."""
        schema = StateSchema(
            scalars={"n_experts": Count("n_experts", low=1)},
            arrays={
                "log_weights": Array("float64", ("n_experts",)),
                "expert_losses": Array("float64", ("n_experts",)),
                "state": Array("float64", (K.N_STATE,), entries={K.S_ROUNDS: COUNT}),
            },
        )
        if self._has_rng:
            schema = schema.extended(scalars={"rng": Scalar(_generator_problem), "pending": Scalar(_uniform_problem)})
        return schema

    def _get_state(self):
        self._check_started()
        arrays = {"log_weights": self._log_w, "expert_losses": self._expert_losses, "state": self._state}
        state = {"n_experts": self.n_experts_}
        if self._has_rng:
            state["rng"] = self._rng.bit_generator.state
            state["pending"] = self._pending
        return arrays, state

    def _set_state(self, arrays, state):
        self._start(int(state["n_experts"]))
        self._log_w = np.array(arrays["log_weights"], dtype=np.float64)
        self._expert_losses = np.array(arrays["expert_losses"], dtype=np.float64)
        self._state = np.array(arrays["state"], dtype=np.float64)
        if self._has_rng:
            self._rng.bit_generator.state = state["rng"]
            self._pending = state["pending"]


def _generator_problem(value):
    """None if ``value`` is the state of NumPy's default bit generator (PCG64), else what is wrong."""
    try:
        np.random.PCG64().state = value
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        return f"is not the state of a PCG64 generator ({err!r})"
    return None


def _uniform_problem(value):
    """None if ``value`` is None or a number in [0, 1), else what is wrong."""
    if value is None or (isinstance(value, float) and 0.0 <= value < 1.0):
        return None
    return f"is {value!r}; expected None or a number in [0, 1)"


class AdviceLearner(ExpertsLearner):
    """Experts that predict: ``predict_one(advice)``, ``learn_one(advice, y)``, ``run(advice, y)``.

    Subclasses define ``_kernel_args()`` -> (rate, vote code, loss code) and
    ``_check_values(matrix, y, offset)``.
    """

    _counts_mistakes = True

    def _check_values(self, matrix, y, offset):
        """Binary advice and outcomes: every entry 0 or 1."""
        for name, values in (("advice", matrix), ("y", y)):
            bad = (values != 0.0) & (values != 1.0)
            if bad.any():
                where = np.argwhere(bad)[0]
                at = f"round {offset + int(where[0])}" + (f", expert {int(where[1])}" if values.ndim == 2 else "")
                raise ValueError(
                    f"{name} has {values[tuple(where)]} at {at}; {type(self).__name__} takes binary "
                    "advice and outcomes (0 or 1)"
                )

    def predict_one(self, advice):
        """The learner's prediction for one round of advice (one entry per expert).

        A learner that has seen no round yet starts with equal weights on the
        ``len(advice)`` experts.
        """
        self._check_params()
        advice = as_vector(advice, "advice")
        self._check_values(advice[None, :], np.zeros(1), 0)
        self._ensure_started(advice.size, "advice")
        rate, vote, _ = self._kernel_args()
        u = self._draw_one() if self._is_random() else 0.0
        prediction, _ = K.advice_prediction(advice, self._log_w, vote, u)
        return prediction

    def learn_one(self, advice, y):
        """Predict, then learn the outcome y of one round; returns self."""
        self._check_params()
        advice = as_vector(advice, "advice")
        target = Outcomes._convert([y], 0)
        self._check_values(advice[None, :], target, 0)
        self._ensure_started(advice.size, "advice")
        rate, vote, loss = self._kernel_args()
        u = self._uniforms(1)[0]
        ok = K.advice_round(
            advice, target[0], u, self._log_w, self._expert_losses, self._state, rate, vote, loss,
            np.empty(advice.size),
        )[0]
        if not ok:
            self._no_survivor(self.n_rounds_)
        return self

    def _no_survivor(self, round_index):
        raise ValueError(
            f"{type(self).__name__}: at round {round_index} no expert keeps a positive weight; the learner "
            "keeps the rounds before it"
        )

    def run(self, advice, y):
        """Predict then learn every round in order; returns an :class:`ExpertsResult`.

        Parameters
        ----------
        advice : array-like (rounds, experts), or an iterable of advice vectors
            The experts' predictions, one row per round. An iterable is read
            in blocks, so it may be a generator over a long stream.
        y : array-like or iterable
            The outcome of each round.
        """
        self._check_params()
        rounds_before = self.n_rounds_ if self._is_started() else 0
        outcomes = Outcomes(y)
        parts = []
        for offset, matrix in chunks_of(advice, "advice"):
            target = outcomes.take(matrix.shape[0])
            self._check_values(matrix, target, offset)
            self._ensure_started(matrix.shape[1], "advice")
            rate, vote, loss = self._kernel_args()
            m, n = matrix.shape
            part = {key: np.empty(m) for key in ("predictions", "losses", "expected_losses", "best_losses")}
            stopped = K.advice_pass(
                matrix, target, self._uniforms(m), self._log_w, self._expert_losses, self._state, rate, vote, loss,
                np.empty(n), part["predictions"], part["losses"], part["expected_losses"], part["best_losses"],
            )
            if stopped >= 0:
                self._no_survivor(rounds_before + offset + stopped)
            part["etas"] = np.full(m, rate)
            parts.append(part)
        outcomes.check_used_up()
        if not self._is_started():
            raise ValueError("advice has no rounds; a run needs at least one")
        return self._result(parts, rounds_before, mistakes=self._counts_mistakes)
