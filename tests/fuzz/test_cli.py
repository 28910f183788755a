"""Fuzzing the command line: random small files (LIBSVM, VW, CSV; valid and malformed) and options.

Invariants, on every input:

* ``olearn run`` / ``compare`` / ``predict`` end with exit code 0, or 1 (bad input) or 2 (usage)
  with one line on stderr, ``olearn: error: ...`` for 1; never an uncaught exception, never a
  traceback;
* a LIBSVM train/predict round trip (``run --save`` then ``predict`` on the same file, read with
  the base stored in the model) predicts what the library predicts when called directly: the file
  read by ``load_libsvm`` with the base ``detect_zero_based`` gives, learned by ``partial_fit``.

The commands run in process through click's ``CliRunner`` (each campaign in a child interpreter,
see ``_campaign.py``).
"""

import gzip
import os
import tempfile

ALGOS = ("perceptron", "pa", "pa1", "pa2", "ogd", "svm", "arow", "pa-multiclass")
_LABELS = ("1", "-1", "+1", "1.0", "-1e0")
_BAD_LABELS = ("0", "2", "nan", "x", "", "1,2", "inf", "1e999", "--1")
_INDICES = ("0", "1", "2", "3", "4", "7", "12")
_BAD_INDICES = ("-1", "2147483647", "99999999999", "a", "", "1.5", "qid", "0x1", "+2")
_VALUES = ("1", "0.5", "-2", "0", "1e-3", "3.25", "-0.125", "1e10")
_BAD_VALUES = ("inf", "nan", "", "x", "1e999", "1e308", "1e-320", "--1", "0x10", "1_0")
_NAMES = ("a", "b", "c", "price", "x1", "_", "3")
_SETTINGS = ("kernel=rbf", "kernel=poly", "budget=3", "budget=0", "gamma=0.5", "gamma=-1", "degree=2", "r=0.01",
             "r=-1", "covariance=full", "loss=logistic", "loss=squared", "schedule=inverse", "eta=0.5", "radius=1",
             "conservative=true", "C=0", "budget_policy=removal", "variant=pa9")
_JUNK = ("\x00", "\xff", "é", "\t", "\r", "::", "|", "#", "  ", ",", "\ufeff")


