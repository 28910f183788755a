"""``olearn run --keep-names`` / ``--invert_hash FILE``: the names behind a VW file's hashed columns, in ``inspect``.

The reference columns come from a plain Python MurmurHash3 (x86, 32 bits) of
each name seeded by the hash of its namespace, as Vowpal Wabbit hashes with
``--hash all``; the file's own rows (``load_vw``) must use exactly those columns.
"""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn._persistence import read_input_info
from olearn.cli import cli
from olearn.data import load_vw
from olearn.data._vw_names import vw_feature_names

LINES = [
    "1 |user age:0.3 city=paris |item price:2 color=red",
    "-1 |user age:0.9 city=rome |item price:0.5 color=blue",
    "1 'tag7 | bias:1 |item color=red",
    "-1 2.0 |user city=rome |item price:1 size",
]
# (namespace, name) of every feature written in LINES, and the name inspect shows for it
NAMES = {("user", "age"): "user^age", ("user", "city=paris"): "user^city=paris", ("item", "price"): "item^price",
         ("item", "color=red"): "item^color=red", ("user", "city=rome"): "user^city=rome",
         ("item", "color=blue"): "item^color=blue", ("", "bias"): "bias", ("item", "size"): "item^size"}

M32 = 0xFFFFFFFF


def murmur3(data, seed):
    """MurmurHash3_x86_32 of the bytes ``data``."""
    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & M32

    def mix(k):
        return (rotl((k * 0xCC9E2D51) & M32, 15) * 0x1B873593) & M32

    h = seed
    n = len(data) // 4 * 4
    for i in range(0, n, 4):
        h = (rotl(h ^ mix(int.from_bytes(data[i:i + 4], "little")), 13) * 5 + 0xE6546B64) & M32
    if len(data) > n:
        h ^= mix(int.from_bytes(data[n:], "little"))
    h ^= len(data)
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def column(namespace, name, bits):
    return murmur3(name.encode(), murmur3(namespace.encode(), 0)) & ((1 << bits) - 1)


def invoke(*args):
    return CliRunner().invoke(cli, [*map(str, args)])


@pytest.fixture
def vw(tmp_path):
    path = tmp_path / "train.vw"
    path.write_text("\n".join(LINES) + "\n")
    return path


def test_the_names_are_those_of_the_columns_the_reader_gives(vw):
    record = vw_feature_names(vw, 18)
    expected = {}
    for (namespace, name), shown in NAMES.items():
        expected.setdefault(column(namespace, name, 18), []).append(shown)
    assert record["columns"] == {str(c): sorted(names) for c, names in expected.items()}
    assert record["complete"] is True
    # every column of every row the reader parses is one of them
    X, _ = load_vw(str(vw), n_bits=18)[:2]
    assert set(X.indices.tolist()) == set(expected)


def test_run_keeps_the_names_and_inspect_shows_them(vw, tmp_path):
    model = tmp_path / "m.npz"
    result = invoke("run", "-a", "pa1", "--keep-names", "-f", model, vw, "--quiet")
    assert result.exit_code == 0, result.output
    kept = read_input_info(model)["hashed_names"]
    assert kept["columns"] == {str(column(ns, name, 18)): [shown] for (ns, name), shown in NAMES.items()}
    described = json.loads(invoke("inspect", model, "--top", 3, "--json").output)
    coef = np.ravel(olearn.load(model).coef_)
    for entry in described["weights"]:
        assert entry["names"] == kept["columns"][str(entry["column"])]
        assert entry["feature"] == entry["names"][0]
        assert entry["weight"] == coef[entry["column"]]
    assert described["input"]["hashed_names"] == {"named_columns": 8, "limit": 1_000_000, "complete": True}
    table = invoke("inspect", model, "--top", 8).output
    assert all(shown in table for shown in NAMES.values())


def test_colliding_names_are_all_listed(vw, tmp_path):
    result = invoke("run", "-a", "pa1", "-b", 1, "--invert_hash", tmp_path / "names.txt", vw, "--quiet")
    assert result.exit_code == 0, result.output
    expected = {0: [], 1: []}
    for (namespace, name), shown in NAMES.items():
        expected[column(namespace, name, 1)].append(shown)
    lines = (tmp_path / "names.txt").read_text().splitlines()[1:]
    listed = {}
    for line in lines:
        name, col, weight = line.rsplit(":", 2)
        listed.setdefault(int(col), []).append(name)
    # a column of non-zero weight lists every name that hashes to it (VW's --invert_hash writes one line each)
    assert listed and all(sorted(names) == sorted(expected[c]) for c, names in listed.items())


def test_at_most_limit_names_are_kept(vw):
    record = vw_feature_names(vw, 18, limit=3)
    assert record["complete"] is False
    assert sum(len(names) for names in record["columns"].values()) == 3


@pytest.mark.parametrize("args, message", [
    (("--keep-names",), "add -f/--save MODEL"),
    (("--keep-names", "-f", "{tmp}/m.npz", "-q", "ui"), "drop the namespace options"),
])
def test_names_that_cannot_be_kept_are_usage_errors(vw, tmp_path, args, message):
    result = invoke("run", "-a", "pa1", *[a.format(tmp=tmp_path) for a in args], vw)
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output


def test_a_libsvm_file_has_no_names_to_keep(tmp_path):
    path = tmp_path / "train.svm"
    path.write_text("1 1:0.5 3:1\n-1 2:1\n")
    result = invoke("run", "-a", "pa1", "--keep-names", "-f", tmp_path / "m.npz", path)
    assert result.exit_code == 2 and "name the hashed columns of a VW text file" in " ".join(result.output.split())
