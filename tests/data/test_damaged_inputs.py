"""Damaged and hostile input files: minimal reproducers of reader failures, each now a clear DataFormatError.

Corrupted caches, labels too large for their type, CSV files of blank lines,
old Mac OS line endings, truncated or corrupt compressed streams.
"""

import bz2
import gzip
import json
import lzma
import os
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner

from olearn.cli import cli
from olearn.data import (
    detect_format,
    iter_libsvm,
    iter_vw,
    load_cache,
    load_csv,
    load_libsvm,
    load_vw,
    read_any,
    read_idx,
    save_cache,
)
from olearn.exceptions import DataFormatError

# -- corrupted cache files ------------------------------------------------------------

# The documented layout of format 2, read here independently of olearn's code.
PREAMBLE = struct.Struct("<8sIII")


def small_cache(tmp_path, name="c.olc"):
    X = sp.csr_matrix(np.array([[0.0, 1.5, 0.0, 2.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 4.0]]))
    path = tmp_path / name
    save_cache(path, X, np.array([1.0, -1.0, 1.0]))
    return path, X


def array_span(raw, name):
    """``(offset, n_bytes, header)`` of array ``name`` in the cache bytes ``raw``."""
    _, _, header_len, _ = PREAMBLE.unpack_from(raw)
    header = json.loads(raw[PREAMBLE.size : PREAMBLE.size + header_len])
    entry = header["arrays"][name]
    return entry["offset"], np.dtype(entry["dtype"]).itemsize * entry["shape"][0], header


def forge(path, name, edit):
    """Rewrite array ``name`` through ``edit(array) -> array`` and fix every checksum, as a forger would."""
    raw = bytearray(path.read_bytes())
    offset, n_bytes, header = array_span(raw, name)
    entry = header["arrays"][name]
    a = edit(np.frombuffer(bytes(raw[offset : offset + n_bytes]), dtype=entry["dtype"]).copy())
    raw[offset : offset + n_bytes] = a.tobytes()
    entry["crc32"] = zlib.crc32(a.tobytes())
    text = json.dumps(header).encode()
    assert PREAMBLE.size + len(text) <= min(e["offset"] for e in header["arrays"].values())
    raw[: PREAMBLE.size] = PREAMBLE.pack(b"\x93OLCACHE", 2, len(text), zlib.crc32(text))
    raw[PREAMBLE.size : PREAMBLE.size + len(text)] = text
    path.write_bytes(bytes(raw))


def test_one_flipped_bit_in_indices_is_caught_by_the_checksum(tmp_path):
    # The reproducer of the report: one bit of `indices` made `olearn run c.olc` segfault.
    path, _ = small_cache(tmp_path)
    raw = bytearray(path.read_bytes())
    offset, _, _ = array_span(raw, "indices")
    raw[offset + 3] ^= 0x40  # column 1 of row 0 becomes 1 + 2**30
    path.write_bytes(bytes(raw))
    with pytest.raises(DataFormatError, match="array 'indices' fails its checksum") as info:
        load_cache(path)
    assert info.value.path == str(path)


def test_flipped_bit_in_data_is_caught_not_loaded_as_another_value(tmp_path):
    path, _ = small_cache(tmp_path)
    raw = bytearray(path.read_bytes())
    offset, _, _ = array_span(raw, "data")
    raw[offset] ^= 0x01  # 1.5 -> 1.5000000000000002: a silently changed value before
    path.write_bytes(bytes(raw))
    with pytest.raises(DataFormatError, match="'data' fails its checksum"):
        load_cache(path)


@pytest.mark.parametrize(
    "name, edit, fragment",
    [
        ("indices", lambda a: a + np.array([0, 0, 0, 0, 2**30], dtype=a.dtype), r"row 2 holds a column index outside"),
        ("indices", lambda a: -a, r"row 0 holds a column index outside"),
        ("indices", lambda a: a[[1, 0, 2, 3, 4]], "indices of row 0 are not strictly increasing"),
        ("indices", lambda a: a[[0, 0, 2, 3, 4]], "indices of row 0 are not strictly increasing"),
        ("indptr", lambda a: a + 1, "indptr does not start at 0"),
        ("indptr", lambda a: a[[0, 2, 1, 3]], "indptr decreases after row 1"),
        ("indptr", lambda a: np.minimum(a, 4), "indptr ends at a different count"),
    ],
)
def test_invalid_structure_with_valid_checksums_is_refused(tmp_path, name, edit, fragment):
    path, _ = small_cache(tmp_path)
    forge(path, name, edit)
    with pytest.raises(DataFormatError, match=fragment) as info:
        load_cache(path)
    assert str(info.value).startswith(f"{path}: invalid CSR structure in the cache: ")


