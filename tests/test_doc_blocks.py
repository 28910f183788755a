"""Every ```python and ```bash block of README.md and docs/*.md runs as written.

The blocks of a page run in order, as a reader types them, in one fresh folder that holds small
sample files under the names the pages use (``train.svm``, ``shards/part-0.svm``, ...): Python
blocks with ``exec`` in a namespace of their own, bash blocks by ``bash -e`` with ``olearn`` and
``python`` of this interpreter first on PATH. A bash block's background jobs (``olearn serve ... &``)
are stopped when the page's blocks are done. Blocks that are doctest sessions (``>>>``) are run by
``tests/test_docs_examples.py``.

A block that cannot run here says why in the comment on the line above its fence,
``<!-- not run: REASON -->`` (installing packages, the whole test suite). Blocks that take minutes
(the reproductions at full size, the demo) run with ``-m slow``. What the commands leave in the folder,
besides the sample files, is ignored by git, as it would be in a clone (``token.txt`` is a secret).
"""

import bz2
import contextlib
import gzip
import importlib
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if (ROOT / "docs").exists() else []
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")
# blocks that take minutes, found by a text of theirs: they run with -m slow
SLOW = ("olearn reproduce --list", 'get_reproduction("', "olearn reproduce orabona2010-fig3 --workers",
        "olearn demo --out")
# the port of the service that the serving blocks start or talk to
SERVICE_PORT = 8080
# bash blocks: a failing command ends the block; a command of a block that hangs fails the test after this
PATIENCE = 600


@dataclass(frozen=True)
class Block:
    page: pathlib.Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    not_run: str = None  # the reason given in the page

    @property
    def where(self):
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def slow(self):
        return any(text in self.code for text in SLOW)


