"""Starting a service: the probes (/live at once, /ready once the state is recovered and the kernels warm),
the kernels warmed up before any request, the port bound named, and a resumed state said to differ from
the command line."""

import asyncio
import contextlib
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
import httpx  # noqa: E402

from olearn.serve._startup import Starting  # noqa: E402


class _Lifespan:
    """Drives the lifespan protocol of an ASGI application by hand."""

    def __init__(self, app):
        self.messages = asyncio.Queue()
        self.sent = []
        self.task = asyncio.get_running_loop().create_task(app({"type": "lifespan"}, self.messages.get,
                                                                self._send))
        self.started = asyncio.Event()

    async def _send(self, message):
        self.sent.append(message["type"])
        if message["type"] == "lifespan.startup.complete":
            self.started.set()

    async def start(self):
        await self.messages.put({"type": "lifespan.startup"})
        await self.started.wait()

    async def stop(self):
        await self.messages.put({"type": "lifespan.shutdown"})
        await self.task


async def _poll(client, path, status, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (await client.get(path)).status_code == status:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never answered {status}")


def test_live_at_once_ready_and_the_routes_once_built():
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    gate = threading.Event()
    entered = []

    async def health(request):
        return JSONResponse({"status": "ok"})

    @contextlib.asynccontextmanager
    async def lifespan(app):
        entered.append("writer started")
        yield
        entered.append("writer stopped")

    def build():
        assert gate.wait(timeout=60)  # the recovery and the warm-up, held until the test lets them end
        app = Starlette(routes=[Route("/health", health)], lifespan=lifespan)
        return app, lambda: True

    async def scenario():
        app = Starting(build, on_ready=lambda: entered.append("ready"), on_failure=pytest.fail)
        lifespan = _Lifespan(app)
        await lifespan.start()  # the port opens now: uvicorn binds once the startup is complete
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            assert (await client.get("/live")).json() == {"status": "alive"}
            not_ready = await client.get("/ready")
            assert not_ready.status_code == 503 and "starting" in not_ready.json()["error"]
            assert (await client.get("/health")).status_code == 503
            assert entered == []
            gate.set()
            await _poll(client, "/ready", 200)
            assert entered == ["writer started", "ready"]
            assert (await client.get("/health")).json() == {"status": "ok"}
            assert (await client.get("/live")).status_code == 200
        await lifespan.stop()
        assert entered == ["writer started", "ready", "writer stopped"]
        assert lifespan.sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]

    asyncio.run(scenario())


def test_a_service_that_cannot_be_built_reports_it_and_is_never_ready():
    failures = []

    def build():
        raise ValueError("the log is damaged")

    async def scenario():
        app = Starting(build, on_ready=pytest.fail, on_failure=failures.append)
        lifespan = _Lifespan(app)
        await lifespan.start()
        deadline = time.monotonic() + 60
        while not failures and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            assert (await client.get("/ready")).status_code == 503
            assert (await client.get("/live")).status_code == 200
        await lifespan.stop()
        return app

    app = asyncio.run(scenario())
    assert [str(err) for err in failures] == ["the log is damaged"] and app.failure is failures[0]


_WARM_UP_CHECK = textwrap.dedent("""
    import gc, sys
    from numba.core.registry import CPUDispatcher
    import olearn
    from olearn.serve._model import ServedModel
    from olearn.serve._requests import Limits, parse_json, read_features, read_labelled
    from olearn.serve._warmup import warm_up

    def loaded():
        return sum(len(d.overloads) for d in gc.get_objects() if isinstance(d, CPUDispatcher))

    est = {learner}
    before = loaded()
    warm_up(est)
    warmed = loaded()
    assert warmed > before, "the warm-up loaded no kernel"
    assert not est._is_started(), "the warm-up changed the served learner"
    model = ServedModel(est)
    model.predict(read_features(parse_json('{{"x": {{"0": 1.0}}}}'), Limits()))
    model.apply("predict_learn", read_labelled(parse_json('{{"x": {{"3": 2.0, "city": "Rome"}}, "y": {label}}}'),
                                               Limits()))
    model.predict(read_features(parse_json('{{"x": [{{"0": 1.0}}, {{"5": 2.0}}]}}'), Limits()))
    model.apply("learn", read_labelled(parse_json('{{"x": [{{"0": 1.0}}, {{"7": 2.0}}], "y": [{label}, {label}]}}'),
                                       Limits()))
    assert loaded() == warmed, f"the requests loaded {{loaded() - warmed}} kernel(s) after the warm-up"
    print("ok")
""")


@pytest.mark.parametrize("learner, label", [("olearn.Winnow()", "1"), ("olearn.PAMulticlass()", '"b"'),
                                            ("olearn.PAMultilabel()", '["a"]')])
def test_the_warm_up_loads_every_kernel_the_requests_run(learner, label):
    """In a fresh process, so that no kernel was loaded by another test."""
    done = subprocess.run([sys.executable, "-c", _WARM_UP_CHECK.format(learner=learner, label=label)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_port_0_names_the_port_bound_and_ready_answers_there(tmp_path):
    command = [sys.executable, "-m", "olearn", "serve", "--algo", "pa1", "--public-reads", "--state-dir",
               str(tmp_path / "state"), "--port", "0"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in process.stderr:  # hang guard: the process is killed below if this never ends
            lines.append(line)
            if "serving" in line:
                break
        assert lines and "serving" in lines[-1], lines
        url = lines[-1].split(" on ", 1)[1].split()[0]
        port = int(url.rsplit(":", 1)[1])
        assert port != 0, lines
        assert httpx.get(f"{url}/ready", timeout=30).json() == {"status": "ready"}
    finally:
        process.kill()
        process.wait()


def test_a_restart_with_another_algo_says_the_state_is_resumed(serve, tmp_path):
    state = tmp_path / "state"
    server = serve(["--algo", "pa1", "-C", "0.5"], state)
    with server.client() as client:
        assert client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).json()["seq"] == 1
    server.kill()
    same = serve(["--algo", "pa1", "-C", "0.5"], state)
    same.kill()
    assert "is resumed" not in same.output()
    other = serve(["--algo", "pa2", "-C", "0.1"], state)
    with other.client() as client:
        assert client.get("/health").json()["updates"] == 1
    warning = [line for line in other.output().splitlines() if "warning" in line]
    assert len(warning) == 1 and "PAClassifier(C=0.5)" in warning[0] and "--algo pa2" in warning[0], warning
    assert "not used" in warning[0] and os.fspath(state) in warning[0]
