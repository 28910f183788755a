"""The sequence task on the command line: CoNLL files learned and predicted by PASequence.

``olearn run``, ``predict`` and ``compare`` hand a CoNLL file, a sequence
``--algo`` or a sequence model over to this module. A round is a sequence:
it is predicted whole (Viterbi), then learned. The table counts the
sequences with at least one wrong tag (sequence errors) and the wrong tags
(token errors); ``-p`` writes the predicted tags CoNLL style, one per line
and a blank line after each sequence.
"""

import csv
import os
import time

import click
import numpy as np

from .._persistence import read_input_info
from .._persistence import save as save_model
from ..data import _io
from ._as_trained import _bits_of, check_layout
from ._holdout import _holdout_period
from ._interrupt import HeldInterrupts, saved_if_interrupted
from ._learners import (
    SEQUENCES,
    check_applicable,
    check_conditions,
    check_some_takes,
    collect_hyperparameters,
    describe_estimator,
    make_estimator,
    parse_algorithm_list,
)
from ._mistake_trace import MistakeTrace, check_plot_and_csv
from ._report import Progress, echo_stdout, table_console
from ._resume import check_vw_flags, echo_stderr, resumed_model
from ._sequence_report import HeldOutSequences, Rounds, SequenceTable, TagWriter, Totals, summary_lines
from ._source import DEFAULT_BITS, check_writable, named, opened_input

_ROWS_ON_DASK = "learners of rows (perceptron, pa, pa1, ...) on Dask; sequences are learned here, in one process"


def _refuse(params, names):
    """Usage errors for the options (by parameter name) that do not apply to sequences."""
    why = {
        "n_features": ("--n-features", "applies to LIBSVM and CSV files; CoNLL features are hashed into 2^BITS "
                                        "columns (--bits)"),
        "zero_based": ("--zero-based/--one-based", "apply to LIBSVM files only"),
        "label_column": ("--label-column", "applies to CSV files only; a CoNLL line's tag is its last field"),
        "delimiter": ("--delimiter", "applies to CSV files only; CoNLL fields are separated by blanks"),
        "raw": ("--raw", "writes the scores of learners of rows; -p writes a sequence learner's predicted tags"),
        "use_cache": ("-c/--cache", "reads a binary cache of rows; read the CoNLL file itself (--passes reads it "
                                    "again)"),
        "workers": ("--workers", f"applies to {_ROWS_ON_DASK}"),
        "scheduler": ("--scheduler", f"applies to {_ROWS_ON_DASK}"),
        "tau": ("--delay", f"applies to {_ROWS_ON_DASK}"),
        "weighting": ("--mix", f"applies to {_ROWS_ON_DASK}"),
        "classes": ("--classes", f"applies to {_ROWS_ON_DASK}"),
        "costs_path": ("--costs", "applies to the cost-sensitive learners (pa-cost-sensitive, ...); a sequence "
                                  "learner's cost is --set cost=hamming"),
    }
    defaults = {"weighting": "uniform", "classes": "-1,1"}
    for name in names:
        value = params.get(name)
        if value is None or value is False or value == defaults.get(name):
            continue
        option, reason = why[name]
        raise click.UsageError(f"{option} does not apply to sequences (CoNLL files): it {reason}")


def _sequence_algo(algo, what):
    if algo not in SEQUENCES:
        raise click.UsageError(f"{what} is a CoNLL file of sequences: learn it with --algo "
                               f"{', '.join(SEQUENCES)}; --algo {algo} learns rows")


# -- reading -----------------------------------------------------------------------------------------------------------

class SequenceSource:
    """FILE read as CoNLL sequences: ``chunks()`` yields (list of CSR matrices, list of tag arrays or None)."""

    def __init__(self, path, fmt, bits, chunk_size, labelled=True):
        self.path, self.stream = opened_input(path)
        if fmt == "auto":
            from ..data import detect_format

            fmt = detect_format(self.path)
        self.format = fmt
        self.bits = DEFAULT_BITS if bits is None else bits
        self.chunk_size = chunk_size
        self.labelled = labelled

    def require_conll(self, who):
        if self.format != "conll":
            raise click.UsageError(f"{who} learns sequences from CoNLL files, and {named(self.path)} is read as "
                                   f"{self.format}: pass --format conll if it is one")

    def input_info(self):
        """The model metadata's ``input`` entry: CoNLL, hashed into 2^bits columns."""
        return {"format": "conll", "bits": self.bits}

    def chunks(self):
        from ..data import iter_conll

        if self.stream:
            _io.once_input(self.path).start()
        return iter_conll(self.path, chunk_size=self.chunk_size, n_bits=self.bits, labelled=self.labelled)


