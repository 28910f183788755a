"""Reading request bodies: JSON examples as the dicts ``learn_one`` takes, or a clear 4xx error.

A JSON object's keys are strings, so the service reads a key made of ASCII
digits (``"17"``; ``"-3"`` is read as the index -3, and refused) as a
column index and any other string as a feature name, as
:mod:`olearn._features` reads ``int`` and ``str`` keys. A value is a number
(``true`` and ``false`` are 1 and 0), a string (a category) or null (absent),
checked by the learner as ``learn_one`` checks it. JSON has no NaN or
infinity: the words ``NaN`` and ``Infinity`` that Python's reader would take
are refused here, and a number too large for a float by the learner.

A body holds one example (``"x"`` an object) or a batch (``"x"`` an array of
objects, ``"y"`` and ``"sample_weight"`` arrays of the same length); see
``docs/serve.md``.
"""

import hashlib
import json
import math
import re

_INDEX_KEY = re.compile(r"-?[0-9]+", re.ASCII)
# a request id: printable, short, no spaces (it is logged and echoed)
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:~\-]{1,128}", re.ASCII)


class RequestError(Exception):
    """A request the service refuses: the HTTP status and a message naming what is wrong."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class Limits:
    """The caps on one request: examples per batch, features per example, and the largest column index."""

    def __init__(self, max_batch=1000, max_features=10_000, max_index=(1 << 22) - 1):
        self.max_batch = max_batch
        self.max_features = max_features
        self.max_index = max_index


# the log is replayed without the caps of the requests (they may have changed between runs)
NO_LIMITS = Limits(math.inf, math.inf, math.inf)


def _refuse_constant(name):
    raise RequestError(400, f"the body holds {name}, which is not JSON; expected finite numbers")


def parse_json(body):
    """The JSON object of a request body (400 for anything else)."""
    try:
        document = json.loads(body, parse_constant=_refuse_constant)
    except RequestError:
        raise
    except (ValueError, RecursionError) as err:
        raise RequestError(400, f"the body is not valid JSON ({err})") from None
    if not isinstance(document, dict):
        raise RequestError(400, f"the body is a JSON {_kind(document)}; expected an object")
    return document


def _kind(value):
    kinds = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return kinds.get(type(value), "number")


def _finite(value, where):
    """A JSON number that fits a float, else 422."""
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise RequestError(422, f"{where} is {value!r:.50}; expected a finite number")
    return value


def example(x, limits, where="x"):
    """The JSON object ``x`` as a ``learn_one`` dict: digit keys as int column indices, other keys as names."""
    if not isinstance(x, dict):
        raise RequestError(422, f"{where} is a JSON {_kind(x)}; expected an object of features")
    if len(x) > limits.max_features:
        raise RequestError(413, f"{where} has {len(x)} features; this service takes at most {limits.max_features}")
    converted = {}
    for key, value in x.items():
        if _INDEX_KEY.fullmatch(key):
            column = int(key)
            if not 0 <= column <= limits.max_index:
                raise RequestError(422, f"{where}: feature index {key} is out of range; expected an index in "
                                        f"[0, {limits.max_index}]")
            key = column
        converted[key] = value  # the value is checked by the learner, as learn_one checks it
    return converted


def _label(y, where):
    """A label: a JSON string, number or boolean, or an array of them (the relevant labels of a multilabel example)."""
    if isinstance(y, list):
        return [_scalar_label(item, f"{where}[{i}]") for i, item in enumerate(y)]
    return _scalar_label(y, where)


def _scalar_label(y, where):
    if isinstance(y, (str, bool)) or (isinstance(y, (int, float)) and _finite(y, where) is not None):
        return y
    raise RequestError(422, f"{where} is a JSON {_kind(y)}; expected a label (a string, number or boolean)")


def _weight(w, where):
    if isinstance(w, bool) or not isinstance(w, (int, float)):
        raise RequestError(422, f"{where} is a JSON {_kind(w)}; expected a number >= 0")
    _finite(w, where)
    if w < 0:
        raise RequestError(422, f"{where} is {w!r}; expected a number >= 0")
    return w


class Examples:
    """The examples of one request: the JSON ``xs`` (as sent), their dicts, labels, weights, and whether a batch."""

    def __init__(self, xs, dicts, ys, weights, batch):
        self.xs = xs
        self.dicts = dicts
        self.ys = ys
        self.weights = weights
        self.batch = batch

    def __len__(self):
        return len(self.dicts)


def _batch(document, key, limits, required=True):
    """``document[key]`` as a list of examples' entries, and whether the body is a batch."""
    if key not in document:
        if required:
            raise RequestError(422, f"the body lacks {key!r}")
        return None, False
    value = document[key]
    if not isinstance(value, list):
        return [value], False
    if not value:
        raise RequestError(422, f"{key!r} is an empty batch; send at least one example")
    if len(value) > limits.max_batch:
        raise RequestError(413, f"{key!r} is a batch of {len(value)} examples; this service takes at most "
                                f"{limits.max_batch}")
    return value, True


def read_features(document, limits):
    """The examples to predict: ``{"x": {...}}`` or ``{"x": [{...}, ...]}``."""
    _refuse_unknown(document, ("x",))
    xs, batch = _batch(document, "x", limits)
    dicts = [example(x, limits, f"x[{i}]" if batch else "x") for i, x in enumerate(xs)]
    return Examples(xs, dicts, None, None, batch)


def read_labelled(document, limits):
    """The examples to learn: x, y and an optional sample_weight, one each or arrays of one length."""
    _refuse_unknown(document, ("x", "y", "sample_weight", "id"))
    examples = read_features({"x": document.get("x")} if "x" in document else {}, limits)
    n, batch = len(examples), examples.batch
    if "y" not in document:
        raise RequestError(422, "the body lacks 'y'")
    ys = document["y"]
    if batch:
        if not isinstance(ys, list) or len(ys) != n:
            raise RequestError(422, f"'x' is a batch of {n} examples; 'y' must be an array of {n} labels")
        ys = [_label(y, f"y[{i}]") for i, y in enumerate(ys)]
    else:
        ys = [_label(ys, "y")]
    weights = document.get("sample_weight")
    if weights is not None:
        if batch and isinstance(weights, list):
            if len(weights) != n:
                raise RequestError(422, f"'x' is a batch of {n} examples; 'sample_weight' must be one number or "
                                        f"an array of {n}")
            weights = [_weight(w, f"sample_weight[{i}]") for i, w in enumerate(weights)]
        else:
            weights = [_weight(weights, "sample_weight")] * n
    examples.ys, examples.weights = ys, weights
    return examples


def read_request_id(document):
    """The optional ``id`` of an update (for retries), or None."""
    request_id = document.get("id")
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not _REQUEST_ID.fullmatch(request_id):
        raise RequestError(422, f"'id' is {request_id!r:.60}; expected 1 to 128 characters of letters, digits "
                                "and . _ : ~ -")
    return request_id


def _refuse_unknown(document, known):
    unknown = sorted(set(document) - set(known))
    if unknown:
        raise RequestError(422, f"the body has unknown entries {unknown}; expected {', '.join(known)}")


def digest(op, examples):
    """A short fingerprint of an update, to tell a retry from another update that reuses its id."""
    text = json.dumps([op, examples.xs, examples.ys, examples.weights], separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
