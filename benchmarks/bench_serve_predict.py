"""Latency of batch ``/predict`` on ``olearn serve`` at 64 requests in flight, alone and beside learning (issue #35).

The aim of issue #35: a batch ``/predict`` of 100 examples answered with a
p99 under 100 ms at 64 requests in flight. A service (``olearn serve --algo
pa1``, a fresh state folder, a token) and the bare Starlette app of
``bench_serve.py`` (its routes only decode the JSON body and answer) run as
subprocesses; ``--clients`` client processes x ``--concurrency`` kept-alive
connections send batches of 100 examples (20 features each) for
``--seconds`` seconds per scenario:

* ``bare``: the bare app's ``/predict``, the anchor of the same run;
* ``predict``: the service's ``/predict`` (with feedback on: each keeps its features,
  logged with the writer's next group, and is answered without waiting for it);
* ``predict + learning``: the same, while one more client process keeps
  ``--learners`` batches of 100 examples to ``/learn`` in flight.

Every answer is checked (status 200); latency is measured by the clients, request by
request, on connections opened before the load starts (see ``bench_serve._client``), and
given as p50, p90, p99 and max; the CPU time the server process took per request (learning requests
included) from ``/proc``, with the share of a core it took over the scenario, and the
CPU time the client processes took per request: on a loaded machine the latencies
swing with the other jobs, the CPU time per request much less. The p99 of each
scenario is also given as a ratio to the bare app's p99 in the same run (the floor
of the harness and the machine at that load).

    PYTHONPATH=src python benchmarks/bench_serve_predict.py                  # 3 x 10 s
    PYTHONPATH=src python benchmarks/bench_serve_predict.py --seconds 2      # a smoke test
    PYTHONPATH=src python benchmarks/bench_serve_predict.py --max-pending 0  # /predict keeping nothing

Prints a markdown table and writes ``benchmarks/_work/serve_predict_results.json``.
"""

import argparse
import json
import os
import platform
import secrets
import sys

import httpx
import numpy as np

from bench_serve import WORK, add_keep_state_option, client_pool, cpu_seconds, latency_ms, request_bytes, run_clients, \
    start_both, temporary_folder

_BATCH = 100


def _scenario(pool, pid, port, token, args, learners):
    """Load ``/predict`` of the service ``pid`` at ``port`` (and ``/learn`` with ``learners`` in flight, if any)."""
    jobs = [(port, request_bytes("/predict", _BATCH, k, token), "/predict", args.seconds, args.concurrency)
            for k in range(args.clients)]
    if learners:
        jobs.append((port, request_bytes("/learn", _BATCH, 1000, token), "/learn", args.seconds, learners))
    load_start = os.getloadavg()[0]
    cpu = cpu_seconds(pid)
    # each: the latencies, the errors, the examples learned and the CPU time the client took while sending (its
    # requests made before); the window of the load, from the first request to the last answer
    results, elapsed = run_clients(pool, jobs)
    cpu = cpu_seconds(pid) - cpu
    latencies = np.concatenate([r[0] for r in results[:args.clients]])
    row = {"requests_per_s": latencies.size / elapsed, **latency_ms(latencies), "errors": sum(r[1] for r in results),
           "cpu_ms_per_request": 1e3 * cpu / (latencies.size + (len(results[-1][0]) if learners else 0)),
           "server_core_share": cpu / elapsed,
           "client_cpu_ms_per_request": 1e3 * sum(r[3] for r in results[:args.clients]) / latencies.size,
           "load_average": [load_start, os.getloadavg()[0]]}
    if learners:
        row["learned_per_s"] = results[-1][2] / elapsed
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="Duration of each scenario.")
    parser.add_argument("--clients", type=int, default=2, help="Client processes sending /predict.")
    parser.add_argument("--concurrency", type=int, default=32, help="Requests in flight per client process.")
    parser.add_argument("--learners", type=int, default=4, help="Batches to /learn in flight beside them.")
    parser.add_argument("--max-pending", type=int, default=None,
                        help="The service's --max-pending (0: /predict keeps nothing for feedback).")
    add_keep_state_option(parser)
    args = parser.parse_args()
    folder = temporary_folder("olearn-bench-serve-predict-", args.keep_state)
    token = secrets.token_urlsafe(32)
    token_file = os.path.join(folder, "token")
    with open(token_file, "w") as fh:
        fh.write(token)
    _, port, url, server, bare, bare_port = start_both(folder, token_file, args.max_pending, _BATCH)
    rows = {}
    try:
        # warm-up: numba's kernels loaded, both classes known
        httpx.post(f"{url}/learn", json={"x": [{"999": 1.0}, {"0": -1.0}], "y": [1, -1]},
                   headers={"Authorization": f"Bearer {token}"}).raise_for_status()
        with client_pool(args.clients + 1) as pool:
            rows["bare"] = _scenario(pool, bare.pid, bare_port, token, args, 0)
            rows["predict"] = _scenario(pool, server.pid, port, token, args, 0)
            rows["predict + learning"] = _scenario(pool, server.pid, port, token, args, args.learners)
    finally:
        server.kill()
        server.wait()
        bare.kill()
        bare.wait()
    print(f"\n{args.clients} client processes x {args.concurrency} in flight (batches of {_BATCH}), "
          f"{args.seconds:g} s per scenario, {args.learners} batches to /learn in flight beside the last, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}\n")
    print("| scenario | requests/s | p50 ms | p90 ms | p99 ms | max ms | p99 / bare p99 | server CPU ms per request "
          "| server's share of a core | clients' CPU ms per request | learned examples/s | errors | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, row in rows.items():
        learned = f"{row['learned_per_s']:,.0f}" if "learned_per_s" in row else ""
        print(f"| {name} | {row['requests_per_s']:,.0f} | {row['p50_ms']:.1f} | {row['p90_ms']:.1f} | "
              f"{row['p99_ms']:.1f} | {row['max_ms']:.1f} | "
              f"{row['p99_ms'] / rows['bare']['p99_ms']:.2f}x | {row['cpu_ms_per_request']:.2f} | "
              f"{row['server_core_share']:.2f} | {row['client_cpu_ms_per_request']:.2f} | {learned} | "
              f"{row['errors']} | {row['load_average'][0]:.1f}-{row['load_average'][1]:.1f} |")
    WORK.mkdir(exist_ok=True)
    with open(WORK / "serve_predict_results.json", "w") as fh:
        json.dump({"rows": rows, "args": vars(args)}, fh, indent=1)
    if any(row["errors"] for row in rows.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
