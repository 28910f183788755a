"""``olearn run``: progressive validation of one learner on a file, streamed in chunks, or on Dask over shards."""

import copy
import os
import time

import click
import numpy as np

from .._kernels._codes import T_ROUNDS
from .._persistence import save as save_model
from ..exceptions import DataFormatError
from ._app import cli, describe_error
from ._learners import (
    ALGORITHM_NAMES,
    ALGORITHMS,
    AlgorithmChoice,
    BOUNDED,
    RANDOM_SEED,
    RANDOM_SEEDS,
    algorithms_of,
    check_applicable,
    check_fit_intercept,
    max_classes,
    collect_hyperparameters,
    draws_random_numbers,
    hyperparameter_options,
    make_estimator,
    random_seed_given,
    seeded,
    task_of,
)
from ._resume import PredictionWriter, check_vw_flags, echo_stderr, resumed_model, resumed_source
from ._interrupt import HeldInterrupts, saved_if_interrupted
from ._link import CALIBRATED, check_logistic_link
from ._holdout import HeldOut, _holdout_period
from ._chunk_learning import _learn_chunk
from ._namespace_options import namespace_options
from ._read_paths import ReadFile
from ._names import check_names_source, check_names_wanted, kept_names, write_invert_hash
from ._report import Progress, ProgressiveTable, echo_stdout, summary_lines
from ._source import DEFAULT_BITS, DataSource, IndexBase, check_writable, data_options, named
from ._scaling import SCALES, check_scale, learner_of, rows, scaled
from ._tasks import task_named
from ._vw_habits import check_binary_model, oaa_labels, sign_labels, trained_oaa, vw_algorithm, with_oaa


@cli.command("run", short_help="Learn from a file online; print progressive validation.")
@click.option("--algo", "-a", type=AlgorithmChoice(), default=None,
              help="perceptron | pa, pa1, pa2 (Passive-Aggressive, PA-I, PA-II) | ogd (online gradient "
                   "descent) | svm (online SVM: ogd on the hinge loss in an L2 ball) | winnow, pnorm, dual "
                   "(quasi-additive; DualAscent) | arow, narow, cw (diagonal "
                   "covariance), arow-full, narow-full, cw-full, sop (full: O(d^2) per example), adagrad, "
                   "fig1-arow, fig1-arow-full (Orabona & Crammer 2010's AROW, Sec. 4.3 and 4.2); "
                   "set r, b, a, delta with --set | pa-multiclass, pa1-multiclass, pa2-multiclass, "
                   "perceptron-multiclass, mira | PA, PA-I, PA-II for regression (pa-regression, ...; --set "
                   "epsilon), uniclass (pa-uniclass, ...; --set epsilon, learn_radius, B), multilabel "
                   "(pa-multilabel, ...), cost-sensitive multiclass (pa-cost-sensitive, ...; --costs FILE, "
                   "--set update=max-loss) and sequences (pa-sequence, ...; CoNLL files, docs/sequence.md). "
                   "Required unless -i gives a model, or --oaa, --binary or --loss chooses one as VW does: olearn has "
                   "no default learner (the learner decides the task, and VW's default, a squared-loss "
                   "regression, would learn a file of classes as numbers).")
@hyperparameter_options
@click.option("--costs", "costs_path", type=ReadFile(), default=None, metavar="FILE",
              help="The cost matrix of the cost-sensitive learners (required by them): a line of the k labels, then "
                   "k lines of k costs, row = true label, column = predicted label (docs/cli.md).")
@click.option("--scale", type=click.Choice(SCALES), default=None,
              help="Scale every feature online before the learner: by its running mean and standard deviation "
                   "(standard) or largest absolute value (maxabs), the statistics of the examples before each one "
                   "(olearn.preprocessing; saved with --save, applied by 'olearn predict', resumed by -i). Needed "
                   "when the columns have unscaled values (a raw CSV table); binary, multiclass and regression "
                   "learners. On Dask: the statistics of every shard, merged before the learner is mixed.")
