"""CPU time of each stage of a batch ``/learn`` of ``olearn serve``, in process, without HTTP (issue #35).

The batches are ``bench_serve.py``'s (100 examples of 20 features: 15 indices among 1,000 and 5 names, read as
names), learned by PA-I once first so that every name is known (a service's steady state). Each stage is timed
by ``time.process_time`` over ``--batches`` batches, the best of 3 rounds; the route's own work is the sum that
one request pays besides HTTP (decode, read, learn, the log record: the body as received, or on an older service
its examples as JSON), and the replay a logged batch's reading and learning after a restart. Run it against an older ``src`` for before/after:

    PYTHONPATH=src python benchmarks/bench_serve_learn_stages.py
"""

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_serve  # noqa: E402
import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, parse_json, read_labelled  # noqa: E402
from olearn.serve._wal import encode, read_log  # noqa: E402

try:  # the routes' decoding by orjson, where the service has one
    from olearn.serve._fast_json import parse_json_fast as decode_body
except ImportError:
    decode_body = parse_json
try:  # the body logged as received, where the service logs it so
    from olearn.serve._wal import encode_body
except ImportError:
    encode_body = None


def log_record(examples, body, answer):
    """The log record of a learned batch: its body as received, or (an older service) its examples as JSON."""
    if encode_body is None:
        return encode(ServedModel.record("learn", examples, None, None, answer))
    return encode_body(ServedModel.body_header("learn", None, answer), body)


def logged(records):
    """The ``records`` (bytes) as a log reads them back (``read_log`` of a file holding them)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.wal")
        with open(path, "wb") as fh:
            fh.write(b"".join(records))
        return read_log(path)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=600, help="Batches timed per round.")
    args = parser.parse_args()
    rng = random.Random(0)
    bodies = [json.dumps(bench_serve._body(rng, "/learn", 100)).encode() for _ in range(200)]
    estimator = olearn.PAClassifier()
    model = ServedModel(estimator, pending=Pending(max_pending=0))
    limits = Limits(max_batch=100)
    limits.feature_keys = model.feature_keys
    for body in bodies:  # every name learned
        model.apply("learn", read_labelled(parse_json(body), limits))
    documents = [decode_body(body) for body in bodies]
    batches = [read_labelled(document, limits) for document in documents]
    records = logged([log_record(batch, body, {"seq": 0}) for batch, body in zip(batches, bodies)])

    def route(i):
        examples = read_labelled(decode_body(bodies[i]), limits)
        log_record(examples, bodies[i], model.apply("learn", examples))

    def replay(i):
        record = dict(records[i])
        record["seq"] = model.seq + len(batches[i])
        model.replay(record, "names")

    stages = [
        ("decode the body", lambda i: decode_body(bodies[i])),
        ("read the examples", lambda i: read_labelled(documents[i], limits)),
        ("learn (ServedModel.apply)", lambda i: model.apply("learn", batches[i])),
        ("  of which the rows", lambda i: estimator._feature_map().rows(batches[i].dicts, estimator.n_features_in_,
                                                                       True, True, "x")),
        ("  of which the checks", lambda i: model._vouched(batches[i])),
        ("encode the log record", lambda i: log_record(batches[i], bodies[i], {"seq": 0})),
        ("the route's work, all of it", route),
        ("replay a logged batch", replay),
    ]
    print(f"CPU time per batch of 100 (best of 3 rounds of {args.batches} batches)\n")
    print("| stage | us per batch |\n|---|---|")
    for name, stage in stages:
        rounds = []
        for _ in range(3):
            started = time.process_time()
            for k in range(args.batches):
                stage(k % len(bodies))
            rounds.append((time.process_time() - started) / args.batches)
        print(f"| {name} | {1e6 * min(rounds):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
