"""``olearn run -c``: FILE.olc is written on the first reading and read afterwards, with the results of the text.

The reference of every run with ``-c`` is the same command without it: table,
summary, predictions and saved model must be equal.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn._persistence import read_input_info
from olearn.cli import cli
from olearn.data import save_cache

_TIMED = ("wall time", "throughput", "model")


def invoke(*args):
    return CliRunner().invoke(cli, ["run", *map(str, args)])


def stable(output):
    """The table and summary without the lines that measure time or name the model, and without notes."""
    return [line for line in output.splitlines() if not line.startswith(_TIMED + ("olearn:",))]


def weights(path):
    model = olearn.load(path)
    return np.asarray(model.coef_).ravel()


@pytest.fixture
def svm(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 8)) * (rng.random((400, 8)) < 0.6)
    y = np.where(X @ rng.normal(size=8) + 0.4 * rng.normal(size=400) > 0, 1, -1)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path)


@pytest.fixture
def vw(tmp_path):
    """A VW file with importance weights (some chunks all 1, others not) and named features."""
    rng = np.random.default_rng(4)
    lines = []
    for t in range(300):
        values = rng.normal(size=4)
        label = 1 if values[0] - values[2] > 0 else -1
        weight = f" {1 + t % 3}" if t >= 120 else ""
        features = " ".join(f"f{j}:{v:.3f}" for j, v in enumerate(values))
        lines.append(f"{label}{weight} |a {features}")
    path = tmp_path / "train.vw"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


LEARNERS = [("-a", "pa1", "-C", "0.5"), ("-a", "pnorm"), ("-a", "arow")]


@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("data", ["svm", "vw"])
def test_results_with_and_without_cache_are_equal(request, tmp_path, learner, data):
    path = request.getfixturevalue(data)
    common = [*learner, "--passes", 3, "--chunk-size", 70]
    plain = invoke(*common, path, "-f", tmp_path / "plain.npz", "-p", tmp_path / "plain.txt")
    assert plain.exit_code == 0, plain.output
    assert not os.path.exists(path + ".olc")
    for run in ("first", "second"):  # the first run writes the cache, the second reads it in every pass
        cached = invoke(*common, "-c", path, "-f", tmp_path / f"{run}.npz", "-p", tmp_path / f"{run}.txt")
        assert cached.exit_code == 0, cached.output
        assert os.path.isfile(path + ".olc")
        assert stable(cached.output) == stable(plain.output)
        np.testing.assert_array_equal(weights(tmp_path / f"{run}.npz"), weights(tmp_path / "plain.npz"))
        assert (tmp_path / f"{run}.txt").read_text() == (tmp_path / "plain.txt").read_text()
    assert "olearn: rebuilding" not in cached.output


def test_the_cache_replaces_a_deleted_or_unreadable_text(svm, tmp_path):
    plain = invoke("-a", "pa1", "--passes", 2, svm, "-f", tmp_path / "plain.npz")
    assert invoke("-a", "pa1", "-c", svm).exit_code == 0
    stat = os.stat(svm)
    # the same size and time, other bytes: only a run that reads the cache gets the results of the text
    with open(svm, "r+b") as f:
        f.write(b"garbage!")
    os.utime(svm, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    for state in ("garbled", "deleted"):
        if state == "deleted":
            os.remove(svm)
        result = invoke("-a", "pa1", "--passes", 2, "-c", svm, "-f", tmp_path / f"{state}.npz")
        assert result.exit_code == 0, result.output
        assert stable(result.output) == stable(plain.output)
        np.testing.assert_array_equal(weights(tmp_path / f"{state}.npz"), weights(tmp_path / "plain.npz"))
        # a model learned from the cache records how the text was read, as the model learned from the text
        assert read_input_info(tmp_path / f"{state}.npz") == read_input_info(tmp_path / "plain.npz")
    assert read_input_info(tmp_path / "plain.npz")["format"] == "libsvm"


def test_a_changed_text_rebuilds_the_cache(svm, tmp_path):
    assert invoke("-a", "pa1", "-c", svm).exit_code == 0
    with open(svm, "a") as f:
        f.write("1 1:5 2:-3\n")
    plain = invoke("-a", "pa1", "--passes", 2, svm)
    result = invoke("-a", "pa1", "--passes", 2, "-c", svm)
    assert result.exit_code == 0, result.output
    assert f"olearn: rebuilding {svm}.olc: {svm} changed since it was written" in result.output
    assert stable(result.output) == stable(plain.output)
    assert "examples      722" in result.output  # 401 rows less 40 held out, 2 passes
    again = invoke("-a", "pa1", "--passes", 2, "-c", svm)
    assert "rebuilding" not in again.output and stable(again.output) == stable(plain.output)


def test_other_reading_options_rebuild_the_cache(svm):
    assert invoke("-a", "pa1", "-c", svm).exit_code == 0
    plain = invoke("-a", "pa1", "--zero-based", svm)
    result = invoke("-a", "pa1", "--zero-based", "-c", svm)
    assert result.exit_code == 0, result.output
    assert "was written with other reading options" in result.output
    assert stable(result.output) == stable(plain.output)
    os.remove(svm)
    result = invoke("-a", "pa1", "-c", svm)  # the cache is 0-based now; the 1-based text cannot be re-read
    assert result.exit_code == 1
    assert "does not exist, and its cache" in result.output and "other reading options" in result.output


@pytest.mark.parametrize("earlier", [None, "touching the bar"])
def test_a_cache_written_with_an_earlier_reading_of_tags_is_rebuilt(tmp_path, earlier):
    """A cache of an earlier olearn, which read the number touching the bar in '1 2|a x' as an importance weight
    of 2 (now the line's tag, as Vowpal Wabbit reads it; ``earlier`` None), or '1 yes | a x' as a line tagged
    'yes' (now refused, ``earlier`` 'touching the bar'), does not replace the text."""
    from olearn.data import load_cache
    from olearn.data._cache import cache_meta

    path = tmp_path / "tags.vw"
    path.write_text("".join(f"{1 if t % 3 else -1} 2|a x:{t % 5} y:{t % 7}\n" for t in range(60)))
    plain = invoke("-a", "pa1", path)
    assert invoke("-a", "pa1", "-c", path).exit_code == 0
    cache = f"{path}.olc"
    X, y, _ = load_cache(cache)
    meta = cache_meta(cache)
    options = meta["olearn run -c"]["options"]
    del options["vw_tag"]  # as an earlier olearn wrote it, with the weights it read
    if earlier is not None:
        options["vw_tag"] = earlier
    save_cache(cache, X.copy(), np.array(y), np.full(X.shape[0], 2.0), meta=meta)
    result = invoke("-a", "pa1", "-c", path)
    assert result.exit_code == 0, result.output
    assert "was written with other reading options" in result.output
    assert stable(result.output) == stable(plain.output)


def test_a_damaged_cache_is_rebuilt(svm):
    plain = invoke("-a", "pa1", "--passes", 2, svm)
    assert invoke("-a", "pa1", "-c", svm).exit_code == 0
    with open(svm + ".olc", "r+b") as f:
        f.seek(30)
        f.write(b"\xff\xff")
    result = invoke("-a", "pa1", "--passes", 2, "-c", svm)
    assert result.exit_code == 0, result.output
    assert f"olearn: rebuilding {svm}.olc: it is damaged" in result.output
    assert stable(result.output) == stable(plain.output)


def test_passes_over_a_stream_read_the_stream_once_with_cache(svm, tmp_path):
    """Real standard input: the first pass reads it, the later ones a temporary cache that is then removed."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TMPDIR": str(tmp_path / "tmp")}
    os.mkdir(tmp_path / "tmp")
    command = [sys.executable, "-m", "olearn", "run", "-a", "pa1", "--passes", "3", "--chunk-size", "50"]
    with open(svm, "rb") as f:
        text = f.read()
    piped = subprocess.run([*command, "-c", "-", "-f", str(tmp_path / "piped.npz")], input=text,
                           capture_output=True, timeout=300, env=env)
    assert piped.returncode == 0, piped.stderr.decode()
    from_file = subprocess.run([*command, svm, "-f", str(tmp_path / "file.npz")], capture_output=True, timeout=300,
                               env=env)
    assert stable(piped.stdout.decode()) == stable(from_file.stdout.decode())
    assert "examples      1,080" in piped.stdout.decode()  # 400 rows less 40 held out, 3 passes
    np.testing.assert_array_equal(weights(tmp_path / "piped.npz"), weights(tmp_path / "file.npz"))
    assert os.listdir(tmp_path / "tmp") == []
    refused = subprocess.run([*command, "-"], input=text, capture_output=True, timeout=300, env=env)
    assert refused.returncode == 2 and "add -c" in refused.stderr.decode()


