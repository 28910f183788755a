"""Reading a text file in blocks of whole lines: ``iter_line_blocks`` and the parsers' ``iter_line_windows``."""

import gzip
import random

import numpy as np
import pytest

from olearn.data._io import iter_line_blocks, iter_line_windows


def expected_text(content):
    """The file as the readers take it: each lone \\r (not followed by \\n) read as \\n, a \\r\\n kept."""
    following = content[1:] + b"."
    return bytes(10 if byte == 13 and after != 10 else byte for byte, after in zip(content, following))


def check_blocks(pieces, text):
    """The pieces cover ``text`` in order, each but the last ending at a line break, each numbered by its first line."""
    offset = 0
    for k, (buf, end, first_line) in enumerate(pieces):
        piece = bytes(buf[:end])
        assert piece == text[offset : offset + end]
        assert first_line == text.count(b"\n", 0, offset)
        if k < len(pieces) - 1:
            assert piece.endswith(b"\n")
        offset += end
    assert offset == len(text)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("block_size", [1, 2, 3, 7, 64, 1 << 20])
def test_blocks_cover_the_file_in_whole_lines(tmp_path, seed, block_size):
    rng = random.Random(seed)
    path = tmp_path / "f.txt"
    for _ in range(60):
        parts = [rng.choice([b"a", b"bc", b" ", b"\n", b"\r", b"\r\n", b"x" * rng.randrange(80)])
                 for _ in range(rng.randrange(25))]
        content = b"".join(parts)
        path.write_bytes(content)
        text = expected_text(content)
        blocks = list(iter_line_blocks(path, block_size))
        assert all(type(buf) is bytes for buf, _, _ in blocks)
        check_blocks(blocks, text)
        windows = list(iter_line_windows(path, block_size))
        # a window's first_line counts the lines before buf[0], which may start before the window
        check_blocks([(buf[start:], end - start, line + buf.count(b"\n", 0, start))
                      for _, buf, start, end, line in windows], text)
        for arr, buf, start, _, _ in windows:
            assert start == 0 or buf[start - 1 : start] == b"\n"  # a window starts a line
            assert not arr.flags.writeable  # the parsers take the text read-only
            np.testing.assert_array_equal(arr, np.frombuffer(bytes(buf), np.uint8))


def test_a_line_of_many_blocks_is_read_whole_and_the_lines_after_it_are_counted(tmp_path):
    long_line = b"1 " + b" ".join(b"%d:1" % j for j in range(1, 5000)) + b"\n"
    content = b"-1 1:1\n" + long_line + b"1 2:1\n" * 3
    path = tmp_path / "long.svm.gz"
    path.write_bytes(gzip.compress(content))
    for block_size in (5, 100, 4096):
        blocks = list(iter_line_blocks(path, block_size))
        check_blocks(blocks, content)
        assert any(long_line in bytes(buf[:end]) for buf, end, _ in blocks)
