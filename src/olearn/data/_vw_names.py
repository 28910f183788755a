"""The feature names behind the hashed columns of a VW file: Vowpal Wabbit's ``--invert_hash``.

A VW file's features are hashed into ``2**bits`` columns and their names are
not kept (:func:`olearn.data.load_vw`). :func:`vw_feature_names` reads the
file's names and hashes each as the reader does
(:func:`olearn._kernels._parse_vw.name_columns`), so that a model learned from
the file can show its weights by name (``olearn run --keep-names``, ``olearn
inspect``). A name is written as VW's ``--invert_hash`` writes it:
``namespace^feature``, or ``feature`` alone in the default namespace.

Memory is bounded: at most ``limit`` distinct names are kept (the first met in
the file); past it the record says it is incomplete. Two names that hash to
one column (a collision) are both kept, and the column lists all its names.
"""

import os

import numpy as np

# the distinct names kept by default: about 100 MB of Python strings at most
DEFAULT_NAME_LIMIT = 1_000_000
_BLANKS = b" \t\r\x0b\x0c"  # the VW reader's blanks (its is_blank): a newline ends the line


def vw_feature_names(path, bits, limit=DEFAULT_NAME_LIMIT):
    """``{"columns": {"column": [names, sorted]}, "limit": limit, "complete": bool}`` of the VW file ``path``.

    The columns are keyed by their number as a string, as the model's JSON
    metadata keeps them.

    ``complete`` is False when the file holds more than ``limit`` distinct
    names: those met after the limit was reached are not listed. Only the
    features written in the file are named (not those that namespace options
    cross, add or drop).
    """
    pairs = set()
    complete = True
    with open(os.fspath(path), "rb") as fh:
        for line in fh:
            for space in line.split(b"|")[1:]:
                namespace = b"" if not space or space[:1] in _BLANKS + b"\n" else space.split(None, 1)[0]
                for token in space[len(namespace):].split():
                    pair = (namespace, token.split(b":", 1)[0])
                    if pair not in pairs:
                        if len(pairs) >= limit:
                            complete = False
                            continue
                        pairs.add(pair)
    pairs = sorted(pairs)
    columns = _columns(pairs, bits)
    names = {}
    for (namespace, name), column in zip(pairs, columns.tolist()):
        text = name.decode("utf-8", "replace")
        names.setdefault(column, []).append(f"{namespace.decode('utf-8', 'replace')}^{text}" if namespace else text)
    return {"columns": {str(column): sorted(found) for column, found in sorted(names.items())}, "limit": limit,
            "complete": complete}


def _columns(pairs, bits):
    """The column of each (namespace, name) pair, hashed in one compiled call over the names laid end to end."""
    buf = np.frombuffer(b"".join(namespace + name for namespace, name in pairs), dtype=np.uint8)
    spans = np.empty((len(pairs), 4), dtype=np.int64)
    at = 0
    for i, (namespace, name) in enumerate(pairs):
        spans[i] = at, at + len(namespace), at + len(namespace), at + len(namespace) + len(name)
        at = spans[i, 3]
    out = np.empty(len(pairs), dtype=np.int64)
    if len(pairs):
        from olearn._kernels import _parse_vw  # numba: only a run that keeps names hashes them here

        _parse_vw.name_columns(buf, spans, bits, out)
    return out


def hashed_names_problem(record):
    """What is wrong with a saved record of :func:`vw_feature_names` (its columns' keys as JSON's strings), or
    None."""
    if not isinstance(record, dict) or set(record) != {"columns", "limit", "complete"}:
        return "is not an object of columns, limit and complete"
    if not isinstance(record["complete"], bool):
        return f"has complete={record['complete']!r:.100}"
    limit = record["limit"]
    if not (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0):
        return f"has limit={limit!r:.100}"
    columns = record["columns"]
    if not isinstance(columns, dict):
        return "has columns that are not an object"
    for column, names in columns.items():
        if not (str(column).isdigit() and isinstance(names, list) and names
                and all(isinstance(name, str) for name in names)):
            return f"has column {column!r:.50} with names {names!r:.100}"
    return None
