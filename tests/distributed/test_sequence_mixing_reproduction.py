"""McDonald, Hall & Mann (2010) on a real tagging data set: iterative parameter mixing of PASequence reaches
the serial learner's accuracy in a few epochs (benchmarks/bench_sequence_mixing.py, docs/distributed.md).

The data are the statements of Python's standard library, each token tagged
with its role as the parser reads it; the tags of a hand-written statement
are checked against a reading by hand. Skipped when the benchmarks or the
standard library's source files are absent.
"""

import importlib.util
import pathlib

import pytest

pytest.importorskip("distributed")

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_sequence_mixing.py"


@pytest.fixture(scope="module")
def bench():
    if not SCRIPT.exists():
        pytest.skip("the benchmarks are not beside the tests")
    spec = importlib.util.spec_from_file_location("bench_sequence_mixing", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_token_is_tagged_with_its_role_as_the_parser_reads_it(bench, tmp_path):
    source = tmp_path / "example.py"
    source.write_text("import os\n\n\ndef g(p, *, q=2):\n    x = f(p.b, key='v')\n    del x\n    return p\n")
    statements = bench.tagged_statements(str(source))
    assert statements == [
        [("import", "KEYWORD"), ("os", "IMPORT")],
        [("def", "KEYWORD"), ("g", "DEF"), ("(", "OP"), ("p", "PARAM"), (",", "OP"), ("*", "OP"), (",", "OP"),
         ("q", "PARAM"), ("=", "OP"), ("2", "NUMBER"), (")", "OP"), (":", "OP")],
        [("x", "STORE"), ("=", "OP"), ("f", "CALL"), ("(", "OP"), ("p", "LOAD"), (".", "OP"), ("b", "ATTR"),
         (",", "OP"), ("key", "KWARG"), ("=", "OP"), ("'v'", "STRING"), (")", "OP")],
        [("del", "KEYWORD"), ("x", "DEL")],
        [("return", "KEYWORD"), ("p", "LOAD")],
    ]
    path = tmp_path / "tagged.conll"
    bench.write_conll(str(path), statements[3:4])
    assert path.read_text() == ("w=del l=del s3=del p2=de sh=xxx -1=<s> +1=x -1t=<s>|del KEYWORD\n"
                                "w=x l=x s3=x p2=x sh=x -1=del +1=</s> -1t=del|x DEL\n\n")


@pytest.mark.slow
def test_iterative_mixing_reaches_the_serial_accuracy_in_a_few_epochs(bench):
    from distributed import Client, LocalCluster

    if len(bench.stdlib_sources()) < 50:
        pytest.skip("the standard library's source files are absent")
    cluster = LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=":0")
    try:
        with Client(cluster) as client:
            rows = bench.reproduce(6000, 2000, n_shards=4, epochs=4, client=client)
    finally:
        cluster.close()
    serial, iterative = rows[-1][1][0], rows[-1][2][0]
    assert serial > 0.9  # the task is learned
    assert iterative >= serial - 0.01  # comparable to the serial learner after a few epochs