def source_for_model(model, model_path, file, fmt, bits, chunk_size, labelled):
    """FILE read as the CoNLL training file of MODEL was (its hashing bits), refused if it is in another format."""
    trained = read_input_info(model_path)
    source = SequenceSource(file, fmt, bits, chunk_size, labelled)
    if "format" in trained:
        check_layout(model_path, trained, source, bits is not None)
    else:
        trained_bits = model.n_bits if model.n_bits is not None else _bits_of(model)
        if trained_bits is None:
            raise ValueError(f"{model_path} does not record how its training data were read (saved by the library), "
                             "and its columns are not hashed (n_bits=None, n_features not a power of 2): the command "
                             "line hashes CoNLL features, so its columns would not be the model's; predict with the "
                             "library")
        click.echo(f"olearn: warning: {model_path} does not record how its training data were read (saved by the "
                   f"library or an older olearn): {named(file)} is hashed into the model's 2^{trained_bits} columns, "
                   "unchecked", err=True)
        if bits is None:
            source.bits = trained_bits
    source.require_conll(f"{model_path}, a {type(model).__name__} model,")
    return source


class SequencesInMemory:
    """The sequences of FILE as its first pass read them, kept for the passes after it (``--passes N``).

    They are checked and converted once, into one batch; each later pass
    visits them in the file's order, or with ``rng`` in a new random order of
    the learned sequences, the held-out ones (the file's K-th, 2K-th, ...)
    staying at their places, so that the same sequences are held out in
    every pass.
    """

    def __init__(self, chunk_size):
        self.chunk_size = chunk_size
        self._X, self._y = [], []
        self._batch = self._labels = None

    def add(self, X, y):
        self._X += X
        self._y += y

    def chunks(self, every, rng):
        from ..sequence._inputs import LabelSequences, check_label_sequences, check_sequences

        if self._batch is None:
            self._batch = check_sequences(self._X)
            self._labels = LabelSequences(check_label_sequences(self._y, self._batch.offsets), self._batch.offsets)
            self._X = self._y = None
        X, y = self._batch, self._labels
        if rng is not None:
            order = _pass_order(len(X), every, rng)
            X, y = X.reordered(order), y.reordered(order)
        for lo in range(0, len(X), self.chunk_size):
            yield X[lo : lo + self.chunk_size], y[lo : lo + self.chunk_size]


def _pass_order(n, every, rng):
    """A random order of the n sequences of a pass in which the held-out ones (the K-th, 2K-th, ...) keep their
    places (all move when ``every`` is None)."""
    order = np.arange(n)
    learned = np.ones(n, dtype=bool) if every is None else np.arange(1, n + 1) % every != 0
    order[learned] = rng.permutation(order[learned])
    return order


def _declared_tags(text):
    """The tags of ``--tags``: blank-separated, distinct."""
    tags = text.split()
    if not tags:
        raise click.UsageError("--tags lists the tags separated by blanks; it is empty")
    repeated = sorted({tag for tag in tags if tags.count(tag) > 1})
    if repeated:
        raise click.UsageError(f"--tags names {', '.join(repeated)} more than once")
    return tags


def new_learner(algo, hyperparameters, fit_intercept, bits):
    """A fresh PASequence for ``algo`` hashing into 2^bits columns, as the CoNLL reader does."""
    if "n_bits" in hyperparameters:
        raise click.UsageError("--set n_bits does not apply to sequences: CoNLL features are hashed by --bits")
    est = make_estimator(algo, hyperparameters, fit_intercept, 2**bits)
    return est.set_params(n_bits=bits)


# -- olearn run --------------------------------------------------------------------------------------------------------

