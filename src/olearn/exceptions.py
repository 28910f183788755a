"""Exceptions raised by olearn.

Every error that concerns user input names where the problem is (file, line,
column, feature index, row) and what was expected, so that a bad line in a
ten-gigabyte stream can be found without a debugger.

:class:`NotFittedError`, :class:`DataConversionWarning` and :class:`ConvergenceWarning` are also
scikit-learn's classes of the same name whenever scikit-learn is loaded, so
that ``except sklearn.exceptions.NotFittedError`` catches olearn's. They are
not plain subclasses of scikit-learn's because ``import sklearn.exceptions``
imports all of scikit-learn's base (about half a second, more than olearn's
own import), which every command-line run would pay. Instead, creating one of
them while ``sklearn.exceptions`` is in ``sys.modules`` gives an instance of
a subclass of both classes (made once, :func:`_with_sklearn_twin`). Code that
can name scikit-learn's class has imported it, so it always catches olearn's.
"""

import sys


class OlearnError(Exception):
    """Base class of every olearn-specific error."""


class DataFormatError(OlearnError, ValueError):
    """A data file (or stream) does not follow its format.

    Parameters
    ----------
    message : str
        What was found and what was expected.
    path : str or None
        The file, if the data came from one.
    line : int or None
        1-based line number.
    column : int or None
        1-based column (character offset within the line).

    Examples
    --------
    >>> err = DataFormatError("expected ':' after feature index", "a.svm", 3, 7)
    >>> str(err)
    "a.svm:3:7: expected ':' after feature index"
    """

    def __init__(self, message, path=None, line=None, column=None):
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        where = ":".join(str(p) for p in (path, line, column) if p is not None)
        super().__init__(f"{where}: {message}" if where else message)


def _with_sklearn_twin(cls):
    """Make ``cls(...)`` an instance of scikit-learn's class of the same name too, once scikit-learn is loaded.

    The joint subclass is built on first need and keeps ``cls``'s name, so
    tracebacks and ``repr`` read as before; it pickles as ``cls`` (the
    unpickling process chooses again whether scikit-learn is loaded).
    """
    joint = None

    def __new__(klass, *args, **kwargs):
        nonlocal joint
        if klass is cls:
            sklearn_exceptions = sys.modules.get("sklearn.exceptions")
            if sklearn_exceptions is not None:
                if joint is None:
                    twin = getattr(sklearn_exceptions, cls.__name__)
                    joint = type(cls.__name__, (cls, twin), {"__module__": cls.__module__,
                                                             "__qualname__": cls.__qualname__})
                klass = joint
        return super(cls, klass).__new__(klass, *args, **kwargs)

    def __reduce__(self):
        return cls, self.args, self.__dict__ or None

    cls.__new__ = __new__
    cls.__reduce__ = __reduce__
    return cls


@_with_sklearn_twin
class NotFittedError(OlearnError, ValueError, AttributeError):
    """An estimator was asked to predict, or for a learned attribute, before learning anything.

    Like scikit-learn's exception of the same name it is both a ValueError and
    an AttributeError (``hasattr(est, "coef_")`` is False before learning), and
    once scikit-learn is imported it is an instance of
    ``sklearn.exceptions.NotFittedError`` as well (see the module's docstring).
    """


class OlearnWarning(UserWarning):
    """Base class of olearn's warnings."""


@_with_sklearn_twin
class DataConversionWarning(OlearnWarning):
    """The input was converted to what the learner takes, e.g. a column-vector y flattened to 1-d.

    An instance of ``sklearn.exceptions.DataConversionWarning`` too once
    scikit-learn is imported, so scikit-learn's warning filters apply to it.
    """


class ModelFormatError(OlearnError, ValueError):
    """A saved model file is unreadable, of an unknown kind or another format version, or inconsistent.

    Raised by :func:`olearn.load` for a damaged archive, metadata of the wrong
    shape, hyperparameters the estimator refuses, or learned arrays that break
    the state schema of the learner's family; the message names the file and
    what is wrong.
    """


class FeatureLimitError(OlearnError, ValueError):
    """Learning would grow a learner past a fixed ``n_features`` or past ``max_state_bytes`` of state.

    Raised before anything is allocated, and the learner is left as it was.
    The limit on memory is set with :func:`olearn.set_config`.
    """


class PartialUpdateError(OlearnError, FloatingPointError):
    """An overflow stopped a batch part way: the model keeps the updates of the rows before it.

    Raised by ``partial_fit``, ``fit`` and :func:`olearn.run` when a score or an
    update overflows at some row of the batch. ``rows_kept`` is the number of
    rows learned before it, and the learner is exactly what learning those
    rows alone makes it: their updates, and only the classes, columns and
    names they bring (0: the learner is as it was before the call, unfitted if
    it was). A :class:`~olearn.compose.Pipeline` keeps its transformers'
    statistics of the same rows, so it too stays exactly as if it had learned
    only those rows.

    Examples
    --------
    >>> err = PartialUpdateError("overflow at row 3", rows_kept=3)
    >>> isinstance(err, FloatingPointError), err.rows_kept
    (True, 3)
    """

    def __init__(self, message, rows_kept):
        super().__init__(message)
        self.rows_kept = rows_kept

    def __reduce__(self):
        return type(self), (str(self), self.rows_kept)


@_with_sklearn_twin
class ConvergenceWarning(UserWarning):
    """``fit`` made all ``max_iter`` passes while the loss of a pass was still falling by more than ``tol``.

    A UserWarning, as scikit-learn's ``sklearn.exceptions.ConvergenceWarning``
    is; it is olearn's own class so that ``import olearn`` does not import
    scikit-learn (which would more than double the start-up of the command
    line). Once scikit-learn is imported it is an instance of scikit-learn's
    class too (see the module's docstring), so a filter on either class
    applies to it: ``warnings.filterwarnings("ignore",
    category=sklearn.exceptions.ConvergenceWarning)`` silences it as it
    silences scikit-learn's own.
    """