@click.option("--passes", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Read the file this many times (the table counts every learned example of every pass).")
@click.option("--holdout-every", type=click.IntRange(min=2), default=None, metavar="K",
              help="With --passes N > 1: examples K, 2K, 3K, ... of every pass are held out, predicted but never "
                   "learned, and their mistake rate (a regressor's MAE, RMSE and loss) is printed after each pass "
                   "(marked h). [default: 10 when N > 1]")
@click.option("--holdout-off", "--holdout_off", is_flag=True, help="With --passes N > 1: learn every example, hold none out.")
@click.option("--no-shuffle", is_flag=True,
              help="CoNLL sequences with --passes N > 1: keep the file's order in passes 2..N, which otherwise visit "
                   "the learned sequences in a new random order each (seeded by --random-seed).")
@click.option("--random-seed", "--random_seed", type=RANDOM_SEEDS, default=RANDOM_SEED, show_default=True,
              metavar="S",
              help="The seed of the run's random numbers, so that a run is reproducible (as VW's --random_seed): "
                   "a kernel learner's random budget (--set budget_policy=random; --set random_state=N seeds it "
                   "instead) and the shuffled passes of CoNLL sequences. A model of -i keeps its generator's state.")
@click.option("--tags", default=None, metavar="'TAG TAG ...'",
              help="CoNLL sequences: every tag the file may hold, separated by blanks (a tag has none), declared up "
                   "front (PASequence classes=): room for all at once, and another tag is an error.")
@data_options()
@namespace_options
@click.option("--cache", "-c", "use_cache", is_flag=True,
              help="Read FILE through its binary cache FILE.olc: written on the first reading, read by later "
                   "passes and runs (rebuilt, with a note, if FILE changed or other reading options are given). "
                   "Lets --passes read a stream once.")
@click.option("--save", "-f", "--final-model", "--final_regressor", "save", type=click.Path(dir_okay=False), default=None, metavar="MODEL",
              help="Write the learned model to MODEL (read it back with 'olearn predict', resume it with -i).")
@click.option("--keep-names", is_flag=True,
              help="With a VW file: keep the names behind its hashed columns (up to 1,000,000 distinct names; a "
                   "column where names collide lists them all), saved with the model by --save and shown by "
                   "'olearn inspect MODEL'. VW's --invert_hash.")
@click.option("--invert_hash", "invert_hash", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              metavar="FILE",
              help="VW's --invert_hash: write the model's weights by name to FILE, one 'name:column:weight' line "
                   "per name (the names kept as by --keep-names).")
@click.option("--initial-model", "-i", "--initial_regressor", type=ReadFile(), default=None, metavar="MODEL",
              help="Continue learning from MODEL (written by --save): its algorithm, hyperparameters and learned "
                   "state carry on, and FILE must be read as its training data were.")
@click.option("--test-only", "-t", "--testonly", is_flag=True,
              help="With -i: predict every example with the model, learning nothing (the table counts its mistakes).")
@click.option("--predictions", "-p", type=click.Path(dir_okay=False, allow_dash=True), default=None, metavar="FILE",
              help="Write one prediction per example to FILE ('-': stdout, and the table goes to stderr): the label "
                   "predicted before the example is learned. On Dask: the first epoch's, shard after shard.")
@click.option("--raw", is_flag=True,
              help="With -p: write the raw score instead of the label (w.x; for multiclass, class:score per class; "
                   "uniclass: the signed margin; multilabel: the ranking margin).")
@click.option("--link", type=click.Choice(("identity", "logistic")), default="identity", show_default=True,
              help="logistic: class probabilities, as Vowpal Wabbit's --link logistic; -p then writes the probability "
                   "of the larger label (+1 of -1/+1) before each example is learned. pa, pa1, pa2 and perceptron "
                   "learn a calibration of their scores online (calibration=platt, saved with the model); ogd needs "
                   "--loss logistic; a model of -i must have probabilities.")
@click.option("--save-on-interrupt", is_flag=True,
              help="With --save: on Ctrl-C, still write the model of the examples learned so far (then exit 130).")
@click.option("--bound", is_flag=True,
              help="After the run, print the papers' mistake or loss bounds next to the measured values "
                   f"({', '.join(BOUNDED)}; loads FILE into memory).")
@click.option("--quiet", is_flag=True, help="Print only the final summary. (-q is VW's: --quadratic.)")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Learn on a local Dask cluster of N workers, one shard per FILE (one LIBSVM or VW "
                   "FILE: a byte range per worker) (parameter mixing; --passes epochs): threads of this command "
                   "where the learner's compiled passes release the GIL (perceptron, pa, pa1, pa2, ogd, svm), else "
                   "processes. Needs olearn[distributed].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Learn on the Dask cluster at ADDRESS (tcp://host:port) instead of a local one.")
@click.option("--dashboard", is_flag=True,
              help="With --workers: serve the local cluster's Dask dashboard (needs bokeh) and print its link "
                   "(--scheduler: the link of the cluster's own, printed if it serves one).")
@click.option("--delay", "tau", type=click.IntRange(min=0), default=None, metavar="TAU",
              help="With --workers/--scheduler: delayed updates, each computed on weights at most TAU "
                   "rounds stale (perceptron, pa, pa1, pa2, ogd, svm), instead of parameter mixing.")
@click.option("--mix", "weighting", type=click.Choice(("uniform", "examples", "updates")), default="uniform",
              show_default=True,
              help="Parameter mixing: average the shards' models uniformly, or weighted by their examples or "
                   "updates of the epoch; a shard without examples never counts.")
@click.option("--classes", default=None, metavar="A,B,...",
              help="With --workers/--scheduler: the class labels, fixed before learning so that every shard encodes "
                   "them alike: the two of a binary learner [default: -1,1, or those of -i MODEL], every class of a "
                   "multiclass one (required unless -i MODEL knows them).")
@click.option("--oaa", type=click.IntRange(min=2), default=None, metavar="K",
              help="VW's one-against-all: K classes labelled 1..K (another label is an error), learned by "
                   "pa1-multiclass unless --algo names another multiclass learner.")
@click.option("--binary", is_flag=True,
              help="VW's --binary: every label read as its sign (> 0 is 1, else -1), learned by a binary learner "
                   "(ogd unless --algo names another, or the binary model of -i).")
@click.option("--data", "-d", "data", multiple=True, type=click.Path(dir_okay=False, allow_dash=False), metavar="FILE",
              help="A FILE to learn, as VW's -d (repeatable; read before the FILES given without -d).")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=False))
