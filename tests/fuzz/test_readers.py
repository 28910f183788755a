"""Fuzzing the text readers: random and mutated LIBSVM, multilabel LIBSVM, VW and CSV files.

Every input is read by olearn and by a small pure-Python reference parser
written here from the formats' documented grammars (numbers are Python's
``float`` of tokens matching ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)``;
VW hashes with scikit-learn's MurmurHash3). Invariant: olearn raises
DataFormatError exactly when the reference rejects the file -- naming a line
the reference finds bad -- and otherwise returns the reference's arrays, for
the whole-file and the streaming readers, plain or compressed (gzip, bzip2,
xz), with LF, CRLF or CR line endings. Damaged compressed streams (truncated
or with flipped bytes) are decompressed by Python's own modules for the
reference: where those fail, olearn must raise DataFormatError.
"""

import bz2
import gzip
import io
import lzma
import math
import os
import re
import tempfile
import zlib

import numpy as np
import scipy.sparse as sp
import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olearn.data import iter_libsvm, iter_vw, load_csv, load_libsvm, load_vw
from olearn.exceptions import DataFormatError

BLANKS = b" \t\r\x0b\x0c"
NUMBER = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
INTEGER = re.compile(rb"[+-]?[0-9]+")
MAX_INDEX = 2**31 - 2  # largest LIBSVM index as written when n_features is not given
INT64_MAX = 2**63 - 1


class Reject(Exception):
    """The reference parser refuses the file."""


# -- reference parsers -------------------------------------------------------------------


def split_lines(text):
    """Lines of ``text``: at each '\\r\\n', '\\n' or lone '\\r'."""
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")


def number(token):
    if not NUMBER.fullmatch(token):
        raise Reject
    value = float(token)
    if not math.isfinite(value):
        raise Reject
    return value


def label(token):
    """A float64 label; an integer token must be held exactly."""
    value = number(token)
    if INTEGER.fullmatch(token) and int(token) != int(value):
        raise Reject
    return value


def per_line(text, parse_line):
    """``(rows, bad_lines)``: parse_line(line) -> row or None (skipped) or raises Reject."""
    rows, bad = [], set()
    for number_, line in enumerate(split_lines(text), start=1):
        try:
            row = parse_line(line)
        except Reject:
            bad.add(number_)
            continue
        if row is not None:
            rows.append(row)
    return rows, bad


def libsvm_line(line, multilabel, base, limit):
    """``(label, {column: value})`` or None for a blank/comment line; base None: as written."""
    tokens = line.split(b"#", 1)[0].split()
    if not tokens:
        return None
    if multilabel:
        if b":" in tokens[0]:
            y, features = (), tokens
        else:
            parts = tokens[0].split(b",")
            if not all(INTEGER.fullmatch(p) and abs(int(p)) <= INT64_MAX for p in parts):
                raise Reject
            y, features = tuple(sorted(int(p) for p in parts)), tokens[1:]
    else:
        y, features = label(tokens[0]), tokens[1:]
    row = {}
    for token in features:
        index, colon, value = token.partition(b":")
        if not colon or not index.isdigit() or not value:
            raise Reject
        index = int(index)
        if (base == 1 and index == 0) or index > limit:
            raise Reject
        column = index - (base or 0)
        if column in row:
            raise Reject
        row[column] = number(value)
    return y, row


def ref_libsvm(text, n_features=None, zero_based=False, multilabel=False):
    """``(X as (indptr, indices, data, shape), y)`` or raises Reject (with ``.bad`` lines)."""
    if zero_based == "auto":
        limit = MAX_INDEX if n_features is None else n_features
        rows, bad = per_line(text, lambda line: libsvm_line(line, multilabel, None, limit))
        if bad:
            raise Reject(bad)
        base = 0 if any(0 in r for _, r in rows) else 1
        if base == 0 and n_features is not None and any(c >= n_features for _, r in rows for c in r):
            raise Reject(set())
        rows = [(y, {c - base: v for c, v in r.items()}) for y, r in rows]
    else:
        base = 0 if zero_based else 1
        if n_features is None:
            limit = MAX_INDEX
        else:
            limit = n_features - 1 if base == 0 else n_features
        rows, bad = per_line(text, lambda line: libsvm_line(line, multilabel, base, limit))
        if bad:
            raise Reject(bad)
    width = n_features if n_features is not None else max((max(r) + 1 for _, r in rows if r), default=0)
    y = [y for y, _ in rows] if multilabel else np.array([y for y, _ in rows], dtype=float)
    return csr_parts([r for _, r in rows], width), y


