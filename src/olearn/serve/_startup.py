"""The probes of a service, answered from the moment its port opens: ``/live`` and ``/ready``.

Recovering the state (loading a snapshot, replaying the log) and warming the
learner's kernels up can take minutes. The port opens first, so that an
orchestrator sees the process alive, and :class:`Starting` (the ASGI
application uvicorn runs) builds the service in a thread meanwhile:

* ``GET /live`` answers 200 as long as the process runs;
* ``GET /ready`` answers 503 until the service is built, then 200 while it
  takes requests (503 again once its writer has stopped);
* every other route answers 503 until the service is built, then goes to it.

A failure to build the service (a damaged log, an unusable state folder) is
handed to ``on_failure``, which stops the server.
"""

import asyncio
import contextlib
import json
import threading

PROBES = ("/live", "/ready")


async def _respond(send, status, document, headers=()):
    body = json.dumps(document).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


class Starting:
    """An ASGI application: the probes at once; the other routes once ``build()`` (run in a thread) returns them.

    ``build`` returns ``(app, ready)``: the service's Starlette application
    (its lifespan is entered once it is built) and a callable telling whether
    it takes requests. ``on_ready()`` is called once the routes go to it;
    ``on_failure`` receives the exception if ``build`` raises.
    """

    def __init__(self, build, on_ready, on_failure):
        self._build = build
        self._on_ready = on_ready
        self._on_failure = on_failure
        self._app = None
        self._ready = None
        self._lifespan = None
        self.failure = None

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._run_lifespan(receive, send)
        elif scope["type"] == "http" and scope["path"] == "/live":
            await _respond(send, 200, {"status": "alive"})
        elif scope["type"] == "http" and scope["path"] == "/ready":
            if self._app is not None and self._ready():
                await _respond(send, 200, {"status": "ready"})
            else:
                await _respond(send, 503, {"error": self._why_not()}, [(b"retry-after", b"1")])
        elif self._app is None:
            await _respond(send, 503, {"error": self._why_not()}, [(b"retry-after", b"1")])
        else:
            await self._app(scope, receive, send)

    def _why_not(self):
        if self._app is None:
            return "starting: recovering the state and warming the learner up; /ready answers 200 once done"
        return "the service is stopping"

    async def _run_lifespan(self, receive, send):
        await receive()  # lifespan.startup
        task = asyncio.get_running_loop().create_task(self._start())
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._lifespan is not None:
            await self._lifespan.__aexit__(None, None, None)
        await send({"type": "lifespan.shutdown.complete"})

    async def _start(self):
        try:
            app, ready = await _in_daemon_thread(self._build)
        except Exception as err:
            self.failure = err
            self._on_failure(err)
            return
        lifespan = app.router.lifespan_context(app)
        await lifespan.__aenter__()
        self._lifespan, self._ready, self._app = lifespan, ready, app
        self._on_ready()


async def _in_daemon_thread(func):
    """``func()`` run in a daemon thread (a shutdown does not wait for a long recovery to end)."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(result, error):
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run():
        try:
            result, error = func(), None
        except Exception as err:
            result, error = None, err
        with contextlib.suppress(RuntimeError):  # the loop is closed: the service stopped meanwhile
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="olearn-recovery", daemon=True).start()
    return await future
