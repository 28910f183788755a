"""``olearn run``: the progressive table and the summary agree with olearn.run on the data in memory."""

import gzip
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.cli import cli
from olearn.data import load_vw, save_cache

ALGOS = {
    # CLI arguments -> the estimator they must build
    ("--algo", "pa1", "-C", "0.5"): lambda: olearn.PAClassifier(variant="pa1", C=0.5),
    ("--algo", "pa"): lambda: olearn.PAClassifier(variant="pa"),
    ("--algo", "pa2", "-C", "0.01"): lambda: olearn.PAClassifier(variant="pa2", C=0.01),
    ("--algo", "perceptron", "--eta", "0.5"): lambda: olearn.Perceptron(eta=0.5),
    ("--algo", "ogd", "--loss", "logistic", "--eta", "0.3", "--schedule", "inverse"): (
        lambda: olearn.OGDClassifier(loss="logistic", eta=0.3, schedule="inverse")
    ),
    ("--algo", "ogd", "--radius", "0.7", "--fit-intercept"): lambda: olearn.OGDClassifier(radius=0.7, fit_intercept=True),
    ("--algo", "svm", "--radius", "2", "--schedule", "constant", "--eta", "0.1"): (
        lambda: olearn.OnlineSVM(radius=2.0, schedule="constant", eta=0.1)
    ),
    ("--algo", "ogd", "--set", "conservative=true", "--set", "eta=0.25", "--set", "loss=squared"): (
        lambda: olearn.OGDClassifier(conservative=True, eta=0.25, loss="squared")
    ),
    ("--algo", "arow", "--set", "r=0.5"): lambda: olearn.AROW(r=0.5, covariance="diag"),
    ("--algo", "narow-full", "--set", "b=2"): lambda: olearn.NAROW(b=2.0, covariance="full"),
    ("--algo", "cw", "--eta", "0.8"): lambda: olearn.CW(eta=0.8, covariance="diag"),
    ("--algo", "adagrad", "--eta", "0.5", "--set", "delta=0.1"): lambda: olearn.AdaGrad(eta=0.5, delta=0.1),
    ("--algo", "sop", "--set", "a=0.3"): lambda: olearn.SecondOrderPerceptron(a=0.3),
    ("--algo", "winnow", "-C", "0.5"): lambda: olearn.Winnow(C=0.5),
    ("--algo", "pnorm", "--set", "p=3", "--set", "aggressive=true"): lambda: olearn.PNorm(p=3, aggressive=True),
    ("--algo", "dual", "--set", "update=last-k", "--set", "k=2"): lambda: olearn.DualAscent(update="last-k", k=2),
}


@pytest.fixture
def stream(tmp_path, make_stream):
    """A sparse-ish stream written as a 1-based LIBSVM file: (path, X, y)."""
    X, y = make_stream(300, 12, density=0.5, seed=3, noise=0.1)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), X, y


