"""Dataset fetchers, served by a local HTTP server on loopback (no network at test time)."""

import gzip
import hashlib
import http.server
import os
import pathlib
import threading

import numpy as np
import pytest

from olearn.data import _digits, fetch_mnist, fetch_usps, get_data_home, read_idx
from olearn.exceptions import DataFormatError

SHARED = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"


def _idx(array):
    """IDX bytes of a uint8 array, written from the format's description."""
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return header + array.astype(np.uint8).tobytes()


class _Server:
    """Serves a dict {path: bytes}; counts the requests; anything else is a 404."""

    def __init__(self, files):
        self.files = files
        self.requests = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _md5(data):
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


@pytest.fixture
def mnist_files(monkeypatch):
    """Small MNIST-format files (3 training, 2 test images) and their checksums installed in the fetcher."""
    rng = np.random.default_rng(0)
    arrays = {
        "train-images-idx3-ubyte.gz": rng.integers(0, 256, (3, 28, 28)),
        "train-labels-idx1-ubyte.gz": np.array([5, 0, 4]),
        "t10k-images-idx3-ubyte.gz": rng.integers(0, 256, (2, 28, 28)),
        "t10k-labels-idx1-ubyte.gz": np.array([7, 2]),
    }
    files = {name: gzip.compress(_idx(a)) for name, a in arrays.items()}
    table = {part: tuple((name, _md5(files[name])) for name, _ in entries) for part, entries in _digits.MNIST_FILES.items()}
    monkeypatch.setattr(_digits, "MNIST_FILES", table)
    return arrays, files


def test_mnist_downloads_once_then_reads_the_cache(mnist_files, tmp_path):
    arrays, files = mnist_files
    with _Server({f"/mirror/{name}": body for name, body in files.items()}) as server:
        X, y = fetch_mnist("train", data_home=tmp_path, base_urls=[server.url + "/mirror/"])
        assert len(server.requests) == 2
        X2, y2 = fetch_mnist("train", data_home=tmp_path, base_urls=[server.url + "/mirror/"])
        assert len(server.requests) == 2  # the second call needed no network
    np.testing.assert_array_equal(X, arrays["train-images-idx3-ubyte.gz"].reshape(3, 784))
    np.testing.assert_array_equal(y, [5, 0, 4])
    assert X.dtype == np.uint8 and y.dtype == np.int64
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    assert sorted(os.listdir(tmp_path / "mnist")) == ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]


def test_mnist_all_is_train_then_test(mnist_files, tmp_path):
    _, files = mnist_files
    with _Server({f"/{name}": body for name, body in files.items()}) as server:
        X, y = fetch_mnist("all", data_home=tmp_path, base_urls=[server.url])
    assert X.shape == (5, 784)
    np.testing.assert_array_equal(y, [5, 0, 4, 7, 2])


def test_a_dead_mirror_is_skipped(mnist_files, tmp_path):
    _, files = mnist_files
    with _Server({f"/good/{name}": body for name, body in files.items()}) as server:
        _, y = fetch_mnist("test", data_home=tmp_path, base_urls=[server.url + "/missing/", server.url + "/good/"])
    np.testing.assert_array_equal(y, [7, 2])


def test_a_wrong_checksum_is_refused_and_nothing_is_kept(mnist_files, tmp_path):
    _, files = mnist_files
    tampered = {f"/{name}": body + b"x" for name, body in files.items()}
    with _Server(tampered) as server, pytest.raises(OSError, match=r"checksum mismatch.*expected [0-9a-f]{32}"):
        fetch_mnist("train", data_home=tmp_path, base_urls=[server.url])
    assert os.listdir(tmp_path / "mnist") == []


def test_a_corrupted_cached_file_is_downloaded_again(mnist_files, tmp_path):
    arrays, files = mnist_files
    with _Server({f"/{name}": body for name, body in files.items()}) as server:
        fetch_mnist("test", data_home=tmp_path, base_urls=[server.url])
        (tmp_path / "mnist" / "t10k-labels-idx1-ubyte.gz").write_bytes(b"garbage")
        _, y = fetch_mnist("test", data_home=tmp_path, base_urls=[server.url])
        assert server.requests.count("/t10k-labels-idx1-ubyte.gz") == 2
    np.testing.assert_array_equal(y, arrays["t10k-labels-idx1-ubyte.gz"])


def test_no_download_when_told_not_to(tmp_path):
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        fetch_mnist("train", data_home=tmp_path, download_if_missing=False)


def test_unreachable_mirrors_name_every_url(mnist_files, tmp_path):
    with _Server({}) as server, pytest.raises(OSError, match=r"(?s)could not download.*/a/train-images.*/b/train-images"):
        fetch_mnist("train", data_home=tmp_path, base_urls=[server.url + "/a/", server.url + "/b/"])


def test_unknown_subset(tmp_path):
    with pytest.raises(ValueError, match=r"subset='validation'"):
        fetch_usps("validation", data_home=tmp_path)


def test_usps_labels_become_digits_and_pixels_stay_in_range(monkeypatch, tmp_path):
    rows = ["10 1:-1 2:0.5 256:1", "1 3:0.25"]
    body = __import__("bz2").compress(("\n".join(rows) + "\n").encode())
    monkeypatch.setattr(_digits, "USPS_FILES", {"train": ("usps.bz2", _md5(body)), "test": ("usps.t.bz2", "0" * 32)})
    with _Server({"/usps.bz2": body}) as server:
        X, y = fetch_usps("train", data_home=tmp_path, base_urls=[server.url])
    assert X.shape == (2, 256)
    np.testing.assert_array_equal(y, [9, 0])
    assert X[0, 0] == -1.0 and X[0, 1] == 0.5 and X[0, 255] == 1.0 and X[1, 2] == 0.25


def test_data_home_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OLEARN_DATA", str(tmp_path / "from-env"))
    assert get_data_home() == str(tmp_path / "from-env")
    assert (tmp_path / "from-env").is_dir()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x01\x00\x08\x01", "not an IDX file"),
        (b"\x00\x00\x0d\x01\x00\x00\x00\x01", "type byte 0x0d"),
        (b"\x00\x00\x08\x02\x00\x00\x00\x02", "header truncated"),
        (b"\x00\x00\x08\x01\x00\x00\x00\x03\x01\x02", r"shape \(3,\) needs 3 bytes of data, the file has 2"),
    ],
)
def test_read_idx_errors(tmp_path, content, message):
    path = tmp_path / "bad.idx"
    path.write_bytes(content)
    with pytest.raises(DataFormatError, match=message) as info:
        read_idx(path)
    assert info.value.path == path


@pytest.mark.skipif(not (SHARED / "fashion-mnist").is_dir(), reason="shared data not available")
def test_read_idx_on_the_real_fashion_mnist_files():
    images = read_idx(SHARED / "fashion-mnist" / "t10k-images-idx3-ubyte.gz")
    labels = read_idx(SHARED / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz")
    assert images.shape == (10000, 28, 28) and labels.shape == (10000,)
    np.testing.assert_array_equal(np.bincount(labels), [1000] * 10)  # the published class balance
