"""A line longer than ``max_line_bytes`` is refused while it is read, not after it is read whole.

A file without line breaks (damaged, binary, or one 200 MB record) made the
streaming readers hold it whole before the parse error at 1:1.
"""

import tracemalloc

import pytest
from click.testing import CliRunner

import olearn
from olearn.cli import cli
from olearn.data import iter_conll, iter_libsvm, iter_vw, load_conll
from olearn.exceptions import DataFormatError

CAP = 1000


def long_line(n_features):
    return "1 " + " ".join(f"{i}:1" for i in range(1, n_features + 1))


READERS = {
    "svm": (long_line, lambda p, b: list(iter_libsvm(p, block_size=b))),
    "vw": (lambda n: "1 | " + " ".join(f"f{i}" for i in range(n)), lambda p, b: list(iter_vw(p, block_size=b))),
    "conll": (lambda n: " ".join(f"w{i}" for i in range(n)) + " TAG", lambda p, b: list(iter_conll(p, block_size=b))),
}


@pytest.mark.parametrize("block_size", [7, 64, 999])
@pytest.mark.parametrize("fmt", sorted(READERS))
def test_a_line_past_the_cap_is_refused_naming_its_line(write, fmt, block_size):
    make, read = READERS[fmt]
    short = make(3)
    path = write(f"long.{fmt}", f"{short}\n{short}\n\n{make(400)}\n{short}\n")
    assert len(make(400)) > CAP
    with olearn.config_context(max_line_bytes=CAP), pytest.raises(DataFormatError) as err:
        read(path, block_size)
    assert (err.value.path, err.value.line) == (str(path), 4)
    assert "longer than max_line_bytes=1000 B" in err.value.message and "set_config(max_line_bytes=" in err.value.message
    assert read(path, block_size)  # the default cap, 64 MiB, lets it through


def test_lines_up_to_the_cap_are_read(write):
    line = long_line(150)
    path = write("ok.svm", f"{line}\n" * 3)
    with olearn.config_context(max_line_bytes=len(line)):
        (X, y), = iter_libsvm(path, block_size=16)
    assert X.shape == (3, 150)


def test_a_file_without_line_breaks_is_not_read_whole(write):
    path = write("flat.svm.gz", b"1" * 8_000_000)
    tracemalloc.start()
    try:
        with olearn.config_context(max_line_bytes=1 << 16), pytest.raises(DataFormatError, match=r"flat\.svm\.gz:1: "):
            list(iter_libsvm(path, block_size=4096))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # the 8 MB line read whole took 8 MB and more


def test_load_conll_and_the_command_line_refuse_it_too(write):
    # past their 4 MiB blocks (a line within one block costs no more than the block and is not measured)
    big = "1 " + "1:1 " * 1_200_000
    path = write("long.conll", "a X\n" + big + "TAG\n")
    with olearn.config_context(max_line_bytes=1 << 20), pytest.raises(DataFormatError, match=r"long\.conll:2: "):
        load_conll(path)
    svm = write("long.svm", "1 1:1\n" + big + "\n")
    with olearn.config_context(max_line_bytes=1 << 20):
        result = CliRunner().invoke(cli, ["run", "--algo", "pa1", str(svm)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"olearn: error: {svm}:2: the line is longer than max_line_bytes=1.0 MiB")


def test_the_cap_is_a_setting():
    assert olearn.get_config()["max_line_bytes"] == 64 * 2**20
    for bad in (0, -1, 1.5, True, "64"):
        with pytest.raises(ValueError, match="max_line_bytes must be a positive integer"):
            olearn.set_config(max_line_bytes=bad)