def parse_table(output):
    """The progressive table's rows as tuples (examples, mistakes, rate, loss, since last)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["examples", "mistakes"])
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        n, m, rate, loss, since = line.split()
        rows.append((int(n), int(m), float(rate), float(loss), float(since)))
    return rows


def parse_summary(output):
    found = {}
    for line in output.splitlines():
        match = re.match(r"^(examples|passes|mistakes|mistake rate|average loss|updates)\s{2,}(\S+)", line)
        if match:
            found[match.group(1)] = float(match.group(2).replace(",", ""))
    return found


def expected_rows(cumulative_mistakes, losses):
    """The rows a correct table shows, computed from per-round arrays."""
    n_total = cumulative_mistakes.size
    points = [2**k for k in range(n_total.bit_length()) if 2**k <= n_total]
    if points[-1] != n_total:
        points.append(n_total)
    cum_loss = np.cumsum(losses)
    rows, last_n, last_m = [], 0, 0
    for n in points:
        m = int(cumulative_mistakes[n - 1])
        rows.append((n, m, m / n, cum_loss[n - 1] / n, (m - last_m) / (n - last_n)))
        last_n, last_m = n, m
    return rows


def assert_rows_equal(got, want):
    assert [r[:2] for r in got] == [r[:2] for r in want]
    np.testing.assert_allclose([r[2:] for r in got], [r[2:] for r in want], atol=6e-7)


@pytest.mark.parametrize("args", list(ALGOS), ids=lambda a: " ".join(a[1:]))
def test_table_matches_in_memory_run(stream, args):
    path, X, y = stream
    # chunks of 7 rows: printed rows fall inside chunks, and the width of X varies from chunk to chunk
    result = CliRunner().invoke(cli, ["run", *args, "--chunk-size", "7", path])
    assert result.exit_code == 0, result.output
    want = olearn.run(ALGOS[args](), X, y)
    assert_rows_equal(parse_table(result.stdout), expected_rows(want.cumulative_mistakes, want.losses))
    summary = parse_summary(result.stdout)
    assert summary["examples"] == 300
    assert summary["passes"] == 1
    assert summary["mistakes"] == want.n_mistakes
    assert summary["updates"] == want.n_updates
    assert summary["average loss"] == pytest.approx(want.average_loss, abs=1e-6)
    assert "throughput" in result.stdout and "wall time" in result.stdout


def test_chunk_size_does_not_change_the_numbers(stream):
    path, _, _ = stream
    outputs = []
    for chunk_size in ("1", "64", "100000"):
        result = CliRunner().invoke(cli, ["run", "--algo", "pa2", "--chunk-size", chunk_size, path])
        assert result.exit_code == 0, result.output
        outputs.append((parse_table(result.stdout), parse_summary(result.stdout)))
    assert outputs[0] == outputs[1] == outputs[2]


def test_two_passes_count_every_example_and_continue_learning(stream):
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "perceptron", "--passes", "2", "--holdout-off", "--chunk-size",
                                      "50", path])
    assert result.exit_code == 0, result.output
    est = olearn.Perceptron()
    first, second = olearn.run(est, X, y), olearn.run(est, X, y)
    mistakes = np.concatenate([first.cumulative_mistakes, first.n_mistakes + second.cumulative_mistakes])
    losses = np.concatenate([first.losses, second.losses])
    rows = parse_table(result.stdout)
    assert [r[0] for r in rows] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600]
    assert_rows_equal(rows, expected_rows(mistakes, losses))
    summary = parse_summary(result.stdout)
    assert summary["passes"] == 2
    assert summary["examples"] == 600
    assert summary["mistakes"] == first.n_mistakes + second.n_mistakes


def test_quiet_prints_only_the_summary(stream):
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--quiet", path])
    assert result.exit_code == 0, result.output
    assert "since last" not in result.stdout
    assert parse_summary(result.stdout)["mistakes"] == olearn.run(olearn.PAClassifier(variant="pa"), X, y).n_mistakes


def test_fixed_n_features(stream):
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--n-features", "40", "--save", path + ".npz", path])
    assert result.exit_code == 0, result.output
    model = olearn.load(path + ".npz")
    assert model.n_features == 40
    np.testing.assert_allclose(model.coef_[0, :12], olearn.PAClassifier().partial_fit(X, y).coef_[0])


def test_a_learners_own_gamma_is_not_taken_for_a_kernels(stream):
    # DualAscent's gamma is its margin (Shalev-Shwartz & Singer), not a kernel's scale: it needs no --set kernel
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "dual", "--set", "gamma=0.5", "--save", path + ".npz", path])
    assert result.exit_code == 0, result.output
    model = olearn.load(path + ".npz")
    assert model.gamma == 0.5
    np.testing.assert_allclose(model.coef_, olearn.DualAscent(gamma=0.5).partial_fit(X, y).coef_, rtol=1e-12)
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--set", "gamma=0.5", path])
    assert result.exit_code == 2 and "--set gamma is ignored by --algo pa1 unless --set kernel" in result.output


def test_n_features_too_small_names_the_line(stream):
    path, _, _ = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--n-features", "3", path])
    assert result.exit_code == 1
    assert re.match(r"olearn: error: .*train\.svm:\d+:\d+: ", result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1


def test_bound_prints_the_theorems(stream):
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "-C", "0.1", "--bound", path])
    assert result.exit_code == 0, result.output
    assert "Thm. 4" in result.stdout
    assert parse_summary(result.stdout)["mistakes"] == olearn.run(olearn.PAClassifier(C=0.1), X, y).n_mistakes


BOUND_ROWS = {
    "pa-multiclass": ("Cor. 8 (multiclass PA, separable)", "sum of squared losses"),
    "pa1-multiclass": ("Sec. 7 with Thm. 4 (multiclass PA-I)", "mistakes"),
    "pa2-multiclass": ("Sec. 7 with Thm. 5 (multiclass PA-II)", "sum of squared losses"),
}


@pytest.mark.parametrize("algo", list(BOUND_ROWS))
def test_bound_prints_the_multiclass_theorems(tmp_path, algo):
    rng = np.random.default_rng(3)
    prototypes = rng.standard_normal((3, 4))
    X = rng.standard_normal((400, 4))
    top = np.sort(X @ prototypes.T, axis=1)
    X = X[top[:, -1] - top[:, -2] >= 0.5][:120]  # separable with a margin, as Cor. 8 assumes
    y = np.argmax(X @ prototypes.T, axis=1) + 1.0
    path = tmp_path / "three.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    C = [] if algo == "pa-multiclass" else ["-C", "0.5"]
    result = CliRunner().invoke(cli, ["run", "--algo", algo, *C, "--bound", str(path)])
    assert result.exit_code == 0, result.output
    theorem, quantity = BOUND_ROWS[algo]
    (line,) = [line for line in result.stdout.splitlines() if theorem in line]
    cells = [cell.strip() for cell in line.split(" | ")]
    assert cells[1] == quantity and cells[-1] == "yes"
    variant = algo.removesuffix("-multiclass")
    want = olearn.run(olearn.PAMulticlass(variant=variant, C=0.5), X, y)
    measured = want.n_mistakes if quantity == "mistakes" else np.sum(want.losses**2)
    assert float(cells[2]) == pytest.approx(measured, rel=1e-5)
    assert float(cells[2]) <= float(cells[3])


@pytest.mark.parametrize(("algo", "est", "theorem"), [
    ("sop", olearn.SecondOrderPerceptron(), "Cesa-Bianchi, Conconi & Gentile 2005, Thm. 1"),
    ("arow-full", olearn.AROW(covariance="full"), "Crammer, Kulesza & Dredze 2009, Thm. 2"),
    ("narow-full", olearn.NAROW(covariance="full"), "NAROW bound in Orabona & Crammer 2010's framework"),
    ("narow", olearn.NAROW(covariance="diag"), "Orabona & Crammer 2010, Cor. 2 with a diagonal D_t"),
    ("fig1-arow", olearn.Fig1AROW(covariance="diag"), "Orabona & Crammer 2010, Sec. 4.3 (Fig1AROW, diag)"),
    ("fig1-arow-full", olearn.Fig1AROW(covariance="full"), "Orabona & Crammer 2010, Sec. 4.2 (Fig1AROW, full)"),
    ("pnorm", olearn.PNorm(), "Shalev-Shwartz & Singer 2006, Example 3"),
])
def test_bound_prints_the_second_order_and_pnorm_theorems(tmp_path, algo, est, theorem):
    rng = np.random.default_rng(4)
    w = rng.standard_normal(3)
    X = rng.standard_normal((1000, 3))
    X = X[np.abs(X @ w) > 0.5 * np.linalg.norm(w)][:150]  # separable, so the default competitor exists
    y = np.where(X @ w > 0, 1.0, -1.0)
    path = tmp_path / "sep.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    result = CliRunner().invoke(cli, ["run", "--algo", algo, "--bound", str(path)])
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith(theorem)]
    cells = [cell.strip() for cell in line.split(" | ")]
    assert cells[-1] == "yes"
    res = olearn.run(est, X, y)
    if algo in ("narow", "fig1-arow", "fig1-arow-full"):  # bounds on the update rounds, mistakes and margin errors
        assert cells[1] == "updates" and int(cells[2]) == np.sum(res.taus != 0) <= float(cells[3])
    else:
        assert cells[1] == "mistakes" and int(cells[2]) == res.n_mistakes <= float(cells[3])


def test_bound_for_an_algorithm_without_a_theorem_names_those_with_one(stream):
    path, _, _ = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "mira", "--bound", path])
    assert result.exit_code == 2
    assert ("--bound applies to perceptron, pa, pa1, pa2, pa-multiclass, pa1-multiclass, pa2-multiclass, sop, "
            "arow-full, narow, narow-full, fig1-arow, fig1-arow-full, ogd, pnorm, pa-regression, pa1-regression, pa2-regression, pa-uniclass, "
            "pa1-uniclass, pa2-uniclass, pa-cost-sensitive, pa1-cost-sensitive, pa2-cost-sensitive, pa-multilabel, "
            "pa1-multilabel, pa2-multilabel, pa-sequence, pa1-sequence, pa2-sequence, winnow, dual, "
            "not to --algo mira") in result.stderr


def test_bound_prints_the_ogd_regret_bound(stream):
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "ogd", "--schedule", "constant", "--eta", "0.05", "--bound",
                                      path])
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("UCL COMP0078 slides")]
    cells = [cell.strip() for cell in line.split(" | ")]
    assert cells[1] == "sum of hinge losses" and cells[-1] == "yes"
    want = olearn.run(olearn.OGDClassifier(loss="hinge", schedule="constant", eta=0.05), X, y).losses.sum()
    assert float(cells[2]) == pytest.approx(want, rel=1e-5) and float(cells[2]) <= float(cells[3])
    # the default sqrt schedule is outside the theorem: said, not an error
    result = CliRunner().invoke(cli, ["run", "--algo", "ogd", "--bound", path])
    assert result.exit_code == 0, result.output
    assert "not applicable: UCL COMP0078 slides" in result.stdout and "schedule='sqrt'" in result.stdout


def test_vw_file_with_default_bits(tmp_path):
    path = tmp_path / "toy.vw"
    path.write_text("1 |f a:1 b:2\n-1 |f c:1 b:-1\n1 |f a:2\n-1 |f c:2 d\n" * 10)
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--format", "vw", "--save", str(tmp_path / "m.npz"), str(path)])
    assert result.exit_code == 0, result.output
    X, y, _ = load_vw(path)
    want = olearn.run(olearn.PAClassifier(variant="pa"), X, y)
    assert parse_summary(result.stdout)["mistakes"] == want.n_mistakes
    assert olearn.load(tmp_path / "m.npz").n_features == 2**18


@pytest.mark.parametrize("fmt", ["csv", "cache", "libsvm.gz"])
def test_other_formats_are_detected_and_agree(tmp_path, make_stream, fmt):
    X, y = make_stream(120, 5, seed=8)
    if fmt == "csv":
        path = tmp_path / "data.csv"
        np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    elif fmt == "cache":
        path = tmp_path / "data.olc"
        save_cache(path, sp.csr_matrix(X), y)
    else:
        path = tmp_path / "data.svm.gz"
        with gzip.open(path, "wb") as f:
            dump_svmlight_file(X, y, f, zero_based=False)
    result = CliRunner().invoke(cli, ["run", "--algo", "pa2", "--chunk-size", "50", "--passes", "2", "--holdout-off",
                                      str(path)])
    assert result.exit_code == 0, result.output
    est = olearn.PAClassifier(variant="pa2")
    first, second = olearn.run(est, X, y), olearn.run(est, X, y)
    assert parse_summary(result.stdout)["mistakes"] == first.n_mistakes + second.n_mistakes
    assert [r[:2] for r in parse_table(result.stdout)][-1] == (240, first.n_mistakes + second.n_mistakes)


def test_predict_vw_uses_the_models_bits(tmp_path):
    path = tmp_path / "toy.vw"
    path.write_text("1 |f a:1 b:2\n-1 |f c:1 b:-1\n1 |f a:2\n-1 |f c:2 d\n" * 5)
    model = str(tmp_path / "m.npz")
    runner = CliRunner()
    assert runner.invoke(cli, ["run", "--algo", "pa", "--bits", "12", "--quiet", "--save", model, str(path)]).exit_code == 0
    result = runner.invoke(cli, ["predict", "--model", model, str(path)])
    assert result.exit_code == 0, result.output
    X, y, _ = load_vw(path, n_bits=12)
    assert result.stdout.split() == [str(int(v)) for v in olearn.PAClassifier(variant="pa").partial_fit(X, y).predict(X)]


def test_progress_display_leaves_stdout_intact(stream, monkeypatch):
    from olearn.cli import _report

    monkeypatch.setattr(_report, "progress_wanted", lambda: True)
    path, X, y = stream
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--chunk-size", "10", "--passes", "2", "--holdout-off",
                                      path])
    assert result.exit_code == 0, result.output
    est = olearn.PAClassifier(variant="pa")
    first, second = olearn.run(est, X, y), olearn.run(est, X, y)
    assert parse_table(result.stdout)[-1][:2] == (600, first.n_mistakes + second.n_mistakes)


MULTICLASS_ALGOS = {
    ("--algo", "pa1-multiclass", "-C", "0.5"): lambda: olearn.PAMulticlass(variant="pa1", C=0.5),
    ("--algo", "pa-multiclass"): lambda: olearn.PAMulticlass(variant="pa"),
    ("--algo", "perceptron-multiclass", "--set", "update=uniform"): (
        lambda: olearn.MulticlassPerceptron(update="uniform")
    ),
    ("--algo", "mira", "--set", "beta=0.01"): lambda: olearn.MIRA(beta=0.01),
}


@pytest.mark.parametrize("args", list(MULTICLASS_ALGOS), ids=lambda a: " ".join(a[1:]))
def test_multiclass_file_matches_in_memory_run(tmp_path, args):
    rng = np.random.default_rng(5)
    centers = rng.standard_normal((4, 6))
    y = rng.integers(0, 4, 200)
    X = centers[y] + 0.7 * rng.standard_normal((200, 6))
    path = tmp_path / "four.svm"
    dump_svmlight_file(X, y + 1, str(path), zero_based=False)  # labels 1..4 in the file
    result = CliRunner().invoke(cli, ["run", *args, "--chunk-size", "32", str(path)])
    assert result.exit_code == 0, result.output
    want = olearn.run(MULTICLASS_ALGOS[args](), X, (y + 1).astype(float))
    summary = parse_summary(result.stdout)
    assert summary["mistakes"] == want.n_mistakes and summary["updates"] == want.n_updates
    assert 0 < want.n_mistakes < 150  # learning happened: 4 classes, chance is 150


# olearn ARGS with the file's blocks parsed on as many threads as a machine of three cores has, unless
# OLEARN_PARSE_THREADS says otherwise
_ON_THREE_CORES = """
import sys
from olearn.cli import main
from olearn.data import _parallel

