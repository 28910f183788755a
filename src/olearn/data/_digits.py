"""Fetchers of the digit datasets of the PA paper's multiclass experiment (Sec. 10.3): MNIST and USPS.

Each downloads its files once into the data home (:func:`get_data_home`),
checks their published MD5 checksums, and reads them from there afterwards.
Images are returned unprocessed; the paper's preprocessing (zero mean, average
squared norm 1) belongs to the experiment.
"""

import os

import numpy as np

from olearn.exceptions import DataFormatError

from ._download import fetch_file, get_data_home
from ._io import open_binary
from ._libsvm import load_libsvm

# Mirrors in the order tried; the first is the one torchvision and others use
# since the original page began refusing automated downloads.
MNIST_URLS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "https://yann.lecun.com/exdb/mnist/")
MNIST_FILES = {
    "train": (("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
              ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432")),
    "test": (("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
             ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")),
}
USPS_URLS = ("https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/",)
USPS_FILES = {
    "train": ("usps.bz2", "ec16c51db3855ca6c91edd34d0e9b197"),
    "test": ("usps.t.bz2", "8ea070ee2aca1ac39742fdd1ef5ed118"),
}
_SUBSETS = ("train", "test", "all")


def read_idx(path):
    """The array held by an IDX file (plain or compressed), as in LeCun's MNIST distribution.

    The format: two zero bytes, a type byte (0x08 for unsigned bytes, the only
    type the digit sets use), the number of dimensions, one big-endian uint32
    per dimension, then the values in C order. A malformed file, or a
    truncated or corrupt compressed one, raises
    :class:`~olearn.exceptions.DataFormatError` naming it.
    """
    with open_binary(path) as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise DataFormatError("not an IDX file (it must start with two zero bytes)", path)
    if raw[2] != 0x08:
        raise DataFormatError(f"IDX type byte 0x{raw[2]:02x} is not supported; expected 0x08 (unsigned bytes)", path)
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataFormatError("IDX header truncated", path)
    shape = tuple(int(n) for n in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    expected = int(np.prod(shape)) if shape else 0
    if len(raw) - header != expected:
        raise DataFormatError(
            f"IDX shape {shape} needs {expected} bytes of data, the file has {len(raw) - header}", path
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)


def _check_subset(subset):
    if subset not in _SUBSETS:
        raise ValueError(f"subset={subset!r}; expected one of {_SUBSETS}")
    return ("train", "test") if subset == "all" else (subset,)


def fetch_mnist(subset="train", data_home=None, download_if_missing=True, base_urls=MNIST_URLS):
    """MNIST handwritten digits (LeCun, Cortes, Burges): 60,000 training and 10,000 test images.

    Parameters
    ----------
    subset : {"train", "test", "all"}
        ``"all"`` is the training images followed by the test images.
    data_home : str or path, optional
        Where the files are kept (see :func:`get_data_home`).
    download_if_missing : bool, default True
        If False, a file not yet downloaded is a FileNotFoundError.
    base_urls : sequence of str
        Mirrors tried in order (a local mirror, for instance).

    Returns
    -------
    X : ndarray of uint8, shape (n, 784)
        Pixel intensities 0..255, each 28 x 28 image flattened row by row.
    y : ndarray of int64, shape (n,)
        Digits 0..9.

    Examples
    --------
    >>> from olearn.data import fetch_mnist
    >>> X, y = fetch_mnist("test")  # doctest: +SKIP
    >>> X.shape, y[:5].tolist()  # doctest: +SKIP
    ((10000, 784), [7, 2, 1, 0, 4])
    """
    folder = os.path.join(get_data_home(data_home), "mnist")
    os.makedirs(folder, exist_ok=True)
    parts_X, parts_y = [], []
    for part in _check_subset(subset):
        (images, images_md5), (labels, labels_md5) = MNIST_FILES[part]
        X = read_idx(fetch_file(images, images_md5, base_urls, folder, download_if_missing))
        y = read_idx(fetch_file(labels, labels_md5, base_urls, folder, download_if_missing))
        if X.ndim != 3 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise ValueError(f"{folder}: MNIST {part} images {X.shape} and labels {y.shape} do not match")
        parts_X.append(X.reshape(X.shape[0], -1))
        parts_y.append(y.astype(np.int64))
    return np.concatenate(parts_X), np.concatenate(parts_y)


def fetch_usps(subset="train", data_home=None, download_if_missing=True, base_urls=USPS_URLS):
    """USPS handwritten digits (Hull 1994) as distributed in LIBSVM format: 7,291 training and 2,007 test images.

    Parameters are those of :func:`fetch_mnist`.

    Returns
    -------
    X : ndarray of float64, shape (n, 256)
        Grey levels scaled to [-1, 1], each 16 x 16 image flattened row by row.
    y : ndarray of int64, shape (n,)
        Digits 0..9 (the files' labels 1..10, minus one).

    Examples
    --------
    >>> from olearn.data import fetch_usps
    >>> X, y = fetch_usps("all")  # doctest: +SKIP
    >>> X.shape, float(X.min()), float(X.max())  # doctest: +SKIP
    ((9298, 256), -1.0, 1.0)
    """
    folder = os.path.join(get_data_home(data_home), "usps")
    os.makedirs(folder, exist_ok=True)
    parts_X, parts_y = [], []
    for part in _check_subset(subset):
        name, md5 = USPS_FILES[part]
        X, y = load_libsvm(
            fetch_file(name, md5, base_urls, folder, download_if_missing), n_features=256, zero_based=False
        )
        parts_X.append(X.toarray())
        parts_y.append(np.asarray(y, dtype=np.int64) - 1)
    return np.concatenate(parts_X), np.concatenate(parts_y)
