"""Decoding a request body by orjson, with the strictness of :func:`~olearn.serve._requests.parse_json`.

:func:`parse_json` decodes by Python's reader, building each object from its
pairs to refuse a repeated key: per example, most of a batch's reading.
:func:`decode_body` decodes the body once by orjson instead, and takes its
document when it is the one :func:`parse_json` would return; any other body
is read by :func:`parse_json`, which then answers as before (the same
document, or the same error). orjson's document is that one when:

* orjson reads the body at all: it refuses what is not JSON (``NaN``,
  ``Infinity``), numbers past a float (``1e400``, which Python reads as
  infinity and the checks then refuse), bytes that are not UTF-8 and lone
  surrogates, all of which :func:`parse_json` reads or refuses itself;
* no integer past 64 bits is read as a float: orjson reads one so, Python
  as an int. Floats are read by both correctly rounded, to the same bits. A
  float of magnitude 2**63 or more among the entries besides the features
  (the labels, the weights, the id) sends the body to :func:`parse_json`;
  among the features' values, such an integer is the float it rounds to,
  which is the value the learner reads from it (every value is a float to
  the learner);
* no object repeats a key, which orjson would fold into one entry. Counted
  on the raw bytes: every member of an object is written ``"key"``, optional
  whitespace, then ``:``, so the colons of the body, and the matches of that
  pattern, are at least the members written. When the ``{`` of the body are
  exactly the objects counted in the document (the body, and ``"x"``'s
  objects: no other object anywhere, and no ``{`` in a string), the members
  written are at least those decoded, more by one for every repeated key; a
  count of colons (or else of matches) equal to the members decoded thus
  proves that no key is repeated. Any other count (a ``{`` or a ``":`` inside
  a string, say) sends the body to :func:`parse_json`.
"""

import re
from itertools import chain

from .._lazy import LazyModule
from ._requests import parse_json

orjson = LazyModule("orjson")  # the serve extra's

# the end of an object's key: its closing quote, optional JSON whitespace, the colon
_KEY_END = re.compile(rb'"[ \t\n\r]*:')
# the smallest magnitude of a float that may be orjson's reading of an integer past 64 bits
_INTEGER_PAST_64_BITS = 2.0 ** 63


def decode_body(body):
    """The JSON object of a request body, as :func:`parse_json` returns it (and its errors for any body it refuses),
    decoded by orjson when that gives the same document (see the module's docstring)."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        return parse_json(body)
    if type(document) is not dict or _large_floats(document) or not _keys_distinct(document, body):
        return parse_json(body)
    return document


def _keys_distinct(document, body):
    """Whether ``body`` writes no key twice in an object, proven by counting (False when not proven)."""
    x = document.get("x")
    objects = [x] if type(x) is dict else [item for item in x if type(item) is dict] if type(x) is list else []
    if body.count(b"{") != 1 + len(objects):
        return False
    members = len(document) + sum(map(len, objects))
    return body.count(b":") == members or len(_KEY_END.findall(body)) == members


def _large_floats(document):
    """Whether an entry besides ``"x"`` holds a float that may be orjson's reading of an integer past 64 bits."""
    level = [value for key, value in document.items() if key != "x"]
    values = []
    while level:  # the entries, the items of their arrays (a multilabel's labels are arrays in an array), ...
        values += level
        level = [*chain.from_iterable(value for value in level if type(value) is list)]
    return any(type(value) is float and abs(value) >= _INTEGER_PAST_64_BITS for value in values)
