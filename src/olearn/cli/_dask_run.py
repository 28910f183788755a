"""``olearn run --workers/--scheduler``: what the command line on Dask takes from the serial one, and what it cannot.

The tasks whose learners the library mixes (binary, multiclass, cost-sensitive,
regression; :mod:`olearn.distributed._models`) run on Dask with the labels
fixed before learning; ``-i MODEL`` continues a saved model, its shards read
as its training data were; ``--scale`` learns the scaler's statistics of
every shard first (:mod:`olearn.distributed._pipelines`). What needs the examples in one stream is refused,
each with its reason in one line.
"""

import contextlib

import click
import numpy as np

from .._labels import plain_label
from ._learners import parse_value
from ._tasks import Task

ON_DASK_TASKS = ("binary", "multiclass", "cost-sensitive", "regression")

# why each serial option has no meaning for shards learned at once on the workers
_NOT_ON_DASK = {
    "-c": "-c keeps one FILE's cache on this machine, and on Dask the workers read the shards: give olearn cache "
          "files (FILE.olc, written by a run with -c) as the shards, or the text files",
    "--keep-names": "--keep-names keeps the names of one VW file read here",
    "--invert_hash": "--invert_hash writes the names of one VW file read here",
    "-q/--cubic/--interactions/--ignore/--keep/--ngram/--skips": "the namespace options apply to one VW file read "
                                                                 "here, not to shards on Dask",
    "--binary": "--binary relabels one file read here; give shards with the labels -1 and 1 (or --classes A,B)",
    "--link": "--link logistic learns a calibration of one stream's scores, and shards' calibrations do not mix",
    "--delimiter": "--delimiter applies to one CSV file read here; a CSV shard is read with commas",
}


def check_dask_options(use_cache, keep_names, invert_hash, namespaces, binary, link, delimiter):
    """Refuse, in one line with its reason, a serial option that does not apply to shards learned on Dask."""
    given = {"-c": use_cache or None,
             "--keep-names": keep_names or None, "--invert_hash": invert_hash,
             "-q/--cubic/--interactions/--ignore/--keep/--ngram/--skips": namespaces, "--binary": binary or None,
             "--link": link if link != "identity" else None, "--delimiter": delimiter}
    for name, value in given.items():
        if value is not None:
            raise click.UsageError(f"{name} does not apply on Dask: {_NOT_ON_DASK[name]}")


def check_dashboard(dashboard, workers):
    """Refuse ``--dashboard`` without a local cluster to serve it, or without bokeh to draw it."""
    if not dashboard:
        return
    if workers is None:
        raise click.UsageError("--dashboard serves the dashboard of the local cluster of --workers; a cluster of "
                               "--scheduler serves its own, whose link is printed")
    import importlib.util

    if importlib.util.find_spec("bokeh") is None:
        raise click.UsageError('--dashboard needs bokeh, which draws the Dask dashboard: pip install "bokeh>=3.1"')


def dashboard_line(client, wanted):
    """The progress's line of the Dask dashboard's link, or None: not ``wanted`` (a local cluster started without
    ``--dashboard``), or a scheduler that serves none."""
    from ..distributed._cluster import dashboard_link

    link = dashboard_link(client) if wanted else None
    return None if link is None else f"Dask dashboard: {link}"


def check_dask_scale(est, delayed, label_column):
    """Refuse a scaled model (``--scale``, or a scaled ``-i MODEL``) where its scaler cannot run on Dask."""
    from ._scaling import learner_of

    if learner_of(est) is est:
        return
    if delayed:
        raise click.UsageError("--scale on Dask applies to parameter mixing: delayed updates move the learner's "
                               "weights round by round at the coordinator, and the scaler's statistics would have to "
                               "be those of one stream; drop --delay, or --scale")
    if label_column is not None:
        raise click.UsageError("--scale on Dask applies to shards of numbered columns (LIBSVM, VW, CSV, caches); a "
                               "Parquet table's named columns are learned by the learner alone: drop --scale")


def check_dask_predictions(predictions, delayed, label_column):
    """Refuse ``-p`` where the first epoch's predictions cannot be made on Dask (:mod:`._dask_predictions`)."""
    if predictions is None:
        return
    reason = ("on stdout it would mix with the table: give a file" if predictions == "-" else
              "delayed updates score each example on stale weights at the coordinator's pace, not as a pass of "
              "a learner" if delayed else
              "the named columns of Parquet tables are read by the run's vocabulary: write the predictions of the "
              "saved model with 'olearn predict'" if label_column is not None else None)
    if reason is not None:
        raise click.UsageError(f"-p on Dask writes the first epoch's progressive predictions of parameter "
                               f"mixing; {reason}")


def check_dask_test_only(test_only, model, delayed, label_column):
    """Refuse ``-t`` on Dask where the workers cannot read the shards' rows as the model's own."""
    from ._scaling import learner_of

    if not test_only:
        return
    reason = ("--delay applies to learning" if delayed else
              "a scaled model reads a file's rows through its scaler here: test it with 'olearn run -t' or "
              "'olearn predict' on one machine" if learner_of(model) is not model else
              "Parquet tables are read by the run's vocabulary: test the model with 'olearn predict'"
              if label_column is not None else None)
    if reason is not None:
        raise click.UsageError(f"-t on Dask predicts every shard with the model of -i, learning nothing; {reason}")


