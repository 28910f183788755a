r"""Averaged learners (``average=True`` or a start round) on shards: the averaged weights mix as the weights do.

An averaged learner keeps its current weights :math:`w` (which it learns
with) and the mean :math:`\bar w` of its iterates over the :math:`n` rounds
averaged so far (which it predicts with), through a running correction
:math:`U`: :math:`\bar w = w - U / n` (the binary linear learners keep
:math:`(\sigma v - u) / n` for :math:`w = s\,v`).

For shards :math:`i` with mixing weights :math:`\mu_i`, the mixture's current
weights are those of the family's rule (:func:`._models.mix_states`) and its
averaged weights are the same rule applied to the shards' averaged weights:
:math:`\bar w = \sum_i \mu_i \bar w_i` for the rules that average (for the
Gaussian learners, in the precisions' weights, as their means). Its round
counter is the largest of the shards' (as for the unaveraged mixture), so
that it averages :math:`n = \max_i n_i` rounds, and its correction is the one
that gives :math:`\bar w` from its weights, :math:`U = n (w - \bar w)`: each
shard's pass from the mixture then adds its iterates to that mean as the
serial learner adds them to its own. With one shard the mixture is that
shard's model, bit for bit (it is never rebuilt).
"""

from dataclasses import dataclass

from .._kernels import _codes


def _rounds_averaged(rounds, start):
    """n = rounds - start + 1 once averaging has begun (start > 0, rounds >= start), else 0."""
    return int(max(0, rounds - start + 1)) if start else 0


@dataclass(frozen=True)
class _Layout:
    """Where a family keeps its average: the ``corrections`` U of its ``weights`` arrays (in order), the array
    ``counter`` and its ``rounds`` entry, and (when the counter does not hold it) the first averaged round."""

    corrections: tuple
    weights: tuple
    counter: str
    rounds: int
    start: int = None  # the counter's entry of the first averaged round, None: ``average_from``
    optional: tuple = ()  # (correction, weights) pairs a state holds only with some hyperparameters

    @property
    def keys(self):
        return (*self.corrections, self.counter)

    def pairs(self, arrays):
        """(weights, correction) of each averaged array of a state: the family's, and the optional ones it holds."""
        return [*zip(self.weights, self.corrections), *((w, u) for u, w in self.optional if u in arrays)]

    def averaging_keys(self, arrays):
        """The names of the arrays that keep a state's average."""
        return (*self.keys, *(u for u, _ in self.optional if u in arrays))

    def n(self, arrays, average_from):
        """The number of rounds averaged by a state."""
        counter = arrays[self.counter]
        if self is _RUNNING_SUM:  # [rounds averaged, first averaged round]
            return int(counter[0])
        rounds = arrays["state"][_codes.S_T] if self is _LINEAR else counter[self.rounds]
        return _rounds_averaged(rounds, average_from if self.start is None else counter[self.start])

    def averaged(self, arrays, average_from):
        """The averaged weights of a state, in the layout of its weights."""
        n = self.n(arrays, average_from)
        if self is _LINEAR:
            state = arrays["state"].copy()
            state[_codes.S_SCALE] = 1.0  # the averaged weights are unscaled
            if n == 0:
                return {"weights": arrays["weights"] * arrays["state"][_codes.S_SCALE], "state": state}
            sigma = arrays["average_state"][_codes.A_SIGMA]
            return {"weights": (sigma * arrays["weights"] - arrays["average"]) / n, "state": state}
        return {w: arrays[w] - arrays[u] / n if n else arrays[w] for w, u in self.pairs(arrays)}

    def written(self, mixed, average, states, average_from):
        """The mixture's arrays, with the counter of the most rounds and the corrections that give ``average``."""
        out = dict(mixed)
        if self is _LINEAR:  # its rounds are the state's, the largest of the shards' already
            out[self.counter] = states[0][0][self.counter].copy()
            out[self.counter][_codes.A_SIGMA] = self.n(out, average_from)  # every iterate of the mean at scale 1
        else:
            out[self.counter] = max((arrays[self.counter] for arrays, _ in states), key=lambda c: c[self.rounds]).copy()
        n = self.n(out, average_from)
        for w, u in self.pairs(states[0][0]):
            out[u] = n * (out[w] - average[w])
        return out


_LINEAR = _Layout(("average",), ("weights",), "average_state", rounds=_codes.S_T, start=_codes.A_START)
_SEQUENCE = _Layout(("average_emission", "average_transition"), ("emission", "transition"), "averaging",
                    rounds=_codes.A_ROUNDS, start=_codes.A_START,
                    optional=(("average_end_transition", "end_transition"),))
_MULTILABEL = _Layout(("average_correction",), ("weights",), "averaging", rounds=_codes.A_ROUNDS,
                      start=_codes.A_START)
_MULTICLASS = _Layout(("average_sum",), ("weights",), "rounds", rounds=0)
_RUNNING_SUM = _Layout(("average_sum",), ("weights",), "average_count", rounds=0, start=1)


def layout(arrays):
    """How a state keeps its average; None when the learner does not average."""
    for found in (_LINEAR, _SEQUENCE, _MULTILABEL, _RUNNING_SUM, _MULTICLASS):
        if all(key in arrays for key in found.keys):
            return found
    return None


def mix_averaged(mix, states, mu, average_from, mix_averages=None):
    """Mix averaged states: ``mix(states, mu)`` is the family's rule for states without an average, and
    ``mix_averages`` the one for their averaged weights (default: the same); ``average_from`` the learner's
    first averaged round (read where the state does not hold it)."""
    kind = layout(states[0][0])
    keys = kind.averaging_keys(states[0][0])
    plain = [({k: v for k, v in arrays.items() if k not in keys}, scalars) for arrays, scalars in states]
    averaged = [({**arrays, **kind.averaged(full, average_from)}, scalars)
                for (arrays, scalars), (full, _) in zip(plain, states)]
    mixed, scalars = mix(plain, mu)
    average, _ = (mix if mix_averages is None else mix_averages)(averaged, mu)
    return kind.written(mixed, average, states, average_from), scalars