def _strategies():
    from hypothesis import strategies as st

    @st.composite
    def libsvm_line(draw, valid):
        labels, indices, values = (
            (_LABELS, _INDICES, _VALUES) if valid
            else (_LABELS + _BAD_LABELS, _INDICES + _BAD_INDICES, _VALUES + _BAD_VALUES)
        )
        chosen = draw(st.lists(st.sampled_from(indices), max_size=4, unique=valid))
        if valid:
            chosen = sorted(chosen, key=int)
        features = [f"{i}{':' if valid or draw(st.integers(0, 5)) else ''}{draw(st.sampled_from(values))}" for i in chosen]
        return " ".join([draw(st.sampled_from(labels)), *features])

    @st.composite
    def vw_line(draw, valid):
        label = draw(st.sampled_from(_LABELS if valid else _LABELS + _BAD_LABELS))
        weight = draw(st.sampled_from(["", " 2", " 0.5"] if valid else ["", " 2", " -1", " x", " nan"]))
        names = draw(st.lists(st.sampled_from(_NAMES), max_size=4))
        values = _VALUES if valid else _VALUES + _BAD_VALUES
        features = [name if draw(st.booleans()) else f"{name}:{draw(st.sampled_from(values))}" for name in names]
        bar = "|" if valid or draw(st.integers(0, 4)) else ""
        return f"{label}{weight} {bar} {' '.join(features)}"

    @st.composite
    def csv_line(draw, valid, width):
        values = _VALUES if valid else _VALUES + _BAD_VALUES
        cells = [draw(st.sampled_from(values)) for _ in range(width if valid else draw(st.integers(0, width + 1)))]
        return ",".join([*cells, draw(st.sampled_from(_LABELS if valid else _LABELS + _BAD_LABELS))])

    @st.composite
    def data_file(draw):
        fmt = draw(st.sampled_from(["libsvm", "libsvm", "vw", "csv"]))
        valid = draw(st.integers(0, 2)) > 0  # two thirds of the files are valid
        n = draw(st.integers(0 if not valid else 1, 12))
        if fmt == "libsvm":
            lines = [draw(libsvm_line(valid)) for _ in range(n)]
        elif fmt == "vw":
            lines = [draw(vw_line(valid)) for _ in range(n)]
        else:
            width = draw(st.integers(1, 4))
            lines = [draw(csv_line(valid, width)) for _ in range(n)]
        if not valid and lines and draw(st.booleans()):
            row = draw(st.integers(0, len(lines) - 1))
            at = draw(st.integers(0, len(lines[row])))
            lines[row] = lines[row][:at] + draw(st.sampled_from(_JUNK)) + lines[row][at:]
        text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))
        suffix = {"libsvm": ".svm", "vw": ".vw", "csv": ".csv"}[fmt]
        if draw(st.integers(0, 5)) == 0:
            suffix = ".txt"  # the format is then detected from the content
        packing = draw(st.sampled_from(["plain"] * 6 + ["gzip", "truncated-gzip"]))
        return fmt, suffix, text, packing

    @st.composite
    def options(draw, fmt):
        args = ["--algo", draw(st.sampled_from(ALGOS))]
        if draw(st.booleans()):
            args += ["--chunk-size", str(draw(st.integers(1, 5)))]
        if draw(st.integers(0, 3)) == 0:
            args += ["--passes", "2", "--holdout-off"]  # the reference learns every row in both passes
        if args[1] in ("pa1", "pa2", "pa-multiclass") and draw(st.integers(0, 2)) == 0:
            args += ["-C", draw(st.sampled_from(["0.1", "1", "inf"]))]
        if draw(st.integers(0, 3)) == 0:
            args += ["--fit-intercept"]
        if draw(st.integers(0, 3)) == 0:
            args += ["--format", draw(st.sampled_from(["auto", "libsvm", "vw", "csv"]))]
        if draw(st.integers(0, 2 if fmt == "libsvm" else 12)) == 0:
            args += [draw(st.sampled_from(["--zero-based", "--one-based"]))]
        for setting in draw(st.lists(st.sampled_from(_SETTINGS), max_size=2, unique_by=lambda t: t.split("=")[0])):
            args += ["--set", setting]
        if fmt != "vw" and draw(st.integers(0, 3)) == 0:
            args += ["--n-features", str(draw(st.integers(1, 14)))]
        if fmt == "vw" and draw(st.integers(0, 2)) == 0:
            args += ["--bits", str(draw(st.integers(1, 8)))]
        return args

    return data_file(), options