def run_command(algo, C, eta, loss, schedule, radius, fit_intercept, settings, costs_path, scale, passes, holdout_every,
                holdout_off, no_shuffle, random_seed, tags, fmt, zero_based, n_features, bits, chunk_size,
                label_column, delimiter, namespaces, use_cache,
                save, save_on_interrupt, initial_model, test_only, predictions, raw, link, bound, quiet, workers,
                scheduler, dashboard, tau, weighting, classes, oaa, binary, data, files, keep_names, invert_hash):
    """Learn from FILE online and report progressive validation.

    The learners take the features as they are: when the columns have
    unscaled values (a raw CSV table of ages, incomes, counts), add --scale
    standard (or --scale maxabs for sparse LIBSVM or VW features), which
    scales them online with the statistics of the examples before each one;
    without it a learner on such a table stays near chance. A CSV column of
    text is read as categories, one-hot as name=value (the header names them).

    Each example is predicted first and learned second, so the mistakes
    counted on the first pass are honest test mistakes of a model that has
    never seen the example. A row is printed when the number of examples
    seen reaches 1, 2, 4, 8, ... and at the end: the cumulative mistakes,
    the mistake rate and average loss so far, and the mistake rate since the
    previous row. LIBSVM and VW files are read in chunks, so memory stays
    bounded however long the file is.

    A CSV file's label is its last column unless --label-column names
    another (a last column that cannot hold a classifier's labels is
    refused). A VW file's importance weights weigh the learning of their
    examples, as the learner's sample_weight; an unlabelled VW line is an
    error.

    A CoNLL file (one token per line, its features then its tag, a blank
    line after each sequence; --format conll unless it is named .conll) is
    learned by pa-sequence, pa1-sequence or pa2-sequence: a round is a
    sequence, the table counts the sequences with a wrong tag and the wrong
    tags, and -p writes one predicted tag per token line. With --passes N,
    passes 2..N visit the sequences the first pass read, kept in memory, in
    a new seeded random order each (--no-shuffle: the file's order).

    With --passes N the file is read N times and learning continues across
    passes; from pass 2 on the learner has seen every example before, so the
    numbers are no longer progressive validation (they measure fit, not
    generalisation). So, as Vowpal Wabbit does, examples 10, 20, 30, ...
    (--holdout-every K: K, 2K, ...) are then held out in every pass: predicted
    but never learned, left out of the table, their mistake rate printed
    after each pass (marked h); --holdout-off learns them all.

    \b
    Examples:
      olearn run --algo pa1 -C 0.1 train.svm
      olearn run --algo ogd --loss logistic --eta 0.5 --schedule sqrt train.svm.gz
      olearn run --algo perceptron --passes 3 --save model.npz train.svm
      olearn run --algo pa --bound small.svm
      olearn run --algo pa2 --format vw --bits 20 clicks.vw
      olearn run --algo ogd --set conservative=true train.svm
      olearn run --algo arow --set r=0.1 train.svm
      olearn run --algo pa1 --label-column 1 --delimiter ';' train.csv

    The algorithm names the task. Regression learners (pa-regression, ...)
    print MAE and RMSE instead of mistakes; uniclass ones (pa-uniclass, ...)
    learn the rows themselves (labels ignored; every CSV column is a
    coordinate unless --label-column names one; a LIBSVM file needs
    --n-features) and count the vectors outside the ball; multilabel ones
    (pa-multilabel, ...) read LIBSVM labels such as '1,3'; cost-sensitive ones
    (pa-cost-sensitive, ...) need --costs FILE: a line of the k labels, then
    one line of k costs per true label (column: predicted label), >= 0, 0 on
    the diagonal. See docs/cli.md, "Every task".

    \b
      olearn run -a pa1-regression --set epsilon=0.05 prices.svm
      olearn run -a pa-uniclass --set learn_radius=true vectors.csv
      olearn run -a pa2-multilabel -C 0.1 -p labels.txt scene.svm
      olearn run -a pa1-cost-sensitive --costs costs.txt --set update=max-loss train.svm

    Vowpal Wabbit's habits: -i MODEL resumes a saved model on more data
    (learning A then resuming on B ends exactly as learning A and B in one
    run), -f MODEL is --save, -t tests the model of -i without learning,
    -p FILE writes one prediction per line (--raw: the scores), -c reads
    FILE through its binary cache FILE.olc (written by the first reading,
    rebuilt when FILE or the reading options change; on a stream it lets
    --passes read the stream once). On VW files, -q ab, --cubic abc,
    --interactions, --ignore, --keep, --ngram and --skips cross and select
    namespaces as VW does (the model records them; --quiet is spelt out).
    -d FILE, -b BITS, --holdout_off and --loss_function are VW's spellings
    of FILE, --bits, --holdout-off and --loss; --oaa K learns the classes
    1..K (pa1-multiclass), --binary the labels' signs (ogd). Another VW flag
    is answered with the olearn way.

    \b
      olearn run -a arow -q ab --cubic abc train.vw
      olearn run -a pa1 day1.svm -f model.npz
      olearn run -i model.npz day2.svm -f model2.npz
      olearn run -i model2.npz -t -p predictions.txt test.svm
      olearn run -a pa1 -c --passes 5 train.svm

    With --workers N (a local Dask cluster) or --scheduler ADDRESS, every
    FILE (several files, a quoted glob such as 'shards/*.svm', a directory)
    is a shard read in chunks by a worker (one LIBSVM or VW FILE is cut into
    a byte range per worker, on line boundaries); Parquet files are tables whose
    --label-column NAME holds the labels (text columns one-hot as name=value). By default the shards' models are mixed
    after each pass (iterative parameter mixing: perceptron, pa, pa1, pa2,
    ogd, svm, arow, arow-full, the multiclass learners with --classes
    A,B,C, the cost-sensitive ones with --costs, the regressors); -i MODEL
    continues a saved model; --delay TAU learns in one pass with updates
    computed on weights at most TAU rounds stale (perceptron, pa, pa1, pa2,
    ogd, svm). See docs/distributed.md.

    \b
      olearn run --algo pa1 --workers 4 --passes 5 part-*.svm
      olearn run --algo arow-full --workers 2 --mix updates 'shards/*.svm'
      olearn run --algo pa1 --workers 2 'data/*.parquet' --label-column y
      olearn run --algo ogd --scheduler tcp://10.0.0.5:8786 --delay 64 part-*.svm
    """
    import olearn

    start = time.perf_counter()
    files = data + files
    if not files:
        raise click.UsageError("give the FILE to learn (as an argument, or with -d FILE); '-' is standard input, "
                               "which Vowpal Wabbit reads when given no file and olearn only when told")
    click.get_current_context().params["files"] = files
    from ._sequence_choice import wants_sequences

    if wants_sequences(algo, initial_model, fmt, files):
        if namespaces is not None:
            raise click.UsageError("the namespace options (-q, --cubic, --interactions, --ignore, --keep, --ngram, "
                                   "--skips) apply to VW files, not to sequences")
        from ._sequences import run_sequences  # here: a run on rows does not load the sequence path

        return run_sequences(click.get_current_context().params, start)
    for name, value in (("--tags", tags), ("--no-shuffle", no_shuffle or None)):
        if value is not None:
            raise click.UsageError(f"{name} applies to CoNLL sequences; the passes over rows read the file in order")
    hyperparameters = collect_hyperparameters(C, eta, loss, schedule, radius, settings)
    algo = vw_algorithm(algo, loss, oaa, binary, initial_model)
    check_vw_flags(algo, initial_model, test_only, predictions, raw, save, passes, bound)
    model = None
    if initial_model is not None:
        model, algo = resumed_model(initial_model, algo, hyperparameters, fit_intercept, n_features, scale)
        check_binary_model(binary, algo, initial_model)
    check_applicable(algo, hyperparameters)
    hyperparameters = _with_random_seed(algo, hyperparameters, random_seed, initial_model)
    check_fit_intercept(algo, fit_intercept)
    task = task_named(task_of(algo))
    check_scale(scale, algo, task)
    costs = _costs_of(algo, costs_path, initial_model, model)
    if initial_model is not None:
        oaa = trained_oaa(initial_model)  # a model learned with --oaa K keeps refusing labels outside 1..K
    if oaa is not None and not test_only:  # -t refuses or warns about labels as predict does
        # the labels every row must have, as a cost file's (a multiclass learner has none)
        costs = oaa_labels(oaa, initial_model)
    if raw and task.check_raw() is not None:
        raise click.UsageError(f"--raw does not apply to --algo {algo}: {task.check_raw()}")
    if link == "logistic":
        check_logistic_link(algo, task, hyperparameters, model, raw)
        if model is None and algo in CALIBRATED:
            hyperparameters["calibration"] = "platt"
    if save_on_interrupt and (save is None or bound or workers is not None or scheduler is not None):
        raise click.UsageError("--save-on-interrupt applies with --save, to learning in chunks here (not --bound, "
                               "not on Dask)")
    if workers is not None or scheduler is not None:
        from ._dask_run import check_dask_options

        check_dask_options(use_cache, keep_names, invert_hash, namespaces, binary, link, delimiter)
        holdout_every = _holdout_period(holdout_every, holdout_off, passes)
        return _run_distributed(algo, hyperparameters, fit_intercept, files, passes, fmt, zero_based, n_features,
                                bits, chunk_size, save, bound, quiet, workers, scheduler, tau, weighting, classes, start,
                                holdout_every, label_column, task, costs, model, initial_model, scale, predictions,
                                raw, test_only, dashboard, oaa)
    for name, value in (("--delay", tau), ("--mix", weighting if weighting != "uniform" else None),
                        ("--classes", classes), ("--dashboard", dashboard or None)):
        if value is not None:
            raise click.UsageError(f"{name} applies with --workers or --scheduler only")
    holdout_every = _holdout_period(holdout_every, holdout_off, passes)
    if use_cache and (task.multilabel or not task.reads_labels):
        raise click.UsageError(f"-c caches a file's labels as numbers, and --algo {algo} ({task.name}) reads "
                               "none or sets of them: read FILE without -c")
    if len(files) > 1:
        raise click.UsageError("several files are learned as shards on Dask: add --workers N or --scheduler ADDRESS")
    (file,) = files
    if bound and algo not in BOUNDED:
        raise click.UsageError(f"--bound applies to {', '.join(BOUNDED)}, not to --algo {algo}")
    if bound and passes > 1:
        raise click.UsageError("--bound describes one pass; it cannot be combined with --passes")
    if save is not None:
        check_writable(save, "--save")
    names_wanted = check_names_wanted(keep_names, invert_hash, save, initial_model, namespaces)
    if invert_hash is not None:
        check_writable(invert_hash, "--invert_hash")
    if bound and use_cache:
        raise click.UsageError("--bound loads FILE into memory once; it cannot be combined with -c")
    if bound and scale is not None:
        raise click.UsageError("--bound states the bounds of the learner on FILE's features, not on scaled ones; "
                               "it cannot be combined with --scale")
    if model is None:
        def open_text():
            return DataSource(file, fmt, n_features, bits, chunk_size, IndexBase(zero_based), label_column, delimiter,
                              max_classes=max_classes(algo), multilabel=task.multilabel,
                              unlabelled=not task.reads_labels, namespaces=namespaces)
    else:
        if namespaces is not None:
            raise click.UsageError("-i reads FILE as the model's training data were read, its namespace options "
                                   "included: drop -q, --cubic, --interactions, --ignore, --keep, --ngram, --skips")

        def open_text():
            return resumed_source(model, initial_model, file, fmt, zero_based, n_features, bits, chunk_size,
                                  label_column, delimiter, max_classes(algo), task)
    if use_cache:
        from ._cached import CachedSource, reading_options

        source = CachedSource(file, reading_options(fmt, zero_based, n_features, bits, label_column, delimiter,
                                                    initial_model, namespaces), chunk_size, open_text)
        click.get_current_context().call_on_close(source.close)
    else:
        source = open_text()
    if binary:
        source = sign_labels(source)
    if names_wanted:
        check_names_source(source, file)
    if model is None:
        _check_fixed_dimension(algo, task, source)
        est = make_estimator(algo, hyperparameters, fit_intercept, source.model_n_features,
                             None if costs is None else costs.matrix)
        if costs is not None:
            # the cost matrix is over the sorted labels, all known before the first example (a resumed model
            # knows them)
            est.partial_fit(np.empty((0, source.model_n_features or 0)), [], classes=costs.labels)
        est = scaled(est, scale)
    else:
        est = model
    frozen_labels = None
    if test_only:  # a frozen model's score on labels it cannot have is refused or warned about, as predict's
        from ._model_labels import ModelLabels, checked

        frozen_labels = ModelLabels(est, initial_model, task)
        source = checked(source, frozen_labels)
    if passes > 1 and source.stream and not use_cache:
        raise click.UsageError(f"--passes {passes} reads FILE {passes} times, and {named(source.path)} is a "
                               "stream, read once: save it to a file first, or add -c to read the later passes from a cache")
    writer = None if predictions is None else PredictionWriter(predictions, raw, task, link == "logistic")
    held_outs = []
    to_stderr = writer is not None and writer.to_stdout
    table = ProgressiveTable(None if quiet else (echo_stderr if to_stderr else echo_stdout), task)

    if bound:
        X, y, weight = source.load()
        if weight is not None:
            raise click.UsageError(f"{named(file)} gives importance weights, and --bound states the bounds of "
                                   "unweighted rounds: run without --bound to learn with the weights")
        with source.locating(0):
            result = olearn.run(est, X, y, record=True)
        table.add(result, y, est)
        if writer is not None:
            writer.write(result, est)
    else:
        with Progress(enabled=not quiet) as progress, HeldInterrupts() as interrupts, \
                saved_if_interrupted(est, save if save_on_interrupt else None, source, table):
            for p in range(passes):
                label = f"pass {p + 1}/{passes}" if passes > 1 else ("testing" if test_only else "learning")
                held_out = HeldOut(holdout_every, task)
                for X, y, weight in source.chunks():
                    _learn_chunk(est, (rows(X, est, source), y, weight), held_out, table, source, interrupts, writer,
                                 test_only, costs)
                    progress.update(table.examples + held_out.examples + sum(h.examples for h in held_outs), label)
                if holdout_every is not None:
                    held_outs.append(held_out)
                    if not quiet:
                        table.write(held_out.line(p + 1))
    if writer is not None:
        writer.close()
    table.finish()
    if table.examples == 0:
        raise ValueError(f"{named(file)}: holds no examples")
    seconds = time.perf_counter() - start

    if not quiet:
        click.echo("", err=to_stderr)
    for line in summary_lines(table, passes, seconds):
        click.echo(line, err=to_stderr)
    if held_outs:
        for line in held_outs[-1].summary_lines(holdout_every):
            click.echo(line, err=to_stderr)
    if frozen_labels is not None:
        frozen_labels.warn(named(file))
    info = with_oaa(source.input_info(), oaa)
    if names_wanted:
        info = {**info, "hashed_names": kept_names(file, info)}
    if save is not None:
        save_model(est, save, info)
        click.echo(f"{'model':<14}{save}", err=to_stderr)
    if invert_hash is not None:
        write_invert_hash(invert_hash, est, info)
        click.echo(f"{'names':<14}{invert_hash}", err=to_stderr)
    if bound:
        from ..bounds import bound_report

        click.echo("", err=to_stderr)
        click.echo(str(bound_report(est, X, y, result)), err=to_stderr)


