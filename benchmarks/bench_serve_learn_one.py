"""Single-example ``/learn`` of ``olearn serve`` against the bare Starlette app, round after round (issue #35).

The aim of issue #35: ``POST /learn`` of one example at >= 0.5x the requests
per second of a bare Starlette route doing the same JSON decode. The service
(``olearn serve --algo pa1``, a fresh state folder, a token; every answer
once its update is fsynced) and the bare app of ``bench_serve.py`` run as
subprocesses; in each of ``--rounds`` rounds, ``--clients`` client processes x
``--concurrency`` kept-alive connections load the bare app's ``/learn`` and
the service's, ``--seconds`` seconds each (the clients of ``bench_serve.py``),
the bare app first in odd rounds and the service first in even ones, so that
a drift of the machine's load does not favour one side. Both are warmed up
first, untimed (``bench_serve.warm_up``: two examples, then one second of
single learns on each), as ``bench_serve.py`` warms them up before its
scenarios.

Round 1 is therefore the ``learn x1`` row of ``bench_serve.py``: the same
clients, bodies, bare app, service, warm-up and order. The two used to
disagree (0.30-0.52x there, medians of 0.49-0.56x here) for two reasons.
``bench_serve.py`` measured its first learns on a cold service, whose
first examples grow its model to their 1,050 features and run its code
paths for the first time, and this benchmark did not. And a single pair of
loads is not a measure on a shared machine: the service's rate is bounded
by its CPU and by its fsyncs (every answer waits for its group's, with 64
requests in flight), the bare app's by the CPU only, so each swings with what other jobs do
to the disk and to the cores, independently. The median of the rounds'
ratios and the CPU time per request are the figures to compare.

Each round reports the requests per second of both and their ratio, and the
CPU time (user and system, all threads, from ``/proc``) each server process
took per request: on a machine shared with other jobs the rates swing with
them from one round to the next, the CPU time per request much less. Every
answer is checked (status 200 and its count), and at the end the service's
update count must equal the examples acknowledged. The updates per fsync of
the log (``olearn_log_group_updates``) are printed at the end.

    PYTHONPATH=src python benchmarks/bench_serve_learn_one.py               # 3 rounds x 2 x 4 s
    PYTHONPATH=src python benchmarks/bench_serve_learn_one.py --rounds 1 --seconds 1   # a smoke test

Prints a markdown table and writes ``benchmarks/_work/serve_learn_one_results.json``.
"""

import argparse
import json
import os
import platform
import secrets
import statistics
import sys

import httpx

from prometheus_client.parser import text_string_to_metric_families

from bench_serve import WORK, _load, _updates, add_keep_state_option, client_pool, start_both, temporary_folder, \
    warm_up


def _measured(pool, pid, port, token, args):
    """One load of ``/learn`` x1 on the server ``pid`` at ``port``: ``bench_serve``'s row, with the server's CPU
    microseconds per request."""
    row = _load(pool, pid, port, token, "/learn", 1, args)
    row["cpu_us_per_request"] = 1e3 * row["server_cpu_ms_per_request"]
    return row


def _updates_per_fsync(url, token):
    """The service's updates per write and fsync of its log, on average since it started."""
    text = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {token}"}).text
    groups = {sample.name: sample.value for family in text_string_to_metric_families(text)
              for sample in family.samples if sample.name.startswith("olearn_log_group_updates")}
    return groups["olearn_log_group_updates_sum"] / groups["olearn_log_group_updates_count"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="Rounds (the bare app, then the service).")
    parser.add_argument("--seconds", type=float, default=4.0, help="Duration of each load.")
    parser.add_argument("--clients", type=int, default=2, help="Client processes.")
    parser.add_argument("--concurrency", type=int, default=32, help="Requests in flight per client process.")
    add_keep_state_option(parser)
    args = parser.parse_args()
    folder = temporary_folder("olearn-bench-learn-one-", args.keep_state)
    token = secrets.token_urlsafe(32)
    token_file = os.path.join(folder, "token")
    with open(token_file, "w") as fh:
        fh.write(token)
    _, port, url, server, bare, bare_port = start_both(folder, token_file, None, 100)
    rounds = []
    try:
        with client_pool(args.clients) as pool:
            acknowledged = warm_up(pool, server, port, bare, bare_port, url, token, args)[0]
            for k in range(args.rounds):
                if k % 2:
                    row = _measured(pool, server.pid, port, token, args)
                    anchor = _measured(pool, bare.pid, bare_port, token, args)
                else:
                    anchor = _measured(pool, bare.pid, bare_port, token, args)
                    row = _measured(pool, server.pid, port, token, args)
                acknowledged += row["learned"]
                rounds.append({"bare": anchor, "service": row})
                print(f"round {k + 1}: {row['requests_per_s']:,.0f} against {anchor['requests_per_s']:,.0f} req/s "
                      f"({row['requests_per_s'] / anchor['requests_per_s']:.2f}x); server CPU "
                      f"{row['cpu_us_per_request']:.0f} against {anchor['cpu_us_per_request']:.0f} us a request; "
                      f"load average {row['load_average'][1]:.1f}", flush=True)
        served = _updates(url, token)
        per_fsync = _updates_per_fsync(url, token)
    finally:
        for process in (server, bare):
            process.kill()
            process.wait()
    print(f"\n{args.clients} client processes x {args.concurrency} in flight, {args.seconds:g} s per load, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}; acknowledged {acknowledged:,}, "
          f"served {served:,}; {per_fsync:.1f} updates per fsync of the log, on average\n")
    print("| round | service req/s | bare req/s | ratio | service CPU us/request | bare CPU us/request | CPU ratio "
          "| service p50, p99 ms | errors | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, pair in enumerate(rounds, 1):
        row, anchor = pair["service"], pair["bare"]
        print(f"| {k} | {row['requests_per_s']:,.0f} | {anchor['requests_per_s']:,.0f} | "
              f"{row['requests_per_s'] / anchor['requests_per_s']:.2f}x | {row['cpu_us_per_request']:.0f} | "
              f"{anchor['cpu_us_per_request']:.0f} | {row['cpu_us_per_request'] / anchor['cpu_us_per_request']:.2f}x | "
              f"{row['p50_ms']:.1f}, {row['p99_ms']:.1f} | {row['errors'] + anchor['errors']} | "
              f"{row['load_average'][1]:.1f} |")
    ratios = [pair["service"]["requests_per_s"] / pair["bare"]["requests_per_s"] for pair in rounds]
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x the bare app's requests per second")
    WORK.mkdir(exist_ok=True)
    with open(WORK / "serve_learn_one_results.json", "w") as fh:
        json.dump({"rounds": rounds, "acknowledged": acknowledged, "served": served, "clients": args.clients,
                   "concurrency": args.concurrency, "seconds": args.seconds, "updates_per_fsync": per_fsync}, fh,
                  indent=1)
    if served != acknowledged or any(pair["service"]["errors"] or pair["bare"]["errors"] for pair in rounds):
        sys.exit(1)


if __name__ == "__main__":
    main()
