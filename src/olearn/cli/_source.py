"""Reading a data file for the commands: in chunks for text streams, whole where the format needs it."""

import contextlib
import errno
import os
import re
import sys

import click
import numpy as np

from ..data import _io
from ..exceptions import DataFormatError
from ._csv_layout import MAX_PLAUSIBLE_CLASSES, CsvLayout
from ._file_names import named

FORMATS = ("auto", "libsvm", "vw", "csv", "cache", "conll")
DEFAULT_CHUNK_SIZE = 50_000
DEFAULT_BITS = 18


def data_options(n_features=True, predict=False):
    """Decorator adding the options that say how to read FILE (``--n-features`` only if asked; ``--no-label`` for predict)."""
    options = [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
                     help="File format; 'auto' looks at the file name and its first lines."),
        click.option("--zero-based/--one-based", "zero_based", default=None,
                     help="LIBSVM only: feature indices start at 0 / at 1. [default: as the model was trained "
                          "(predict); else 0-based if an index 0 occurs in the first 4 MiB of the first file "
                          "that has features, decided once for the whole run]"),
        click.option("--bits", "-b", "--bit_precision", type=click.IntRange(1, 31), default=None,
                     help=f"VW and CoNLL only: hash features into 2^BITS slots. [default: {DEFAULT_BITS}]"),
        click.option("--chunk-size", type=click.IntRange(min=1), default=DEFAULT_CHUNK_SIZE, show_default=True,
                     help="Rows (CoNLL: sequences) parsed and learned per step (bounds the memory of streamed "
                          "formats)."),
        click.option("--label-column", default=None, metavar="N|NAME",
                     help=f"CSV only: the column holding the label, by number (1 is the first) or by its name in "
                          f"the header. [default: {'the column the model was trained with' if predict else 'the last column'}]"),
        click.option("--delimiter", default=None, metavar="CHAR",
                     help=f"CSV only: the character between cells. [default: {'as in training' if predict else ','}]"),
    ]
    if predict:
        options.append(click.option(
            "--no-label", is_flag=True,
            help="CSV and CoNLL only: FILE has no label column (CoNLL: no tag field); every column is a feature, as "
                 "in training but the label."))
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

    def settle(self, paths, multilabel=False):
        """The base for reading ``paths`` (LIBSVM files, multilabel ones if said), detected from their first
        features if still open."""
        if self.zero_based is None:
            from ..data._libsvm import _DEFAULT_BLOCK_SIZE, detect_zero_based

            for path in paths:
                found = detect_zero_based(path, multilabel=multilabel)
                if found is not None:
                    self.zero_based = found
                    size = f"{_DEFAULT_BLOCK_SIZE >> 20} MiB"
                    self.origin = (f"decided from the first {size} of {named(path)}, where an index 0 occurs" if found
                                   else f"decided from the first {size} of {named(path)}, where no index 0 occurs")
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


# how a learner names the example of a batch that it refuses (0-based)
_ROW = re.compile(r"\brow (\d+)\b")


@contextlib.contextmanager
def naming_examples(first, message):
    """Re-raise a learner's ValueError about "row k" of a chunk whose first example is example ``first`` (0-based)
    as ``ValueError(message(index, text))``: the example's index in the stream, and the error's text naming it
    "example N" (1-based). Other errors pass unchanged."""
    try:
        yield
    except DataFormatError:
        raise
    except ValueError as err:
        found = _ROW.search(str(err))
        if found is None:
            raise
        index = first + int(found.group(1))
        raise ValueError(message(index, _ROW.sub(f"example {index + 1}", str(err), count=1))) from None


def opened_input(path):
    """(path to read, whether it is a stream) for a command's FILE: a missing file or a folder is an OSError; a
    stream ("-", /dev/stdin, a FIFO, <(...)) is read once, as it arrives, and its path is then the one to read."""
    path = os.fspath(path)
    stream = _io.is_stream(path)
    if not stream and not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if stream:
        path = _io.open_once(path, _binary_stdin())
    return path, stream


def _binary_stdin():
    """Standard input's byte stream (click deprecates its ``get_binary_stream``, to be removed in click 9)."""
    if sys.stdin is None:
        raise click.UsageError("FILE is '-', but there is no standard input to read")
    # a text wrapper reads its bytes through .buffer; a stream without one is already binary
    return getattr(sys.stdin, "buffer", sys.stdin)


