"""Helpers of the tests of ``olearn serve``, imported by name (``from serve_helpers import ...``).

``Server``: one ``olearn serve`` subprocess on a free port (``free_port()``), started with ``TOKEN``.

``require_serve_extra()``: called first by each test module, skips it without the extra.

``assert_same_model(served, offline)``: two learners' states are equal bit for bit.

``settled(writer)``: awaited, once a :class:`~olearn.serve._writer.Writer` has acknowledged every update and
written every snapshot due.
"""

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import interruptible

TOKEN = "test-token-0123456789abcdef"
# hang guards only, in seconds: a server's start, a clean stop and one request may take long on a busy machine
PATIENCE = 300


def require_serve_extra():
    """Skip the calling test module unless the ``serve`` extra and httpx are installed."""
    for name in ("starlette", "uvicorn", "prometheus_client", "orjson", "httpx"):
        pytest.importorskip(name)


async def settled(writer):
    """Return once every update ``writer`` applied is acknowledged and no snapshot is being written nor due (asked
    between two groups, until the writer has taken the snapshot due and, woken up by the snapshot's thread, put
    its log in use)."""
    import asyncio

    while not await writer.acknowledged(lambda: writer._snapshot is None and not writer._snapshot_due()):
        await asyncio.sleep(0.01)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_ready(process, url, timeout=PATIENCE, output=lambda: ""):
    """Return once the service ``process`` at ``url`` answers /ready; AssertionError (with ``output()``, what it
    printed) if it exits first or does not answer within ``timeout`` seconds."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"olearn serve exited with {process.returncode}: {output()}")
        try:
            if httpx.get(f"{url}/ready", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"olearn serve did not answer within {timeout} s: {output()}")


class Server:
    """One ``olearn serve`` subprocess."""

    def __init__(self, args, state_dir, port, token_file):
        self.args, self.state_dir, self.port, self.token_file = args, state_dir, port, token_file
        self.url = f"http://127.0.0.1:{port}"
        self.process = None
        self.log = state_dir + ".log"
        os.makedirs(os.path.dirname(self.log), exist_ok=True)

    def start(self, timeout=PATIENCE):
        command = [sys.executable, "-m", "olearn", "serve", *self.args, "--state-dir", self.state_dir,
                   "--port", str(self.port), *(("--token-file", self.token_file) if self.token_file else ())]
        with open(self.log, "ab") as log:
            self.process = interruptible.Popen(command, stdout=log, stderr=log)
        wait_until_ready(self.process, self.url, timeout, self.output)
        return self

    def output(self):
        with open(self.log, errors="replace") as fh:
            return fh.read()[-3000:]

    def kill(self):
        """kill -9, and wait for the process to be gone."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self):
        """A clean shutdown (SIGINT, as Ctrl-C), or kill -9 if it takes too long; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode

    def client(self, token=TOKEN):
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=PATIENCE)


def assert_same_model(served, offline):
    """The two learners hold the same state, bit for bit, and the same vocabulary in the same order."""
    arrays, state = served._get_state()
    want_arrays, want_state = offline._get_state()
    assert state == want_state
    assert sorted(arrays) == sorted(want_arrays)
    for name in arrays:
        a, b = np.asarray(arrays[name]), np.asarray(want_arrays[name])
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert list(served.vocabulary_.items()) == list(offline.vocabulary_.items())
