"""Fuzzing FeatureMap.row on streams of dicts: the fast path for repeated keys against the documented rules.

A stream repeats its keys, and ``FeatureMap.row`` then reads only the values
(in one compiled call through the interpreter's C API when the key objects
are the very ones of the last converted row, else by comparing the keys in
Python). Each campaign example is a short stream built from one template of
keys: the same dict objects refilled, fresh dicts with the same key objects,
keys equal but not identical (fresh strings, fresh large integers),
of another type (a float or NumPy integer key equal to an integer key), reordered, missing or extra keys, mappings that are not dicts, an
``OrderedDict`` moved out of insertion order, and values of every kind (int,
bool, float, NumPy scalars, NaN, inf, a too large integer, a str category,
None). Every row is compared with a plain Python reading of the rules of
:mod:`olearn._features`: the same columns and values (to the bit), or an
error of the same type.
"""

import math
import numbers
import random
import types
from collections import OrderedDict

import numpy as np

from olearn._features import CATEGORY_SEPARATOR, FeatureMap

BASE = 50  # the names' columns start here: integer keys stay below


def reference(x, vocabulary):
    """{column: value} of ``x`` read by the rules (prediction: names not in the vocabulary left out)."""
    row = {}
    for key, value in x.items():
        if value is None:
            continue
        if isinstance(value, str):
            column = vocabulary.get(f"{key}{CATEGORY_SEPARATOR}{value}")
            number = 1.0
        else:
            if not isinstance(value, numbers.Real):
                raise TypeError(value)
            try:
                number = float(value)
            except OverflowError:
                raise ValueError(value) from None
            if not math.isfinite(number):
                raise ValueError(value)
            if isinstance(key, numbers.Number) and not isinstance(key, numbers.Integral):
                raise TypeError(key)  # a float key is neither an index nor a name
            column = int(key) if isinstance(key, numbers.Integral) else vocabulary.get(key)
        if column is not None:
            row[column] = row.get(column, 0.0) + number
    return row


def fresh(key):
    """A key equal to ``key`` but another object."""
    if isinstance(key, str):
        return "".join(list(key))
    return int(str(key))


def values_of(rng, n):
    kinds = [lambda: rng.gauss(0.0, 3.0), lambda: rng.randint(-5, 5), lambda: np.float32(rng.random()),
             lambda: np.float64(rng.random()), lambda: rng.random() < 0.5]
    return [rng.choice(kinds)() for _ in range(n)]


def odd_value(rng):
    return rng.choice([math.nan, math.inf, -math.inf, 10**400, "red", None, np.int64(7), True, 1e308])


def rows_of(rng, template):
    """A short stream on the keys of ``template``, in many shapes."""
    keys = list(template)
    shared = dict(zip(keys, values_of(rng, len(keys))))
    for _ in range(rng.randint(3, 12)):
        shape = rng.randrange(9)
        if shape == 0:  # the same dict object, refilled
            for key in keys:
                shared[key] = values_of(rng, 1)[0]
            x = shared
        elif shape == 1:  # a fresh dict, the same key objects
            x = dict(zip(keys, values_of(rng, len(keys))))
        elif shape == 2:  # keys equal but not identical, or of another type (a float or NumPy integer key)
            other = rng.choice([fresh, fresh, float, np.int64])
            x = {(other(key) if isinstance(key, int) or other is fresh else key): value
                 for key, value in zip(keys, values_of(rng, len(keys)))}
        elif shape == 3:  # one odd value
            x = dict(zip(keys, values_of(rng, len(keys))))
            if keys:
                x[rng.choice(keys)] = odd_value(rng)
        elif shape == 4:  # reordered
            order = keys[:]
            rng.shuffle(order)
            x = dict(zip(order, values_of(rng, len(order))))
        elif shape == 5:  # a key missing, or one more
            x = dict(zip(keys, values_of(rng, len(keys))))
            if keys and rng.random() < 0.5:
                del x[rng.choice(keys)]
            else:
                x[rng.randrange(BASE)] = 1.5
        elif shape == 6:  # a mapping that is not a dict, maybe with one key more
            x = dict(zip(keys, values_of(rng, len(keys))))
            if rng.random() < 0.5:
                x[rng.randrange(BASE)] = 2.5
            x = types.MappingProxyType(x)
        elif shape == 7:  # an OrderedDict whose order is no longer its insertion order
            x = OrderedDict(zip(keys, values_of(rng, len(keys))))
            if keys:
                x.move_to_end(rng.choice(keys), last=False)
        else:
            x = dict(zip(keys, values_of(rng, len(keys))))
        yield x


def campaign_feature_map_rows(n_examples, seed):
    rng = random.Random(seed)
    pool_ints = list(range(0, 40)) + [300, 1000, 4999]  # large ones are distinct objects when rebuilt
    pool_names = [f"f{j}" for j in range(30)] + ["city", "\u00e9t\u00e9", ""]
    tried = 0
    for _ in range(n_examples):
        n_ints, n_names = rng.randint(0, 6), rng.randint(0, 6)  # 0 and 0: the empty row
        template = rng.sample(pool_ints, n_ints) + rng.sample(pool_names, n_names)
        rng.shuffle(template)
        fm = FeatureMap()
        learned = {name: 1.0 for name in template if isinstance(name, str)}
        learned.update({f"city{CATEGORY_SEPARATOR}red": 1.0})
        new = fm.row(learned, base=BASE, learning=True)[3]
        fm.add(new or [])
        vocabulary = fm.vocabulary()
        for x in rows_of(rng, template):
            tried += 1
            try:
                expected = reference(x, vocabulary)
            except (TypeError, ValueError) as err:
                expected = type(err)
            try:
                indices, data, n_features, added = fm.row(x, base=BASE, learning=False)
            except (TypeError, ValueError) as err:
                if not isinstance(expected, type) or not isinstance(err, expected):
                    raise AssertionError(f"{x!r}: FeatureMap raised {err!r}, the rules give {expected!r}") from err
                continue
            if not isinstance(expected, dict):
                raise AssertionError(f"{x!r}: FeatureMap gave {indices}, {data}; the rules raise {expected.__name__}")
            got = dict(zip(indices.tolist(), data.tolist()))
            if got != expected or added is not None or data.dtype != np.float64 or indices.dtype != np.int64:
                raise AssertionError(f"{x!r}: FeatureMap gave {got}, the rules give {expected}")
            if n_features != (max(expected) + 1 if expected else 0):
                raise AssertionError(f"{x!r}: n_features {n_features} for columns {sorted(expected)}")
            if not data.flags.writeable:
                raise AssertionError("the values of a row must be a writable array of its own")
    return tried


def test_feature_map_rows(campaign):
    assert campaign("fuzz.test_feature_map_rows:campaign_feature_map_rows", 400) > 0
