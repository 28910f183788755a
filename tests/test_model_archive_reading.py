"""Reading a model file (issue #34): the metadata alone reads no array, and loading reads each array once.

``olearn predict`` reads the metadata (how the training file was read) and
then the model: neither may hold the file's arrays more than once.
"""

import subprocess
import sys
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.exceptions import ModelFormatError
from olearn.linear import PAClassifier
from olearn._persistence import read_input_info, save

D = 2**20


def _wide_model(tmp_path):
    """An averaged PA-I model over D columns, its weights and running sum dense (16 MiB of arrays)."""
    rng = np.random.default_rng(0)
    X = sp.random(50, D, density=2e-3, format="csr", random_state=rng)
    model = PAClassifier(average=True, n_features=D).partial_fit(X, np.where(rng.random(50) > 0.5, 1, -1))
    model._w[:] += rng.random(model._w.size)  # no zeros: nothing a file could leave out
    path = tmp_path / "wide.npz"
    save(model, path, input_info={"format": "libsvm", "zero_based": False})
    return model, path


def _with_damaged_weights(path, damaged):
    """A copy of the model file with the last byte of its 'weights' member changed (its CRC no longer matches)."""
    content = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("weights.npy")
    name_length, extra_length = np.frombuffer(bytes(content[info.header_offset + 26 : info.header_offset + 30]), "<u2")
    end = info.header_offset + 30 + int(name_length) + int(extra_length) + info.compress_size
    content[end - 1] ^= 0xFF
    damaged.write_bytes(bytes(content))


def test_the_metadata_alone_reads_no_array(tmp_path):
    _, path = _wide_model(tmp_path)
    damaged = tmp_path / "damaged.npz"
    _with_damaged_weights(path, damaged)
    # the damaged array is never read for the metadata...
    assert read_input_info(damaged) == {"format": "libsvm", "zero_based": False}
    # ...and is refused when the model is loaded
    with pytest.raises(ModelFormatError, match="member 'weights.npy' is unreadable"):
        olearn.load(damaged)


_MEASURE = """
import sys
import olearn
from olearn._persistence import read_input_info


def resident_kib(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key + ":"))


def peak_over_now(call):
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak resident size starts again from the current one
    before = resident_kib("VmRSS")
    result = call()
    return resident_kib("VmHWM") - before, result


olearn.load(sys.argv[1])  # the family's modules and kernels, loaded before measuring
info, _ = peak_over_now(lambda: read_input_info(sys.argv[2]))
load, model = peak_over_now(lambda: olearn.load(sys.argv[2]))
print(info, load)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the peak resident size of /proc/self")
def test_loading_holds_the_model_and_one_array_not_copies_of_the_file(tmp_path):
    rng = np.random.default_rng(1)
    d = 2**22
    X = sp.random(20, d, density=1e-4, format="csr", random_state=rng)
    y = np.where(rng.random(20) > 0.5, 1, -1)
    small = tmp_path / "small.npz"
    save(PAClassifier(average=True).partial_fit(X[:, :10], y), small)
    model = PAClassifier(average=True, n_features=d).partial_fit(X, y)
    model._w[:] += rng.random(model._w.size)  # two dense arrays of 32 MiB: nothing a file could leave out
    model._avg[:] += rng.random(model._avg.size)
    path = tmp_path / "wide.npz"
    save(model, path)
    size = path.stat().st_size
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(small), str(path)], capture_output=True, text=True,
                         timeout=600, check=True).stdout
    info_kib, load_kib = (int(v) for v in out.split())
    assert info_kib * 1024 < 0.1 * size
    # the model (the file's size) and, while the learner copies one of its two arrays, the file's: 1.5x and the
    # checks' masks; reading the file whole, then each member, then its data, then a copy held 3x
    assert load_kib * 1024 < 2.0 * size, (load_kib, size)
