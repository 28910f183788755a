"""Batch bodies of named features read by compiled passes over their bytes (olearn.serve._packed_batch): the rows
of a body it takes are, bit for bit, the rows the route makes of the body decoded by json (the reference: known_rows
and their canonical form), each example's bytes decode to its dict, and every other body is left to the route."""

import copy
import json
import pickle
import random

import numpy as np
import pytest

from olearn._features import FeatureMap
from olearn._kernels import _compiled
from olearn.serve._model import _canonical_rows
from olearn.serve._packed_batch import read_packed_features, read_packed_labelled
from olearn.serve._requests import Limits

from serve_helpers import require_serve_extra

require_serve_extra()

NAMES = [f"n{i}" for i in range(30)] + ["a b", "x", "=", "", "city=Paris", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}"]
SPACES = ["", " ", "\n", "\t", "\r\n  "]


def _vocabulary():
    features = FeatureMap()
    features.add([(name, 3 * i + 1) for i, name in enumerate(NAMES)])  # columns out of the names' order
    return features


def _literal(rng):
    """A JSON number within the exact fast path, as clients write them (json.dumps, repr, by hand)."""
    kind = rng.randrange(6)
    if kind == 0:
        return str(rng.randrange(-10**9, 10**9))
    if kind == 1:
        return rng.choice(["0", "-0", "0.0", "-0.0", "-0e0", "1e5", "1E-3", "2.5e+3", "1e22", "1e-22", "0.1",
                           "9007199254740992", "-1.5E2", "0e999"])
    if kind == 2:
        return repr(round(rng.gauss(0, 1), rng.randrange(1, 10)))
    digits = str(rng.randrange(1, 10**rng.randrange(1, 15)))
    point = rng.randrange(len(digits))
    text = (digits[:point] or "0") + "." + digits[point:] if kind == 3 else digits
    return ("-" if rng.random() < 0.3 else "") + text + (f"e{rng.randrange(-8, 8)}" if kind == 5 else "")


def _body(rng, n, space=""):
    objects = []
    for _ in range(n):
        names = rng.sample(NAMES, rng.randrange(0, 8))
        objects.append("{" + space + ",".join(f'{json.dumps(name)}{space}:{space}{_literal(rng)}' for name in names)
                       + space + "}")
    return ('{' + space + '"x"' + space + ':' + space + '[' + space + f'{space},{space}'.join(objects) + space + ']'
            + space + ',"y":' + json.dumps([1] * n) + space + '}').encode()


def _rows_of_decoded(body, features, width):
    """The reference: the rows the route makes of the body decoded by json (known_rows, then the canonical form)."""
    return _canonical_rows(features.known_rows(json.loads(body)["x"]), width)


def _assert_same_rows(got, want):
    assert got.shape == want.shape
    assert got.indptr.dtype == want.indptr.dtype and np.array_equal(got.indptr, want.indptr)
    assert got.indices.dtype == want.indices.dtype and np.array_equal(got.indices, want.indices)
    assert got.data.dtype == want.data.dtype and got.data.tobytes() == want.data.tobytes()  # -0.0 apart from 0.0


@pytest.mark.parametrize("seed", range(3))
def test_a_batch_of_known_names_reads_to_the_rows_of_its_decoded_dicts_bit_for_bit(seed):
    rng = random.Random(seed)
    features = _vocabulary()
    for n in (1, 2, 7, 50):
        body = _body(rng, n, SPACES[(seed + n) % len(SPACES)])
        examples = read_packed_labelled(body, Limits(max_batch=50))
        assert examples is not None, body
        assert len(examples) == n and examples.ys == [1] * n and examples.weights is None
        rows = examples.packed_rows(features, 200)
        _assert_same_rows(rows, _rows_of_decoded(body, features, 200))
        decoded = json.loads(body)["x"]
        kept = examples.kept_features()
        assert [json.loads(kept.text[start:end]) for start, end in zip(kept.starts, kept.ends)] == decoded
        assert json.loads(kept.array) == decoded
        assert examples.dicts == decoded  # the dicts, when asked, are the route's


