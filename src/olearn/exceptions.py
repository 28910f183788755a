"""Exceptions raised by olearn.

Every error that concerns user input names where the problem is (file, line,
column, feature index, row) and what was expected, so that a bad line in a
ten-gigabyte stream can be found without a debugger.
"""


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


class NotFittedError(OlearnError, ValueError, AttributeError):
    """An estimator was asked to predict, or for a learned attribute, before learning anything.

    Like scikit-learn's exception of the same name it is both a ValueError and
    an AttributeError (``hasattr(est, "coef_")`` is False before learning).
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


class ConvergenceWarning(UserWarning):
    """``fit`` made all ``max_iter`` passes while the loss of a pass was still falling by more than ``tol``.

    A UserWarning, as scikit-learn's ``sklearn.exceptions.ConvergenceWarning``
    is; it is olearn's own class so that ``import olearn`` does not import
    scikit-learn (which would more than double the start-up of the command
    line). Filter it with ``warnings.filterwarnings("ignore",
    category=olearn.exceptions.ConvergenceWarning)``.
    """
