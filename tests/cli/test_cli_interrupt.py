"""Streamed output and Ctrl-C: table rows show as their examples are learned; SIGINT exits 130 with "interrupted".

The data come through a pipe that the test holds open, so it knows how far
the command can have read when it looks at the output or sends SIGINT.
"""

import os
import queue
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import interruptible
import olearn
from olearn.cli import cli
from olearn.cli._interrupt import HeldInterrupts
from olearn.data import load_libsvm

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and pipes")

# startup (imports, compiled kernels from the cache) before the first row may take this long on a busy machine
PATIENCE = 240


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A 1-based LIBSVM file of 3,000 noisy examples: its path and its lines."""
    rng = np.random.default_rng(23)
    X = rng.normal(size=(3000, 15)) * (rng.random((3000, 15)) < 0.6)
    y = np.where(X @ rng.normal(size=15) > 0, 1, -1)
    y[rng.random(3000) < 0.1] *= -1
    path = tmp_path_factory.mktemp("interrupt") / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), path.read_bytes().splitlines(keepends=True)


class Session:
    """``olearn run ... -`` in a subprocess whose standard input the test writes line by line."""

    def __init__(self, *args):
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        env.pop("CI", None)
        self.proc = interruptible.Popen(
            [sys.executable, "-m", "olearn", "run", "--algo", "pa1", "-C", "0.5", "--format", "libsvm", "--one-based",
             *map(str, args), "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.decode())
        self.lines.put(None)

    def write(self, lines):
        self.proc.stdin.write(b"".join(lines))
        self.proc.stdin.flush()

    def wait_for_row(self, examples):
        """Read the output until the table's row for ``examples``; fail if the output ends first."""
        while True:
            line = self.lines.get(timeout=PATIENCE)
            assert line is not None, self.proc.stderr.read().decode()
            if line.split()[:1] == [str(examples)]:
                return line

    def finish(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=PATIENCE)
        return self.proc.returncode, self.proc.stderr.read().decode()


def test_rows_show_before_the_rest_of_the_input_is_written(data):
    path, lines = data
    session = Session()
    try:
        session.write(lines[:5])
        # rows 1, 2 and 4 are printed while the command still waits for line 6
        for examples in (1, 2, 4):
            session.wait_for_row(examples)
        session.write(lines[5:])
        code, stderr = session.finish()
    finally:
        session.proc.kill()
    assert code == 0, stderr
    reference = olearn.run(olearn.PAClassifier(variant="pa1", C=0.5), *load_libsvm(path, zero_based=False),
                           record=True)
    # the next row, 8, counts the mistakes the library makes on the first 8 examples
    assert session.wait_for_row(8).split()[1] == str(int(reference.cumulative_mistakes[7]))


@pytest.mark.parametrize("written", [1, 37, 600, 2500])
def test_sigint_mid_stream_exits_130_and_saves_the_model_learned(data, tmp_path, written):
    path, lines = data
    model = tmp_path / "model.npz"
    session = Session("--save", model, "--save-on-interrupt", "--chunk-size", "256")
    try:
        session.write(lines[:written])
        session.wait_for_row(1 << (written.bit_length() - 1))  # the command is learning, or waits for input
        session.proc.send_signal(signal.SIGINT)
        code, stderr = session.finish()
    finally:
        session.proc.kill()
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "olearn: interrupted"
    saved = stderr.strip().splitlines()[0]
    assert saved.startswith("olearn: the model of the first ") and saved.endswith(f" examples is written to {model}")
    n = int(saved.split()[6].replace(",", ""))
    assert 1 << (written.bit_length() - 1) <= n <= written
    # the saved model is the library's model of the first n examples
    X, y = load_libsvm(path, zero_based=False)
    expected = olearn.PAClassifier(variant="pa1", C=0.5)
    olearn.run(expected, X[:n], y[:n])
    got = olearn.load(model)
    width = min(got.coef_.shape[-1], expected.coef_.shape[-1])
    np.testing.assert_allclose(got.coef_[..., :width], expected.coef_[..., :width], rtol=0, atol=1e-12)
    assert not np.any(got.coef_[..., width:]) and not np.any(expected.coef_[..., width:])


