"""Named features: how the keys of a dict example become the columns of a model.

One component serves every place where a stream names its features (the
learners' ``learn_one``/``predict_one``, lists of dicts and DataFrames given to
them, the online transformers and pipelines), so that a name means the same
column everywhere and the mapping can be saved with the model.

The rules, for one example ``x`` (a dict):

* an **integer key** (``int``, a NumPy integer; ``True``/``False`` are 1 and
  0) is a column index, as in an array row;
* any other key is a **name**: ``str`` keys, and tuples or other hashables.
  Float keys are refused, since ``1.0 == 1`` would make a name equal to an
  index;
* a ``str`` **value** is a category: ``{"city": "Paris"}`` is the feature
  named ``"city=Paris"`` with value 1 (one-hot, as in Vowpal Wabbit and
  scikit-learn's ``DictVectorizer``); a ``None`` value means the feature is
  absent (it contributes nothing); every other value must be a finite real
  number (``bool`` is 0 or 1).

A name becomes a column in one of two ways:

* a **vocabulary** (``n_bits=None``): a name learned for the first time gets
  the next free column, after every column the model uses (see :meth:`FeatureMap.row`), and
  keeps it; exact, and saved with the model. A name the model never learned
  contributes 0 to a prediction. An integer key may not address a column that
  a name holds (the two would share a weight without saying so);
* **hashing** (``n_bits=b``): the column of a name is
  ``murmur3_32(utf-8 of the name, seed 0) mod 2**b``, the column
  :func:`olearn.data.load_vw` gives the feature of that name in the default
  namespace, so that a model learned from a VW file answers dicts that use
  the same names. Nothing is stored, any name has a column, and names that
  share a column are summed (a name that is not a ``str`` is hashed as
  ``str(name)``). Integer keys stay column indices below ``2**b``. The
  column names of a DataFrame a model was fitted on keep their columns
  0, 1, ... (the ``names`` of :class:`FeatureMap`).
"""

import math
import numbers
import struct
from collections.abc import Mapping
from itertools import chain, repeat

import numpy as np

from ._lazy import LazyModule
from .exceptions import FeatureLimitError

_dicts = LazyModule("olearn._kernels._dicts")
_name_table = LazyModule("olearn._name_table")
_parse_vw = LazyModule("olearn._kernels._parse_vw")
_rows = LazyModule("olearn._kernels._rows")

# the name of the one-hot feature of a categorical value (Vowpal Wabbit's and DictVectorizer's)
CATEGORY_SEPARATOR = "="
# integer keys are read into int64 arrays, with room after the largest for the columns of new names
# (a learner refuses indices past 2**31 - 1 anyway; a prediction leaves them out)
_INDEX_END = 1 << 62
# the hash cache is a memo, not state: it is emptied when it holds this many names
_HASH_CACHE_SIZE = 1 << 20
_empty = np.empty
_INT = {int}
_STR = {str}
_DICT = {dict}
_PLAIN_NUMBERS = {int, float}