def run_sequences(p, start):
    """``olearn run`` on a CoNLL file (``p``: the command's parameters by name)."""
    algo, files, passes = p["algo"], p["files"], p["passes"]
    hyperparameters = collect_hyperparameters(p["C"], p["eta"], p["loss"], p["schedule"], p["radius"], p["settings"])
    check_vw_flags(algo, p["initial_model"], p["test_only"], p["predictions"], p["raw"], p["save"], passes, p["bound"])
    _refuse(p, ("n_features", "zero_based", "label_column", "delimiter", "costs_path", "raw", "use_cache", "workers",
                "scheduler", "tau", "weighting", "classes"))
    if p["bound"] and passes > 1:
        raise click.UsageError("--bound describes one pass; it cannot be combined with --passes")
    if len(files) > 1:
        raise click.UsageError(f"several files are shards of {_ROWS_ON_DASK}: give one CoNLL file")
    (file,) = files
    model = None
    if p["initial_model"] is not None:
        model, algo = resumed_model(p["initial_model"], algo, hyperparameters, p["fit_intercept"], None)
    _sequence_algo(algo, named(file))
    check_applicable(algo, hyperparameters)
    every = _holdout_period(p["holdout_every"], p["holdout_off"], passes)
    if p["save_on_interrupt"] and p["save"] is None:
        raise click.UsageError("--save-on-interrupt applies with --save")
    if p["save"] is not None:
        check_writable(p["save"], "--save")
    shuffled = passes > 1 and not p["no_shuffle"]
    if shuffled and p["predictions"] is not None:
        raise click.UsageError(f"-p writes the tags of every pass in the order of {named(file)}, and passes 2..{passes} "
                               "visit its sequences in a random order: add --no-shuffle")
    if model is None:
        source = SequenceSource(file, p["fmt"], p["bits"], p["chunk_size"])
        source.require_conll(f"--algo {algo}")
        est = new_learner(algo, hyperparameters, p["fit_intercept"], source.bits)
        if p["tags"] is not None:
            est.set_params(classes=_declared_tags(p["tags"]))
    else:
        if p["tags"] is not None:
            raise click.UsageError("--tags declares the tags of a new model; the model of -i keeps its own")
        source = source_for_model(model, p["initial_model"], file, p["fmt"], p["bits"], p["chunk_size"], True)
        est = model
    rng = np.random.default_rng(p["random_seed"]) if shuffled else None
    # the first pass reads FILE (a stream too); the others visit what it read
    memory = SequencesInMemory(p["chunk_size"]) if passes > 1 else None
    writer = None if p["predictions"] is None else TagWriter(p["predictions"])
    to_stderr = writer is not None and writer.to_stdout
    table = SequenceTable(None if p["quiet"] else (echo_stderr if to_stderr else echo_stdout))
    held_outs = []
    # with --bound: the sequences and what the learner recorded on them (the report needs the whole run)
    learned = [] if p["bound"] else None
    with Progress(enabled=not p["quiet"]) as progress, HeldInterrupts() as interrupts, \
            saved_if_interrupted(est, p["save"] if p["save_on_interrupt"] else None, source, table):
        for n in range(passes):
            label = f"pass {n + 1}/{passes}" if passes > 1 else ("testing" if p["test_only"] else "learning")
            held_out = HeldOutSequences(every)
            for X, y in source.chunks() if n == 0 else memory.chunks(every, rng):
                if n == 0 and memory is not None:
                    memory.add(X, y)
                _learn_chunk(est, X, y, held_out, table, interrupts, writer, p["test_only"], learned)
                progress.update(table.examples + held_out.examples + sum(h.examples for h in held_outs), label)
            if every is not None:
                held_outs.append(held_out)
                if table.write is not None:
                    table.write(held_out.line(n + 1))
    if writer is not None:
        writer.close()
    table.finish()
    seconds = time.perf_counter() - start
    if not p["quiet"]:
        click.echo("", err=to_stderr)
    for line in summary_lines(table, passes, seconds):
        click.echo(line, err=to_stderr)
    if held_outs:
        for line in held_outs[-1].summary_lines(every):
            click.echo(line, err=to_stderr)
    if p["save"] is not None:
        save_model(est, p["save"], source.input_info())
        click.echo(f"{'model':<18}{p['save']}", err=to_stderr)
    if learned is not None:
        click.echo("", err=to_stderr)
        click.echo(str(_bound_report(est, learned)), err=to_stderr)


