import bz2
import gzip
import lzma

import pytest

from olearn.exceptions import DataFormatError

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


@pytest.fixture
def assert_format_error():
    """``assert_format_error(load, path, line, column, fragment, **kwargs)``.

    Checks that ``load(path, **kwargs)`` raises a DataFormatError located at
    ``path:line:column`` whose message contains ``fragment``.
    """

    def _check(load, path, line, column, fragment, **kwargs):
        with pytest.raises(DataFormatError) as info:
            load(path, **kwargs)
        err = info.value
        assert (err.line, err.column) == (line, column), str(err)
        assert fragment in err.message
        assert err.path == str(path)
        assert str(err).startswith(f"{path}:{line}:{column}: ")

    return _check