def test_numbers_read_as_python_reads_them_signed_zeros_included():
    features = _vocabulary()
    literals = ["-0", "-0.0", "-0e0", "0e-5", "1e5", "1E-3", "123.456", "-7.25e-3", "9007199254740993"[:-1],
                "0.30000000000000004"[:18], "1e22", "3e-22"]
    body = ('{"x":[' + ",".join(f'{{"n1":{text}}}' for text in literals) + '],"y":' + json.dumps([1] * len(literals))
            + "}").encode()
    rows = read_packed_labelled(body, Limits()).packed_rows(features)
    want = np.array([float(json.loads(text)) for text in literals])  # int -0 is 0, so 0.0; -0.0 is -0.0
    assert rows.data.tobytes() == want.tobytes()
    assert np.signbit(rows.data).tolist()[:3] == [False, True, True]


def _full_precision_literals(rng):
    """Numbers as Python writes floats (``repr``: up to 17 significant digits), of every magnitude, subnormals,
    halfway cases, long integers and exponents past +-22, which Clinger's exact fast path does not convert."""
    doubles = [float(np.array(rng.getrandbits(63), dtype=np.uint64).view(np.float64)) for _ in range(300)]
    doubles += [rng.random() for _ in range(100)] + [rng.gauss(0, 1) * 10.0**rng.randrange(-40, 40) for _ in range(100)]
    doubles += [rng.randrange(1, 2**52) * 5e-324 for _ in range(20)]  # subnormals
    literals = [repr(-x if rng.random() < 0.5 else x) for x in doubles if np.isfinite(x)]
    literals += [str(rng.randrange(10**15, 10**18)) for _ in range(50)]  # integers of 16 to 18 digits
    literals += [f"{rng.randrange(1, 10**17)}e{rng.randrange(-330, 290)}" for _ in range(50)]
    return literals + HALFWAY_AND_EDGES


HALFWAY_AND_EDGES = ["9007199254740993", "-9007199254740993", "9007199254740995", "1e23", "8.98846567431158e307",
                     "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9e-324", "5e-324", "2.4e-324",
                     "1.7976931348623157e308", "-0.0", "1E+5", "1e-400", "-1e-400", "123456789012345678e-343",
                     "0.000000000000000001", "1.00000000000000000", "5160685781647987.0", "1e-99999",
                     "0.0019514593530413698", "-0.00071453464857924284", "0.0000000000000000001"]  # 19+ after the point


def test_full_precision_numbers_read_as_python_reads_them_bit_for_bit():
    rng = random.Random(7)
    features = _vocabulary()
    literals = _full_precision_literals(rng)
    names = NAMES[:30]
    objects = ["{" + ",".join(f'"{names[k % 30]}":{text}' for k, text in enumerate(literals[start:start + 20]))
               + "}" for start in range(0, len(literals), 20)]
    body = ('{"x":[' + ",".join(objects) + '],"y":' + json.dumps([1] * len(objects)) + "}").encode()
    examples = read_packed_labelled(body, Limits())
    assert examples is not None
    _assert_same_rows(examples.packed_rows(features, 200), _rows_of_decoded(body, features, 200))
    assert examples._decoded is None


def test_only_the_numbers_the_compiled_conversion_leaves_undecided_are_converted_one_by_one():
    rng = random.Random(8)
    reprs = [repr(rng.gauss(0, 1) * 10.0**rng.randrange(-300, 300)) for _ in range(500)]
    literals = reprs + ["9007199254740993", "1e23", "5e-324", "1e-400"]  # a halfway point, a subnormal, past the table
    body = ('{"x":[' + ",".join(f'{{"n1":{text}}}' for text in literals) + "]}").encode()
    scanned = _compiled.scan_batch(np.frombuffer(body, dtype=np.uint8), 1000, 10)
    fixups = scanned[-1]
    assert [body[start:end].decode() for start, end, _ in fixups.tolist()][-4:] == literals[-4:]
    assert fixups[-4:, 2].tolist() == list(range(len(reprs), len(literals)))
    assert fixups.shape[0] <= 4 + len(reprs) // 100
    rows = read_packed_features(body, Limits(), ("x",))[0].packed_rows(_vocabulary())
    assert rows.data.tobytes() == np.array([float(text) for text in literals]).tobytes()