def _with_random_seed(algo, hyperparameters, random_seed, initial_model):
    """The hyperparameters of a fresh learner, its random numbers seeded by ``--random-seed`` (default 0) unless
    ``--set random_state`` seeds them (:func:`~olearn.cli._learners.seeded`). A ``--random-seed`` given where it
    would seed nothing is a usage error: the passes over rows read the file in order, and the random budget of
    ``-i MODEL`` carries on from the generator state saved with it (reseeding it would not continue the run)."""
    given = random_seed_given()
    if initial_model is not None:
        if given:
            raise click.UsageError(f"--random-seed does not apply to -i {initial_model}: a resumed model carries on "
                                   "from the generator state saved with it (a random budget continues as if the run "
                                   "had not stopped); drop --random-seed")
        return hyperparameters
    if given and not draws_random_numbers(algo, hyperparameters):
        raise click.UsageError("--random-seed seeds the shuffled passes of CoNLL sequences and the random budget "
                               "of a kernel learner (--set kernel=... --set budget=N --set budget_policy=random); "
                               f"--algo {algo} as set draws no random numbers (the passes over rows read the file "
                               "in order)")
    return seeded(algo, hyperparameters, random_seed)


def _costs_of(algo, costs_path, initial_model, model):
    """The :class:`~olearn.cli._costs.Costs` of ``--costs FILE`` or of the cost-sensitive model of ``-i`` (None for
    other learners); a usage error where ``--costs`` does not apply or is missing."""
    takers = algorithms_of("cost-sensitive")
    if initial_model is not None:
        if costs_path is not None:
            raise click.UsageError(f"--costs does not apply to -i {initial_model}: a resumed model keeps the costs "
                                   "it learned with; drop --costs")
        # a library's model with the 0/1 cost (cost=None) takes new labels, as PAMulticlass does
        if algo not in takers or model.get_params()["cost"] is None:
            return None
        from ._costs import Costs  # here, as below: only a cost-sensitive learner loads the cost matrices

        return Costs.of_model(model, initial_model)
    if algo in takers:
        if costs_path is None:
            raise click.UsageError(f"--algo {algo} learns with a cost matrix: give it with --costs FILE")
        from ._costs import read_costs

        return read_costs(costs_path)
    if costs_path is not None:
        raise click.UsageError(f"--costs does not apply to --algo {algo} (it applies to: {', '.join(takers)})")
    return None


