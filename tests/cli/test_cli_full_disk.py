"""A full disk while writing predictions (-p, predict --output) or a model (-f): an error naming the file, and no
partial file left that would pass for a whole one."""

import errno
import io
import os

import pytest
from click.testing import CliRunner

import olearn.cli._output
from olearn.cli import cli

ROWS = 3000  # about 9 kB of predictions: more than one buffer of the text file


@pytest.fixture
def train(tmp_path):
    path = tmp_path / "train.svm"
    path.write_text("".join(f"{1 if i % 3 else -1} {i % 7 + 1}:1 8:0.5\n" for i in range(ROWS)))
    return str(path)


class FullDisk(io.FileIO):
    """A file on a disk that is full after its first 100 bytes."""

    def write(self, b):
        if self.tell() + len(b) > 100:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(b)


def open_on_full_disk(path, mode, encoding):
    return io.TextIOWrapper(io.BufferedWriter(FullDisk(path, "w")), encoding=encoding)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("command", ["run", "predict"])
def test_predictions_on_a_full_disk_name_the_file_and_leave_none(tmp_path, train, monkeypatch, command):
    out = tmp_path / "predictions.txt"
    if command == "run":
        args = ("run", "--algo", "pa1", "-p", out, train)
    else:
        model = tmp_path / "m.npz"
        assert invoke("run", "--algo", "pa1", "-f", model, train).exit_code == 0
        args = ("predict", "--model", model, "--output", out, train)
    monkeypatch.setattr(olearn.cli._output, "open", open_on_full_disk, raising=False)
    result = invoke(*args)
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"olearn: error: {out}: No space left on device "
                                     "(the partial file is removed)")
    assert not out.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full: a device on which every write fails ENOSPC")
def test_predictions_to_dev_full_name_it_and_keep_it(train):
    result = invoke("run", "--algo", "pa1", "-p", "/dev/full", train)
    assert result.exit_code == 1
    assert result.stderr.strip() == "olearn: error: /dev/full: No space left on device"
    assert os.path.exists("/dev/full")  # a device is not a partial file


def test_a_model_on_a_full_disk_names_the_file_and_leaves_none(tmp_path, train, monkeypatch):
    # a full disk may show only when the file is synced (delayed allocation, network file systems)
    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    model = tmp_path / "m.npz"
    monkeypatch.setattr(os, "fsync", fsync)
    result = invoke("run", "--algo", "pa1", "-f", model, train)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == f"olearn: error: {model}: No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.svm"]