def csr_parts(rows, width):
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.array([c for r in rows for c in sorted(r)], dtype=np.int64)
    data = np.array([r[c] for r in rows for c in sorted(r)], dtype=float)
    return indptr, indices, data, (len(rows), width)


def murmur(key, seed):
    from sklearn.utils import murmurhash3_32

    return int(murmurhash3_32(key, seed=seed, positive=True))


def vw_line(line, n_bits):
    """``(label, importance, {column: summed value})`` or None for a blank line."""
    if not line.strip(BLANKS):
        return None
    bar = line.find(b"|")
    if bar < 0:
        raise Reject
    y, weight, n_numbers, tagged = math.nan, 1.0, 0, False
    before_bar = line[:bar]
    head = before_bar.split()
    for k, token in enumerate(head):
        if tagged:
            raise Reject
        # the tag: quoted, or the last token touching the bar (a number too), as Vowpal Wabbit reads it
        if token.startswith(b"'") or (k == len(head) - 1 and before_bar.endswith(token)):
            tagged = True
        elif NUMBER.fullmatch(token) and n_numbers < 2:
            if n_numbers == 0:
                y = label(token)
            else:
                weight = number(token)
                if weight < 0:
                    raise Reject
            n_numbers += 1
        else:  # a word where a number goes (Vowpal Wabbit reads 0), or a third number (its initial prediction)
            raise Reject
    row = {}
    for segment in line[bar + 1 :].split(b"|"):
        ends = [i for i in (segment.find(bytes([b])) for b in BLANKS) if i >= 0]
        name_end = min(ends, default=len(segment))
        namespace = segment[:name_end]
        if b":" in namespace:
            raise Reject
        seed = murmur(namespace, 0)
        for token in segment[name_end:].split():
            name, colon, value = token.partition(b":")
            if not name or (colon and not value):
                raise Reject
            column = murmur(name, seed) & ((1 << n_bits) - 1)
            row.setdefault(column, []).append(number(value) if colon else 1.0)
    return y, weight, row


def ref_vw(text, n_bits):
    rows, bad = per_line(text, lambda line: vw_line(line, n_bits))
    if bad:
        raise Reject(bad)
    return rows


def python_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def ref_csv(text, label_column=-1, header="auto", delimiter=","):
    """``(dense X, y or None)``: the documented CSV rules, written afresh."""
    sep = delimiter.encode()
    content = [
        (n, line) for n, line in enumerate(split_lines(text), start=1)
        if line.strip() and not line.strip().startswith(b"#")
    ]
    if not content:
        return np.empty((0, 0)), None if label_column is None else np.empty(0)
    first = content[0][1].decode("utf-8", "replace").split(delimiter)
    skip = header is True or (header == "auto" and not any(python_float(c) for c in first))
    rows = content[1:] if skip else content
    n_columns = len(rows[0][1].split(sep)) if rows else len(first)
    if label_column is not None:
        label_column %= n_columns
    blanks = bytes(b for b in BLANKS if b != sep[0])
    dense, bad = [], set()
    for n, line in rows:
        cells = line.split(sep)
        try:
            if len(cells) != n_columns:
                raise Reject
            dense.append([
                (label if j == label_column else number)(c.strip(blanks)) for j, c in enumerate(cells)
            ])
        except Reject:
            bad.add(n)
    if bad:
        raise Reject(bad)
    dense = np.array(dense, dtype=float).reshape(len(rows), n_columns)
    if label_column is None:
        return dense, None
    return np.delete(dense, label_column, axis=1), dense[:, label_column]


# -- comparing outcomes ---------------------------------------------------------------------


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and (a.view(np.int64) == b.view(np.int64)).all()


def check_rejected(err, expected, path, lines_known=True):
    """A DataFormatError where the reference rejected too, naming the file and a bad line."""
    assert err.path == str(path), (str(err), path)
    bad = expected.args[0] if expected.args else set()
    if lines_known and bad and err.line is not None:
        assert err.line in bad, f"{err} names line {err.line}; the reference finds lines {sorted(bad)} bad"


def outcome(read):
    """``(result, None)`` or ``(None, DataFormatError)``; anything else propagates."""
    try:
        return read(), None
    except DataFormatError as e:
        return None, e


def expected_of(reference):
    try:
        return reference(), None
    except Reject as r:
        return None, r