def test_a_cache_without_the_record_of_run_c_is_rebuilt(svm):
    """A cache written by the library (``save_cache``) does not say how it was read: it is not trusted as FILE's."""
    plain = invoke("-a", "pa1", svm)
    save_cache(svm + ".olc", sp.eye(3, format="csr"), np.ones(3), meta={"olearn run -c": {"input": 1}})
    result = invoke("-a", "pa1", "-c", svm)
    assert result.exit_code == 0, result.output
    assert "it was not written by olearn run -c" in result.output
    assert stable(result.output) == stable(plain.output)


def test_a_cache_file_needs_no_cache(tmp_path):
    path = tmp_path / "data.olc"
    save_cache(path, sp.eye(4, format="csr"), np.array([1.0, -1.0, 1.0, -1.0]))
    result = invoke("-a", "pa1", "-c", path)
    assert result.exit_code == 2 and "is an olearn cache already" in result.output
    assert not os.path.exists(str(path) + ".olc")


def test_vw_cache_of_the_same_name_is_left_alone(svm):
    """``FILE.cache`` is Vowpal Wabbit's: olearn neither reads, rewrites nor calls it damaged; its own is FILE.olc."""
    vw_cache = b"\x18\x00\x00\x009.8.0\x00not an olearn cache" * 4
    with open(svm + ".cache", "wb") as f:
        f.write(vw_cache)
    plain = invoke("-a", "pa1", "--passes", 2, svm)
    for _ in range(2):  # writing FILE.olc, then reading it
        result = invoke("-a", "pa1", "--passes", 2, "-c", svm)
        assert result.exit_code == 0, result.output
        assert "olearn:" not in result.output
        assert stable(result.output) == stable(plain.output)
    with open(svm + ".cache", "rb") as f:
        assert f.read() == vw_cache
    assert os.path.isfile(svm + ".olc")


def test_an_olearn_cache_left_under_the_old_name_is_read_not_written(svm, tmp_path):
    """A run -c cache an older olearn wrote as FILE.cache replaces the text; no FILE.olc is made while it does."""
    plain = invoke("-a", "pa1", "--passes", 2, svm)
    assert invoke("-a", "pa1", "-c", svm).exit_code == 0
    os.replace(svm + ".olc", svm + ".cache")
    before = os.stat(svm + ".cache")
    os.rename(svm, str(tmp_path / "away.svm"))  # only the cache can give the examples now
    result = invoke("-a", "pa1", "--passes", 2, "-c", svm)
    assert result.exit_code == 0, result.output
    assert stable(result.output) == stable(plain.output)
    assert not os.path.exists(svm + ".olc")
    after = os.stat(svm + ".cache")
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