class FeatureMap:
    """The mapping from a stream's keys to columns: a growing vocabulary, or hashing into ``2**n_bits`` columns.

    Parameters
    ----------
    n_bits : int or None
        None for a vocabulary, else the number of hash bits (1 to 31).
    names : sequence, optional
        Names that hold the columns 0, 1, ... from the start (the column
        names of the DataFrame a model was fitted on). With ``n_bits`` they
        keep those columns and every other name is hashed.

    Attributes
    ----------
    repeated : tuple or None
        For a compiled call that reads a dict with the keys of the last row
        converted with every key a known column and every value a number (the
        same key objects, in the same order; see
        :func:`olearn._kernels._dicts.read_values`), when the plain row before
        it had the same keys (a stream repeating its keys):
        ``(key addresses, scratch, indices, values, n_features)``, ``values``
        a buffer of the row's size; such a dict's row is
        ``(indices, values, n_features)``, as :meth:`row` gives it. None
        before such a row, and after the vocabulary changes.

    Examples
    --------
    >>> fm = FeatureMap()
    >>> indices, data, n_features, new = fm.row({"age": 31, "city": "Paris"}, base=0, learning=True)
    >>> indices.tolist(), data.tolist(), n_features, new
    ([0, 1], [31.0, 1.0], 2, [('age', 0), ('city=Paris', 1)])
    >>> fm.add(new)
    >>> fm.row({"city": "Rome", "age": 40}, base=2, learning=False)[:3]
    (array([0]), array([40.]), 1)
    """

    # the keys of the last plain row converted, until a row repeats them (see _keep)
    _seen = None
    # how many times the names were truncated (see name_table); not in the pickled or copied state: none in a copy
    _cuts = 0

    def __init__(self, n_bits=None, names=()):
        self.n_bits = n_bits
        self._columns = {}
        self._names = []
        self._name_at = {}
        self._next = 0
        self._last = self.repeated = None
        if names:
            self.add([(name, column) for column, name in enumerate(names)])

    # -- the vocabulary --------------------------------------------------------

    @property
    def size(self):
        """The number of names in the vocabulary (0 when hashing)."""
        return len(self._names)

    @property
    def hashing(self):
        return self.n_bits is not None

    def vocabulary(self):
        """A copy of the vocabulary, ``{name: column}`` in the order the names were learned (with ``n_bits``, the
        ``names`` given at the start only)."""
        return {name: self._columns[name] for name in self._names}

    def columns_of(self, names):
        """The columns of ``names`` as an int64 array, or None when one of them is not in the vocabulary (or the
        map hashes)."""
        if self.hashing:
            return None
        columns = np.fromiter(map(self._columns.get, names, repeat(-1)), dtype=np.int64, count=len(names))
        return None if (columns < 0).any() else columns

    def name_of(self, column):
        """The name holding ``column``, or None when no name holds it."""
        return self._name_at.get(column)

    def add(self, new):
        """Add ``new``, a list of ``(name, column)`` that :meth:`row` found for a learned example."""
        for name, column in new:
            self._columns[name] = column
            self._names.append(name)
            self._name_at[column] = name
            self._next = max(self._next, column + 1)
        self._last = self.repeated = None

    def name_table(self):
        """The ``str`` names and their columns as a compiled :class:`~olearn._name_table.NameTable`, or None when
        the map hashes.

        Made on first use and kept with the map (not in its pickled or copied
        state), it is brought up to date at each call: the names change only
        by :meth:`add`, which appends to them, and :meth:`truncate`, which
        counts the calls that remove names; a table made before a truncation is made anew, and
        one that lacks names added since gets them. A model replaced whole
        (a rollback, a restore) has a map, and a table, of its own.
        """
        if self.hashing:
            return None
        table = self.__dict__.get("_table")
        if table is None or table.cuts != self._cuts:
            table = self._table = _name_table.NameTable(self._cuts)
            table.enter(self._columns.items(), len(self._names))
        elif table.entered < len(self._names):
            added = self._names[table.entered:]
            table.enter(zip(added, map(self._columns.__getitem__, added)), len(self._names))
        return table

    def truncate(self, size):
        """Forget the names learned after the first ``size`` (undoing :meth:`add` for a refused example)."""
        if size < len(self._names):
            self._cuts += 1
        for name in self._names[size:]:
            del self._name_at[self._columns.pop(name)]
        del self._names[size:]
        self._next = max(self._name_at, default=-1) + 1
        self._last = self.repeated = None

    def rows(self, X, base=0, learning=False, grow=True, name="X"):
        """A batch of dicts as CSR arrays: ``(indptr, indices, data, n_features, new)``.

        One :meth:`row` per dict, as if each were learned in turn: with
        ``learning`` a row's new names are added before the next row is read
        (so a name has one column in the whole batch) and ``new`` lists them
        all (None when none; the caller keeps them, or :meth:`truncate`
        undoes); with ``grow`` a row's new names start after every column of
        the rows before it, as a model that grows would place them. Errors name
        the row as ``name``'s row.
        """
        known = self.known_rows(X)
        if known is not None:
            return (*known, None)
        lengths, all_indices, all_data, new = [], [], [], []
        # the entries of the latest rows read by _named_entries, made one array each when another row comes
        named_indices, named_data = [], []
        width = 0
        previous = None  # the keys of the last row read by _named_entries
        for i, x in enumerate(X):
            if type(x) is not dict and not isinstance(x, Mapping):
                raise TypeError(
                    f"{name}: row {i} is a {type(x).__name__}; a batch of named examples is a list of dicts"
                )
            start = max(base, width) if grow else base
            entries = self._named_entries(x, start, learning) if not self._repeats(x) else None
            if entries is None:
                if named_indices:
                    all_indices.append(np.array(named_indices, dtype=np.int64))
                    all_data.append(np.array(named_data, dtype=np.float64))
                    named_indices, named_data = [], []
                try:
                    indices, data, n_features, added = self.row(x, start, learning)
                except (ValueError, TypeError) as err:
                    raise type(err)(f"{name}: row {i}: {err}") from None
                all_indices.append(indices)
                all_data.append(data)
                size = indices.size
            else:
                keys, columns, values, plain, added = entries
                named_indices += columns
                named_data += values
                size = len(columns)
                n_features = max(columns) + 1 if columns else 0
                if plain and keys == previous:  # a stream repeating its keys: row() reads only the values of the next
                    self._remember(keys, np.array(columns, dtype=np.int64), n_features)
                previous = keys
            if added:
                self.add(added)
                new.extend(added)
            width = max(width, n_features)
            lengths.append(size)
        if named_indices:
            all_indices.append(np.array(named_indices, dtype=np.int64))
            all_data.append(np.array(named_data, dtype=np.float64))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.concatenate(all_indices) if all_indices else np.empty(0, dtype=np.int64)
        data = np.concatenate(all_data) if all_data else np.empty(0)
        return indptr, indices, data, width, new or None

    def known_rows(self, X, drop_unknown=False):
        """:meth:`rows` of a batch of plain named dicts, read by whole-batch passes in C: ``(indptr, indices, data,
        n_features)``, or None for a batch it cannot take exactly, which :meth:`rows` reads row by row.

        A plain batch is a list of dicts of ``str`` keys and finite float or
        integer values, for a vocabulary (no hashing): the steady state of a
        service of named features (a JSON batch of ``olearn serve`` once its
        names are learned). The keys and values of all the rows are gathered
        into one list each, every name looked up by one ``map`` and every value
        checked in one array: the entries :meth:`_named_entries` makes row by
        row (a known name's column, in the order of the keys), without its
        per-row cost. A name the vocabulary lacks is left out with
        ``drop_unknown`` (a batch to predict), else makes the batch None (a new
        name is placed row by row). Any other batch (a category, None, a number
        that is not finite or past float64, an integer key, hashing) is None:
        :meth:`rows` names its fault or reads it.
        """
        if self.hashing or not isinstance(X, list) or not X or set(map(type, X)) != _DICT:
            return None
        keys = [*chain.from_iterable(X)]
        values = [*chain.from_iterable(map(dict.values, X))]
        if keys and (set(map(type, keys)) != _STR or not set(map(type, values)) <= _PLAIN_NUMBERS):
            return None
        try:
            data = np.fromiter(values, dtype=np.float64, count=len(values))
        except OverflowError:  # an integer past float64
            return None
        if not _rows.all_finite(data):
            return None
        indptr = np.zeros(len(X) + 1, dtype=np.int64)
        try:  # every name known (the steady state): the rows' lengths are their dicts'
            indices = np.fromiter(map(self._columns.__getitem__, keys), dtype=np.int64, count=len(keys))
            np.cumsum([*map(len, X)], out=indptr[1:])
        except KeyError:  # a name the vocabulary lacks
            if not drop_unknown:
                return None
            columns = np.fromiter(map(self._columns.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
            known = columns >= 0
            data, indices = data[known], columns[known]
            rows_of = np.repeat(np.arange(len(X)), [*map(len, X)])[known]
            np.cumsum(np.bincount(rows_of, minlength=len(X)), out=indptr[1:])
        return indptr, indices, data, int(indices.max()) + 1 if indices.size else 0

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_last"] = state["repeated"] = None
        state.pop("_seen", None)
        # a memo of the names, made again on use, and the count of truncations that tells it stale (see
        # name_table): neither is the map's state, so that names taken back leave it as it was
        state.pop("_table", None)
        state.pop("_cuts", None)
        if self.hashing:
            state["_columns"] = self.vocabulary()  # the rest is a memo of the hash
        return state

    def __eq__(self, other):
        return (isinstance(other, FeatureMap) and self.n_bits == other.n_bits
                and self.vocabulary() == other.vocabulary())

    __hash__ = None

    def __repr__(self):
        if self.hashing:
            return f"FeatureMap(n_bits={self.n_bits})"
        return f"FeatureMap({self.size} names)"

    # -- one example -------------------------------------------------------------

    def row(self, x, base=0, learning=False):
        """The columns and values of the dict ``x``: ``(indices, data, n_features, new)``.

        ``indices`` (int64) and ``data`` (float64, finite) are one entry per
        feature present (names sharing a hashed column summed);
        ``n_features`` is one more than the largest column. With ``learning``,
        names not in the vocabulary get new columns, listed in ``new`` as
        ``(name, column)`` pairs that the caller passes to :meth:`add` once
        the example is accepted (None when there are none); the first of them
        is the larger of ``base`` (the caller's first free column), the column
        after every name's and the column after every integer key of ``x``.
        Without ``learning``, unknown names are left out. Raises ValueError
        (or TypeError for a key or value of a wrong type) naming the feature.
        """
        last = self._last
        if last is not None:
            # the keys of the last plain row again: its columns, and only the values to read. One compiled
            # call when x is a dict whose keys are the same objects in the same order (the common case of a
            # stream; the call reads a dict's own entries, so a mapping of another type is read in Python) ...
            keys, key_types, packing, (addresses, scratch, indices, _, n_features) = last
            data = _empty(indices.size)
            found = _dicts.dict_values(id(x), addresses, data, scratch) if type(x) is dict else _dicts.OTHER_KEYS
            if found == _dicts.VALUES:
                return indices, data, n_features, None
            if found == _dicts.OTHER_KEYS:
                # ... else keys equal to them and of the same types (1.0 == 1, yet a float key is refused),
                # compared here, and the values packed in one C call
                given = [*x]
                if given == keys and [*map(type, given)] == key_types:
                    try:
                        packing.pack_into(data, 0, *x.values())
                    except (struct.error, OverflowError, TypeError):
                        pass  # a value that is not a plain number: the full conversion says what it is
                    else:
                        if _rows.all_finite(data):
                            return indices, data, n_features, None
                return self._convert(x, given, base, learning)
            # a value that is not a finite number: the full conversion names it
        return self._convert(x, [*x], base, learning)

    def _convert(self, x, keys, base, learning):
        converted = self._integer_row(x, keys)
        if converted is not None:
            return converted
        entries = self._named_entries(x, base, learning)
        if entries is not None:
            keys, columns, values, plain, new = entries
            return self._converted(keys, np.array(columns, dtype=np.int64), np.array(values, dtype=np.float64),
                                   plain, new, max(columns) + 1 if columns else 0)
        indices, values, pending = [], [], []
        plain = True  # every key a known column and every value a number: the row's columns can be reused
        largest_index = -1
        for key, value in x.items():
            if value is None:
                plain = False
                continue
            if isinstance(value, str):
                name = f"{key}{CATEGORY_SEPARATOR}{value}"
                value = 1.0
                plain = False
            else:
                value = _real(key, value)
                # a str key (the commonest) is a name: the numbers' abstract classes are checked for the others only
                if type(key) is not str and isinstance(key, numbers.Integral):
                    column = _index(key)
                    if column >= 0:
                        largest_index = max(largest_index, column)
                        indices.append(column)
                        values.append(value)
                        continue
                elif type(key) is not str and isinstance(key, numbers.Number):
                    raise TypeError(
                        f"feature key {key!r} is a {type(key).__name__}; keys are column indices (integers) or names "
                        "(str, or other hashables that are not numbers)"
                    )
                name = key
            column = self._column(name)
            if column is None:
                plain = False
                if learning:
                    pending.append((name, len(indices)))
                    indices.append(-1)
                    values.append(value)
                continue
            indices.append(column)
            values.append(value)
        indices = np.array(indices, dtype=np.int64)
        data = np.array(values, dtype=np.float64)
        new = None
        if pending:
            first = max(base, self._next, largest_index + 1)
            new, seen = [], {}
            for name, position in pending:
                if name not in seen:
                    seen[name] = first + len(new)
                    new.append((name, seen[name]))
                indices[position] = seen[name]
        if largest_index >= 0 and self._name_at:
            self._check_indices(x, indices)
        if len(set(indices.tolist())) < indices.size:
            # names sharing a column (hashed, or a category spelled as a name too) are one feature: summed
            plain = False
            indices, positions = np.unique(indices, return_inverse=True)
            data = np.bincount(positions, weights=data, minlength=indices.size)
            if not np.isfinite(data).all():
                j = int(indices[np.flatnonzero(~np.isfinite(data))[0]])
                raise ValueError(f"the features sharing column {j} sum to an overflow; expected a finite sum")
        return self._converted(keys, indices, data, plain, new)

    def _integer_row(self, x, keys):
        """:meth:`_convert` of a dict of integer keys and float or integer values, by NumPy; None for any other.

        The common row of a sparse stream whose columns change from row to
        row (hashed features, LIBSVM-like indices), where the per-key loop of
        :meth:`_convert` is most of the time of a round. A row it cannot take
        exactly (a negative, huge or bool key, a value that is not finite, of
        another type, or past float64) goes to that loop, which names the fault.
        """
        n = len(keys)
        if not n or set(map(type, keys)) != _INT or not set(map(type, x.values())) <= _PLAIN_NUMBERS:
            return None
        try:
            indices = np.fromiter(keys, dtype=np.int64, count=n)
            data = np.fromiter(x.values(), dtype=np.float64, count=n)
        except OverflowError:
            return None
        if indices.min() < 0 or indices.max() >= _INDEX_END or not _rows.all_finite(data):
            return None
        if self._name_at:
            self._check_indices(x, indices)
        return self._converted(keys, indices, data, True, None)

    def _named_entries(self, x, base, learning):
        """:meth:`_convert` of a dict of ``str`` keys and finite float or integer values, its columns looked up in C
        (one ``map`` over the keys): ``(keys, columns, values, plain, new)``, lists; None for any other dict.

        The common row of a stream of named features whose names change from
        row to row (a JSON object of ``olearn serve``), where the per-key loop
        of :meth:`_convert` is most of the time of a round. The columns are
        that loop's: a known name's, in the order of the keys; an unknown
        name's, with ``learning``, the next free ones in that order (there is
        no integer key to place them after), listed in ``new``; else it is left
        out, and the row is not ``plain``. A row it cannot take exactly (a
        value that is not finite, of another type, or past float64; hashed
        names sharing a column) goes to that loop, which names the fault or
        sums the shared column.
        """
        keys = [*x]
        values = [*x.values()]
        if not keys or set(map(type, keys)) != _STR or not set(map(type, values)) <= _PLAIN_NUMBERS:
            return None
        try:
            if not all(map(math.isfinite, values)):
                return None
        except OverflowError:  # an integer past float64
            return None
        columns = [*map(self._columns.get, keys)]
        plain = None not in columns
        new = None
        if not plain:
            if self.hashing:
                columns = [*map(self._column, keys)]
                plain = True
            elif learning:
                first = max(base, self._next)
                unknown = [name for name, column in zip(keys, columns) if column is None]
                new = [(name, first + k) for k, name in enumerate(unknown)]
                placed = iter(range(first, first + len(new)))
                columns = [next(placed) if column is None else column for column in columns]
            else:
                values = [value for value, column in zip(values, columns) if column is not None]
                columns = [column for column in columns if column is not None]
        if self.hashing and len(set(columns)) < len(columns):
            return None
        return keys, columns, values, plain, new

    def _converted(self, keys, indices, data, plain, new, n_features=None):
        """The end of a conversion: the width checked (``n_features``, one more than the largest of ``indices``,
        computed when not given), and a ``plain`` row's columns kept for the next row (:meth:`_keep`)."""
        if n_features is None:
            n_features = int(indices.max()) + 1 if indices.size else 0
        if self.hashing and n_features > (1 << self.n_bits):
            raise FeatureLimitError(
                f"feature index {n_features - 1} is past the 2**{self.n_bits} = {1 << self.n_bits} columns of "
                f"n_bits={self.n_bits} (integer keys are column indices; names are hashed below 2**n_bits)"
            )
        if plain:
            self._keep(keys, indices, n_features)
        return indices, data, n_features, new

    def _keep(self, keys, indices, n_features):
        """:meth:`_remember` a plain row whose keys equal the last plain row's: a stream repeating its keys has
        its second row's remembered, and its later rows read by :meth:`row` (or one compiled call,
        :attr:`repeated`) from their values; a stream whose keys change from row to row (the JSON objects of a
        service) makes no arrays for keys that never come again. Another row's keys are only noted, and the row
        remembered before is forgotten (:attr:`repeated` is the last plain row's, or None)."""
        if keys == self._seen:
            self._remember(keys, indices, n_features)
        else:
            self._seen = keys
            self._last = self.repeated = None

    def _remember(self, keys, indices, n_features):
        """Keep the columns of a plain row (every key a known column, every value a number) for the next row."""
        # the key objects stay referenced here, so that their addresses name them (see _kernels._dicts)
        addresses = np.fromiter(map(id, keys), dtype=np.intp, count=len(keys))
        self.repeated = (addresses, np.zeros(3, dtype=np.intp), indices, _empty(indices.size), n_features)
        self._last = (keys, [*map(type, keys)], struct.Struct(f"{indices.size}d"), self.repeated)

    def _repeats(self, x):
        """Whether ``x`` may have the keys of the last plain row (:meth:`row` then reads only its values): as many,
        and an equal first key."""
        last = self._last
        return last is not None and len(x) == len(last[0]) and (not x or next(iter(x)) == last[0][0])

    def _column(self, name):
        """The column of a name, or None for a name not in the vocabulary."""
        if not self.hashing:
            return self._columns.get(name)
        column = self._columns.get(name)
        if column is None:
            if len(self._columns) >= _HASH_CACHE_SIZE:
                self._columns = self.vocabulary()
            encoded = np.frombuffer((name if isinstance(name, str) else str(name)).encode("utf-8"), dtype=np.uint8)
            column = _parse_vw.murmur3_32(encoded, 0, encoded.size, 0) & ((1 << self.n_bits) - 1)
            self._columns[name] = column
        return column

    def _check_indices(self, x, indices):
        """Refuse an integer key that addresses the column of a name (vocabulary only)."""
        if self.hashing:
            return
        for key, value in x.items():
            # an integer key with a str value is a category, a name; with None it is absent
            if (isinstance(key, numbers.Integral) and value is not None and not isinstance(value, str)
                    and int(key) in self._name_at):
                raise ValueError(
                    f"feature key {key!r} is a column index, and column {int(key)} holds the named feature "
                    f"{self._name_at[int(key)]!r}; a column is named or indexed, not both (use the name)"
                )


def _index(key):
    """An integer key as a column index (>= 0)."""
    column = int(key)
    if column < 0:
        raise ValueError(f"feature index {column} is negative; expected indices >= 0")
    if column >= _INDEX_END:
        raise ValueError(f"feature index {column} is too large; expected indices below 2**62")
    return column


def _real(key, value):
    """A feature's value as a finite float, or an error naming the feature."""
    if type(value) is float and math.isfinite(value):  # the commonest value, without the abstract classes' checks
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number):
            return number
        raise ValueError(f"feature {key!r} has value {value!r:.50}; expected a finite number")
    raise TypeError(
        f"feature {key!r} has value {value!r:.50} of type {type(value).__name__}; expected a real number, "
        "a str (a category) or None (absent)"
    )