_parallel.usable_cores = lambda: 3
sys.exit(main(sys.argv[1:]))
"""


def _run_on_three_cores(*args, threads=None):
    env = {key: value for key, value in os.environ.items() if key != "OLEARN_PARSE_THREADS"}
    if threads is not None:
        env["OLEARN_PARSE_THREADS"] = threads
    return subprocess.run([sys.executable, "-c", _ON_THREE_CORES, *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600)


def _same_on_one_two_and_three_threads(tmp_path, path, *options):
    """``olearn run --algo pa1 -C 0.5 -p`` on ``path`` with 1, 3 (the cores) and 2 parse threads: the exit code,
    the summary without its timings, stderr and the predictions, checked to be the same each time."""
    outputs = []
    for threads in ("1", None, "2"):
        predictions = tmp_path / f"predictions_{threads}.txt"
        proc = _run_on_three_cores("run", "--algo", "pa1", "-C", "0.5", *options, "-p", predictions, "--raw", path,
                                   threads=threads)
        untimed = [line for line in proc.stdout.splitlines() if not line.startswith(("wall time", "throughput"))]
        outputs.append((proc.returncode, untimed, proc.stderr, predictions.read_bytes()))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    return outputs[0]


@pytest.mark.parametrize("bad_line", [None, 101_234])
def test_blocks_parsed_on_threads_give_the_predictions_and_errors_of_one_thread(tmp_path, bad_line):
    rng = np.random.default_rng(8)
    n = 120_000  # about 10 MB: three blocks of 4 MiB
    X = sp.random(n, 40, density=0.15, format="csr", random_state=rng) * 10
    y = np.where(X @ rng.normal(size=40) > 0, 1, -1)
    path = tmp_path / "three_blocks.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    if bad_line is not None:
        lines = path.read_bytes().split(b"\n")
        lines[bad_line - 1] = b"1 3:0.5 2:x"
        path.write_bytes(b"\n".join(lines))
    assert path.stat().st_size > 2 * (4 << 20)
    code, stdout, stderr, predictions = _same_on_one_two_and_three_threads(tmp_path, path)
    if bad_line is None:
        assert code == 0 and len(predictions.split()) == n and any(line.startswith("mistakes") for line in stdout)
    else:
        assert code != 0 and f"three_blocks.svm:{bad_line}:11: expected a numeric feature value" in stderr
        assert len(predictions.split()) < bad_line


@pytest.mark.parametrize("bad_line", [None, 90_001])
def test_vw_blocks_parsed_on_threads_give_the_predictions_and_errors_of_one_thread(tmp_path, bad_line):
    rng = np.random.default_rng(9)
    n = 110_000  # about 10 MB: three blocks of 4 MiB
    names = rng.integers(0, 5000, size=(n, 8))
    values = rng.random((n, 8))
    lines = [f"{1 if row[0] % 2 else -1} |f " + " ".join(f"w{j}:{v:.6f}" for j, v in zip(row, vals))
             for row, vals in zip(names, values)]
    if bad_line is not None:
        lines[bad_line - 1] = "1 |f a:zz"
    path = tmp_path / "three_blocks.vw"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size > 2 * (4 << 20)
    code, stdout, stderr, predictions = _same_on_one_two_and_three_threads(tmp_path, path, "--bits", "16")
    if bad_line is None:
        assert code == 0 and len(predictions.split()) == n and any(line.startswith("mistakes") for line in stdout)
    else:
        assert code != 0 and f"three_blocks.vw:{bad_line}:" in stderr
        assert len(predictions.split()) < bad_line


def test_a_bad_thread_count_is_an_error(tmp_path):
    path = tmp_path / "one.svm"
    path.write_text("1 1:1\n")
    proc = _run_on_three_cores("run", "--algo", "pa1", path, threads="two")
    assert proc.returncode != 0 and "OLEARN_PARSE_THREADS must be a positive integer" in proc.stderr


def test_bound_help_names_every_algorithm_that_takes_bound():
    result = CliRunner().invoke(cli, ["run", "--help"])
    assert result.exit_code == 0
    unwrapped = re.sub(r"\s+", " ", re.sub(r"-\n\s+", "-", result.output))
    start = unwrapped.index(" --bound After the run")
    help_line = unwrapped[start:unwrapped.index(" --quiet ", start)]
    for algo in ("perceptron", "pa1-multilabel", "fig1-arow-full", "pa1-sequence", "winnow", "dual"):
        assert f"({algo}," in help_line or f" {algo}," in help_line or f" {algo};" in help_line, algo