def test_forged_structure_check_leaves_a_valid_file_alone(tmp_path):
    # The forger itself is sound: an identity edit keeps the file loadable and unchanged.
    path, X = small_cache(tmp_path)
    forge(path, "indices", lambda a: a)
    X2, _, _ = load_cache(path)
    assert (X2 != X).nnz == 0


@pytest.mark.parametrize(
    "header, fragment",
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[" * 10_000 + b"]" * 10_000, "not valid JSON"),  # RecursionError inside json
        (b"[]", "expected the keys 'shape' and 'arrays'"),
        (b'{"shape": [3, 4], "arrays": {}, "extra": 1}', "expected the keys 'shape' and 'arrays'"),
        (b'{"shape": [3, 4], "arrays": {}, "meta": [1]}', "'meta' must be an object"),
        (b'{"shape": [3, 4], "arrays": {}}', "expected the arrays"),
        (b'{"shape": [3, -4], "arrays": {}}', "shape must be two non-negative integers"),
        (b'{"shape": [3, true], "arrays": {}}', "shape must be two non-negative integers"),
    ],
)
def test_unparsable_or_incomplete_header_is_refused(tmp_path, header, fragment):
    # Written with a valid header checksum, so the schema checks are what answers.
    path = tmp_path / "h.olc"
    path.write_bytes(PREAMBLE.pack(b"\x93OLCACHE", 2, len(header), zlib.crc32(header)) + header)
    with pytest.raises(DataFormatError, match=fragment):
        load_cache(path)


def test_header_entries_are_checked_against_each_other(tmp_path):
    path, _ = small_cache(tmp_path)
    raw = path.read_bytes()
    _, _, header = array_span(raw, "y")

    def rewrite(change, fragment):
        h = json.loads(json.dumps(header))
        change(h)
        text = json.dumps(h).encode()
        data = PREAMBLE.pack(b"\x93OLCACHE", 2, len(text), zlib.crc32(text)) + text
        path.write_bytes(data + raw[len(data) :])
        with pytest.raises(DataFormatError, match=fragment):
            load_cache(path)

    rewrite(lambda h: h["arrays"]["y"].update(dtype="|O"), "'y': unsupported dtype")
    rewrite(lambda h: h["arrays"]["indices"].update(dtype="<f8"), "'indices': unsupported dtype")
    rewrite(lambda h: h["arrays"]["indices"].update(dtype="<i8"), "different dtypes")
    rewrite(lambda h: h["arrays"]["y"].update(shape=[2]), "'y' holds 2 values, expected 3")
    rewrite(lambda h: h["arrays"]["data"].update(offset=h["arrays"]["indices"]["offset"]), "overlaps")
    rewrite(lambda h: h["arrays"]["data"].update(offset=h["arrays"]["data"]["offset"] + 1), "multiple of 64")
    rewrite(lambda h: h["arrays"]["y"].update(crc32=2**32), "32-bit unsigned")
    rewrite(lambda h: h["arrays"]["y"].update(offset=2**40), "truncated")
    rewrite(lambda h: h["arrays"].update(extra=h["arrays"]["y"]), "expected the arrays")
    rewrite(lambda h: h.update(shape=[3, 4, 5]), "shape must be two")


def test_flipped_header_byte_and_extra_bytes_are_refused(tmp_path):
    path, _ = small_cache(tmp_path)
    raw = path.read_bytes()
    at = raw.index(b'"shape"') + 2
    path.write_bytes(raw[:at] + b"X" + raw[at + 1 :])
    with pytest.raises(DataFormatError, match="corrupt cache header: checksum mismatch"):
        load_cache(path)
    path.write_bytes(raw + b"\x00" * 8)
    with pytest.raises(DataFormatError, match="8 unexpected bytes after its last array"):
        load_cache(path)
    path.write_bytes(raw[:14])
    with pytest.raises(DataFormatError, match="truncated"):
        load_cache(path)


