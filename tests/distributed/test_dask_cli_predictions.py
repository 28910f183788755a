"""``olearn run --workers/--scheduler -p FILE``: the first epoch's progressive predictions, shard after shard; -t.

The independent reference is the serial command line run on each shard alone: the first epoch of parameter mixing
starts every shard's learner from the same model, so shard i's lines are those of ``olearn run -p`` on shard i (its
first pass's, with --passes N).
"""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

pytest.importorskip("distributed")

import olearn
from olearn.cli import cli
from olearn.linear import PAClassifier


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def shard_files(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(230, 6))
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=230) > 0, 1.0, -1.0)
    paths = []
    for i, (lo, hi) in enumerate([(0, 90), (90, 230)]):
        paths.append(tmp_path / f"part-{i}.svm")
        dump_svmlight_file(X[lo:hi], y[lo:hi], str(paths[-1]), zero_based=False)
    return paths, [90, 140]


def _lines(path):
    return path.read_text().splitlines()


@pytest.mark.parametrize("options", [["--raw"], ["--passes", "2"]], ids=["raw scores, one epoch", "two epochs"])
def test_predictions_are_each_shards_serial_first_pass_in_input_order(client, shard_files, tmp_path, options):
    paths, sizes = shard_files
    out = tmp_path / "dask.txt"
    result = invoke("run", "-a", "pa1", "-C", "0.5", *options, "--scheduler", client.scheduler.address, *paths,
                    "-p", out)
    assert result.exit_code == 0, result.output
    expected = []
    for i, (path, size) in enumerate(zip(paths, sizes)):
        serial = tmp_path / f"serial-{i}.txt"
        alone = invoke("run", "-a", "pa1", "-C", "0.5", *options, path, "-p", serial)
        assert alone.exit_code == 0, alone.output
        expected += _lines(serial)[:size]  # with --passes 2, the first pass's lines
    assert _lines(out) == expected
    assert len(expected) == 230


def test_scaled_predictions_are_the_learners_first_pass_over_rows_scaled_by_the_merged_statistics(client, shard_files,
                                                                                                  tmp_path):
    paths, _ = shard_files
    out = tmp_path / "dask.txt"
    result = invoke("run", "-a", "pa1", "--scale", "maxabs", "--scheduler", client.scheduler.address, *paths,
                    "-p", out)
    assert result.exit_code == 0, result.output
    shards = [load_svmlight_file(str(path), n_features=6) for path in paths]
    peaks = np.abs(np.vstack([X.toarray() for X, _ in shards])).max(axis=0)
    expected = []
    for X, y in shards:
        learner = PAClassifier(variant="pa1").partial_fit(np.empty((0, 0)), np.empty(0), classes=[-1.0, 1.0])
        expected += list(olearn.run(learner, X.toarray() / peaks, y, record=True).predictions)
    assert np.array_equal(np.loadtxt(out), expected)


@pytest.mark.parametrize("args, reason", [
    (["-p", "-"], "on stdout it would mix with the table"),
    (["-p", "x.txt", "--delay", "1"], "delayed updates score each example on stale weights"),
])
def test_predictions_are_refused_where_the_first_epoch_cannot_give_them(shard_files, args, reason):
    paths, _ = shard_files
    # refused before any cluster starts
    result = invoke("run", "-a", "pa1", "--workers", "2", *args, *paths)
    assert result.exit_code == 2 and reason in result.output, result.output


def _summary(output, name):
    return next(line.split()[-1] for line in output.splitlines() if line.startswith(name + " "))


def test_test_only_predicts_every_shard_with_the_model_on_the_workers(client, shard_files, tmp_path):
    paths, _ = shard_files
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "pa1", paths[0], "-f", model).exit_code == 0
    out = tmp_path / "dask.txt"
    result = invoke("run", "-t", "-i", model, "--scheduler", client.scheduler.address, *paths, "-p", out, "--raw")
    assert result.exit_code == 0, result.output
    expected, mistakes = [], 0
    for i, path in enumerate(paths):
        serial = tmp_path / f"serial-{i}.txt"
        alone = invoke("run", "-t", "-i", model, path, "-p", serial, "--raw")
        assert alone.exit_code == 0, alone.output
        expected += _lines(serial)
        mistakes += int(_summary(alone.output, "mistakes"))
    assert _lines(out) == expected
    assert int(_summary(result.output, "mistakes")) == mistakes
    assert "test only (-t)" in result.output
    delayed = invoke("run", "-t", "-i", model, "--workers", "2", "--delay", "1", *paths)
    assert delayed.exit_code == 2 and "learning nothing; --delay applies to learning" in delayed.output


def test_test_only_refuses_a_label_a_binary_model_cannot_have_as_the_serial_run_does(client, shard_files, tmp_path):
    paths, _ = shard_files
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "pa1", paths[0], "-f", model).exit_code == 0
    odd = tmp_path / "odd.svm"
    odd.write_text("1 1:1\n-1 2:1\n2 1:1\n")
    result = invoke("run", "-t", "-i", model, "--scheduler", client.scheduler.address, paths[0], odd)
    assert result.exit_code == 1
    assert (f"shard 1 (odd.svm): example 3 of odd.svm has the label 2, and {model} is a binary model of the classes "
            "-1 1: it can predict no other label") in result.output
    serial = invoke("run", "-t", "-i", model, odd)
    assert serial.exit_code == 1 and f"has the label 2, and {model} is a binary model" in serial.output


def test_test_only_warns_once_of_the_classes_a_multiclass_model_never_learned(client, tmp_path):
    learned, tested = tmp_path / "learned.svm", [tmp_path / "a.svm", tmp_path / "b.svm"]
    learned.write_text("0 1:1\n1 2:1\n2 1:1 2:1\n")
    tested[0].write_text("0 1:1\n5 2:1\n")
    tested[1].write_text("7 1:1\n1 2:1\n7 2:2\n")
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "pa1-multiclass", learned, "-f", model).exit_code == 0
    result = invoke("run", "-t", "-i", model, "--scheduler", client.scheduler.address, *tested)
    assert result.exit_code == 0, result.output
    # 3 of the 5 labels (5, 7, 7) are none of the classes 0 1 2: counted as mistakes, and said so once
    assert result.stderr.count("olearn: warning:") == 1
    assert (f"olearn: warning: 3 of 5 labels of {tested[0]}, {tested[1]} (such as 5 7) are none of the classes of "
            f"{model} (0 1 2)") in result.stderr
    assert int(_summary(result.output, "mistakes")) >= 3
