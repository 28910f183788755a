"""The group commit of ``olearn serve`` in process: the fsyncs of the log a single ``/learn`` waits for (issue #35).

At 64 requests in flight the rate of single-example ``/learn`` is bounded by
the wait for the disk, not by the CPU: every answer waits for the fsync of its
group. This runs the service's writer (``olearn.serve._writer.Writer`` over a
real state folder, PA-I) without HTTP: ``--concurrency`` coroutines each
submit one example at a time (``bench_serve.py``'s examples), for
``--seconds`` seconds, each waiting between an answer and its next request a
time drawn uniformly between 0 and twice ``--client-ms`` (what the answer's
and the next request's way through the sockets, the client and uvicorn takes
under HTTP: without it the 64 answered at once come back at once, and every
group holds them all). Each fsync of the log is counted as it returns; a
request's wait is the number of fsyncs that returned between its submission
and its answer (its own included): at least 1, and 2 when it arrived while
the group before was being fsynced. The count depends on the order of events,
not on how fast the machine is, so it is a firm measure on a loaded machine.

    PYTHONPATH=src python benchmarks/bench_serve_group_commit.py
"""

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_serve  # noqa: E402
import olearn  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, parse_json, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


async def _load(args):
    store = Store(Path(bench_serve.temporary_folder("olearn-bench-group-commit-", args.keep_state)) / "state")
    model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
    fsyncs = [0]
    append = store.append

    def counted(records):
        append(records)
        fsyncs[0] += 1

    store.append = counted
    writer = Writer(model, store, Metrics())
    writer.start()
    rng = random.Random(1)
    bodies = [bench_serve.json.dumps(bench_serve._body(rng, "/learn", 1, False)).encode() for _ in range(200)]
    examples = [read_labelled(parse_json(body), Limits()) for body in bodies]
    waits = []
    end = time.perf_counter() + args.seconds

    async def client(k):
        i = k
        pause = random.Random(k)
        while time.perf_counter() < end:
            await asyncio.sleep(pause.uniform(0.0, 2e-3 * args.client_ms))
            before = fsyncs[0]
            await writer.update("learn", examples[i % len(examples)], None, bodies[i % len(bodies)])
            waits.append(fsyncs[0] - before)
            i += args.concurrency

    started = time.perf_counter()
    try:
        await asyncio.gather(*(client(k) for k in range(args.concurrency)))
        elapsed = time.perf_counter() - started
    finally:  # on Ctrl-C too: the log is closed before its folder is removed
        await writer.stop()
    return waits, fsyncs[0], elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Duration of the load.")
    parser.add_argument("--concurrency", type=int, default=64, help="Requests in flight.")
    parser.add_argument("--client-ms", type=float, default=5.0,
                        help="Mean milliseconds between an answer and the client's next request.")
    bench_serve.add_keep_state_option(parser)
    args = parser.parse_args()
    waits, fsyncs, elapsed = asyncio.run(_load(args))
    print(f"{len(waits):,} updates in {elapsed:.1f} s ({len(waits) / elapsed:,.0f} a second), {args.concurrency} in "
          f"flight, {args.client_ms:g} ms on average between an answer and the next request; {fsyncs:,} fsyncs of "
          f"the log ({len(waits) / fsyncs:.1f} updates each, {1e3 * elapsed / fsyncs:.1f} ms apart)")
    print(f"fsyncs a request waited for: mean {statistics.fmean(waits):.2f}, "
          + ", ".join(f"{n}: {waits.count(n) / len(waits):.0%}" for n in sorted(set(waits))))


if __name__ == "__main__":
    main()