class DataSource:
    """FILE read in a given format: ``chunks()`` yields (X, y, weight) in file order; ``load()`` gives it all.

    ``weight`` is None, or the importance weights of a VW file that has some other than 1.
    When ``learning``, every example needs a label (an unlabelled VW line is an
    error) and a CSV label column that was not named must look like a
    classifier's labels (at most ``max_classes`` distinct integers).
    ``trained_csv`` (the ``csv`` entry of a model's metadata) gives the label
    column and delimiter that the options leave open. ``max_classes`` None
    accepts any real label (regression).

    ``multilabel``: the labels are comma-separated sets (``1,3 5:0.2``), which
    only LIBSVM files hold; y is then a list of tuples. ``unlabelled``: the
    rows themselves are the examples (uniclass) and y is None: LIBSVM and VW
    labels are read and dropped, and every column of a CSV file is a
    coordinate unless --label-column (or the model's record) names a label
    column, which is dropped.
    """

    def __init__(self, path, fmt="auto", n_features=None, bits=None, chunk_size=DEFAULT_CHUNK_SIZE, base=None,
                 label_column=None, delimiter=None, labelled=True, learning=True, max_classes=MAX_PLAUSIBLE_CLASSES,
                 trained_csv=None, multilabel=False, unlabelled=False, namespaces=None):
        from .. import data

        self._data = data
        self.path, self.stream = opened_input(path)
        self.format = data.detect_format(self.path) if fmt == "auto" else fmt
        if self.format == "conll":
            raise click.UsageError(f"{named(self.path)} is read as conll, a file of sequences: learn it with --algo "
                                   "pa-sequence, pa1-sequence or pa2-sequence, and predict it with their models")
        if self.stream and self.format == "cache":
            raise click.UsageError(f"{named(self.path)} is a stream, and an olearn cache is read from a file (it is "
                                   "memory-mapped): save the stream to a file first")
        if bits is not None and self.format != "vw":
            raise click.UsageError(f"--bits applies to VW files only; {named(self.path)} is read as {self.format}")
        if n_features is not None and self.format == "vw":
            raise click.UsageError("--n-features does not apply to VW files: their dimension is 2^BITS (see --bits)")
        if namespaces is not None and self.format != "vw":
            raise click.UsageError(f"the namespace options (-q, --cubic, --interactions, --ignore, --keep, --ngram, "
                                   f"--skips) apply to VW files only; {named(self.path)} is read as {self.format}")
        self.namespaces = namespaces
        for name, value in (("--label-column", label_column), ("--delimiter", delimiter),
                            ("--no-label", None if labelled else True)):
            if value is not None and self.format != "csv":
                raise click.UsageError(f"{name} applies to CSV files only; {named(self.path)} is read as {self.format}")
        self.bits = DEFAULT_BITS if bits is None else bits
        self.n_features = n_features
        self.chunk_size = chunk_size
        self.base = IndexBase() if base is None else base
        if self.base.from_option and self.format != "libsvm":
            raise click.UsageError(f"--zero-based/--one-based apply to LIBSVM files only; {named(self.path)} is read "
                                   f"as {self.format}")
        if multilabel and self.format != "libsvm":
            raise click.UsageError(f"the multilabel learners read LIBSVM files, whose labels are comma-separated "
                                   f"sets ('1,3 5:0.2 7:1'); {named(self.path)} is read as {self.format}")
        self.multilabel = multilabel
        self.unlabelled = unlabelled
        self.csv = None
        if self.format == "csv":
            if unlabelled and label_column is None and (trained_csv or {}).get("label_column") is None:
                labelled = False  # every column is a coordinate of the vector
            self.csv = CsvLayout(self.path, label_column, delimiter, labelled, trained_csv)
        self.learning = learning
        self.max_classes = max_classes
        self._loaded = None

    @property
    def model_n_features(self):
        """The dimension to give the estimator: --n-features, or 2^bits for hashed VW features."""
        if self.n_features is not None:
            return self.n_features
        return 2**self.bits if self.format == "vw" else None

    def input_info(self):
        """The model metadata's ``input`` entry: the format, and how this file was read."""
        info = {"format": self.format, **(self.base.input_info() or {})}
        if self.format == "vw":
            info["bits"] = self.bits
            if self.namespaces is not None:
                info["namespaces"] = self.namespaces.info()
        if self.csv is not None:
            info["csv"] = self.csv.info()
        return info

    def chunks(self):
        """Yield (X, y, weight) chunks of at most ``chunk_size`` rows, in file order."""
        if self.format == "libsvm":
            from ..data._libsvm import _DEFAULT_BLOCK_SIZE, iter_libsvm_rows
            from ..data._parallel import file_parse_threads

            zero_based = self.base.settle([self.path], self.multilabel)
            self._start_reading()
            threads = file_parse_threads(self.path, _DEFAULT_BLOCK_SIZE)
            try:
                for X, y in iter_libsvm_rows(self.path, chunk_size=self.chunk_size, n_features=self.n_features,
                                             zero_based=zero_based, multilabel=self.multilabel, threads=threads):
                    yield X, None if self.unlabelled else y, None
            except DataFormatError as err:
                raise self.base.explain(err) from None
        elif self.format == "vw":
            from ..data._parallel import file_parse_threads
            from ..data._vw import _DEFAULT_BLOCK_SIZE as block_size
            from ..data._vw import iter_vw_rows

            self._start_reading()
            threads = file_parse_threads(self.path, block_size)
            for X, y, weight in iter_vw_rows(self.path, chunk_size=self.chunk_size, n_bits=self.bits,
                                             require_labels=self.learning and not self.unlabelled, threads=threads,
                                             **self._namespace_options()):
                yield X, None if self.unlabelled else y, _unless_all_ones(weight)
        else:
            X, y, weight = self.load()
            for lo in range(0, X.shape[0], self.chunk_size):
                part = slice(lo, lo + self.chunk_size)
                yield X[part], None if y is None else y[part], None if weight is None else weight[part]

    def _namespace_options(self):
        """The keyword arguments of ``load_vw``/``iter_vw`` that cross the namespaces as the options say."""
        return {} if self.namespaces is None else self.namespaces.info()

    def locating(self, first):
        """Report a learner's error about "row N" of a chunk whose first example is example ``first`` of the file
        (0-based) as the file's own line (1-based), or as its example number for a cache."""

        def message(index, text):
            line = self._line_of(index)
            return f"{self.path}:{line}: {text}" if line else f"{named(self.path)}: {text}"

        return naming_examples(first, message)

    def _line_of(self, index):
        """The 1-based line of the file that holds example ``index`` (0-based), or None (a cache has no lines)."""
        from ..data._io import iter_line_blocks

        if self.format not in ("libsvm", "vw", "csv") or self.stream:
            return None  # a cache has no lines, and a stream cannot be read again
        comments = self.format != "vw"  # LIBSVM and CSV skip '#' lines, VW blank lines only
        header = self.csv is not None and self.csv.header is not None
        seen = 0
        for buf, end, first_line in iter_line_blocks(self.path, 1 << 22):
            for number, line in enumerate(buf[:end].split(b"\n"), start=first_line + 1):
                text = line.strip()
                if not text or (comments and text.startswith(b"#")):
                    continue
                if header:
                    header = False
                elif seen == index:
                    return number
                else:
                    seen += 1
        return None

    def load(self):
        """The whole file as (X, y, weight); read once, then kept (the caller needs it in memory anyway)."""
        if self._loaded is None:
            self._loaded = self._read_whole()
        return self._loaded

    def _start_reading(self):
        """Detection is over: a stream's next reading is of the data themselves, and its last."""
        if self.stream:
            _io.once_input(self.path).start()

    def _read_whole(self):
        data = self._data
        weight = None
        if self.format == "libsvm":
            zero_based = self.base.settle([self.path], self.multilabel)
        self._start_reading()
        if self.format == "libsvm":
            try:
                X, y = data.load_libsvm(self.path, n_features=self.n_features, zero_based=zero_based,
                                        multilabel=self.multilabel)
            except DataFormatError as err:
                raise self.base.explain(err) from None
        elif self.format == "vw":
            X, y, weight = data.load_vw(self.path, n_bits=self.bits,
                                        require_labels=self.learning and not self.unlabelled,
                                        **self._namespace_options())
            weight = _unless_all_ones(weight)
        elif self.format == "csv":
            X, y = self.csv.load(self.learning)
            if self.learning and not self.unlabelled:
                self.csv.check_labels(y, self.max_classes)
        elif self.format == "cache":
            X, y, weight = data.load_cache(self.path)
            weight = None if weight is None else _unless_all_ones(np.asarray(weight))
        else:
            raise ValueError(f"{named(self.path)}: unknown format {self.format!r}")
        if self.n_features is not None and self.format != "libsvm" and X.shape[1] > self.n_features:
            raise ValueError(f"{named(self.path)}: has {X.shape[1]} features, more than --n-features {self.n_features}")
        return X, None if self.unlabelled else y, weight


def _unless_all_ones(weight):
    """The importance weights, or None when every one is 1 (the unweighted path)."""
    return None if weight is None or np.all(weight == 1.0) else weight


def check_writable(path, what):
    """Fail before a long run, not after it, if ``path`` cannot be written, or is a file the command reads (its
    data, or its model but where ``--save`` writes the model of ``-i`` anew): writing it would destroy it."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"folder for {what} does not exist", folder)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, f"{what} is a directory", path)
    for read in _files_read(what):
        if os.path.exists(path) and os.path.exists(read) and os.path.samefile(path, read):
            same = "" if read == path else f" ({read})"
            raise click.UsageError(f"{what} {path} is a file this command reads{same}: writing it would destroy it; "
                                   "choose another file")


def _files_read(what):
    """The files the current command reads: its data (FILE, FILES, -d), and its model (-m, -i) unless ``what``
    is ``--save``, which may write the model of ``-i`` anew (VW's ``-i model -f model``)."""
    context = click.get_current_context(silent=True)
    params = {} if context is None else context.params
    files = list(params.get("files") or ()) + [params.get("file")]
    if what != "--save":
        files += [params.get("model_path"), params.get("initial_model")]
    return [file for file in files if file is not None and file != "-"]
