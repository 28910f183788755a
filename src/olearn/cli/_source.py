"""Reading a data file for the commands: in chunks for text streams, whole where the format needs it."""

import errno
import os

import click

from ..exceptions import DataFormatError

FORMATS = ("auto", "libsvm", "vw", "csv", "cache")
DEFAULT_CHUNK_SIZE = 50_000
DEFAULT_BITS = 18


def data_options(n_features=True):
    """Decorator adding the options that say how to read FILE (``--n-features`` only if asked)."""
    options = [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
                     help="File format; 'auto' looks at the file name and its first lines."),
        click.option("--zero-based/--one-based", "zero_based", default=None,
                     help="LIBSVM only: feature indices start at 0 / at 1. [default: as the model was trained "
                          "(predict); else 0-based if an index 0 occurs in the first 4 MiB of the first file "
                          "that has features, decided once for the whole run]"),
        click.option("--bits", type=click.IntRange(1, 31), default=None,
                     help=f"VW only: hash features into 2^BITS slots. [default: {DEFAULT_BITS}]"),
        click.option("--chunk-size", type=click.IntRange(min=1), default=DEFAULT_CHUNK_SIZE, show_default=True,
                     help="Rows parsed and learned per step (bounds the memory of streamed formats)."),
    ]
    if n_features:
        options.insert(1, click.option(
            "--n-features", type=click.IntRange(min=1), default=None,
            help="Number of features; a larger feature index is an error. Fixing it up front saves "
                 "regrowing the weights. [default: grows with the largest index seen]"))

    def decorate(func):
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def file_argument(func):
    return click.argument("file", type=click.Path(dir_okay=False, allow_dash=False))(func)


class IndexBase:
    """Whether LIBSVM indices are 0- or 1-based: decided once per command, then the same for every file it reads.

    Given by --zero-based/--one-based, by the model being applied, or, the
    first time a LIBSVM file is read, detected as ``zero_based="auto"``
    decides (:func:`olearn.data._libsvm.detect_zero_based`). A later file
    never decides again: an index 0 in a run read as 1-based is an error
    that names its file and line and says how the base was decided.
    """

    def __init__(self, zero_based=None, origin=None):
        self.zero_based = zero_based
        self.from_option = origin is None and zero_based is not None
        if self.from_option:
            origin = "as --zero-based says" if zero_based else "as --one-based says"
        self.origin = origin

    def settle(self, paths):
        """The base for reading ``paths`` (LIBSVM files), detected from their first features if still open."""
        if self.zero_based is None:
            from ..data._libsvm import _DEFAULT_BLOCK_SIZE, detect_zero_based

            for path in paths:
                found = detect_zero_based(path)
                if found is not None:
                    self.zero_based = found
                    size = f"{_DEFAULT_BLOCK_SIZE >> 20} MiB"
                    self.origin = (f"decided from the first {size} of {path}, where an index 0 occurs" if found
                                   else f"decided from the first {size} of {path}, where no index 0 occurs")
                    break
        return bool(self.zero_based)

    def input_info(self):
        """The model metadata's ``input`` entry: the base the training files were read with (None if none was)."""
        return None if self.zero_based is None else {"zero_based": self.zero_based}

    def explain(self, err):
        """``err`` (a DataFormatError from reading LIBSVM), with how the base was decided if an index 0 caused it."""
        if self.zero_based or "index 0" not in str(err):
            return err
        return DataFormatError(f"{err}; feature indices are read as 1-based ({self.origin}): "
                               "pass --zero-based if the data are 0-based")


class DataSource:
    """FILE read in a given format: ``chunks()`` yields (X, y) in file order; ``load()`` gives it all."""

    def __init__(self, path, fmt="auto", n_features=None, bits=None, chunk_size=DEFAULT_CHUNK_SIZE, base=None):
        from .. import data

        self._data = data
        self.path = os.fspath(path)
        if not os.path.exists(self.path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.path)
        if os.path.isdir(self.path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), self.path)
        self.format = data.detect_format(self.path) if fmt == "auto" else fmt
        if bits is not None and self.format != "vw":
            raise click.UsageError(f"--bits applies to VW files only; {self.path} is read as {self.format}")
        if n_features is not None and self.format == "vw":
            raise click.UsageError("--n-features does not apply to VW files: their dimension is 2^BITS (see --bits)")
        self.bits = DEFAULT_BITS if bits is None else bits
        self.n_features = n_features
        self.chunk_size = chunk_size
        self.base = IndexBase() if base is None else base
        if self.base.from_option and self.format != "libsvm":
            raise click.UsageError(f"--zero-based/--one-based apply to LIBSVM files only; {self.path} is read "
                                   f"as {self.format}")
        self._loaded = None

    @property
    def model_n_features(self):
        """The dimension to give the estimator: --n-features, or 2^bits for hashed VW features."""
        if self.n_features is not None:
            return self.n_features
        return 2**self.bits if self.format == "vw" else None

    def chunks(self):
        """Yield (X, y) chunks of at most ``chunk_size`` rows, in file order."""
        data = self._data
        if self.format == "libsvm":
            zero_based = self.base.settle([self.path])
            try:
                yield from data.iter_libsvm(self.path, chunk_size=self.chunk_size, n_features=self.n_features,
                                            zero_based=zero_based)
            except DataFormatError as err:
                raise self.base.explain(err) from None
        elif self.format == "vw":
            for item in data.iter_vw(self.path, chunk_size=self.chunk_size, n_bits=self.bits):
                yield item[0], item[1]
        else:
            X, y = self.load()
            for lo in range(0, X.shape[0], self.chunk_size):
                yield X[lo : lo + self.chunk_size], y[lo : lo + self.chunk_size]

    def load(self):
        """The whole file as (X, y); read once, then kept (the caller needs it in memory anyway)."""
        if self._loaded is None:
            self._loaded = self._read_whole()
        return self._loaded

    def _read_whole(self):
        data = self._data
        if self.format == "libsvm":
            zero_based = self.base.settle([self.path])
            try:
                loaded = data.load_libsvm(self.path, n_features=self.n_features, zero_based=zero_based)
            except DataFormatError as err:
                raise self.base.explain(err) from None
        elif self.format == "vw":
            loaded = data.load_vw(self.path, n_bits=self.bits)
        elif self.format == "csv":
            loaded = data.load_csv(self.path)
        elif self.format == "cache":
            loaded = data.load_cache(self.path)
        else:
            raise ValueError(f"{self.path}: unknown format {self.format!r}")
        X, y = loaded[0], loaded[1]
        if self.n_features is not None and self.format != "libsvm" and X.shape[1] > self.n_features:
            raise ValueError(f"{self.path}: has {X.shape[1]} features, more than --n-features {self.n_features}")
        return X, y


def check_writable(path, what):
    """Fail before a long run, not after it, if ``path`` cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"folder for {what} does not exist", folder)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, f"{what} is a directory", path)