def blocks_of(page):
    """The page's python and bash blocks, doctest sessions left out."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, number = [], 0
    while number < len(lines):
        fence = re.fullmatch(r"```(\w*)\s*", lines[number])
        if not fence:
            number += 1
            continue
        end = next(i for i in range(number + 1, len(lines)) if lines[i].startswith("```"))
        code = "\n".join(lines[number + 1:end]) + "\n"
        marker = NOT_RUN.search(lines[number - 1]) if number else None
        if fence.group(1) in ("python", "bash") and not re.search(r"^>>> ", code, re.M):
            found.append(Block(page, number + 1, fence.group(1), code, marker and marker.group(1)))
        number = end + 1
    return found


BLOCKS = [block for page in PAGES for block in blocks_of(page)]
FAST_PAGES = sorted({b.page for b in BLOCKS if not b.not_run and not b.slow}, key=PAGES.index)
SLOW_BLOCKS = [b for b in BLOCKS if not b.not_run and b.slow]


def _serves(blocks):
    return any(f"localhost:{SERVICE_PORT}" in b.code or f"127.0.0.1:{SERVICE_PORT}" in b.code for b in blocks)


def _one_service_at_a_time(value, blocks):
    """``value`` as a parameter; blocks that use the service port run on one worker of a parallel run, in turn."""
    return pytest.param(value, marks=pytest.mark.xdist_group("service-port")) if _serves(blocks) else value


def _svm(path, n, d, seed, labels="binary"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    score = X @ rng.normal(size=d)
    y = {"binary": np.where(score > 0, 1, -1), "real": score + 0.1 * rng.normal(size=n)}[labels]
    dump_svmlight_file(X, y, str(path), zero_based=False)


def _sample_folder(folder):
    """The files the pages read, small: LIBSVM, VW, CSV, CoNLL, costs and shards."""
    _svm(folder / "train.svm", 300, 12, 0)
    (folder / "train.svm.gz").write_bytes(gzip.compress((folder / "train.svm").read_bytes()))
    _svm(folder / "huge.svm", 500, 12, 1)
    _svm(folder / "more.svm", 200, 12, 2)
    _svm(folder / "test.svm", 100, 12, 3)
    _svm(folder / "prices.svm", 200, 8, 4, labels="real")
    (folder / "shards").mkdir()
    for part in range(3):
        _svm(folder / "shards" / f"part-{part}.svm", 150, 12, 10 + part)
        _svm(folder / f"part-{part}.svm", 150, 12, 10 + part)
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(20)]
    (folder / "train.vw").write_text("".join(
        f"{rng.choice([-1, 1])} |a {' '.join(rng.choice(words, 3))} |b n:{rng.random():.3f}\n" for _ in range(200)))
    digits = rng.integers(0, 16, size=(150, 8))
    (folder / "digits.csv.gz").write_bytes(gzip.compress(("".join(
        ",".join(map(str, row)) + f",{row[0] % 3}\n" for row in digits)).encode()))
    vectors = rng.normal(size=(100, 4))
    (folder / "vectors.csv").write_text("".join(",".join(f"{v:.4f}" for v in row) + "\n" for row in vectors))
    scene = [f"{','.join(map(str, sorted(rng.choice(5, rng.integers(1, 3), replace=False) + 1)))} "
             + " ".join(f"{j}:{rng.random():.3f}" for j in sorted(rng.choice(10, 4, replace=False) + 1))
             for _ in range(150)]
    (folder / "scene.svm").write_text("\n".join(scene) + "\n")
    (folder / "costs.txt").write_text("-1 1\n0 1\n1 0\n")
    tags = {"the": "DT", "a": "DT", "cat": "NN", "dog": "NN", "runs": "VB", "sees": "VB"}
    sentences = [[("the", "cat"), ("runs",)], [("a", "dog"), ("sees",), ("the", "cat")]] * 20
    conll = ["-DOCSTART- -X- O", ""]
    for sentence in sentences:
        conll += [f"w={word} suffix={word[-2:]} {tags[word]}" for phrase in sentence for word in phrase] + [""]
    (folder / "train.conll").write_text("\n".join(conll) + "\n")
    (folder / "train.conll.bz2").write_bytes(bz2.compress((folder / "train.conll").read_bytes()))


def _environment():
    bin_dir = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "PYTHONWARNINGS": "ignore",
            "MPLBACKEND": "Agg"}


def _port_free(port):
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@contextlib.contextmanager
def _patient_http_clients():
    """An ``httpx.Client`` a block makes waits up to PATIENCE for an answer instead of httpx's 5 s: a service on
    a loaded machine may take longer, and the wait is a hang guard, not what the block shows."""
    try:
        httpx = importlib.import_module("httpx")
    except ImportError:  # a page whose blocks use httpx skips without it
        yield
        return
    defaults = httpx.Client.__init__.__kwdefaults__
    saved = defaults["timeout"]
    defaults["timeout"] = httpx.Timeout(PATIENCE)
    try:
        yield
    finally:
        defaults["timeout"] = saved


class Reader:
    """Runs blocks in one folder, as a reader would, and stops their background jobs at the end."""

    def __init__(self, folder):
        self.folder, self.groups = folder, []
        self.namespace = {"__name__": "__main__"}  # a page's python blocks go on from each other, as in one session

    def run(self, block):
        if block.language == "python":
            self._python(block)
        else:
            self._bash(block)

    def _python(self, block):
        cwd = os.getcwd()
        os.chdir(self.folder)
        try:
            with _patient_http_clients():
                exec(compile(block.code, block.where, "exec"), self.namespace)
        finally:
            os.chdir(cwd)

    def _bash(self, block):
        # its own session, so that its background jobs can be stopped with it; its output goes to a file, which
        # (unlike a pipe) a background job that keeps it open does not hold the block's end back
        log = self.folder.parent / f"block-{block.line}.log"
        with open(log, "w+") as output:
            proc = subprocess.Popen(["bash", "-e", "-c", block.code], cwd=self.folder, env=_environment(),
                                    stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
            self.groups.append(proc.pid)
            try:
                proc.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            output.seek(0)
            assert proc.returncode == 0, f"{block.where} ended with {proc.returncode}:\n{output.read()[-4000:]}"

    def stop(self):
        for group in self.groups:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _run_blocks(blocks, tmp_path):
    """Run ``blocks`` in a folder of sample files (in ``tmp_path``); the files they made there."""
    serves = _serves(blocks)
    if serves and not _port_free(SERVICE_PORT):
        pytest.skip(f"port {SERVICE_PORT}, that the page's service uses, is taken")
    folder = tmp_path / "reader"
    folder.mkdir()
    _sample_folder(folder)
    given = {path for path in folder.rglob("*")}
    reader = Reader(folder)
    try:
        for block in blocks:
            reader.run(block)
    finally:
        reader.stop()
        deadline = time.monotonic() + PATIENCE  # the killed service lets its port go, for the next page
        while serves and not _port_free(SERVICE_PORT) and time.monotonic() < deadline:
            time.sleep(0.1)
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path not in given and path.is_file())


def _assert_ignored_by_git(made):
    """Each file the blocks made, as if made in the repository's top folder, is ignored by git."""
    if not made or not (ROOT / ".git").exists() or shutil.which("git") is None:
        return
    check = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", "--stdin"],
                           input="\n".join(made), capture_output=True, text=True)
    missing = sorted(set(made) - set(check.stdout.split()))
    assert not missing, f"made by the documented commands and not in .gitignore: {missing}"


@pytest.mark.parametrize("page", [_one_service_at_a_time(page, [b for b in BLOCKS if b.page == page])
                                  for page in FAST_PAGES], ids=lambda page: page.name)
def test_the_blocks_of_the_page_run_in_order(page, tmp_path):
    blocks = [b for b in BLOCKS if b.page == page and not b.not_run and not b.slow]
    made = _run_blocks(blocks, tmp_path)
    _assert_ignored_by_git(made)


@pytest.mark.slow
@pytest.mark.parametrize("block", [_one_service_at_a_time(block, [block]) for block in SLOW_BLOCKS],
                         ids=lambda block: block.where)
def test_a_long_block_runs(block, tmp_path):
    _run_blocks([block], tmp_path)


def test_a_block_not_run_says_why_and_is_one_of_few():
    not_run = [b for b in BLOCKS if b.not_run]
    for block in not_run:
        assert len(block.not_run.split()) >= 3, f"{block.where}: say why the block cannot run here"
    assert len(not_run) <= len(BLOCKS) // 4, [b.where for b in not_run]
