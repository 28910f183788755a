"""``olearn run`` and ``olearn reproduce`` on Dask (--workers / --scheduler), against the local runs."""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

pytest.importorskip("distributed")

import olearn
from olearn.cli import cli

TIMEOUT = 300  # a hang guard: a worker process may take minutes to start on a busy machine


@pytest.fixture(scope="module")
def scheduler():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, timeout=TIMEOUT)
    client = Client(cluster, timeout=TIMEOUT)
    client.wait_for_workers(2, timeout=TIMEOUT)
    yield cluster.scheduler_address
    client.close(timeout=TIMEOUT)
    cluster.close(timeout=TIMEOUT)


@pytest.fixture
def shards(tmp_path):
    """Two LIBSVM shards of one stream: (paths, X, y)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(240, 6)) / 2.5
    y = np.where(X @ rng.normal(size=6) + 0.2 * rng.normal(size=240) > 0, 1.0, -1.0)
    paths = []
    for i, (lo, hi) in enumerate(((0, 130), (130, 240))):
        path = tmp_path / f"part-{i}.svm"
        dump_svmlight_file(X[lo:hi], y[lo:hi], str(path), zero_based=False)
        paths.append(str(path))
    return paths, X, y


def summary(output, name):
    match = re.search(rf"^{name}\s+(.+)$", output, re.MULTILINE)
    assert match, output
    return match.group(1)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_delay_zero_on_one_shard_prints_the_serial_run(scheduler, shards):
    paths, _, _ = shards
    serial = invoke("run", "--algo", "ogd", "--radius", "0.5", "--quiet", paths[0])
    on_dask = invoke("run", "--algo", "ogd", "--radius", "0.5", "--quiet", "--scheduler", scheduler, "--delay", 0, paths[0])
    assert serial.exit_code == 0 and on_dask.exit_code == 0, on_dask.output
    for name in ("examples", "mistakes", "average loss", "updates"):
        assert summary(on_dask.output, name) == summary(serial.output, name)
    assert "staleness <= 0" in summary(on_dask.output, "mode")


@pytest.mark.parametrize("algo", ["winnow", "adagrad", "sop"])
def test_mixing_one_shard_prints_the_serial_run_of_the_newly_mixed_learners(scheduler, shards, algo, tmp_path):
    import gzip
    import shutil

    paths, _, _ = shards
    # compressed, the file cannot be cut into byte ranges: it is one shard on the cluster's workers
    one = tmp_path / "one.svm.gz"
    with open(paths[0], "rb") as src, gzip.open(one, "wb") as dst:
        shutil.copyfileobj(src, dst)
    serial = invoke("run", "--algo", algo, "--quiet", one)
    on_dask = invoke("run", "--algo", algo, "--quiet", "--scheduler", scheduler, one)
    assert serial.exit_code == 0 and on_dask.exit_code == 0, on_dask.output
    for name in ("examples", "mistakes", "average loss", "updates"):
        assert summary(on_dask.output, name) == summary(serial.output, name)


def test_mixing_two_shards_saves_the_mixed_model(scheduler, shards, tmp_path):
    paths, X, y = shards
    model = tmp_path / "mixed.npz"
    result = invoke("run", "--algo", "pa1", "-C", "0.5", "--passes", 2, "--holdout-off", "--scheduler", scheduler,
                    "--save", model, *paths)
    assert result.exit_code == 0, result.output
    w = np.zeros(6)
    for _ in range(2):
        wa = _pa1_pass(X[:130], y[:130], w, 0.5)
        wb = _pa1_pass(X[130:], y[130:], w, 0.5)
        w = 0.5 * (wa + wb)
    np.testing.assert_allclose(olearn.load(model).coef_[0], w, rtol=1e-10, atol=1e-12)
    epochs = re.findall(r"^\s+([12])\s+(\d+)\s+(\d+)", result.output, re.MULTILINE)
    assert [(e, n) for e, n, _ in epochs] == [("1", "240"), ("2", "240")]
    assert summary(result.output, "shards") == "2 on 2 workers"
    assert summary(result.output, "examples") == "480"


def _pa1_pass(X, y, w, C):
    """PA-I (Crammer et al. 2006, Fig. 1) from w."""
    w = w.copy()
    for x, label in zip(X, y):
        loss = max(0.0, 1.0 - label * (w @ x))
        if loss > 0.0:
            w = w + min(C, loss / (x @ x)) * label * x
    return w


def test_mixing_passes_print_each_epoch_s_held_out_rate(scheduler, shards):
    paths, X, y = shards
    result = invoke("run", "--algo", "pa1", "-C", "0.5", "--passes", 2, "--holdout-every", 5, "--scheduler", scheduler,
                    *paths)
    assert result.exit_code == 0, result.output
    w, lines = np.zeros(6), []
    for epoch in (1, 2):  # rows 5, 10, ... of each shard predicted by the shard's model, never learned
        models, held, wrong = [], 0, 0
        for lo, hi in ((0, 130), (130, 240)):
            wi = w.copy()
            for i in range(lo, hi):
                if (i - lo + 1) % 5 == 0:
                    held, wrong = held + 1, wrong + ((1 if wi @ X[i] > 0 else -1) != y[i])
                else:
                    wi = _pa1_pass(X[i : i + 1], y[i : i + 1], wi, 0.5)
            models.append(wi)
        w = 0.5 * (models[0] + models[1])
        lines.append(f"pass {epoch} held out: {held:,} examples, {wrong:,} mistakes, mistake rate {wrong / held:.6f} h")
    assert [line for line in result.output.splitlines() if " held out: " in line] == lines
    assert summary(result.output, "held out") == "48 per pass (every 5th example, never learned)"
    assert summary(result.output, "examples") == "384"


def test_parquet_shards_take_the_label_column_by_name_or_position(scheduler, shards, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    paths, X, y = shards
    for i, (lo, hi) in enumerate(((0, 130), (130, 240))):
        frame = pd.DataFrame({f"x{j}": X[lo:hi, j] for j in range(6)})
        frame.insert(2, "label", np.where(y[lo:hi] > 0, "pos", "neg"))
        frame.to_parquet(tmp_path / f"part-{i}.parquet")
    result = invoke("run", "--algo", "pa1", "-C", "0.5", "--scheduler", scheduler, "--label-column", "label",
                    "--classes", "neg,pos", "--save", tmp_path / "m.npz", tmp_path / "part-*.parquet")
    assert result.exit_code == 0, result.output
    w = 0.5 * (_pa1_pass(X[:130], y[:130], np.zeros(6), 0.5) + _pa1_pass(X[130:], y[130:], np.zeros(6), 0.5))
    saved = olearn.load(tmp_path / "m.npz")
    np.testing.assert_allclose(saved.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert list(saved.vocabulary_) == [f"x{j}" for j in range(6)]  # --save keeps the feature names
    result = invoke("run", "--algo", "pa1", "-C", "0.5", "--scheduler", scheduler, "--label-column", "2",
                    "--classes", "neg,pos", "--save", tmp_path / "m2.npz", tmp_path / "part-*.parquet")
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(olearn.load(tmp_path / "m2.npz").coef_, saved.coef_)
    result = invoke("run", "--algo", "pa1", "--scheduler", scheduler, "--label-column", "label", *paths)
    assert result.exit_code == 2 and "--label-column applies to Parquet shards on Dask" in result.output


def test_a_quoted_glob_on_a_new_local_cluster(shards, tmp_path):
    assert len(shards[0]) == 2
    pattern = str(tmp_path / "part-*.svm")
    result = invoke("run", "--algo", "arow-full", "--workers", 1, "--quiet", "--mix", "updates", pattern)
    assert result.exit_code == 0, result.output
    assert summary(result.output, "shards") == "2 on 1 worker"
    assert summary(result.output, "mode") == "parameter mixing (updates)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--algo", "arow", "--delay", "3"], r"--delay \(delayed updates\) supports --algo perceptron, pa, pa1, pa2, ogd, svm; not arow"),
        (["--algo", "fig1-arow"], r"parameter mixing supports --algo perceptron, .*, winnow, pnorm, arow, narow, cw, "
                                  r"adagrad, arow-full, narow-full, cw-full, sop, pa-multiclass, .*, pa2-cost-sensitive; not fig1-arow"),
        (["--algo", "pa", "--delay", "1", "--passes", "2"], "--delay makes one pass"),
        (["--algo", "pa", "--bound"], "--bound describes one serial pass"),
        (["--algo", "pa", "--workers", "2"], "give --workers .* not both"),
        (["--algo", "pa1", "--set", "kernel=rbf"], r"parameter mixing mixes and moves primal weight vectors; "
                                                   r"PAClassifier with kernel='rbf' learns in dual form"),
        (["--algo", "perceptron", "--set", "kernel=poly", "--delay", "1"], "delayed updates mixes and moves primal"),
    ],
)
def test_modes_refuse_what_they_cannot_do(scheduler, shards, args, message):
    paths, _, _ = shards
    result = invoke("run", "--scheduler", scheduler, *args, *paths)
    assert result.exit_code == 2, result.output
    assert re.search(message, result.output), result.output


def test_dask_options_need_a_cluster(shards):
    paths, _, _ = shards
    result = invoke("run", "--algo", "pa", *paths)
    assert result.exit_code == 2 and "add --workers N or --scheduler ADDRESS" in result.output
    result = invoke("run", "--algo", "pa", "--delay", 3, paths[0])
    assert result.exit_code == 2 and "--delay applies with --workers or --scheduler only" in result.output


def test_labels_outside_the_classes_are_a_one_line_error(scheduler, tmp_path):
    path = tmp_path / "zero-one.svm"
    path.write_text("1 1:0.5\n0 2:1\n")
    result = invoke("run", "--algo", "pa", "--scheduler", scheduler, path)
    assert result.exit_code == 1
    assert "not one of the classes" in result.output or "third class" in result.output
    assert "Traceback" not in result.output
    assert invoke("run", "--algo", "pa", "--scheduler", scheduler, "--classes", "0,1", path).exit_code == 0


@pytest.mark.parametrize("name", ["crammer2006-fig5", "orabona2010-fig3"])
def test_reproduce_on_dask_writes_the_local_numbers(scheduler, tmp_path, name):
    local = invoke("reproduce", name, "--quick", "--out", tmp_path / "local")
    on_dask = invoke("reproduce", name, "--quick", "--out", tmp_path / "dask", "--scheduler", scheduler)
    assert local.exit_code == 0 and on_dask.exit_code == 0, on_dask.output
    written = sorted(p.name for p in (tmp_path / "local").glob("*.csv"))
    assert written and written == sorted(p.name for p in (tmp_path / "dask").glob("*.csv"))
    for csv_name in written:
        assert (tmp_path / "dask" / csv_name).read_text() == (tmp_path / "local" / csv_name).read_text()


def test_reproduce_without_repetitions_refuses_workers(scheduler, tmp_path):
    result = invoke("reproduce", "zinkevich-ogd", "--quick", "--out", tmp_path, "--scheduler", scheduler)
    assert result.exit_code == 2
    assert "zinkevich-ogd has no repetitions to run in parallel" in result.output


def test_shards_share_one_index_base_and_the_model_records_it(scheduler, tmp_path):
    # a 0-based data set whose first shard never uses feature 0
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 4))
    y = np.where(X @ np.array([2.0, -1.0, 0.5, 1.0]) > 0, 1.0, -1.0)
    X[:60, 0] = 0.0
    paths = [str(tmp_path / "part-0.svm"), str(tmp_path / "part-1.svm")]
    dump_svmlight_file(X[:60], y[:60], paths[0], zero_based=True)
    dump_svmlight_file(X[60:], y[60:], paths[1], zero_based=True)
    result = invoke("run", "--algo", "pa", "--scheduler", scheduler, *paths)
    assert result.exit_code == 1
    dashboard, line = result.output.strip().splitlines()  # the progress's dashboard link, then the error
    assert dashboard.startswith("Dask dashboard: ")
    assert "part-1.svm:1:" in line and "feature index 0" in line and "--zero-based" in line
    assert "decided from the first 4 MiB of " + paths[0] in line

    model = tmp_path / "model.npz"
    result = invoke("run", "--algo", "pa", "--scheduler", scheduler, "--zero-based", "--save", model, *paths)
    assert result.exit_code == 0, result.output
    from sklearn.datasets import load_svmlight_files

    X0, y0, X1, y1 = load_svmlight_files(paths, zero_based=True, n_features=4)
    wa = _pa1_pass(X0.toarray(), y0, np.zeros(4), np.inf)
    wb = _pa1_pass(X1.toarray(), y1, np.zeros(4), np.inf)
    np.testing.assert_allclose(olearn.load(model).coef_[0], 0.5 * (wa + wb), rtol=1e-10, atol=1e-12)
    predicted = invoke("predict", "--model", model, paths[1])  # read 0-based, as the model was trained
    assert predicted.exit_code == 0, predicted.output


def test_an_empty_shard_changes_nothing(scheduler, shards, tmp_path):
    paths, _, _ = shards
    empty = tmp_path / "empty.svm"
    empty.write_text("")
    with_empty, without = tmp_path / "with.npz", tmp_path / "without.npz"
    for model, files in ((with_empty, [paths[0], empty, paths[1]]), (without, paths)):
        result = invoke("run", "--algo", "pa1", "--passes", 2, "--scheduler", scheduler, "--save", model, *files)
        assert result.exit_code == 0, result.output
    assert np.array_equal(olearn.load(with_empty).coef_, olearn.load(without).coef_)


def test_a_failing_shard_prints_one_line_without_dask_logs(tmp_path):
    # a worker's traceback of the failed task used to be printed above the one-line message
    import subprocess
    import sys

    good, bad = tmp_path / "good.svm", tmp_path / "bad.svm"
    good.write_text("1 1:1 2:1\n-1 2:1\n")
    bad.write_text("1 1:1\n-1 2:x\n")
    proc = subprocess.run([sys.executable, "-m", "olearn", "run", "--algo", "pa1", "--workers", "1", str(good),
                           str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    # no dashboard's link either: the local cluster serves none without --dashboard
    assert proc.stderr.strip().splitlines() == [
        f"olearn: error: {bad}:2:6: expected a numeric feature value after ':', found 'x'"]


@pytest.mark.parametrize("text, mode, message", [
    ("1 2 | a b\n-1 | c\n", ("--delay", 1), "gives importance weights other than 1, and delayed updates do not "
                                             "honour them"),
    ("1 | a b\n | c\n", (), ":2:1: the line has no label"),
])
def test_delayed_updates_refuse_importance_weights_and_shards_unlabelled_lines(scheduler, tmp_path, text, mode,
                                                                              message):
    path = tmp_path / "shard.vw"
    path.write_text(text)
    result = invoke("run", "--algo", "pa", "--scheduler", scheduler, *mode, path)
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output


def test_shards_record_the_format_and_bits(scheduler, tmp_path):
    path = tmp_path / "shard.vw"
    path.write_text("1 | a b\n-1 | c\n")
    model = tmp_path / "m.npz"
    assert invoke("run", "--algo", "pa", "--scheduler", scheduler, "--bits", 10, "--save", model, path).exit_code == 0
    from olearn._persistence import read_input_info

    assert read_input_info(model) == {"format": "vw", "bits": 10}


def test_a_model_learned_with_oaa_on_dask_records_k_and_resumes_refusing_other_labels(scheduler, tmp_path):
    from olearn._persistence import read_input_info

    train, other = tmp_path / "train.vw", tmp_path / "other.vw"
    train.write_text("1 | a b\n2 | b c\n3 | c d\n1 | a\n")
    other.write_text("1 | a\n4 | x\n")
    model = tmp_path / "m.npz"
    result = invoke("run", "--oaa", 3, "--scheduler", scheduler, "--quiet", train, "-f", model)
    assert result.exit_code == 0, result.output
    assert read_input_info(model)["oaa"] == 3
    resumed = invoke("run", "-i", model, other, "--quiet")  # resumed serially: 4 is refused, as --oaa 3 refuses it
    assert resumed.exit_code == 1
    assert f"{other}:2: example 2 has the label 4, which --oaa 3 (labels 1 to 3, kept by the model {model})" \
           in resumed.stderr