def check_csr(X, parts):
    indptr, indices, data, shape = parts
    assert X.shape == shape, (X.shape, shape)
    assert np.array_equal(X.indptr, indptr) and np.array_equal(X.indices, indices)
    assert same_bits(X.data, data), (X.data, data)


# -- generated text -------------------------------------------------------------------------

GOOD_NUMBERS = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.sampled_from([
        "0", "-0", "+1", ".5", "5.", "1e5", "1E-5", "4.9e-324", "1e-400", "1.7976931348623157e308", "0.1",
        "9007199254740992", "9007199254740993", "100000000000000001", "123456789012345678901234567890",
    ]),
)
BAD_NUMBERS = st.sampled_from(["1e309", "-1e400", "nan", "inf", "1_0", ".", "e5", "1e", "--1", "0x10", ""])


def mostly(common, rare, one_in=10):
    """``common``, or ``rare`` about once in ``one_in`` draws (shrinking goes to ``common``)."""
    return st.integers(1, one_in).flatmap(lambda k: rare if k == one_in else common)


NUMBERS = mostly(GOOD_NUMBERS, BAD_NUMBERS)
BIG_INT_TEXTS = [
    "100000000000000001", "100000000000000002", "1000000000000000001", "9223372036854775807",
    "-9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999",
    "18446744073709551617", "-9007199254740993", "7", "-3", "0",
]
BIG_INTS = st.sampled_from(BIG_INT_TEXTS)
JUNK = st.sampled_from(["#", "# c", ":", "::", "qid:1", "|", "'", ",", "x", "1:2:3", "é", "\t", "\x0b", "\x00", "\r"])


@st.composite
def libsvm_lines(draw, multilabel):
    kind = draw(mostly(st.just("data"), st.sampled_from(["blank", "comment", "junk"]), 4))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t  "]))
    if kind == "comment":
        return "# " + draw(st.text(max_size=8))
    if multilabel:
        head = ",".join(draw(st.lists(BIG_INTS, max_size=3)))
    else:
        head = draw(mostly(NUMBERS, BIG_INTS, 3))
    index = mostly(st.integers(0, 12), st.sampled_from([2**31 - 2, 2**31, 10**20]))
    indices = draw(st.lists(index, max_size=6, unique=draw(mostly(st.just(True), st.just(False)))))
    features = [f"{i}:{draw(NUMBERS)}" for i in indices]
    tokens = [head] + features
    if kind == "junk":
        tokens.insert(draw(st.integers(0, len(tokens))), draw(JUNK))
    tail = draw(st.sampled_from(["", " ", " # comment", "#x"]))
    return draw(st.sampled_from([" ", "  ", "\t"])).join(tokens) + tail


@st.composite
def vw_lines(draw):
    kind = draw(mostly(st.just("data"), st.sampled_from(["blank", "junk"]), 4))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t  "]))
    head = draw(st.lists(mostly(NUMBERS, st.sampled_from(["'tag", "tag", "'", "-1", *BIG_INT_TEXTS]), 3), max_size=3))
    if len(head) > 1 and draw(st.booleans()):
        head[1] = head[1].lstrip("-")  # an importance weight, mostly non-negative
    parts = [" ".join(head)]
    for _ in range(draw(st.integers(0 if kind == "junk" else 1, 3))):
        namespace = draw(mostly(st.sampled_from(["", "ns", "a", "é"]), st.just("n:1")))
        names = draw(st.lists(mostly(st.sampled_from(["a", "b", "c", "price", "x1", "é"]), st.just("")), max_size=4))
        features = [n + draw(st.sampled_from(["", ":" + draw(NUMBERS)])) for n in names]
        parts.append("|" + namespace + " " + " ".join(features))
    line = " ".join(parts)
    if kind == "junk":
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(JUNK) + line[at:]
    return line


@st.composite
def csv_lines(draw, n_columns, delimiter):
    kind = draw(mostly(st.just("data"), st.sampled_from(["blank", "comment", "junk"]), 4))
    if kind == "blank":
        return draw(st.sampled_from(["", " "]))
    if kind == "comment":
        return "#" + draw(st.text(max_size=6))
    width = n_columns if kind == "data" else draw(st.integers(1, n_columns + 1))
    cells = [draw(mostly(NUMBERS, BIG_INTS, 4)) for _ in range(width)]
    pad = draw(st.sampled_from(["", " ", "\t"]))
    return delimiter.join(pad + c for c in cells)