def _bound_report(est, learned):
    """The bound of the run (Crammer et al. 2006, Sec. 9) from its sequences and the losses and steps recorded."""
    from types import SimpleNamespace

    from ..bounds._report_sequence import sequence_bound_report

    X = [x for piece, _, _ in learned for x in piece]
    y = [tags for _, piece, _ in learned for tags in piece]
    losses = np.concatenate([rounds.losses for _, _, rounds in learned]) if learned else np.empty(0)
    taus = np.concatenate([rounds.taus for _, _, rounds in learned]) if learned else np.empty(0)
    return sequence_bound_report(est, X, y, SimpleNamespace(losses=losses, taus=taus, n_rounds=len(X)))


def _learn_chunk(est, X, y, held_out, table, interrupts, writer, test_only, learned=None):
    """Predict then learn the sequences of a chunk in order; held-out sequences are only predicted, counted apart."""
    for lo, hi, held in held_out.segments(len(X)):
        if held:
            with interrupts.held():
                rounds = Rounds.frozen(est, X[lo:hi], y[lo:hi])
                held_out.add(rounds)
                if writer is not None:
                    writer.write(rounds.predictions, rounds.lengths)
            continue
        for X_piece, y_piece in table.pieces(X[lo:hi], y[lo:hi]):
            with interrupts.held():
                rounds = (Rounds.frozen if test_only else Rounds.learned)(est, X_piece, y_piece)
                if learned is not None:
                    learned.append((X_piece, y_piece, rounds))
                table.add(rounds)
                if writer is not None:
                    writer.write(rounds.predictions, rounds.lengths)


# -- olearn predict ----------------------------------------------------------------------------------------------------

def predict_sequences(model, model_path, p):
    """``olearn predict`` with a sequence model: the tags of FILE's sequences, CoNLL style."""
    _refuse(p, ("zero_based", "label_column", "delimiter"))
    if p["output"] is not None:
        check_writable(p["output"], "--output")
    labelled = not p["no_label"]
    source = source_for_model(model, model_path, p["file"], p["fmt"], p["bits"], p["chunk_size"], labelled)
    writer = TagWriter("-" if p["output"] is None else p["output"])
    totals = Totals()
    checked = not labelled
    try:
        for X, y in source.chunks():
            predictions = model.predict(X)
            writer.write(predictions, [x.shape[0] for x in X])
            if labelled:
                if not checked:
                    _warn_unknown_tags(model, y, named(source.path))
                    checked = True
                totals.add(Rounds(predictions, y))
    finally:
        writer.close()
    if labelled:
        right_tokens, right_sequences = totals.tokens - totals.token_errors, totals.examples - totals.mistakes
        click.echo(f"accuracy: {1 - totals.token_error_rate:.6f} ({right_tokens}/{totals.tokens} tokens correct); "
                   f"sequence accuracy: {1 - totals.sequence_error_rate:.6f} "
                   f"({right_sequences}/{totals.examples} sequences correct)", err=True)


def _warn_unknown_tags(model, y, path):
    """Warn when no tag of the first chunk is one the model learned: the file likely has no tags (--no-label)."""
    tags = np.unique(np.concatenate(y))
    if not np.isin(tags, model.classes_).any():
        click.echo(f"olearn: warning: none of the last fields of {path}'s first {len(y):,} sequences is a tag the "
                   f"model learned ({', '.join(map(str, model.classes_[:5]))}{', ...' if model.classes_.size > 5 else ''})"
                   ": if the file has no tags, pass --no-label, which reads every field as a feature", err=True)


# -- olearn compare ----------------------------------------------------------------------------------------------------

CSV_COLUMNS = ("algorithm", "settings", "sequences", "tokens", "sequence_errors", "sequence_error_rate", "token_errors",
               "token_error_rate", "average_loss", "updates", "seconds")


