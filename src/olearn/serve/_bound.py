"""The papers' bounds of a served learner beside what it measured (``GET /bound``, drawn by the live page).

A learner whose class has theorems in :mod:`olearn.bounds` (Perceptron, the
PA family, the second-order learners, ...) and that the service started from
nothing has its examples kept as it learns them (:class:`LearnedRounds`, at
most :data:`MAX_ROUNDS`): the bound is then :func:`olearn.bounds.bound_report`
on them, what ``olearn run --bound`` prints for a file of the same examples in
the same order: a fresh copy of the learner replays them (``olearn.run``, the
mistakes it measures are those the learner made when it learned them), and
each theorem that applies is evaluated for its competitor u beside that count.

A learner without theorems (a pipeline, AdaGrad, ...), a model that had
learned before the service started (a model file, or a state resumed from a
snapshot of a learner that had learned: the rounds before are not known) and a
version rolled back to that was taken before the service started have no
bound. A rollback returns to the version's rounds. The rounds are kept in
memory only: a restart keeps them when it replays every log since the state
began (no snapshot of a learned model taken yet), and has no bound otherwise.
"""

import asyncio

import numpy as np

from ..compose import Pipeline

# the most examples kept for the bound: past them, it is that of the first MAX_ROUNDS rounds
MAX_ROUNDS = 10_000
# a bound is computed again (when the model changed) at least this many seconds, and four times its own time,
# after the last one: a page left open on a busy service takes a small share of its CPU
_MIN_INTERVAL = 2.0


def bounded(estimator):
    """Whether ``estimator`` is a learner whose class has theorems (not a pipeline, whose learner sees the
    transformers' features)."""
    from ..bounds._learners import has_theorems

    return not isinstance(estimator, Pipeline) and has_theorems(estimator)


class LearnedRounds:
    """The examples a learner learned since it learned nothing, in order: ``(x, y, weight)`` (``x`` a dict as
    the service reads it), the first :data:`MAX_ROUNDS` of them, and how many there were in all."""

    def __init__(self, rounds=(), seen=0):
        self.rounds = list(rounds)
        self.seen = seen

    def add(self, examples):
        """Keep ``examples`` (an :class:`~olearn.serve._requests.Examples` just learned)."""
        room = MAX_ROUNDS - len(self.rounds)
        if room > 0:
            weights = examples.weights or [None] * len(examples)
            self.rounds += list(zip(examples.dicts[:room], examples.ys[:room], weights[:room]))
        self.seen += len(examples)

    def copy(self):
        return LearnedRounds(self.rounds, self.seen)


def bound_answer(fresh, rounds, seen):
    """The JSON of ``GET /bound`` for ``fresh`` (a learner that has learned nothing, of the served learner's class
    and hyperparameters) on the ``rounds`` kept of ``seen`` (see :class:`LearnedRounds`)."""
    from sklearn.base import clone

    from .._features import FeatureMap
    from ..bounds import bound_report
    from ..evaluate import run

    answer = {"bounded": True, "rounds": len(rounds), "seen": seen, "rows": [], "skipped": []}
    if not rounds:
        answer["reason"] = "no round learned yet"
        return answer
    if any(weight is not None and weight != 1 for _, _, weight in rounds):
        answer["reason"] = "the theorems are about unweighted rounds, and some rounds have a sample weight"
        return answer
    # the examples' columns as the learner gave them, by a vocabulary of their own (that of a learner started
    # from nothing on them, as the served one did)
    X = fresh._named_matrix([x for x, _, _ in rounds], "x", FeatureMap(fresh.n_bits), True, 0)[0]
    labels = [label for _, label, _ in rounds]
    if isinstance(labels[0], list):  # multilabel: the label sets as they came
        y = labels
    else:  # one type of label as NumPy reads it (1 and "1" stay two labels)
        y = np.array(labels, dtype=None if len(set(map(type, labels))) == 1 else object)
    try:
        report = bound_report(clone(fresh), X, y, run(clone(fresh), X, y))
    except (ValueError, TypeError) as err:  # the hyperparameters rule the theorems out, or the stream does (yet)
        answer["reason"] = str(err)
        return answer
    answer["learner"] = report.learner
    answer["rows"] = [{"theorem": row.theorem, "quantity": row.quantity, "measured": float(row.measured),
                       "bound": float(row.bound), "holds": bool(row.holds)} for row in report.rows]
    answer["skipped"] = [list(pair) for pair in report.skipped]
    return answer


class Bounds:
    """``GET /bound`` of a service's ``model`` (a ServedModel): computed in a thread when the model changed, one
    computation at a time (a request meanwhile waits for it), not more often than ``_MIN_INTERVAL`` allows while
    the model only learns (the last answer meanwhile; its ``"updates"`` say which model it is of)."""

    def __init__(self, model):
        self.model = model
        self._made = None  # ((seq, rollbacks), answer)
        self._task = None
        self._next = 0.0  # the loop's time from which the bound may be computed again

    async def answer(self):
        model = self.model
        if model.rounds is None:
            return {"bounded": False, "rows": [], "reason": self._why_none()}
        key = (model.seq, model.rollbacks)
        made = self._made
        # the last answer stands while the model is the same, or has only learned more since and the next bound
        # is not due yet (a rollback is answered at once)
        if made is not None and (made[0] == key or (made[0][1] == key[1] and asyncio.get_running_loop().time()
                                                    < self._next)):
            return made[1]
        if self._task is None:
            from sklearn.base import clone

            rounds = model.rounds
            self._task = asyncio.get_running_loop().create_task(
                self._make(key, clone(model.estimator), list(rounds.rounds), rounds.seen))
        return await asyncio.shield(self._task)

    async def _make(self, key, fresh, rounds, seen):
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            answer = await asyncio.to_thread(bound_answer, fresh, rounds, seen)
        finally:
            self._task = None
            self._next = loop.time() + max(_MIN_INTERVAL, 4 * (loop.time() - started))
        answer["updates"] = key[0]
        self._made = (key, answer)
        return answer

    def _why_none(self):
        estimator = self.model.estimator
        if not bounded(estimator):
            return f"olearn.bounds has no theorem of {type(estimator).__name__}"
        return "the model had learned before the service started (or before the version rolled back to was " \
               "taken): the rounds it learned from are not all known"