def _check_fixed_dimension(algo, task, source):
    """A uniclass learner's vectors all have one dimension: LIBSVM files read in chunks must be told it."""
    if not task.reads_labels and source.format == "libsvm" and source.model_n_features is None:
        raise click.UsageError(f"--algo {algo} needs the dimension of its vectors up front, and a LIBSVM file read "
                               "in chunks does not tell it: give --n-features D (CSV and VW files fix it)")


def _run_distributed(algo, hyperparameters, fit_intercept, files, passes, fmt, zero_based, n_features, bits, chunk_size,
                     save, bound, quiet, workers, scheduler, tau, weighting, classes, start, holdout_every,
                     label_column, task, costs, model, initial_model, scale, predictions, raw, test_only, dashboard,
                     oaa):
    """``olearn run`` on Dask: parameter mixing (``--passes`` epochs), or delayed updates with ``--delay``.

    Binary, multiclass, cost-sensitive (``--costs``, ``--oaa``) and regression learners, as the library mixes them;
    ``-i MODEL`` continues a saved model (its shards read as its training data were).
    Parquet files (``.parquet``) are tables: ``--label-column NAME`` names the column of their labels.

    With ``--passes N > 1`` the rows K, 2K, ... of every shard (``--holdout-every K``, default 10) are held out, as
    in a serial run, and each epoch's held-out mistake rate is printed after the table.

    ``--scale`` (or a scaled ``-i MODEL``) learns the pipeline of its scaler and the learner: the scaler's
    statistics of every shard merged first, then frozen while the learner is mixed (docs/distributed.md,
    "Pipelines"). ``-p FILE`` writes the first epoch's progressive predictions, shard after shard
    (:mod:`._dask_predictions`); ``-t`` (with ``-i``) predicts every shard's rows with the model, frozen, on the
    workers.
    """
    from concurrent.futures import CancelledError  # here, as Dask: a serial run has no use for it

    from .. import distributed

    if workers is not None and scheduler is not None:
        raise click.UsageError("give --workers (a local cluster) or --scheduler (a running one), not both")
    if bound:
        raise click.UsageError("--bound describes one serial pass; it cannot be combined with --workers/--scheduler")
    delayed = tau is not None
    if delayed and passes > 1:
        raise click.UsageError("--delay makes one pass; it cannot be combined with --passes")
    if delayed and weighting != "uniform":
        raise click.UsageError("--mix applies to parameter mixing, not to --delay")
    from ._dask_run import (ON_DASK_TASKS, LossOnlyTask, byte_range_shards, check_dashboard, check_dask_predictions,
                            check_dask_scale, check_dask_test_only, dask_classes, dashboard_line, reading_ahead,
                            resumed_reading)

    check_dashboard(dashboard, workers)

    labels = dask_classes(task, classes, costs, model, initial_model)
    if save is not None:
        check_writable(save, "--save")
    if model is None:
        est = scaled(make_estimator(algo, hyperparameters, fit_intercept,
                                    _model_n_features(fmt, n_features, bits, files),
                                    None if costs is None or task.name != "cost-sensitive" else costs.matrix), scale)
    else:
        est = model
        bits, zero_based = resumed_reading(model, initial_model, algo, files, fmt, zero_based, n_features, bits,
                                           chunk_size, label_column, task)
    check_dask_scale(est, delayed, label_column)
    check_dask_predictions(predictions, delayed, label_column)
    check_dask_test_only(test_only, est, delayed, label_column)
    supported = distributed.DELAYED_LEARNERS if delayed else distributed.MIXING_LEARNERS
    if type(learner_of(est)).__name__ not in supported or task.name not in ON_DASK_TASKS:
        mode = "--delay (delayed updates)" if delayed else "parameter mixing"
        takers = ", ".join(name for name in ALGORITHM_NAMES
                           if ALGORITHMS[name][0] in supported and task_of(name) in ON_DASK_TASKS)
        raise click.UsageError(f"{mode} supports --algo {takers}; not {algo}")
    from ..distributed._models import check_supported

    try:
        check_supported(learner_of(est), "delayed updates" if delayed else "parameter mixing")
    except ValueError as err:  # a kernel, averaging or a calibration: refused before any worker starts
        raise click.UsageError(str(err)) from None
    options = {"classes": labels, "chunk_size": chunk_size, "fmt": fmt, "n_features": n_features,
               "bits": DEFAULT_BITS if bits is None else bits,
               "label_column": None if label_column is None else _column(label_column)}
    base = _index_base(distributed, list(files), options, zero_based)
    options["zero_based"] = bool(base.zero_based)
    from ..distributed._cluster import passes_release_gil

    try:  # workers that are threads start at once, and learn at once where the kernels release the GIL
        with reading_ahead(est, files, options, workers, passes, delayed or test_only), \
                distributed.connect(workers=workers, scheduler=scheduler, quiet=True,
                                    processes=not passes_release_gil(est), dashboard=dashboard) as client:
            n_workers = len(client.scheduler_info()["workers"])
            line = None if quiet else dashboard_line(client, dashboard or scheduler is not None)
            if line is not None:
                echo_stderr(line)
            # delayed updates score at most tau + 1 shards at once
            options["n_shards"] = byte_range_shards(list(files), options, n_workers if tau is None else
                                                    min(n_workers, tau + 1), quiet)
            start_model = copy.deepcopy(est) if predictions is not None and not test_only else None
            if test_only:
                result = _tested_on_workers(client, est, initial_model, task, files, options, predictions, raw)
            elif delayed:
                result = distributed.delayed_updates(est, list(files), tau=tau, client=client, **options)
            else:
                result = distributed.parameter_mixing(est, list(files), epochs=passes, weighting=weighting,
                                                      client=client, holdout_every=holdout_every,
                                                      progress=None if quiet else _EpochProgress(passes), **options)
            if predictions is not None and not test_only:
                _write_first_epoch(client, PredictionWriter(predictions, raw, task), task, start_model, files,
                                   options, holdout_every, result.estimator)
    except DataFormatError as err:
        raise base.explain(err) from None
    except (CancelledError, RuntimeError) as err:
        if isinstance(err, distributed.DistributedError):
            raise
        # Dask's own failures (a task cancelled with its worker, an actor's worker lost): one line, exit 1
        raise distributed.DistributedError(f"the Dask run failed: {describe_error(err)}") from None
    seconds = time.perf_counter() - start
    held_outs = [] if holdout_every is None else [_held_out(holdout_every, task, *counts, sums) for counts, sums
                                                  in zip(result.held_out.sum(axis=1), result.held_out_sums.sum(axis=1))]
    if not quiet and not delayed:
        _echo_epochs(result, task.counts_mistakes)
        for epoch, held_out in enumerate(held_outs, start=1):
            click.echo(held_out.line(epoch))
        click.echo("")
    if result.n_rounds == 0:
        raise ValueError(f"{', '.join(files)}: hold no examples")
    table = ProgressiveTable(None, None if task.counts_mistakes else LossOnlyTask())
    table.add(result)
    mode = ("test only (-t): the model of -i, learning nothing" if test_only else
            f"delayed updates, staleness <= {tau} ({result.rows_per_step} rows per shard per step)" if delayed
            else f"parameter mixing ({weighting})")
    click.echo(f"{'mode':<14}{mode}")
    click.echo(f"{'shards':<14}{result.n_shards} on {n_workers} worker{'s' if n_workers != 1 else ''}")
    for line in summary_lines(table, passes, seconds):
        click.echo(line)
    if held_outs:
        for line in held_outs[-1].summary_lines(holdout_every):
            click.echo(line)
    if save is not None:
        save_model(result.estimator, save,
                   with_oaa(_shards_input_info(files, fmt, bits, base, options["label_column"]), oaa))
        click.echo(f"{'model':<14}{save}")