def compare_sequences(p, algos_given, start):
    """``olearn compare`` on a CoNLL file: the sequence learners (all three, unless --algos lists some)."""
    from sklearn.base import clone

    import olearn

    _refuse(p, ("n_features", "zero_based", "label_column", "delimiter", "costs_path"))
    if algos_given:
        entries = parse_algorithm_list(p["algos"])
        rows_learners = [label for label, algo, _ in entries if algo not in SEQUENCES]
        if rows_learners:
            raise click.UsageError(f"--algos lists learners of rows ({', '.join(rows_learners)}), and they do not learn "
                                   f"sequences: compare {', '.join(SEQUENCES)} on a CoNLL file, learners of rows on "
                                   "the other formats")
    else:
        entries = [(algo, algo, {}) for algo in SEQUENCES]
    common = collect_hyperparameters(p["C"], p["eta"], p["loss"], p["schedule"], p["radius"], p["settings"])
    check_some_takes(common, [algo for _, algo, _ in entries])
    check_conditions(entries, common)
    plot, csv_path = p["plot"], p["csv_path"]
    check_plot_and_csv(plot, csv_path)
    source = SequenceSource(p["file"], p["fmt"], p["bits"], p["chunk_size"])
    source.require_conll(f"--algos {','.join(label for label, _, _ in entries)}")
    learners = {label: new_learner(algo, {**common, **own}, p["fit_intercept"], source.bits)
                for label, algo, own in entries}
    traces = {label: MistakeTrace() for label in learners}
    totals = {label: Totals() for label in learners}
    seconds = dict.fromkeys(learners, 0.0)
    warm = False
    with Progress(enabled=True, description="comparing") as progress:
        for X, y in source.chunks():
            if not warm:
                # load each compiled kernel on a throw-away copy, so that the first learner's time is not charged for it
                for est in learners.values():
                    olearn.run(clone(est), X[:1], y[:1])
                warm = True
            for label, est in learners.items():
                tick = time.perf_counter()
                result = olearn.run(est, X, y)
                seconds[label] += time.perf_counter() - tick
                traces[label].add(result)
                totals[label].add(Rounds(result.predictions, y, result.losses, result.n_updates))
            progress.update(next(iter(totals.values())).examples)
    wall = time.perf_counter() - start
    rows = []
    for label, total in totals.items():
        rows.append({
            "algorithm": label, "settings": describe_estimator(learners[label]), "sequences": total.examples,
            "tokens": total.tokens, "sequence_errors": total.mistakes, "sequence_error_rate": total.sequence_error_rate,
            "token_errors": total.token_errors, "token_error_rate": total.token_error_rate,
            "average_loss": total.average_loss, "updates": total.updates, "seconds": seconds[label],
        })
    first = rows[0]
    _print_table(rows, f"{p['file']}: {first['sequences']:,} sequences, {first['tokens']:,} tokens, one pass",
                 wall - sum(seconds.values()))
    if csv_path is not None:
        with open(csv_path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        click.echo(f"table written to {csv_path}")
    if plot is not None:
        from ..plots import plot_cumulative_mistakes

        default_title = f"{os.path.basename(p['file'])}: {first['sequences']:,} sequences (mistakes: sequences " \
                        "with a wrong tag)"
        plot_cumulative_mistakes(traces, plot, title=p["title"] or default_title)
        click.echo(f"plot written to {plot}")


def _print_table(rows, caption, other_seconds):
    from rich.table import Table

    table = Table(title=caption, title_justify="left", caption=f"reading and overhead: {other_seconds:.3f} s",
                  caption_justify="left")
    table.add_column("algorithm")
    table.add_column("settings")
    for name in ("seq errors", "seq error rate", "token error rate", "average loss", "updates", "time (s)"):
        table.add_column(name, justify="right")
    best = min(row["token_errors"] for row in rows)
    for row in rows:
        table.add_row(
            row["algorithm"], row["settings"], f"{row['sequence_errors']:,}", f"{row['sequence_error_rate']:.4f}",
            f"{row['token_error_rate']:.4f}", f"{row['average_loss']:.4f}", f"{row['updates']:,}",
            f"{row['seconds']:.4f}", style="bold" if row["token_errors"] == best else None,
        )
    table_console().print(table)
