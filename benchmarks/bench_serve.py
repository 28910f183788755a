"""Load test of ``olearn serve`` on loopback: requests per second and latency, 0 errors, 0 lost updates (issue #17).

A service (``olearn serve --algo pa1``, a fresh state folder, a token) runs
as a subprocess beside the bare app (:func:`bare_app`); ``--clients`` client
processes, each an event loop (uvloop when installed) with ``--concurrency``
kept-alive connections with a request in flight on each, send for
``--seconds`` seconds per scenario, to the bare app first, then to the
service. A client writes HTTP/1.1 from an asyncio protocol, the next request
in the callback that read the last answer (:class:`_Connection`): about
35 us of CPU a single learn on this machine, against about 65 us on
asyncio's streams and more than the service on httpx's async client, so that
the clients leave the cores to the servers they measure. Both apps are
warmed up first (:func:`warm_up`), untimed. The scenarios:

* ``learn x1``: ``POST /learn`` of one example (each acknowledged only once
  fsynced: the group commit shares an fsync among the requests in flight);
* ``learn x100``: batches of 100 examples;
* ``predict x1`` and ``predict x100``: ``POST /predict``.

``--scenarios`` runs some of them only (``--scenarios "learn x100"``). The
service, the bare app and the client processes share the machine's cores:
each row has the CPU seconds per second each side took (the server's from
``/proc``, the clients' their own process time) and the server's CPU time per
request, the firmer measure when other jobs share the cores.

An example has 20 features: 15 indices among 1,000 and 5 names, each value
a Gaussian number rounded to 4 decimals, or, with ``--full-precision``,
written as its full ``repr`` (up to 17 significant digits, as a client that
sends its floats as they are writes them). Every
answer is checked (status 200; a learn answer's count). After the learn
scenarios the service's update count must equal the sum of the
acknowledged examples, and again after a ``kill -9`` and a restart (0 lost
updates). Latency is measured by the clients, request by request, on connections opened
before the load starts (:func:`_client`), and given as p50, p90, p99 and max.

    PYTHONPATH=src python benchmarks/bench_serve.py                 # 4 x 10 s
    PYTHONPATH=src python benchmarks/bench_serve.py --seconds 2     # a smoke test
    PYTHONPATH=src python benchmarks/bench_serve.py --max-pending 0 # /predict keeping nothing for feedback
    PYTHONPATH=src python benchmarks/bench_serve.py --seconds 4 --scenarios "learn x100"
    PYTHONPATH=src python benchmarks/bench_serve.py --seconds 4 --scenarios "learn x100" --full-precision

Prints a markdown table and writes ``benchmarks/_work/serve_results.json``. The state folder (a temporary one,
shared with ``bench_serve_learn_one.py``, ``bench_serve_predict.py`` and ``bench_serve_group_commit.py``) is removed
at the end, after an error or Ctrl-C too, unless ``--keep-state`` is given (:func:`temporary_folder`).
"""

import argparse
import asyncio
import atexit
import json
import math
import multiprocessing
import os
import platform
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
from prometheus_client.parser import text_string_to_metric_families

WORK = Path(__file__).resolve().parent / "_work"
# the scenarios by name: the route and the examples per request
_SCENARIOS = {"learn x1": ("/learn", 1), "learn x100": ("/learn", 100), "predict x1": ("/predict", 1),
              "predict x100": ("/predict", 100)}
_CONTENT_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *([0-9]+)")


def _value(rng, full_precision):
    """A feature's value: a Gaussian number rounded to 4 decimals, or, ``full_precision``, as it is (written as its
    ``repr``, up to 17 significant digits)."""
    value = rng.gauss(0, 1)
    return value if full_precision else round(value, 4)


def _example(rng, full_precision):
    x = {str(j): _value(rng, full_precision) for j in rng.sample(range(1000), 15)}
    x.update({f"f{j}": _value(rng, full_precision) for j in rng.sample(range(50), 5)})
    return x


def _body(rng, route, batch, full_precision):
    if batch == 1:
        x = _example(rng, full_precision)
        return {"x": x, "y": rng.choice((-1, 1))} if route == "/learn" else {"x": x}
    xs = [_example(rng, full_precision) for _ in range(batch)]
    return {"x": xs, "y": [rng.choice((-1, 1)) for _ in xs]} if route == "/learn" else {"x": xs}