def dask_classes(task, classes, costs, model, model_path):
    """The labels every shard must encode alike (None: those of ``model``, or a regressor's none).

    ``classes`` is the text of ``--classes`` (None if not given); ``costs`` the
    labels of ``--costs`` or ``--oaa`` (None without).
    """
    if task.name == "regression":
        if classes is not None:
            raise click.UsageError("--classes does not apply to a regressor: it has no classes")
        return None
    if costs is not None:
        if classes is not None:
            raise click.UsageError(f"--classes does not apply with {costs.origin}, which give the labels")
        return list(costs.labels)
    if classes is None:
        if model is not None:
            return None
        if task.name == "multiclass":
            raise click.UsageError("a multiclass learner on Dask fixes every class before learning (each class's "
                                   "weights must hold the same place in every shard): give them with --classes A,B,C")
        return [-1, 1]
    labels = [parse_value(text.strip()) for text in classes.split(",")]
    binary = task.name == "binary"
    if len(set(labels)) != len(labels) or len(labels) < 2 or (binary and len(labels) != 2):
        expected = "two different labels A,B" if binary else "two or more different labels A,B,C"
        raise click.BadParameter(f"{classes!r}: expected {expected}", param_hint="'--classes'")
    known = getattr(model, "classes_", None)
    if known is not None and len(known) and not np.array_equal(np.unique(np.asarray(labels)), known):
        raise click.UsageError(f"--classes {classes} contradicts -i {model_path}, which learned the classes "
                               f"{','.join(str(plain_label(c)) for c in known)}: drop --classes")
    return labels


def byte_range_shards(files, options, n_workers, quiet):
    """One file on N > 1 workers: N shards, byte ranges of the file cut on line boundaries (None: a shard per file).

    A file that cannot be cut (compressed, CSV, a cache, Parquet) is one shard, with a note saying why, on stderr.
    """
    from ..distributed._parts import FilePart
    from ..distributed._shards import expanded_paths, why_not_splittable
    from ..distributed._tables import is_parquet
    from ._resume import echo_stderr

    paths = expanded_paths(files)
    if len(paths) != 1 or n_workers < 2:
        return None
    reason = ("a Parquet file is read as a table, by record batches" if is_parquet(paths[0], options["fmt"]) else
              why_not_splittable(FilePart(paths[0], options["fmt"])))
    if reason is None:
        return n_workers
    if not quiet:
        echo_stderr(f"one shard on {n_workers} workers: {reason}; split it into files (e.g. split -n l/{n_workers} "
                    "FILE part-) to learn in parallel")
    return None


def reading_ahead(est, files, options, workers, passes, one_pass):
    """While the local cluster of threads of ``--workers`` starts, its shards read ahead in this process
    (:func:`olearn.distributed._kept.read_ahead`): for a run of several epochs (not ``one_pass``: ``--delay``,
    ``-t``) of a learner alone whose passes release the GIL (the cluster's workers are then threads of this
    process), on the shards of files ``options`` make (as ``parameter_mixing`` makes them); else nothing."""
    from ..distributed._cluster import passes_release_gil
    from ._scaling import learner_of

    if (workers is None or passes < 2 or one_pass or learner_of(est) is not est or options["label_column"] is not None
            or not passes_release_gil(est)):
        return contextlib.nullcontext()
    from ..distributed import make_shards
    from ..distributed._kept import local_budget, read_ahead

    reading = {name: value for name, value in options.items() if name not in ("classes", "n_shards")}
    shards = make_shards(list(files), byte_range_shards(list(files), options, workers, quiet=True), **reading)
    return read_ahead(shards, local_budget(workers), workers)


def resumed_reading(model, model_path, algo, files, fmt, zero_based, n_features, bits, chunk_size, label_column,
                    task):
    """``(bits, zero_based)`` to read the shards of ``-i MODEL`` with: as its training data were read, the first
    shard's layout checked against them (another format or hashing would give the weights other features)."""
    from .._persistence import read_input_info
    from ..distributed._shards import expanded_paths
    from ..distributed._tables import is_parquet
    from ._learners import max_classes
    from ._resume import resumed_source

    first = expanded_paths(list(files))[0]
    trained = read_input_info(model_path)
    if is_parquet(first, fmt):
        if trained.get("format", "parquet") != "parquet":
            raise click.UsageError(f"-i {model_path} learned from {trained['format']} files, and {first} is a Parquet "
                                   "table, whose named columns are other features")
        return bits, zero_based
    source = resumed_source(model, model_path, first, fmt, zero_based, n_features, bits, chunk_size, label_column,
                            None, max_classes(algo), task)
    return (source.bits if source.format == "vw" else bits), source.base.zero_based


class LossOnlyTask(Task):
    """The summary of a regression on Dask: the shards send back their loss, not the predictions MAE and RMSE need."""

    name = "regression"
    counts_mistakes = False

    def summary(self, examples, mistakes, loss, extras):
        return [("average loss", loss / examples if examples else 0.0)]
