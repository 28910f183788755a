"""What the sequence task prints: the totals of predicted sequences, the progressive table, the tags of ``-p``."""

import math

import numpy as np

from ._holdout import HeldOut
from ._output import OutputFile

# the tag written for each token of a sequence predicted before any tag was known (a fresh run's first):
# CoNLL's mark of an unspecified field
NO_PREDICTION = "_"


class Rounds:
    """The totals of some sequences, predicted (and learned, or not): what the table and summaries add up."""

    def __init__(self, predictions, y, losses=None, n_updates=0, taus=None):
        self.predictions = predictions
        # each sequence's loss and step, as olearn.run recorded them (None when nothing was learned)
        self.losses, self.taus = losses, taus
        from ..sequence import hamming_errors  # here: ``olearn run`` on rows imports this module, not the family

        self.lengths = [len(tags) for tags in y]
        wrong = hamming_errors(y, predictions)
        self.n_rounds = len(self.lengths)
        self.n_mistakes = int(np.count_nonzero(wrong))
        self.tokens = int(sum(self.lengths))
        self.token_errors = int(wrong.sum())
        self.n_updates = n_updates
        self.cumulative_loss = math.nan if losses is None else float(np.sum(losses))

    @classmethod
    def learned(cls, est, X, y):
        """Predict then learn each sequence (``olearn.run``)."""
        import olearn

        result = olearn.run(est, X, y)
        return cls(result.predictions, y, result.losses, result.n_updates, result.taus)

    @classmethod
    def frozen(cls, est, X, y):
        """Predict each sequence with the model as it is (no loss: nothing is learned)."""
        predictions = est.predict(X) if hasattr(est, "classes_") else [None] * len(X)
        return cls(predictions, y)


class Totals:
    """Running totals of rounds; ``examples`` counts sequences (the rounds)."""

    def __init__(self):
        self.examples = self.mistakes = self.tokens = self.token_errors = self.updates = 0
        self.loss = 0.0

    def add(self, rounds):
        self.examples += rounds.n_rounds
        self.mistakes += rounds.n_mistakes
        self.tokens += rounds.tokens
        self.token_errors += rounds.token_errors
        self.updates += rounds.n_updates
        self.loss += rounds.cumulative_loss

    @property
    def sequence_error_rate(self):
        return self.mistakes / self.examples if self.examples else math.nan

    @property
    def token_error_rate(self):
        return self.token_errors / self.tokens if self.tokens else math.nan

    @property
    def average_loss(self):
        return self.loss / self.examples if self.examples else math.nan


TABLE_HEADER = (f"{'sequences':>10} {'tokens':>11} {'seq errors':>11} {'seq err rate':>13} {'token err rate':>15} "
                f"{'average loss':>13}")


class SequenceTable(Totals):
    """The progressive table of sequences: a row at 1, 2, 4, 8, ... sequences and at the end."""

    def __init__(self, write=None):
        super().__init__()
        self.write = write
        self._next = 1
        self._last = 0

    def pieces(self, X, y):
        """``(X, y)`` cut where a row of the table falls; learn each piece and :meth:`add` it before the next."""
        lo = 0
        while lo < len(X):
            hi = len(X) if self.write is None else min(len(X), lo + self._next - self.examples)
            yield X[lo:hi], y[lo:hi]
            lo = hi

    def add(self, rounds):
        super().add(rounds)
        if self.write is not None and self.examples == self._next:
            self._row()
            self._next *= 2

    def finish(self):
        if self.write is not None and self.examples != self._last:
            self._row()

    def _row(self):
        if not self._last:
            self.write(TABLE_HEADER)
        self._last = self.examples
        self.write(f"{self.examples:>10d} {self.tokens:>11d} {self.mistakes:>11d} {self.sequence_error_rate:>13.6f} "
                   f"{self.token_error_rate:>15.6f} {self.average_loss:>13.6f}")


class HeldOutSequences(HeldOut):
    """The held-out sequences of a pass (``--passes N``), with their token errors too."""

    def __init__(self, every):
        super().__init__(every)
        self.tokens = self.token_errors = 0

    def add(self, rounds):
        super().add(rounds)
        self.tokens += rounds.tokens
        self.token_errors += rounds.token_errors

    @property
    def token_error_rate(self):
        return self.token_errors / self.tokens if self.tokens else math.nan

    def line(self, pass_number):
        return (f"pass {pass_number} held out: {self.examples:,} sequences, {self.mistakes:,} with errors "
                f"(rate {self.mistake_rate:.6f}), token error rate {self.token_error_rate:.6f} h")

    def summary_lines(self, every):
        return [f"{'held out':<18}{self.examples:,} sequences per pass (every {every}th, never learned)",
                f"{'held-out seq rate':<18}{self.mistake_rate:.6f} h (last pass)",
                f"{'held-out tok rate':<18}{self.token_error_rate:.6f} h (last pass)"]


def summary_lines(totals, passes, seconds):
    throughput = totals.tokens / seconds if seconds > 0 else float("inf")
    items = [
        ("sequences", f"{totals.examples:,}"),
        ("tokens", f"{totals.tokens:,}"),
        ("passes", f"{passes}"),
        ("seq errors", f"{totals.mistakes:,}"),
        ("seq error rate", f"{totals.sequence_error_rate:.6f}"),
        ("token errors", f"{totals.token_errors:,}"),
        ("token err rate", f"{totals.token_error_rate:.6f}"),
        ("average loss", f"{totals.average_loss:.6f}"),
        ("updates", f"{totals.updates:,}"),
        ("wall time", f"{seconds:.3f} s"),
        ("throughput", f"{throughput:,.0f} tokens/s"),
    ]
    return [f"{name:<18}{value}" for name, value in items]


class TagWriter:
    """Predicted tags CoNLL style: one per token line, a blank line after each sequence (``-`` is stdout)."""

    def __init__(self, path):
        self._out = OutputFile(path)

    @property
    def to_stdout(self):
        return self._out.to_stdout

    def write(self, predictions, lengths):
        parts = []
        for predicted, length in zip(predictions, lengths):
            tags = [NO_PREDICTION] * length if predicted is None else [str(tag) for tag in predicted]
            parts.append("".join(f"{tag}\n" for tag in tags) + "\n")
        self._out.write("".join(parts))

    def close(self):
        self._out.close()