class _Connection(asyncio.Protocol):
    """One kept-alive connection of a client: the next request written as soon as the answer to the last is whole.

    A protocol rather than asyncio's streams: an answer is read and the next request written in the callback
    that received the answer's last bytes, with no task, future or stream buffer in between, so that the clients
    take a fraction of the CPU of the servers they load (each row reports both). Connected before the load
    starts, its first request written by :meth:`start`.
    """

    def __init__(self, requests, first, step, route, closed):
        self.requests, self.i, self.step, self.route, self.closed = requests, first, step, route, closed
        self.buffer, self.started, self.end = b"", 0.0, 0.0
        self.latencies, self.errors, self.learned = [], 0, 0

    def connection_made(self, transport):
        self.transport = transport

    def start(self, end):
        """Send the first request, and the next ones until the time ``end`` (``time.perf_counter``)."""
        self.end = end
        self._send()

    def _send(self):
        self.started = time.perf_counter()
        self.transport.write(self.requests[self.i % len(self.requests)])
        self.i += self.step

    def data_received(self, data):
        self.buffer += data
        head_end = self.buffer.find(b"\r\n\r\n")
        if head_end < 0:
            return
        end = head_end + 4 + int(_CONTENT_LENGTH.search(self.buffer, 0, head_end + 2)[1])
        if len(self.buffer) < end:
            return
        now = time.perf_counter()
        self.latencies.append(now - self.started)
        if self.buffer[9:12] != b"200":
            self.errors += 1
        elif self.route == "/learn":
            self.learned += json.loads(self.buffer[head_end + 4:end])["learned"]
        self.buffer = self.buffer[end:]
        if now < self.end:
            self._send()
        else:
            self.transport.close()

    def connection_lost(self, exc):
        if not self.closed.done():
            self.closed.set_result(exc)


def request_bytes(route, batch, seed, token, full_precision=False):
    """The requests a client sends, made before its load starts (200 bodies of its seed): a client's CPU and the
    measured window are then those of the load only. Their values are rounded to 4 decimals, or
    ``full_precision``, each the ``repr`` of a float."""
    rng = random.Random(seed)
    bodies = [json.dumps(_body(rng, route, batch, full_precision)).encode() for _ in range(200)]
    return [(f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
             f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
            for body in bodies]


async def _client(port, requests, route, start_at, seconds, concurrency):
    """Load ``route`` from the time ``start_at`` (``time.monotonic``, the same clock in every process) for
    ``seconds``: the latencies, the errors, the examples learned, the CPU seconds this client process took while
    sending (the clients share the machine's cores with the service) and the times of its first request and of
    its last answer, from which the window of the load is measured.

    The connections are opened before ``start_at``, as a client's pool of kept-alive connections is: a
    connection opened under load waits to be accepted (uvloop's servers accept one connection per turn of their
    loop, ~20-50 ms each at 64 requests in flight: the 64th first request took 2 s), which is not the latency of
    a request (docs/serve.md)."""
    loop = asyncio.get_running_loop()
    connections, closed = [], []
    for k in range(concurrency):
        closed.append(loop.create_future())
        connections.append((await loop.create_connection(
            lambda k=k: _Connection(requests, k, concurrency, route, closed[k]), "127.0.0.1", port))[1])
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    cpu = time.process_time()
    first = time.monotonic()
    end = time.perf_counter() + max(0.0, start_at + seconds - first)
    for connection in connections:
        connection.start(end)
    await asyncio.gather(*closed)
    latencies = [latency for connection in connections for latency in connection.latencies]
    return (latencies, sum(c.errors for c in connections), sum(c.learned for c in connections),
            time.process_time() - cpu, first, time.monotonic())


def _client_process(args):
    """A client's load, on uvloop when it is installed (the servers' loop: cheaper per request than asyncio's)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(_client(*args))
    return uvloop.run(_client(*args))


def client_pool(processes):
    """The pool of the client processes. They ignore Ctrl-C, which stops the script: a worker killed by it would
    be replaced by one the pool's ``terminate`` then waits for forever, and the script would hang."""
    return multiprocessing.Pool(processes, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))