def _tested_on_workers(client, model, model_path, task, files, options, predictions, raw):
    """``-t -i MODEL`` on Dask: every shard's rows predicted by ``model`` on the workers, learning nothing (with
    ``-p``, the lines written shard after shard; labels it cannot predict warned about); a one-epoch result of the
    shards' totals."""
    from ..distributed import DistributedResult, make_shards
    from ._dask_predictions import tested_shards

    shards = make_shards(list(files), **{name: value for name, value in options.items() if name != "classes"})
    answers, labels = tested_shards(client, task, model, model_path, shards, raw=raw)
    labels.warn(", ".join(files))
    if predictions is not None:
        writer = PredictionWriter(predictions, raw, task)
        try:
            for lines, _ in answers:
                writer.write_lines(lines)
        finally:
            writer.close()
    totals = np.array([[totals for _, totals in answers]], dtype=np.float64)
    return DistributedResult(model, "testing", len(shards), totals, np.zeros(totals.shape[:2]))


def _write_first_epoch(client, writer, task, start_model, files, options, holdout_every, learned):
    """``-p`` on Dask: the first epoch's progressive predictions of the shards of ``files`` (as ``options`` make
    them) from ``start_model``, with the classes fixed as the run fixed them; the learner of a scaled model
    predicts the rows scaled by the scaler of the ``learned`` model, as its first epoch learned them."""
    from ..distributed import make_shards
    from ..distributed._models import start_with_classes
    from ..distributed._pipelines import ScaledShard
    from ._dask_predictions import write_first_epoch

    shards = make_shards(list(files), **{name: value for name, value in options.items() if name != "classes"})
    if learner_of(start_model) is not start_model:
        shards = [ScaledShard(shard, copy.deepcopy(learned._plan().scalers)) for shard in shards]
        start_model = learner_of(start_model)
    start_with_classes(start_model, options["classes"])
    try:
        write_first_epoch(client, writer, task, start_model, shards, holdout_every)
    finally:
        writer.close()