@pytest.mark.parametrize("written", [3, 300])
def test_sigint_without_save_on_interrupt_writes_no_model(data, tmp_path, written):
    model = tmp_path / "model.npz"
    session = Session("--save", model)
    try:
        session.write(data[1][:written])
        session.wait_for_row(2)
        session.proc.send_signal(signal.SIGINT)
        code, stderr = session.finish()
    finally:
        session.proc.kill()
    assert (code, stderr) == (130, "olearn: interrupted\n")
    assert not model.exists()


def test_an_interrupt_surfacing_from_a_compiled_kernel_is_reported_as_interrupted(monkeypatch, tmp_path):
    """numba turns a KeyboardInterrupt during a kernel call into 'SystemError: ... returned a result with an
    exception set', the KeyboardInterrupt as its cause."""
    import olearn.data._libsvm

    def parse_interrupted(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise SystemError("CPUDispatcher(parse_libsvm) returned a result with an exception set") from err
        yield  # a generator, as the reader is

    monkeypatch.setattr(olearn.data._libsvm, "iter_libsvm_rows", parse_interrupted)
    path = tmp_path / "train.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", str(path)])
    assert result.exit_code == 130
    assert result.output.strip().splitlines()[-1] == "olearn: interrupted"


def test_another_system_error_is_not_taken_for_an_interrupt(monkeypatch, tmp_path):
    import olearn.data._libsvm

    def parse_failing(*args, **kwargs):
        raise SystemError("a bug")
        yield

    monkeypatch.setattr(olearn.data._libsvm, "iter_libsvm_rows", parse_failing)
    path = tmp_path / "train.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemError)


def test_an_interrupt_during_a_held_step_is_raised_when_it_ends():
    steps = []
    with HeldInterrupts() as interrupts:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.held():
                os.kill(os.getpid(), signal.SIGINT)
                steps.append("after the signal")
        steps.append("raised at the end")
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between bytecodes, soon after the signal
                pass
    assert steps == ["after the signal", "raised at the end"]


def test_save_on_interrupt_needs_save(tmp_path):
    path = tmp_path / "train.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--save-on-interrupt", str(path)])
    assert result.exit_code == 2
    assert "--save-on-interrupt applies with --save" in result.output


def test_progress_display_shows_at_once_on_a_terminal(data):
    """stderr a terminal (a pseudo-terminal the test reads): the display is up before the data are complete."""
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TERM": "xterm"}
    env.pop("CI", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "olearn", "run", "--algo", "pa1", "--format", "libsvm", "--one-based", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    seen = queue.Queue()

    def read_terminal():
        text = b""
        while b"learning: 3 examples" not in text:
            try:
                block = os.read(leader, 4096)
            except OSError:
                break
            if not block:
                break
            text += block
        seen.put(text)

    threading.Thread(target=read_terminal, daemon=True).start()
    try:
        proc.stdin.write(b"".join(data[1][:3]))
        proc.stdin.flush()
        text = seen.get(timeout=PATIENCE)
        assert b"learning: 3 examples" in text, text
        assert proc.poll() is None  # still running: the rest of the data has not been written
        proc.stdin.write(b"".join(data[1][3:]))
        proc.stdin.close()
        assert proc.wait(timeout=PATIENCE) == 0
    finally:
        proc.kill()
        os.close(leader)


# olearn run on a file whose blocks are parsed on threads (as on a machine of two cores), with SIGINT sent while the
# third block is being parsed
INTERRUPT_WHILE_PARSING = """
import os, signal, sys
from olearn.cli import main
from olearn.data import _libsvm, _parallel

window_parser = _libsvm._window_parser

def interrupting_parser(opt):
    parse = window_parser(opt)
    parsed = []

    def parse_and_interrupt(settled):
        parsed.append(1)
        if len(parsed) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return parse(settled)

    return parse_and_interrupt

_libsvm._window_parser = interrupting_parser
_parallel.usable_cores = lambda: 2
sys.exit(main(["run", "--algo", "pa1", "--quiet", sys.argv[1]]))
"""


def test_sigint_while_blocks_are_parsed_on_threads_exits_130(tmp_path):
    path = tmp_path / "blocks.svm"
    path.write_bytes(b"1 1:1 2:0.5\n-1 2:1 3:-2\n" * 800_000)  # 20 MB: five blocks of 4 MiB
    proc = interruptible.run([sys.executable, "-c", INTERRUPT_WHILE_PARSING, str(path)], capture_output=True,
                             text=True, timeout=PATIENCE)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "olearn: interrupted"
    assert "Traceback" not in proc.stderr
