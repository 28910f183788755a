"""Reading request bodies: JSON examples as the dicts ``learn_one`` takes, or a clear 4xx error.

A JSON object's keys are strings; a service reads all of them one way, its
*feature keys* (``--feature-keys``, kept with its state), so that no update
is refused for the kind of key an earlier one used:

* ``"names"``: every key is a feature name, digits too (``"3"`` is the name
  ``"3"``), mapped to columns as :mod:`olearn._features` maps ``str`` keys;
* ``"indices"``: every key is a column index written in ASCII digits
  (``"17"``; ``"-3"`` is read as the index -3, and refused), once only
  (``"01"`` and ``"-0"`` are refused: they would fold into the columns 1 and
  0), and every value a number: any other key, or a category value (which
  would make a name), is refused.

An object never repeats a key (JSON readers differ on which one wins), and a
string is Unicode text (a lone surrogate ``"\ud800"`` is refused). A value is a number
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
_CANONICAL_INDEX = re.compile(r"0|-?[1-9][0-9]*", re.ASCII)
# a JSON escape of a surrogate code point: in an ASCII body, the only way to write a lone surrogate
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# a request id: printable, short, no spaces (it is logged and echoed)
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:~\-]{1,128}", re.ASCII)


# the types of JSON labels that need no look inside (a list is a multilabel example's)
_PLAIN_LABELS = {str, bool, int, float}


class RequestError(Exception):
    """A request the service refuses: the HTTP status and a message naming what is wrong."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


# how a service reads the keys of its examples (see the module's docstring)
FEATURE_KEYS = ("names", "indices")


class Limits:
    """The caps on one request: examples per batch, features per example, the largest column index, the
    labels it may use (a :class:`LabelSet`, or None for any the learner takes), and how its keys are read
    (one of :data:`FEATURE_KEYS`)."""

    def __init__(self, max_batch=1000, max_features=10_000, max_index=(1 << 22) - 1, classes=None,
                 feature_keys="names"):
        self.max_batch = max_batch
        self.max_features = max_features
        self.max_index = max_index
        self.classes = classes
        self.feature_keys = feature_keys


def _label_key(label):
    """A label as it is compared to a :class:`LabelSet`: a boolean, a number (1 and 1.0 alike) or a string apart."""
    if isinstance(label, bool):
        return ("boolean", label)
    if isinstance(label, (int, float)):
        return ("number", float(label))
    return ("string", label)


def _kind(label):
    """What kind of label a JSON value is: "booleans", "numbers" or "strings"."""
    if isinstance(label, bool):
        return "booleans"
    return "strings" if isinstance(label, str) else "numbers"


class LabelSet:
    """The labels a service takes (``--classes``), each a JSON number, boolean or string.

    ``text`` is comma-separated; an item that reads as a JSON number or
    boolean (``1``, ``-1``, ``true``) is that, any other item a string. The
    labels are of one kind (numbers, booleans or strings), as a classifier's
    classes are: a set mixing kinds is refused. ``origin`` names where the set
    comes from in the refusals (``--classes``, or the ``--oaa K`` a model was
    learned with).
    """

    def __init__(self, text, origin="--classes"):
        labels = []
        for item in text.split(","):
            item = item.strip()
            try:
                label = json.loads(item)
            except ValueError:
                label = item
            if not isinstance(label, (bool, int, float, str)) or label == "":
                raise ValueError(f"--classes {text!r}: {item!r} is not a label; expected labels separated by commas")
            labels.append(label)
        kinds = {_kind(label) for label in labels}
        if len(kinds) > 1:
            raise ValueError(f"--classes {text!r} mixes {' and '.join(sorted(kinds))}; a classifier's labels are of "
                             "one kind (quote nothing: a label that reads as a number is one)")
        self.labels = labels
        self.origin = origin
        self._keys = {_label_key(label) for label in labels}

    def same_labels(self, other):
        """Whether ``other`` (a LabelSet) holds the same labels, 1 and 1.0 being one."""
        return self._keys == other._keys

    def check(self, label, where):
        if _label_key(label) not in self._keys:
            shown = ", ".join(json.dumps(label) for label in self.labels)
            raise RequestError(422, f"{where} is {json.dumps(label)[:60]}; this service takes the labels {shown} "
                                    f"({self.origin})")