def test_version_1_cache_is_refused_with_a_rebuild_message(tmp_path):
    # A version-1 file: 16-byte preamble (magic, version, header length), no checksums.
    header = json.dumps({"shape": [1, 1], "arrays": {}}).encode()
    path = tmp_path / "old.olc"
    path.write_bytes(struct.pack("<8sII", b"\x93OLCACHE", 1, len(header)) + header)
    with pytest.raises(DataFormatError, match="version 1 is not supported.*rebuild the cache"):
        load_cache(path)


def test_save_cache_stores_canonical_rows_without_touching_the_input(tmp_path):
    # Unsorted, repeated columns: stored sorted and summed, as scipy reads them.
    X = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), np.array([2, 0, 2]), np.array([0, 3])), shape=(1, 3))
    save_cache(tmp_path / "u.olc", X, np.array([1.0]))
    X2, _, _ = load_cache(tmp_path / "u.olc")
    assert X2.indices.tolist() == [0, 2] and X2.data.tolist() == [2.0, 5.0]
    assert X.indices.tolist() == [2, 0, 2]
    with pytest.raises(ValueError, match="real numbers"):
        save_cache(tmp_path / "c.olc", sp.csr_matrix(np.array([[1j]])), np.array([1.0]))


def test_cli_run_on_corrupted_cache_is_a_one_line_error_not_a_segfault(tmp_path):
    path, _ = small_cache(tmp_path)
    raw = bytearray(path.read_bytes())
    offset, _, _ = array_span(raw, "indices")
    raw[offset + 3] ^= 0x40
    path.write_bytes(bytes(raw))
    proc = subprocess.run(
        [sys.executable, "-m", "olearn", "run", "--algo", "pa1", str(path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert proc.returncode == 1, proc.stderr
    message = f"{path}: cache array 'indices' fails its checksum: the file is corrupt"
    assert proc.stderr.strip() == f"olearn: error: {message}"


# -- labels too large for their type --------------------------------------------------


def test_multilabel_labels_beyond_1e17_are_exact(write):
    path = write(
        "m.svm",
        "100000000000000001,100000000000000002 1:0.5\n"
        "1000000000000000001,1000000000000000002 1:0.5\n"
        "-9223372036854775807,9223372036854775807 1:1\n",
    )
    _, y = load_libsvm(path, multilabel=True)
    assert y == [
        (100000000000000001, 100000000000000002),
        (1000000000000000001, 1000000000000000002),
        (-(2**63) + 1, 2**63 - 1),
    ]


def test_multilabel_label_beyond_int64_is_refused(write, assert_format_error):
    path = write("m.svm", "1 1:1\n3,9223372036854775808 1:0.5\n")
    assert_format_error(load_libsvm, path, 2, 3, "'9223372036854775808' is beyond the 64-bit", multilabel=True)
    with pytest.raises(DataFormatError, match=r"m\.svm:2:3: .*beyond the 64-bit"):
        list(iter_libsvm(path, multilabel=True, block_size=4))


@pytest.mark.parametrize("token", ["100000000000000001", "-9007199254740993", "+12345678901234567890"])
def test_integer_labels_a_float64_cannot_hold_are_refused(write, assert_format_error, token):
    fragment = f"integer label {token} cannot be held exactly"
    assert_format_error(load_libsvm, write("a.svm", f"1 1:1\n{token} 1:0.5\n"), 2, 1, fragment)
    assert_format_error(load_vw, write("a.vw", f"1 | a\n\n{token} 2 | b\n"), 3, 1, fragment)
    assert_format_error(load_csv, write("a.csv", f"x,y\n1,2\n3,{token}\n"), 3, 3, fragment)
    with pytest.raises(DataFormatError, match=r"b\.svm:2:1: integer label"):
        list(iter_libsvm(write("b.svm", f"1 1:1\n{token} 1:0.5\n"), block_size=3))
    with pytest.raises(DataFormatError, match=r"b\.vw:2:1: integer label"):
        list(iter_vw(write("b.vw", f"1 | a\n{token} | b\n"), block_size=3))


def test_large_labels_that_float64_holds_or_written_as_floats_are_read(write):
    # 2**60 and 10**17 are float64 values; 1.00000000000000001e17 is float notation, rounded like any float.
    path = write("ok.svm", "1152921504606846976 1:1\n100000000000000000 1:1\n1.00000000000000001e17 1:1\n")
    _, y = load_libsvm(path)
    assert y.tolist() == [2.0**60, 1e17, 1e17]
    X, y = load_csv(write("ok.csv", "100000000000000001,5\n5,100000000000000000\n"), label_column=-1)
    assert y.tolist() == [5.0, 1e17] and X.toarray().ravel().tolist() == [1e17, 5.0]


# -- CSV allocation, CR line endings ---------------------------------------------------


def test_csv_of_blank_lines_allocates_for_its_data_only(write):
    # 2,000 columns and 2 million blank lines: rows x columns from the newline
    # count was 32 GB; the data holds two rows.
    path = write("blank.csv", ",".join(["1"] * 2000) + "\n" + "\n" * 2_000_000 + ",".join(["2"] * 2000) + "\n")
    tracemalloc.start()
    try:
        X, y = load_csv(path, header=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert X.shape == (2, 1999) and y.tolist() == [1.0, 2.0]
    assert peak < 40e6  # the file (2 MB) a few times over, not 32 GB


@pytest.mark.parametrize("name, load", [("blank.svm", load_libsvm), ("blank.vw", load_vw)])
def test_libsvm_and_vw_blank_lines_cost_no_allocation(write, name, load):
    # 2 million blank or comment lines around two rows: rows (and VW entries)
    # were allocated per newline (and blank): 35 and 55 MB; now per data line.
    fill = "\n# comment\n" * 1_000_000 if name.endswith(".svm") else "\n \n" * 1_000_000
    row = "1 1:1\n" if name.endswith(".svm") else "1 | a\n"
    path = write(name, row + fill + row)
    tracemalloc.start()
    try:
        X = load(path)[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert X.shape[0] == 2
    assert peak < 20e6  # the file (up to 11 MB) and little more


def test_csv_rows_of_too_few_cells_stay_within_the_allocation(write, assert_format_error):
    # Short bad rows after a wide first line: the output holds few rows, the error is located.
    path = write("short.csv", ",".join(["1"] * 50) + "\n" + "1\n" * 200)
    assert_format_error(load_csv, path, 2, 2, "expected 50 cells", header=False)
    path = write("short2.csv", "1,2,3\n4,5")
    assert_format_error(load_csv, path, 2, 4, "expected 3 cells", header=False)


LF_FILES = {
    "svm": ("+1 1:0.5 3:2\n# comment\n-1 2:1.5\n\n+1 1:1\n", lambda p, **kw: load_libsvm(p, **kw)),
    "vw": ("1 2 'a |ns x y:2\n-1 |ns z\n", lambda p, **kw: load_vw(p, n_bits=6, **kw)),
    "csv": ("a,b,label\n1,0,1\n0,2.5,-1\n", lambda p, **kw: load_csv(p, **kw)),
}


def same(a, b):
    if sp.issparse(a):
        return a.shape == b.shape and (a != b).nnz == 0
    return np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("fmt", sorted(LF_FILES))
@pytest.mark.parametrize("ending", ["\r", "\r\n"])
def test_cr_and_crlf_files_read_like_lf_files(write, fmt, ending):
    text, load = LF_FILES[fmt]
    expected = load(write(f"lf.{fmt}", text))
    path = write(f"cr.{fmt}.gz", text.replace("\n", ending))
    assert all(same(a, b) for a, b in zip(load(path), expected))
    assert detect_format(write("cr.txt", text.replace("\n", ending))) == {"svm": "libsvm"}.get(fmt, fmt)
    iterate = {
        "svm": lambda p, **kw: iter_libsvm(p, n_features=3, **kw),
        "vw": lambda p, **kw: iter_vw(p, n_bits=6, **kw),
    }.get(fmt)
    if iterate is not None:
        for block_size in (1, 2, 3, 7, 1 << 20):
            chunks = list(iterate(path, chunk_size=2, block_size=block_size))
            for part, whole in zip(zip(*chunks), expected):
                joined = sp.vstack(part, format="csr") if sp.issparse(whole) else np.concatenate(part)
                assert same(joined, whole)


def test_cr_errors_name_the_cr_delimited_line(write, assert_format_error):
    path = write("bad.svm", "1 1:1\r-1 2:x\r")
    assert_format_error(load_libsvm, path, 2, 6, "feature value")
    with pytest.raises(DataFormatError, match=r"bad\.svm:2:6: "):
        list(iter_libsvm(path, block_size=2))


def test_streaming_a_file_without_newlines_is_linear(write):
    # One 'line' of about 470,000 bytes read one byte per block: the carry was
    # re-concatenated per block (470,000 copies of up to 470 kB each).
    path = write("one.svm", "1 " + " ".join(f"{i}:1" for i in range(1, 60_001)) + "\n")
    # the CPU time of this process, which other processes' load leaves alone (about 0.5 s; copying the carry
    # again per block copies some 110 GB)
    start = time.process_time()
    chunks = list(iter_libsvm(path, block_size=1, n_features=1_000_000, chunk_size=10))
    assert time.process_time() - start < 20
    assert len(chunks) == 1 and chunks[0][0].shape == (1, 1_000_000)


# -- truncated and corrupt compressed streams -------------------------------------------

COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}
KIND = {"gz": "gzip", "bz2": "bz2", "xz": "xz"}
TEXT = "".join(f"{(-1) ** i} 1:{i} 2:0.5\n" for i in range(3000))
VW_TEXT = "".join(f"{(-1) ** i} | a:{i} b\n" for i in range(3000))
CSV_TEXT = "".join(f"{i},0.5,{(-1) ** i}\n" for i in range(3000))
READERS = {
    "load_libsvm": (TEXT, lambda p: load_libsvm(p)),
    "iter_libsvm": (TEXT, lambda p: list(iter_libsvm(p, block_size=1000))),
    "load_vw": (VW_TEXT, lambda p: load_vw(p)),
    "iter_vw": (VW_TEXT, lambda p: list(iter_vw(p, block_size=1000))),
    "load_csv": (CSV_TEXT, lambda p: load_csv(p)),
    "read_any": (TEXT, lambda p: read_any(p)),
}


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_truncated_compressed_stream_is_a_format_error(tmp_path, suffix, reader):
    text, read = READERS[reader]
    path = tmp_path / f"bad.{suffix}"  # no inner suffix: read_any detects the format from the stream
    path.write_bytes(COMPRESS[suffix](text.encode())[:-10])
    with pytest.raises(DataFormatError, match=f"truncated {KIND[suffix]} stream") as info:
        read(path)
    assert str(info.value).startswith(f"{path}: ")


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_corrupt_compressed_stream_is_a_format_error(tmp_path, suffix):
    data = bytearray(COMPRESS[suffix](TEXT.encode()))
    for i in range(len(data) // 3, len(data) // 3 + 32):
        data[i] ^= 0x5A
    path = tmp_path / f"bad.{suffix}"  # no inner suffix: detect_format reads the stream
    path.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match=f"{KIND[suffix]} stream"):
        read_any(path, format="libsvm")
    path.write_bytes(b"1 1:1\n")  # not compressed at all despite its suffix
    with pytest.raises(DataFormatError, match=f"corrupt {KIND[suffix]} stream"):
        detect_format(path)


def test_idx_reader_reports_a_truncated_gzip(tmp_path):
    path = tmp_path / "images.idx.gz"
    path.write_bytes(gzip.compress(b"\x00\x00\x08\x01\x00\x00\x00\x04abcd")[:-3])
    with pytest.raises(DataFormatError, match="truncated gzip stream"):
        read_idx(path)


def test_cli_run_on_truncated_gzip_prints_one_line(tmp_path):
    path = tmp_path / "bad.svm.gz"
    path.write_bytes(gzip.compress(TEXT.encode())[:-10])
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", str(path)])
    assert result.exit_code == 1
    assert "Aborted" not in result.output
    assert result.output.strip().splitlines()[-1] == (
        f"olearn: error: {path}: truncated gzip stream (it ends before its end marker)"
    )


def test_missing_compressed_file_is_still_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_libsvm(tmp_path / "missing.svm.gz")