def _echo_epochs(result, counts_mistakes):
    """Each epoch's examples, mistakes (if the learner makes some), mistake rate and average loss."""
    mistakes_header = f" {'mistakes':>12} {'mistake rate':>13}" if counts_mistakes else ""
    click.echo(f"{'epoch':>6} {'examples':>12}{mistakes_header} {'average loss':>13}")
    for epoch, totals in enumerate(result.totals.sum(axis=1), start=1):
        mistakes, loss, _, rounds = totals
        counted = f" {int(mistakes):>12d} {mistakes / max(rounds, 1):>13.6f}" if counts_mistakes else ""
        click.echo(f"{epoch:>6d} {int(rounds):>12d}{counted} {loss / max(rounds, 1):>13.6f}")


def _column(text):
    """--label-column's column: a whole number as a number (the tables take it as a column's name, else as its
    position), other text as a name."""
    try:
        return int(text)
    except ValueError:
        return text


class _EpochProgress:
    """Prints, on stderr, a line per epoch of parameter mixing done: its shards and the examples per second so far."""

    def __init__(self, epochs):
        self.epochs = epochs
        self.examples = 0
        self.start = time.perf_counter()

    def __call__(self, epoch, totals):
        self.examples += int(totals[:, T_ROUNDS].sum())
        rate = self.examples / max(time.perf_counter() - self.start, 1e-9)
        echo_stderr(f"epoch {epoch}/{self.epochs} done: {len(totals)} shards, {self.examples:,} examples, "
                    f"{rate:,.0f} examples/s")