def trained_labels(input_info, asked):
    """The labels a service takes: with an ``input_info`` (its model files' ``input`` entry) of a model learned
    with ``olearn run --oaa K``, the labels 1..K, so that an update is refused a label that ``olearn run -i`` of
    its model file refuses, rather than learning it as a new class; else ``asked`` (``--classes``'s LabelSet, or
    None). ValueError when ``asked`` names other labels than 1..K."""
    oaa = input_info.get("oaa")
    if oaa is None:
        return asked
    trained = LabelSet(",".join(str(k) for k in range(1, oaa + 1)), f"--oaa {oaa}, which the model was learned with")
    if asked is not None and not asked.same_labels(trained):
        raise ValueError(f"--classes names other labels than 1..{oaa}, those of the --oaa {oaa} that the served "
                         "model was learned with: drop --classes")
    return trained


# the log is replayed without the caps of the requests (they may have changed between runs), its keys read as
# they were logged: names, or indices (and, in a log written before the feature keys were kept, other keys as names)
NO_LIMITS = {keys: Limits(math.inf, math.inf, math.inf, feature_keys=keys) for keys in FEATURE_KEYS}


def _refuse_constant(name):
    raise RequestError(400, f"the body holds {name}, which is not JSON; expected finite numbers")


def _object(pairs):
    """A JSON object whose keys are distinct (422 for a repeated one)."""
    document = dict(pairs)
    if len(document) < len(pairs):
        seen = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise RequestError(422, f"the body repeats the key {repeated!r:.60} in one object; a key names one entry")
    return document


def parse_json(body):
    """The JSON object of a request body (400 for anything else; 422 for a key repeated in an object, or a string
    that is not Unicode text)."""
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    try:
        document = json.loads(body, parse_constant=_refuse_constant, object_pairs_hook=_object)
    except RequestError:
        raise
    except (ValueError, RecursionError) as err:
        raise RequestError(400, f"the body is not valid JSON ({err})") from None
    if not isinstance(document, dict):
        raise RequestError(400, f"the body is a JSON {_kind(document)}; expected an object")
    if not body.isascii() or _SURROGATE_ESCAPE.search(body):  # else no string of the body can hold a surrogate
        _refuse_lone_surrogates(document, "the body")
    return document