@st.composite
def files(draw, lines):
    """``(raw file bytes, suffix, decompressed text or None if the stream is damaged)``."""
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = ending.join(draw(st.lists(lines, min_size=1, max_size=12)))
    if draw(st.booleans()):
        text += ending
    data = bytearray(text.encode("utf-8"))
    for _ in range(draw(mostly(st.just(0), st.integers(1, 3), 3))):  # byte-level mutations
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "insert", "delete"]))
        byte = draw(st.sampled_from(b"\n\r \t#:|,.-+e0129\x00\xff"))
        if op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data.insert(at, byte)
        else:
            del data[at]
    data = bytes(data)
    suffix = draw(st.sampled_from(["", "", "", ".gz", ".bz2", ".xz"]))
    if not suffix:
        return data, suffix, data
    packed = bytearray({".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](data))
    damage = draw(st.sampled_from(["none", "none", "truncate", "flip"]))
    if damage == "truncate":
        del packed[draw(st.integers(0, len(packed) - 1)) :]
    elif damage == "flip":
        packed[draw(st.integers(0, len(packed) - 1))] ^= 1 << draw(st.integers(0, 7))
    packed = bytes(packed)
    return packed, suffix, decompress(packed, suffix)


def decompress(packed, suffix):
    """What Python's own decompressor reads from ``packed``, or None if it fails."""
    opener = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}[suffix]
    try:
        with opener(fileobj=io.BytesIO(packed)) if suffix == ".gz" else opener(io.BytesIO(packed)) as f:
            return f.read()
    except (EOFError, OSError, zlib.error, lzma.LZMAError):
        return None


def write_file(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def run(one, n_examples, seed):
    """Call ``one(data)`` on ``n_examples`` hypothesis inputs derandomised by ``seed``; return the count."""
    tried = [0]

    @hypothesis.seed(seed)
    @settings(max_examples=n_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def campaign(data):
        tried[0] += 1
        one(data)

    campaign()
    return tried[0]


# -- campaigns ------------------------------------------------------------------------------


def campaign_libsvm(n_examples, seed):
    folder = tempfile.mkdtemp()

    def one(data):
        multilabel = data.draw(st.booleans())
        raw, suffix, text = data.draw(files(libsvm_lines(multilabel)))
        path = write_file(folder, "f.svm" + suffix, raw)
        zero_based = data.draw(st.sampled_from([False, True, "auto"]))
        n_features = data.draw(st.sampled_from([None, 14, 3]))
        kw = dict(n_features=n_features, zero_based=zero_based, multilabel=multilabel)
        got, err = outcome(lambda: load_libsvm(path, **kw))
        streamed_kw = dict(kw, zero_based=zero_based if zero_based != "auto" else False, n_features=n_features or 20)
        block_size = data.draw(st.sampled_from([1, 3, 16, 1 << 20]))
        chunk_size = data.draw(st.sampled_from([1, 2, 100]))
        streamed, s_err = outcome(lambda: list(iter_libsvm(path, chunk_size=chunk_size, block_size=block_size,
                                                           **streamed_kw)))
        if text is None:  # a damaged compressed stream (streaming may first meet bad text)
            assert err is not None and s_err is not None, "a damaged stream was read"
            assert err.path == s_err.path == path
            return
        for result, error, options in ((got, err, kw), (streamed, s_err, streamed_kw)):
            expected, rejected = expected_of(lambda: ref_libsvm(text, **options))
            if rejected is not None:
                assert error is not None, f"accepted a file the reference rejects: {text!r} {options}"
                check_rejected(error, rejected, path, lines_known=options["zero_based"] != "auto")
                continue
            assert error is None, f"{error} on a file the reference accepts: {text!r} {options}"
            parts, y = expected
            if result is got:
                X, y_got = result
            else:
                X = sp.vstack([c[0] for c in result], format="csr") if result else sp.csr_matrix((0, parts[3][1]))
                y_got = [t for c in result for t in c[1]] if multilabel else (
                    np.concatenate([c[1] for c in result]) if result else np.empty(0))
            check_csr(X, parts)
            assert y_got == y if multilabel else same_bits(y_got, y)

    return run(one, n_examples, seed)


def campaign_vw(n_examples, seed):
    folder = tempfile.mkdtemp()

    def one(data):
        raw, suffix, text = data.draw(files(vw_lines()))
        path = write_file(folder, "f.vw" + suffix, raw)
        n_bits = data.draw(st.sampled_from([1, 4, 18]))
        got, err = outcome(lambda: load_vw(path, n_bits=n_bits))
        block_size = data.draw(st.sampled_from([1, 3, 16, 1 << 20]))
        streamed, s_err = outcome(lambda: list(iter_vw(path, chunk_size=2, n_bits=n_bits, block_size=block_size)))
        if text is None:
            assert err is not None and s_err is not None, "a damaged stream was read"
            assert err.path == s_err.path == path
            return
        expected, rejected = expected_of(lambda: ref_vw(text, n_bits))
        if rejected is not None:
            assert err is not None and s_err is not None, f"accepted a file the reference rejects: {text!r}"
            check_rejected(err, rejected, path)
            check_rejected(s_err, rejected, path)
            return
        assert err is None and s_err is None, f"{err or s_err} on a file the reference accepts: {text!r}"
        check_vw(*got, expected, n_bits)
        X = sp.vstack([c[0] for c in streamed], format="csr") if streamed else sp.csr_matrix((0, 1 << n_bits))
        y, w = ([np.concatenate([c[k] for c in streamed]) for k in (1, 2)] if streamed else [np.empty(0)] * 2)
        check_vw(X, y, w, expected, n_bits)

    return run(one, n_examples, seed)


def check_vw(X, y, w, rows, n_bits):
    assert X.shape == (len(rows), 1 << n_bits)
    assert same_bits(y, [r[0] for r in rows]) and same_bits(w, [r[1] for r in rows])
    for i, (_, _, features) in enumerate(rows):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        assert X.indices[lo:hi].tolist() == sorted(features)
        for column, value in zip(X.indices[lo:hi], X.data[lo:hi]):
            terms = features[column]
            # Repeated columns are summed in some order: equal up to rounding of the sum.
            scale = sum(abs(t) for t in terms)
            try:
                exact = math.fsum(terms)
            except OverflowError:  # a partial sum beyond the largest float: the sum in any order overflows too
                exact = math.inf
            assert abs(value - exact) <= 4e-16 * len(terms) * scale or (
                not math.isfinite(value) and not math.isfinite(sum(terms))), (value, terms)


def campaign_csv(n_examples, seed):
    folder = tempfile.mkdtemp()

    def one(data):
        delimiter = data.draw(st.sampled_from([",", ";", "\t", " ", "|"]))
        n_columns = data.draw(st.integers(1, 5))
        header_line = delimiter.join(data.draw(st.lists(st.sampled_from(["a", "b", "label", "1", "nan"]),
                                                        min_size=n_columns, max_size=n_columns)))
        lines = csv_lines(n_columns, delimiter)
        raw, suffix, text = data.draw(files(st.one_of(lines, st.just(header_line))))
        path = write_file(folder, "f.csv" + suffix, raw)
        label_column = data.draw(st.sampled_from([-1, 0, None]))
        header = data.draw(st.sampled_from(["auto", True, False]))
        got, err = outcome(lambda: load_csv(path, label_column=label_column, header=header, delimiter=delimiter))
        if text is None:
            assert err is not None and err.path == path, "a damaged stream was read"
            return
        expected, rejected = expected_of(lambda: ref_csv(text, label_column, header, delimiter))
        if rejected is not None:
            assert err is not None, f"accepted a file the reference rejects: {text!r}"
            check_rejected(err, rejected, path)
            return
        assert err is None, f"{err} on a file the reference accepts: {text!r}"
        X, y = got
        dense, y_ref = expected
        assert X.shape == dense.shape and np.array_equal(X.toarray(), dense)
        assert (y is None) == (y_ref is None)
        assert y is None or same_bits(y, y_ref)

    return run(one, n_examples, seed)


# -- tests ----------------------------------------------------------------------------------


def test_reference_parsers_agree_with_scikit_learn_on_valid_libsvm(tmp_path):
    # The reference itself, checked against another implementation on a well-formed file.
    from sklearn.datasets import load_svmlight_file

    text = b"1 1:0.5 3:-2\n-1 2:1e-3\n# c\n2.5 1:7 2:8 3:9\n"
    (tmp_path / "a.svm").write_bytes(text)
    X, y = load_svmlight_file(str(tmp_path / "a.svm"), zero_based=False)
    parts, y_ref = ref_libsvm(text)
    check_csr(X, parts)
    assert same_bits(y, y_ref)


def test_campaign_libsvm(campaign):
    assert campaign("fuzz.test_readers:campaign_libsvm", 150) >= 100


def test_campaign_vw(campaign):
    assert campaign("fuzz.test_readers:campaign_vw", 150) >= 100


def test_campaign_csv(campaign):
    assert campaign("fuzz.test_readers:campaign_csv", 150) >= 100