def run_clients(pool, jobs):
    """Run the clients' ``jobs`` (``(port, requests, route, seconds, concurrency)`` each) in ``pool``, all from one
    moment: their results, and the window of the load in seconds (from the first request sent to the last answer
    received, across the clients). Rates are measured over that window, not over the time the pool takes to
    hand the clients their requests, in which no request is in flight."""
    start_at = time.monotonic() + 0.25  # time for the pool to hand the requests over (a late client starts late)
    results = pool.map(_client_process, [(port, requests, route, start_at, seconds, concurrency)
                                         for port, requests, route, seconds, concurrency in jobs])
    return results, max(r[5] for r in results) - min(r[4] for r in results)


def latency_ms(latencies):
    """The distribution of ``latencies`` (seconds, every request's): ``{"p50_ms", "p90_ms", "p99_ms", "max_ms"}``."""
    p50, p90, p99 = np.percentile(latencies, [50, 90, 99])
    return {"p50_ms": 1e3 * float(p50), "p90_ms": 1e3 * float(p90), "p99_ms": 1e3 * float(p99),
            "max_ms": 1e3 * float(np.max(latencies))}


def cpu_seconds(pid):
    """The CPU time (user and system, all threads) the process ``pid`` has taken so far, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def temporary_folder(prefix, keep=False):
    """A new temporary folder (for a service's state and token), removed when the script exits, after an error or
    Ctrl-C too, unless ``keep`` (``--keep-state``: its path is printed then). The scripts stop the processes
    that write in it before they exit (their ``finally``, and :func:`_start` and :func:`start_both` when a start
    fails or is interrupted)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(_remove_or_show, folder, keep)
    return folder


def _remove_or_show(folder, keep):
    if keep:
        print(f"the service's state is kept in {folder}", file=sys.stderr)
        return
    shutil.rmtree(folder, ignore_errors=True)
    if os.path.exists(folder):
        print(f"could not remove {folder} entirely", file=sys.stderr)


def add_keep_state_option(parser):
    parser.add_argument("--keep-state", action="store_true",
                        help="Keep the temporary folder of the service's state (and its token) and print where it "
                             "is, rather than remove it at the end.")


def _start(command, url, capture=False):
    process = subprocess.Popen(command, stderr=subprocess.PIPE if capture else subprocess.DEVNULL, text=True)
    try:
        for _ in range(2400):
            try:
                if httpx.get(f"{url}/ready").status_code == 200:
                    return process
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the service did not start")
    except BaseException:
        process.kill()
        process.wait()
        raise


def _replay_seconds(server):
    """The seconds the restarted ``server`` (stopped, its stderr captured) took to replay its log."""
    replayed = re.search(r"replayed in ([0-9.]+) s", server.stderr.read())
    return float(replayed[1]) if replayed else math.nan


def start_both(folder, token_file, max_pending, max_batch):
    """``olearn serve --algo pa1`` on a state folder in ``folder`` and the bare app, each on a free port:
    ``(command, port, url, server, bare, bare_port)``, both processes running."""
    port, bare_port = _free_port(), _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "olearn", "serve", "--algo", "pa1", "--state-dir", os.path.join(folder, "state"),
               "--port", str(port), "--token-file", token_file, "--max-batch", str(max_batch)]
    if max_pending is not None:
        command += ["--max-pending", str(max_pending)]
    bare = subprocess.Popen([sys.executable, "-c", "import sys, uvicorn; sys.path.insert(0, sys.argv[1]); "
                             "import bench_serve; uvicorn.run(bench_serve.bare_app(), host='127.0.0.1', "
                             "port=int(sys.argv[2]), log_level='warning', access_log=False)",
                             str(Path(__file__).resolve().parent), str(bare_port)], stderr=subprocess.DEVNULL)
    try:
        server = _start(command, url)
    except BaseException:
        bare.kill()
        bare.wait()
        raise
    return command, port, url, server, bare, bare_port


