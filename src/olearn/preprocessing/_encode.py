"""Transformers of the names of features: one-hot encoding of categories, hashing of names into columns."""

import functools
import numbers

import scipy.sparse as sp

from .._batch_rows import batch_rows
from .._features import CATEGORY_SEPARATOR, FeatureMap
from .._params import Interval
from ._base import NameTransformer, _check_dict


class _Features:
    """The constraint of ``features``: None, or a list or tuple of distinct hashable names."""

    def accepts(self, value):
        if value is None:
            return True
        if not isinstance(value, (list, tuple)):
            return False
        try:
            return len(set(value)) == len(value)
        except TypeError:
            return False

    def describe(self):
        return "None or a list of distinct feature names"


class OneHotEncoder(NameTransformer):
    """Turn categorical features into one-hot features named ``"feature=value"``.

    ``{"city": "Paris", "age": 31}`` becomes ``{"city=Paris": 1.0, "age": 31}``:
    the feature ``city`` of value ``Paris`` is the feature ``city=Paris`` of
    value 1, the naming of Vowpal Wabbit and of the learners' own dict
    conversion (:class:`~olearn._features.FeatureMap`); a None value is an
    absent feature and is left out; the other features pass unchanged.

    The learners already one-hot every ``str`` value, so with
    ``features=None`` (the default: the features whose value is a ``str``)
    the encoder only makes that encoding visible, in ``transform_one``, and
    costs nothing in a pipeline. Name the categorical features in
    ``features`` to one-hot values that are not strings as well (a zip code
    ``75001``, a ``True``, a class number): those are numbers to a learner, and
    the categories ``"zip=75001"`` to the encoder. The encoder learns nothing:
    a category never seen before is a new feature, as in the learners (which
    give it a column when they learn it).

    Parameters
    ----------
    features : list of names or None, default=None
        The features whose values are categories; None for those whose value
        is a ``str``.

    Examples
    --------
    >>> from olearn.preprocessing import OneHotEncoder
    >>> OneHotEncoder().transform_one({"city": "Paris", "zip": 75001, "age": 31})
    {'city=Paris': 1.0, 'zip': 75001, 'age': 31}
    >>> OneHotEncoder(features=["zip"]).transform_one({"city": "Paris", "zip": 75001, "age": 31})
    {'city=Paris': 1.0, 'zip=75001': 1.0, 'age': 31}
    """

    _constraints = {"features": _Features()}

    def __init__(self, features=None):
        self.features = features

    def _names_in_plan(self, name, n_bits, pipeline_n_bits):
        """In a pipeline: the one-hot encoding of ``features`` (the str values are left to its FeatureMap, which
        one-hots them alike), refused after a FeatureHasher step."""
        if n_bits is not None and pipeline_n_bits is None:
            raise ValueError(f"Pipeline: step {name!r} one-hot encodes after a FeatureHasher; encode first")
        if self.features is None:
            return None, n_bits
        return functools.partial(OneHotEncoder._encode, features=tuple(self.features)), n_bits

    def transform_one(self, x):
        """``x`` with its categorical features one-hot (see the class docstring)."""
        (features,) = self._config()
        _check_dict(x, type(self).__name__)
        return self._encode(x, features, all_values=True)

    @staticmethod
    def _encode(x, features, all_values=False):
        """``x`` with the categories of ``features`` (None: str values) renamed ``feature=value``.

        With ``all_values`` False, the str values are left to the FeatureMap
        (which one-hots them alike), and ``x`` itself comes back when
        ``features`` is None.
        """
        if features is None and not all_values:
            return x
        chosen = () if features is None else set(features)
        out = {}
        for key, value in x.items():
            if value is None:
                continue
            if key in chosen or (isinstance(value, str) and (all_values or features is None)):
                if not isinstance(value, (str, numbers.Number)) or isinstance(value, complex):
                    raise TypeError(
                        f"feature {key!r} has value {value!r:.50} of type {type(value).__name__}; a category is a str "
                        "or a number"
                    )
                out[f"{key}{CATEGORY_SEPARATOR}{value}"] = 1.0
            else:
                out[key] = value
        return out

    def transform(self, X):
        """The rows of X (a list of dicts or a DataFrame) one-hot: a list of dicts, or a DataFrame of 0/1 columns."""
        (features,) = self._config()
        if hasattr(X, "columns") and hasattr(X, "to_dict"):
            import pandas as pd

            rows = [self._encode(row, features, all_values=True) for row in X.to_dict("records")]
            return pd.DataFrame(rows, index=X.index).fillna(0.0)
        rows = []
        for i, x in enumerate(X):
            _check_dict(x, f"{type(self).__name__}: row {i}")
            rows.append(self._encode(x, features, all_values=True))
        return rows


class FeatureHasher(NameTransformer):
    """Hash the names of features into ``2**n_bits`` columns, as the VW reader and the learners' ``n_bits`` do.

    A name's column is ``murmur3_32(utf-8 of the name, seed 0) mod
    2**n_bits`` (MurmurHash3, the column :func:`olearn.data.load_vw` gives
    the feature of that name in the default namespace); a categorical value
    ``{"city": "Paris"}`` is the name ``"city=Paris"`` of value 1; integer
    keys are column indices already and stay (below ``2**n_bits``); names
    that share a column are summed. Nothing is learned or stored: any name
    has a column, and a stream with an unbounded vocabulary takes a fixed
    width. In a pipeline, the hasher sets how the pipeline maps names to
    columns (its one conversion of each dict hashes them).

    Parameters
    ----------
    n_bits : int, default=18
        The number of hash bits, 1 to 31 (VW's default is 18).

    Examples
    --------
    >>> from olearn.preprocessing import FeatureHasher
    >>> FeatureHasher(n_bits=10).transform_one({"age": 31.0, "city": "Paris"})
    {337: 31.0, 911: 1.0}
    """

    _constraints = {"n_bits": Interval(1, 31, integer=True)}

    def __init__(self, n_bits=18):
        self.n_bits = n_bits

    def _map(self, n_bits):
        fm = self.__dict__.get("_hashes")
        if fm is None or fm.n_bits != n_bits:
            fm = self._hashes = FeatureMap(n_bits=n_bits)
        return fm

    def _names_in_plan(self, name, n_bits, pipeline_n_bits):
        """In a pipeline: the hashing of names into ``2**n_bits`` columns, said once (here or by the pipeline)."""
        if n_bits is not None:
            raise ValueError(
                f"Pipeline: step {name!r} hashes the names into 2**{self.n_bits} columns, and "
                + ("another FeatureHasher does too" if pipeline_n_bits is None else f"n_bits={pipeline_n_bits} too")
                + "; say it once"
            )
        return None, self.n_bits

    def transform_one(self, x):
        """``x`` as ``{column: value}``, its names hashed."""
        (n_bits,) = self._config()
        _check_dict(x, type(self).__name__)
        indices, data, _, _ = self._map(n_bits).row(x)
        return dict(zip(indices.tolist(), data.tolist()))

    def transform(self, X):
        """The rows of X (dicts, a DataFrame, an array, a sparse matrix) as a CSR matrix of ``2**n_bits`` columns."""
        (n_bits,) = self._config()
        batch = batch_rows(self._map(n_bits), X, 0)
        width = 1 << n_bits
        if batch.n_features > width:
            raise ValueError(f"X has a feature index {batch.n_features - 1}, past the 2**{n_bits} = {width} columns")
        return sp.csr_matrix((batch.data, batch.indices, batch.indptr), shape=(batch.n_rows, width))

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_hashes", None)  # a memo of the hash
        return state

