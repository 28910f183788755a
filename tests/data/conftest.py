import bz2
import gzip
import lzma

import pytest

COMPRESSORS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


@pytest.fixture
def write(tmp_path):
    """``write(name, text)`` -> path of a file in tmp_path holding ``text``.

    ``text`` may be str or bytes; a ``.gz``/``.bz2``/``.xz`` name compresses it.
    """

    def _write(name, text):
        data = text.encode() if isinstance(text, str) else text
        for suffix, compress in COMPRESSORS.items():
            if suffix and name.endswith(suffix):
                data = compress(data)
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return _write