def bare_app():
    """The anchor: Starlette routes that read the body, decode its JSON and answer as the service does."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def learn(request):
        document = json.loads(await request.body())
        x = document["x"]
        n = len(x) if isinstance(x, list) else 1
        return JSONResponse({"seq": n, "learned": n})

    async def predict(request):
        document = json.loads(await request.body())
        x = document["x"]
        return JSONResponse({"y": [1] * len(x), "score": [0.0] * len(x)} if isinstance(x, list)
                            else {"y": 1, "score": 0.0})

    async def health(request):
        return JSONResponse({"updates": 0})

    return Starlette(routes=[Route("/learn", learn, methods=["POST"]), Route("/predict", predict, methods=["POST"]),
                             Route("/health", health)])


def _load(pool, pid, port, token, route, batch, args, full_precision=False):
    """Load ``route`` of the service ``pid`` at ``port`` with batches of ``batch`` (their values ``full_precision``
    or not, see :func:`request_bytes`): one row of the table, with the CPU seconds per second the service and the
    client processes took."""
    load_start = os.getloadavg()[0]
    jobs = [(port, request_bytes(route, batch, 100 * k + batch, token, full_precision), route, args.seconds,
             args.concurrency) for k in range(args.clients)]
    cpu = cpu_seconds(pid)
    results, elapsed = run_clients(pool, jobs)
    cpu = cpu_seconds(pid) - cpu
    latencies = np.concatenate([r[0] for r in results])
    return {"scenario": f"{route[1:]} x{batch}", "requests": int(latencies.size),
            "requests_per_s": latencies.size / elapsed, "examples_per_s": latencies.size * batch / elapsed,
            **latency_ms(latencies),
            "errors": sum(r[1] for r in results), "learned": sum(r[2] for r in results), "seconds": elapsed,
            "server_cpu_per_s": cpu / elapsed, "clients_cpu_per_s": sum(r[3] for r in results) / elapsed,
            "server_cpu_ms_per_request": 1e3 * cpu / max(latencies.size, 1),
            "load_average": [load_start, os.getloadavg()[0]]}


def warm_up(pool, server, port, bare, bare_port, url, token, args):
    """Warm both apps up, untimed: the service's kernels loaded and both classes known (two examples), then one
    second of single learns on each (its model grown to the 1,050 features of the examples, the clients' and
    the servers' code paths run): a first measured load that pays for these is not a sample like the others.
    The examples the service acknowledged and the seconds it learned them in."""
    httpx.post(f"{url}/learn", json={"x": [{"999": 1.0}, {"0": -1.0}], "y": [1, -1]},  # the largest index first,
               headers={"Authorization": f"Bearer {token}"}).raise_for_status()  # the names after the indices
    second = argparse.Namespace(**{**vars(args), "seconds": 1.0})
    _load(pool, bare.pid, bare_port, token, "/learn", 1, second)
    row = _load(pool, server.pid, port, token, "/learn", 1, second)
    return 2 + row["learned"], row["seconds"]


def _distribution(row, prefix=""):
    return ", ".join(f"{row[f'{prefix}{key}_ms']:.0f}" for key in ("p50", "p90", "p99", "max"))


def _updates(url, token):
    return httpx.get(f"{url}/health", headers={"Authorization": f"Bearer {token}"}).json()["updates"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="Duration of each scenario.")
    parser.add_argument("--clients", type=int, default=2, help="Client processes.")
    parser.add_argument("--concurrency", type=int, default=32, help="Requests in flight per client process.")
    parser.add_argument("--max-pending", type=int, default=None,
                        help="The service's --max-pending (0: /predict keeps no prediction for feedback and writes "
                             "nothing to the log).")
    parser.add_argument("--scenarios", default=",".join(_SCENARIOS),
                        help="The scenarios to run, separated by commas (default: all four, in this order).")
    parser.add_argument("--full-precision", action="store_true",
                        help="Write each value as its full repr (up to 17 significant digits), not rounded to "
                             "4 decimals.")
    add_keep_state_option(parser)
    args = parser.parse_args()
    scenarios = [_SCENARIOS[name.strip()] for name in args.scenarios.split(",")]
    folder = temporary_folder("olearn-bench-serve-", args.keep_state)
    token = secrets.token_urlsafe(32)
    token_file = os.path.join(folder, "token")
    with open(token_file, "w") as fh:
        fh.write(token)
    command, port, url, server, bare, bare_port = start_both(folder, token_file, args.max_pending, 100)
    rows = []
    try:
        with client_pool(args.clients) as pool:
            acknowledged, live_seconds = warm_up(pool, server, port, bare, bare_port, url, token, args)
            for route, batch in scenarios:
                # the anchor first, then the service, in the same run
                bare_row = _load(pool, bare.pid, bare_port, token, route, batch, args, args.full_precision)
                row = _load(pool, server.pid, port, token, route, batch, args, args.full_precision)
                for key in ("requests_per_s", "examples_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms",
                            "server_cpu_per_s", "clients_cpu_per_s", "server_cpu_ms_per_request"):
                    row[f"bare_{key}"] = bare_row[key]
                acknowledged += row["learned"]
                if route == "/learn":
                    live_seconds += row["seconds"]
                rows.append(row)
                print(f"{row['scenario']}: {row['requests_per_s']:,.0f} req/s ({row['requests_per_s'] / row['bare_requests_per_s']:.2f}x "
                      f"the bare app's {row['bare_requests_per_s']:,.0f}), p50 {row['p50_ms']:.2f} ms, "
                      f"p90 {row['p90_ms']:.2f} ms, p99 {row['p99_ms']:.2f} ms, max {row['max_ms']:.2f} ms (bare app: "
                      f"{row['bare_p50_ms']:.2f}, {row['bare_p90_ms']:.2f}, {row['bare_p99_ms']:.2f}, "
                      f"{row['bare_max_ms']:.2f} ms), {row['errors']} errors; CPU s/s: service "
                      f"{row['server_cpu_per_s']:.2f}, its clients {row['clients_cpu_per_s']:.2f}, bare app "
                      f"{row['bare_server_cpu_per_s']:.2f}, its clients {row['bare_clients_cpu_per_s']:.2f}; CPU ms per "
                      f"request: service {row['server_cpu_ms_per_request']:.2f}, bare app "
                      f"{row['bare_server_cpu_ms_per_request']:.2f}; "
                      f"load average {row['load_average'][0]:.1f}-{row['load_average'][1]:.1f}", flush=True)
        served = _updates(url, token)
        groups = {sample.name: sample.value for family in text_string_to_metric_families(
            httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"}).text)
                  for sample in family.samples if sample.name.startswith("olearn_log_group_updates")}
        per_fsync = groups["olearn_log_group_updates_sum"] / groups["olearn_log_group_updates_count"]
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        server = _start(command, url, capture=True)
        recovered = _updates(url, token)
    finally:
        server.kill()
        server.wait()
        bare.kill()
        bare.wait()
    replay_seconds = _replay_seconds(server)
    lost = acknowledged - recovered
    print(f"\nacknowledged examples {acknowledged:,}, served {served:,}, after kill -9 and restart {recovered:,}: "
          f"{lost} lost")
    print(f"updates per write and fsync of the log (group commit), on average: {per_fsync:.1f}")
    print(f"restart: the log of {acknowledged:,} examples replayed in {replay_seconds:.2f} s; learned live in "
          f"{live_seconds:.1f} s ({live_seconds / replay_seconds:.1f}x)")
    print(f"\n{args.clients} client processes x {args.concurrency} in flight, {args.seconds:g} s per scenario, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}\n")
    print("| scenario | requests/s | examples/s | bare app requests/s | ratio | p50, p90, p99, max ms | bare app's "
          "| errors | CPU s/s: service, clients | bare app, clients | CPU ms per request: service, bare app |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['scenario']} | {row['requests_per_s']:,.0f} | {row['examples_per_s']:,.0f} | "
              f"{row['bare_requests_per_s']:,.0f} | {row['requests_per_s'] / row['bare_requests_per_s']:.2f}x | "
              f"{_distribution(row)} | {_distribution(row, 'bare_')} | {row['errors']} | "
              f"{row['server_cpu_per_s']:.2f}, {row['clients_cpu_per_s']:.2f} | "
              f"{row['bare_server_cpu_per_s']:.2f}, {row['bare_clients_cpu_per_s']:.2f} | "
              f"{row['server_cpu_ms_per_request']:.2f}, {row['bare_server_cpu_ms_per_request']:.2f} |")
    WORK.mkdir(exist_ok=True)
    with open(WORK / "serve_results.json", "w") as fh:
        json.dump({"rows": rows, "acknowledged": acknowledged, "served": served, "recovered": recovered,
                   "updates_per_fsync": per_fsync, "replay_seconds": replay_seconds, "live_seconds": live_seconds, "clients": args.clients, "concurrency": args.concurrency, "seconds": args.seconds, "full_precision": args.full_precision}, fh, indent=1)
    if lost or served != acknowledged or any(row["errors"] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