def _refuse_lone_surrogates(value, where):
    """Refuse (422) a key or string, anywhere in a JSON ``value``, that is not Unicode text: a lone surrogate,
    which JSON's escapes (and Python's reader of UTF-8 bytes) let through."""
    if isinstance(value, str):
        _text(value, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_lone_surrogates(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _text(key, f"{where}: a key")
            _refuse_lone_surrogates(item, f"{where}[{key!r:.60}]")


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
    """The JSON object ``x`` as a ``learn_one`` dict: every key a name, or (``limits.feature_keys`` "indices")
    digit keys as int column indices, other keys as names (which a request's checks refused before)."""
    if not isinstance(x, dict):
        raise RequestError(422, f"{where} is a JSON {_kind(x)}; expected an object of features")
    if len(x) > limits.max_features:
        raise RequestError(413, f"{where} has {len(x)} features; this service takes at most {limits.max_features}")
    if limits.feature_keys == "names":
        return dict(x)
    converted = {}
    for key, value in x.items():
        if _INDEX_KEY.fullmatch(key):
            column = int(key) if len(key) <= 20 else math.inf  # int() of thousands of digits would be refused
            if not 0 <= column <= limits.max_index:
                raise RequestError(422, f"{where}: feature index {key} is out of range; expected an index in "
                                        f"[0, {limits.max_index}]")
            key = column
        converted[key] = value  # the value is checked by the learner, as learn_one checks it
    return converted


def _text(value, where):
    """Refuse (422) a string that is not Unicode text: a lone surrogate, which JSON's escapes can write."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(422, f"{where} holds a lone surrogate ({value!r:.60}); expected Unicode text") from None


def _label(y, where, classes):
    """A label: a JSON string, number or boolean, or an array of them (the relevant labels of a multilabel example)."""
    if isinstance(y, list):
        return [_scalar_label(item, f"{where}[{i}]", classes) for i, item in enumerate(y)]
    return _scalar_label(y, where, classes)


def _scalar_label(y, where, classes):
    if isinstance(y, (str, bool)) or (isinstance(y, (int, float)) and _finite(y, where) is not None):
        if classes is not None:
            classes.check(y, where)
        return y
    raise RequestError(422, f"{where} is a JSON {_kind(y)}; expected a label (a string, number or boolean)")


def _plain_labels(ys, classes):
    """Whether the labels ``ys`` are strings, booleans and finite numbers, with no ``classes`` to check them
    against: what :func:`_label` takes of each as it is, seen at once."""
    if classes is not None or not set(map(type, ys)) <= _PLAIN_LABELS:
        return False
    try:
        return all(map(math.isfinite, (y for y in ys if type(y) is not str)))
    except OverflowError:  # an integer past float64: _label refuses it by its place
        return False


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

    def kept_features(self):
        """The features that predictions of these examples keep for feedback (:meth:`Pending.add
        <olearn.serve._feedback.Pending.add>` takes them): the JSON ``xs`` as sent."""
        return self.xs

    def packed_rows(self, features, width=None, drop_unknown=False):
        """The rows of examples read from their body's bytes by compiled passes (see
        :mod:`~olearn.serve._packed_batch`); None for these, read as dicts."""
        return None


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


def _spelled_once(x, where, feature_keys):
    """``x``, after refusing (422), when the keys are indices, a key that is not an index written as a plain
    number or a category value: the rules of a request's features, which the log's records (learned under them
    or before them) are not checked against again. (A string that is not Unicode text is refused with the body,
    by :func:`parse_json`.)"""
    if feature_keys == "indices" and isinstance(x, dict):
        for key, value in x.items():
            _index_feature(key, value, where)
    return x


def _index_feature(key, value, where):
    """Refuse (422) a feature of a service whose keys are indices unless its key is one and its value no category."""
    if not _INDEX_KEY.fullmatch(key):
        raise RequestError(422, f"{where}: feature key {key!r:.60} is not a column index; this service reads every "
                                "key as a column index (--feature-keys indices), so that names never take the "
                                "columns of indices: send indices only")
    if not _CANONICAL_INDEX.fullmatch(key):
        raise RequestError(422, f"{where}: feature index {key!r:.60} is not written as a plain number; "
                                f"write {key.lstrip('0') or '0'} (an index has one spelling)")
    if isinstance(value, str):
        raise RequestError(422, f"{where}: feature {key} has the category {value!r:.60}; this service reads "
                                "every key as a column index (--feature-keys indices), and a category would be a "
                                "named feature: send numbers only")


def read_features(document, limits, known=("x",)):
    """The examples to predict: ``{"x": {...}}`` or ``{"x": [{...}, ...]}`` (and the entries ``known``)."""
    _refuse_unknown(document, known)
    xs, batch = _batch(document, "x", limits)
    if limits.feature_keys == "names" and set(map(type, xs)) == {dict} and max(map(len, xs)) <= limits.max_features:
        # what example() makes of each, without its copy: the learners and transformers read a dict, never write
        # into it, so the JSON objects themselves stay as sent (for the log, the digest and the kept predictions)
        return Examples(xs, xs, None, None, batch)
    dicts = []
    for i, x in enumerate(xs):
        where = f"x[{i}]" if batch else "x"
        dicts.append(example(_spelled_once(x, where, limits.feature_keys), limits, where))
    return Examples(xs, dicts, None, None, batch)


def read_labelled(document, limits):
    """The examples to learn: x, y and an optional sample_weight, one each or arrays of one length."""
    _refuse_unknown(document, ("x", "y", "sample_weight", "id"))
    examples = read_features({"x": document.get("x")} if "x" in document else {}, limits)
    examples.ys, examples.weights = _labels_and_weights(document, len(examples), examples.batch, limits)
    return examples


def _labels_and_weights(document, n, batch, limits):
    """The labels and weights (or None) of a body of ``n`` examples, arrays of ``n`` when it is a ``batch``."""
    if "y" not in document:
        raise RequestError(422, "the body lacks 'y'")
    ys = document["y"]
    if batch:
        if not isinstance(ys, list) or len(ys) != n:
            raise RequestError(422, f"the body is a batch of {n} examples; 'y' must be an array of {n} labels")
        if not _plain_labels(ys, limits.classes):
            ys = [_label(y, f"y[{i}]", limits.classes) for i, y in enumerate(ys)]
    else:
        ys = [_label(ys, "y", limits.classes)]
    weights = document.get("sample_weight")
    if weights is not None:
        if batch and isinstance(weights, list):
            if len(weights) != n:
                raise RequestError(422, f"the body is a batch of {n} examples; 'sample_weight' must be one number "
                                        f"or an array of {n}")
            weights = [_weight(w, f"sample_weight[{i}]") for i, w in enumerate(weights)]
        else:
            weights = [_weight(weights, "sample_weight")] * n
    return ys, weights


def read_prediction_ids(document, examples):
    """The ids the caller gives the predictions of ``examples`` (``"id"``: one, or an array of one per example
    of a batch), or None."""
    if "id" not in document:
        return None
    ids = document["id"]
    if not examples.batch:
        return [_id(ids, "id")]
    if not isinstance(ids, list) or len(ids) != len(examples):
        raise RequestError(422, f"'x' is a batch of {len(examples)} examples; 'id' must be an array of "
                                f"{len(examples)} ids")
    return [_id(key, f"id[{i}]") for i, key in enumerate(ids)]


def read_feedback(document, limits):
    """The feedback of a body without ``"x"``: the ids of predictions (one, or an array), their labels and
    weights, and whether it is a batch."""
    _refuse_unknown(document, ("id", "y", "sample_weight"))
    ids = document["id"]
    batch = isinstance(ids, list)
    if batch:
        if not ids:
            raise RequestError(422, "'id' is an empty batch; send at least one id")
        if len(ids) > limits.max_batch:
            raise RequestError(413, f"'id' is a batch of {len(ids)} ids; this service takes at most "
                                    f"{limits.max_batch}")
        ids = [_id(key, f"id[{i}]") for i, key in enumerate(ids)]
    else:
        ids = [_id(ids, "id")]
    ys, weights = _labels_and_weights(document, len(ids), batch, limits)
    return ids, ys, weights, batch


def read_request_id(document):
    """The optional ``id`` of an update (for retries), or None."""
    request_id = document.get("id")
    return None if request_id is None else _id(request_id, "id")


def _id(value, where):
    if not isinstance(value, str) or not _REQUEST_ID.fullmatch(value):
        raise RequestError(422, f"{where!r} is {value!r:.60}; expected 1 to 128 characters of letters, digits "
                                "and . _ : ~ -")
    return value


def _refuse_unknown(document, known):
    """Refuse (422) a ``document`` with an entry whose key is not one of ``known`` (a tuple), naming them all."""
    if not all(map(known.__contains__, document)):  # each key looked up in the tuple in C: no set made
        unknown = sorted(set(document) - set(known))
        raise RequestError(422, f"the body has unknown entries {unknown}; expected {', '.join(known)}")


def digest(op, examples):
    """A short fingerprint of an update, to tell a retry from another update that reuses its id."""
    text = json.dumps([op, examples.xs, examples.ys, examples.weights], separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
