"""What ``olearn run`` imports when it reads a VW text file or a cache: neither scipy.sparse (0.2 s) nor, when the
kernels were compiled ahead of time, numba (0.65 s), each once most of a short run (issues #33, #34)."""

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from fresh_cli import loaded_by
from olearn._kernels import _compiled


def _numba_modules(loaded):
    return sorted(m for m in loaded if m == "numba" or m.startswith(("numba.", "llvmlite")))


@pytest.fixture(scope="module")
def svm(tmp_path_factory):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 8)) * (rng.random((300, 8)) < 0.5)
    path = tmp_path_factory.mktemp("cached") / "train.svm"
    dump_svmlight_file(X, np.where(X[:, 0] + X[:, 1] > 0, 1, -1), str(path), zero_based=False)
    return str(path)


def test_a_multi_pass_run_from_the_cache_imports_no_scipy(svm):
    loaded_by("run", "--algo", "pa1", "-c", "--passes", "2", svm)  # writes train.svm.olc
    out, loaded = loaded_by("run", "--algo", "pa1", "-c", "--passes", "3", "--holdout-off", svm)
    assert "olearn.data._cache" in loaded and "900" in out  # read from the cache: 3 passes of 300 examples
    assert "scipy.sparse" not in loaded
    if _compiled.EXTENSION is not None:  # the cache's check and the passes are compiled ahead of time
        assert _numba_modules(loaded) == []


def test_a_run_on_vw_text_imports_no_scipy(tmp_path):
    path = tmp_path / "train.vw"
    path.write_text("".join(f"{1 if i % 3 else -1} 2 |a x{i % 7}:0.5 y |b z{i % 5}\n" for i in range(400)))
    out, loaded = loaded_by("run", "--algo", "pa1", path)
    assert "olearn.data._vw" in loaded and "400" in out
    assert "scipy.sparse" not in loaded  # the chunks are CSRRows, as a LIBSVM file's
    assert "numpy.ma" not in loaded  # the classes of a chunk told apart without np.unique
    if _compiled.EXTENSION is not None:  # the VW parser, the row sort and the pass are compiled ahead of time
        assert _numba_modules(loaded) == []