def _write(folder, suffix, text, packing):
    raw = text.encode("utf-8", "surrogatepass")
    if packing == "plain":
        path = os.path.join(folder, "data" + suffix)
        with open(path, "wb") as f:
            f.write(raw)
        return path
    path = os.path.join(folder, "data" + suffix + ".gz")
    packed = gzip.compress(raw)
    with open(path, "wb") as f:
        f.write(packed if packing == "gzip" else packed[: max(1, len(packed) // 2)])
    return path


def _check_outcome(result, args):
    """Exit 0, or exit 1/2 with a one-line message; never an exception escaping click."""
    where = f"olearn {' '.join(args)}\n--- output ---\n{result.output}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(result.exception))
        raise AssertionError(f"uncaught {type(result.exception).__name__}: {where}\n{trace}")
    assert "Traceback" not in result.output, where
    assert result.exit_code in (0, 1, 2), where
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("olearn: error: "), where
    elif result.exit_code == 2:
        assert result.stderr.strip().splitlines()[-1].startswith("Error: "), where


def _library_predictions(path, args, model_path):
    """What the library predicts for ``path`` after learning it as ``olearn run`` did, called directly."""
    import numpy as np

    import olearn
    from olearn._persistence import read_input_info
    from olearn.cli._learners import ALGORITHMS
    from olearn.data import load_libsvm
    from olearn.data._libsvm import detect_zero_based

    zero_based = "--zero-based" in args or ("--one-based" not in args and bool(detect_zero_based(path)))
    assert read_input_info(model_path).get("zero_based", zero_based) == zero_based, args
    n_features = int(args[args.index("--n-features") + 1]) if "--n-features" in args else None
    X, y = load_libsvm(path, zero_based=zero_based, n_features=n_features)
    algo = args[args.index("--algo") + 1]
    class_name, kwargs = ALGORITHMS[algo]
    kwargs = dict(kwargs)
    if "-C" in args:
        kwargs["C"] = float(args[args.index("-C") + 1])
    if "--fit-intercept" in args:
        kwargs["fit_intercept"] = True
    for i, arg in enumerate(args):
        if arg == "--set":
            name, text = args[i + 1].split("=")
            kwargs[name] = {"true": True}.get(text, text)
            for kind in (int, float):
                try:
                    kwargs[name] = kind(text)
                    break
                except ValueError:
                    pass
    if n_features is not None:
        kwargs["n_features"] = n_features
    est = getattr(olearn, class_name)(**kwargs)
    for _ in range(2 if "--passes" in args else 1):
        est.partial_fit(X, y)
    return np.asarray(est.predict(X), dtype=np.float64)


def campaign_cli(n_examples, seed):
    """Random files and options through run, compare and a run/predict round trip."""
    from click.testing import CliRunner
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    from olearn.cli import cli

    files, options = _strategies()
    tried = [0]
    round_trips = [0]
    exits = {}

    @hypothesis_seed(seed)
    @settings(max_examples=n_examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(data=st.data())
    def check(data):
        tried[0] += 1
        fmt, suffix, text, packing = data.draw(files)
        args = data.draw(options(fmt))
        command = data.draw(st.sampled_from(["run", "compare", "round-trip", "round-trip"]))
        runner = CliRunner()
        with tempfile.TemporaryDirectory() as folder:
            path = _write(folder, suffix, text, packing)
            if command == "compare":
                algos = args[args.index("--algo") + 1]
                rest = [a for i, a in enumerate(args) if a != "--algo" and (i == 0 or args[i - 1] != "--algo")]
                rest = [a for i, a in enumerate(rest) if a not in ("--passes", "--holdout-off")
                        and (i == 0 or rest[i - 1] != "--passes")]
                full = ["compare", "--algos", f"{algos},perceptron", *rest, path]
                _check_outcome(runner.invoke(cli, full), full)
                return
            model = os.path.join(folder, "model.npz")
            full = ["run", "--quiet", *args, path] + (["--save", model] if command == "round-trip" else [])
            result = runner.invoke(cli, full)
            _check_outcome(result, full)
            exits[result.exit_code] = exits.get(result.exit_code, 0) + 1
            if command != "round-trip" or result.exit_code != 0:
                return
            # the model records how its file was read: a format the run was told is told to predict too (a
            # .csv file read as LIBSVM is refused as CSV otherwise, with a message naming --format)
            told = ["--format", args[args.index("--format") + 1]] if "--format" in args else []
            predict = ["predict", "--model", model, *told, path]
            predicted = runner.invoke(cli, predict)
            _check_outcome(predicted, predict)
            # another random file, read with the model's base or with a base option
            other_fmt, other_suffix, other_text, other_packing = data.draw(files)
            other = _write(folder, "-other" + other_suffix, other_text, other_packing)
            base = data.draw(st.sampled_from([[], [], ["--zero-based"], ["--one-based"]]))
            elsewhere = ["predict", "--model", model, *base, "--chunk-size", "2", other]
            _check_outcome(runner.invoke(cli, elsewhere), elsewhere)
            from olearn.data import detect_format

            given = args[args.index("--format") + 1] if "--format" in args else "auto"
            if (detect_format(path) if given == "auto" else given) != "libsvm":
                return
            assert predicted.exit_code == 0, predicted.output
            import numpy as np

            got = np.array([float(v) for v in predicted.stdout.split()])
            want = _library_predictions(path, args, model)
            assert np.array_equal(got, want), f"{full}\n{text!r}\ncli {got}\nlibrary {want}"
            round_trips[0] += 1

    check()
    print(f"exit codes of run: {exits}; round trips compared with the library: {round_trips[0]}")
    return tried[0]


def test_cli_never_crashes_and_round_trips_match_the_library(campaign):
    assert campaign("fuzz.test_cli:campaign_cli", 60, seed=1) >= 60