def _held_out(every, task, examples, mistakes, sums):
    """The :class:`HeldOut` counts of one epoch on Dask (summed over the shards; a regressor's sums of its errors),
    to print as a serial pass's."""
    held_out = HeldOut(every, task)
    held_out.examples, held_out.mistakes, held_out.sums = int(examples), int(mistakes), sums
    return held_out


def _index_base(distributed, files, options, zero_based):
    """The LIBSVM index base of every shard, decided once from the files (globs expanded) in order."""
    if options["label_column"] is not None:
        from ..distributed._shards import expanded_paths
        from ..distributed._tables import is_parquet

        other = [path for path in expanded_paths(files) if not is_parquet(path, options["fmt"])]
        if other:
            raise click.UsageError(f"--label-column applies to Parquet shards on Dask; {other[0]} is none (a CSV "
                                   "shard's label is its last column)")
    shards = distributed.make_shards(files, fmt=options["fmt"], n_features=options["n_features"],
                                     bits=options["bits"], zero_based=False, label_column=options["label_column"])
    libsvm = [part.path for shard in shards for part in shard.parts if part.resolved_format() == "libsvm"]
    base = IndexBase(zero_based)
    if base.from_option and not libsvm:
        raise click.UsageError("--zero-based/--one-based apply to LIBSVM files only; none of the files is one")
    if libsvm:
        base.settle(libsvm)
    return base


def _shards_input_info(files, fmt, bits, base, label_column):
    """The model metadata's ``input`` entry for shards: the first file's format, and how the shards were read."""
    from .. import distributed

    first = distributed.make_shards(list(files), fmt=fmt, label_column=label_column)[0].parts[0]
    if first.resolved_format() == "parquet":
        return {"format": "parquet", "label_column": label_column}
    source = DataSource(first.path, first.resolved_format(), None, bits, base=base, learning=False)
    return source.input_info()


def _model_n_features(fmt, n_features, bits, files):
    """The estimator's fixed dimension: --n-features, or 2^bits for VW shards."""
    if n_features is not None:
        return n_features
    from .. import data

    from ..distributed._tables import is_parquet

    first = files[0]
    vw = fmt == "vw" or (fmt == "auto" and os.path.isfile(first) and not is_parquet(first, fmt)
                         and data.detect_format(first) == "vw")
    return 2 ** (DEFAULT_BITS if bits is None else bits) if vw else None
