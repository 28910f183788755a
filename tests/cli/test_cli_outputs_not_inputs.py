"""A file a command writes (``--save``, ``-p``, ``--invert_hash``, ``--output``, ``--csv``) may not be a file it
reads: ``olearn run -a pa1 train.svm -f train.svm`` used to learn, then write the model over the data. Such a
command is a usage error before anything is read or written, the file left as it was; ``-i model -f model``
(Vowpal Wabbit's way to carry a model on in place) is still taken."""

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn.cli import cli

DATA = "1 1:0.5 2:1\n-1 1:-1 3:0.5\n1 2:2\n-1 3:-1.5\n"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.svm").write_text(DATA)
    assert CliRunner().invoke(cli, ["run", "-a", "pa1", "train.svm", "-f", "model.npz", "--quiet"]).exit_code == 0
    (tmp_path / "copy.svm").symlink_to(tmp_path / "train.svm")
    return tmp_path


@pytest.mark.parametrize("args, written", [
    (["run", "-a", "pa1", "train.svm", "-f", "train.svm"], "--save train.svm"),
    (["run", "-a", "pa1", "train.svm", "-p", "train.svm"], "-p train.svm"),
    (["run", "-a", "pa1", "-d", "train.svm", "--invert_hash", "train.svm"], "--invert_hash train.svm"),
    (["run", "-a", "pa1", "train.svm", "-f", "copy.svm"], "--save copy.svm"),  # another name of the same file
    (["run", "-i", "model.npz", "train.svm", "-p", "model.npz"], "-p model.npz"),
    (["predict", "-m", "model.npz", "train.svm", "-o", "train.svm"], "--output train.svm"),
    (["predict", "-m", "model.npz", "train.svm", "-o", "model.npz"], "--output model.npz"),
    (["compare", "--algos", "pa1,pa2", "train.svm", "--csv", "train.svm"], "--csv train.svm"),
])
def test_writing_a_file_the_command_reads_is_a_usage_error(files, args, written):
    model = (files / "model.npz").read_bytes()
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert f"{written} is a file this command reads" in result.stderr
    assert (files / "train.svm").read_text() == DATA and (files / "model.npz").read_bytes() == model


def test_a_resumed_model_is_saved_in_place(files):
    result = CliRunner().invoke(cli, ["run", "-i", "model.npz", "train.svm", "-f", "model.npz", "--quiet"])
    assert result.exit_code == 0, result.output
    twice = olearn.PAClassifier(variant="pa1")
    X, y = olearn.data.load_libsvm("train.svm")[:2]
    twice.partial_fit(X, y).partial_fit(X, y)
    np.testing.assert_array_equal(olearn.load("model.npz").coef_, twice.coef_)