def _random_reprs(rng, n):
    """The reprs of ``n`` random doubles: of uniformly random bits (every exponent), and Gaussian ones."""
    bits = np.array([rng.getrandbits(64) for _ in range(n // 2)], dtype=np.uint64).view(np.float64)
    doubles = bits[np.isfinite(bits)].tolist() + [rng.gauss(0, 1) for _ in range(n - n // 2)]
    return [repr(x) for x in doubles]


@pytest.mark.parametrize("n", [4_000, pytest.param(2_000_000, marks=pytest.mark.slow)])
def test_the_reprs_of_random_doubles_read_as_float_reads_them(n):
    literals = _random_reprs(random.Random(n), n)
    names = NAMES[:20]  # in the order of their columns: each row's values in the body's order
    body = ('{"x":[' + ",".join("{" + ",".join(f'"{name}":{text}' for name, text in zip(names, literals[k:k + 20]))
                                + "}" for k in range(0, len(literals), 20)) + "]}").encode()
    rows = read_packed_features(body, Limits(max_batch=n), ("x",))[0].packed_rows(_vocabulary())
    assert rows.data.tobytes() == np.array([float(text) for text in literals]).tobytes()


NOT_TAKEN = [
    b'{"x":[{"n\\u0031":1}],"y":[1]}',  # an escape in a key
    '{"x":[{"né":1}],"y":[1]}'.encode(),  # a key that is not ASCII
    b'{"x":[{"n1":1,"n1":2}],"y":[1]}',  # a repeated key
    b'{"x":[{"n1":1e400}],"y":[1]}', b'{"x":[{"n1":-1e400}],"y":[1]}',  # float() overflows to infinity
    b'{"x":[{"n1":1e99999}],"y":[1]}', b'{"x":[{"n1":1e100000}],"y":[1]}',  # an exponent of 6 digits
    b'{"x":[{"n1":1234567890123456789}],"y":[1]}',  # 19 digits
    b'{"x":[{"n1":1234567890123456789012}],"y":[1]}',  # 19 digits and more
    b'{"x":[{"n1":1.234567890123456789}],"y":[1]}',  # 19 significant digits
    b'{"y":[1],"x":[{"n1":1}]}',  # "x" not the first key
    b'{"x":[{"n1":{"a":1}}],"y":[1]}', b'{"x":[{"n1":[1]}],"y":[1]}',  # nested values
    b'{"x":[{"n1":"a"}],"y":[1]}', b'{"x":[{"n1":true}],"y":[1]}', b'{"x":[{"n1":null}],"y":[1]}',
    b'{"x":[{"n1":1}],"y":[1]', b'{"x":[{"n1":1', b'{"x":[{"n1":1},],"y":[1]}', b'{"x":[{"n1":1,}],"y":[1]}',
    b'{"x":[{"n1":1}],"y":[1]}x', b'{"x":[{"n1":01}],"y":[1]}', b'{"x":[{"n1":1.}],"y":[1]}',
    b'{"x":[{"n1":.5}],"y":[1]}', b'{"x":[{"n1":+1}],"y":[1]}', b'{"x":[{"n1":NaN}],"y":[1]}',
    b'{"x":[{"n1":1}],"y":[1],"x":[{"n1":1}]}',  # a second "x"
    b'{"x":[],"y":[]}', b'{"x":{"n1":1},"y":1}',  # an empty batch, one example
    b'{"x":[{"n1":1}],"y":[1],"id":"a"}',  # an update id (its digest is of the decoded examples)
    b'{"x":[{"n1":1}],"y":[1,2]}', b'{"x":[{"n1":1}],"y":[1],"z":1}',  # faults of the rest
    b'{"x":[{"n1":1}],"y":[1],"y":[1]}',
]


@pytest.mark.parametrize("body", NOT_TAKEN)
def test_any_other_body_is_left_to_the_route(body):
    assert read_packed_labelled(body, Limits()) is None


def test_the_caps_of_a_batch_leave_it_to_the_route_and_indices_are_not_names():
    body = b'{"x":[{"n1":1,"n2":2},{"n3":3}],"y":[1,1]}'
    assert read_packed_labelled(body, Limits()) is not None
    assert read_packed_labelled(body, Limits(max_batch=1)) is None
    assert read_packed_labelled(body, Limits(max_features=1)) is None
    assert read_packed_labelled(body, Limits(feature_keys="indices")) is None
    assert read_packed_features(b'{"x":[{"n1":1}],"id":["a"]}', Limits(), ("x",)) is None  # an entry not known


def test_an_unknown_name_or_a_hashing_map_gives_no_rows():
    body = b'{"x":[{"n1":1},{"nope":2}],"y":[1,1]}'
    assert read_packed_labelled(body, Limits()).packed_rows(_vocabulary()) is None
    assert read_packed_labelled(body, Limits()).packed_rows(FeatureMap(n_bits=8)) is None


@pytest.mark.parametrize("seed", range(2))
def test_a_batch_to_predict_leaves_out_the_names_it_lacks_as_known_rows_does(seed):
    rng = random.Random(seed)
    features = FeatureMap()
    known = rng.sample(NAMES, len(NAMES) // 2)  # the other names unknown to the learner
    features.add([(name, 5 * i + 2) for i, name in enumerate(known)])
    for n in (1, 3, 40):
        body = _body(rng, n, SPACES[n % len(SPACES)])
        examples = read_packed_features(body, Limits(max_batch=50), ("x", "y"))[0]
        got = examples.packed_rows(features, drop_unknown=True)
        want = features.known_rows(json.loads(body)["x"], drop_unknown=True)  # the reference: the dicts' rows
        _assert_same_rows(got, _canonical_rows(want, want[3]))
        assert examples._decoded is None
    # a batch of names all unknown: empty rows of no column, as known_rows gives them
    body = b'{"x":[{"zz":1.5},{}],"y":[1,1]}'
    got = read_packed_features(body, Limits(), ("x", "y"))[0].packed_rows(features, drop_unknown=True)
    want = features.known_rows(json.loads(body)["x"], drop_unknown=True)
    _assert_same_rows(got, _canonical_rows(want, want[3]))
    assert got.shape == (2, 0)


def _columns_read(features, names):
    body = ('{"x":[' + ",".join(f'{{{json.dumps(name)}:1}}' for name in names) + "]}").encode()
    rows = read_packed_features(body, Limits(), ("x",))[0].packed_rows(features)
    return None if rows is None else rows.indices.tolist()


def test_the_table_of_names_follows_every_change_of_the_vocabulary():
    features = FeatureMap()
    features.add([("a", 0), ("b", 1)])
    assert _columns_read(features, ["a", "b"]) == [0, 1]
    features.add([("c", 2)])  # appended: entered in the table
    assert _columns_read(features, ["c", "a"]) == [2, 0]
    features.truncate(1)
    assert _columns_read(features, ["b"]) is None and _columns_read(features, ["a"]) == [0]
    features.add([("c", 1), ("b", 2)])  # as many names as before the truncation, other columns
    assert _columns_read(features, ["a", "b", "c"]) == [0, 2, 1]
    for copied in (copy.deepcopy(features), pickle.loads(pickle.dumps(features))):
        assert "_table" not in copied.__dict__  # not in the copied state: made again from the copy's names
        copied.truncate(0)
        copied.add([("b", 5)])
        assert _columns_read(copied, ["b"]) == [5] and _columns_read(copied, ["c"]) is None
    assert _columns_read(features, ["b"]) == [2]  # the original's own table


def test_names_of_one_hash_bucket_each_keep_their_column():
    features = FeatureMap()
    names = [f"name{i}" for i in range(5000)]  # many collisions of the table's buckets as it grows
    for start in range(0, len(names), 1000):
        features.add([(name, i) for i, name in enumerate(names[start:start + 1000], start)])
        assert _columns_read(features, names[:start + 1000:7]) == list(range(0, start + 1000, 7))


def test_a_name_of_the_same_hash_as_a_key_never_gives_the_key_its_column():
    features = FeatureMap()
    features.add([("b", 7)])
    examples = read_packed_features(b'{"x":[{"a":1}]}', Limits(), ("x",))[0]
    examples.hashes[:] = features.name_table().hashes[0]  # the key "a" given the hash of the name "b"
    assert examples.packed_rows(features) is None
    assert _columns_read(features, ["b"]) == [7]


@pytest.mark.parametrize("width", [5, 40, 3000])
def test_a_key_repeated_anywhere_in_an_object_of_any_width_is_left_to_the_route(width):
    names = [f"k{i}" for i in range(width)]
    distinct = ("{" + ",".join(f'"{name}":1' for name in names) + "}")
    repeated = distinct[:-1] + f',"{names[0]}":2' + "}"
    for obj, taken in [(distinct, True), (repeated, False)]:
        body = ('{"x":[{"a":1},' + obj + '],"y":[1,1]}').encode()
        assert (read_packed_labelled(body, Limits(max_features=width + 1)) is not None) == taken
