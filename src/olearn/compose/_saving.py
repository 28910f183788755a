"""A pipeline's model file: its steps, each step's statistics or learned state, and the names of its columns.

The file is an olearn model file (:mod:`olearn._persistence`) whose metadata
holds, besides ``class``, ``params`` (``n_bits``) and ``state``
(``n_features_in``, the pipeline's columns):

* ``steps``: one entry per step, in order, ``{"name", "class", "params",
  "state"}``, the class, hyperparameters and scalar state of each transformer
  and of the learner, as a model file of that class would record them;
* ``vocabulary``: the ``[name, column]`` pairs of the pipeline's
  :class:`~olearn._features.FeatureMap`, in the order learned (none when it
  hashes names: the hash needs nothing stored).

The arrays of step ``k`` are the members ``step<k>.<array>``. Loading checks
every part before it reaches a step: each class is an olearn transformer (or
a savable learner, last), each step's hyperparameters pass its checks and its
arrays its :class:`~olearn._state_schema.StateSchema`, the steps form a valid
pipeline, and the widths agree (no transformer and no name past the pipeline's
columns). Unknown entries (in the metadata, a step or a state) and arrays of no
step are refused: a file this olearn does not understand in full is not
loaded as something else.
"""

import types

from .._learner import OnlineLearner
from .._settings import freeze
from .._persistence import PersistenceMixin, _vocabulary, model_entry, model_from_entry, olearn_class, \
    vocabulary_entries
from .._validation import INDEX_LIMIT
from ..exceptions import ModelFormatError, NotFittedError
from ._step import Step

_META_KEYS = frozenset({"format", "format_version", "class", "params", "state", "steps", "vocabulary", "input"})
_STEP_KEYS = ("name", "class", "params", "state")


def _array_prefix(k):
    return f"step{k}."


def pipeline_contents(pipeline):
    """The metadata entries and the arrays of a learned pipeline's file (ValueError for what JSON cannot keep)."""
    if not pipeline._is_started():
        raise NotFittedError("this Pipeline has learned nothing yet; nothing to save")
    plan = pipeline._plan()
    pipeline._check_map(plan)
    problem = _width_problem(pipeline, plan, pipeline.n_features_in_)
    if problem:
        raise ValueError(f"Pipeline: cannot be saved: {problem}")
    steps, arrays = [], {}
    for k, (name, step) in enumerate(pipeline.steps):
        entry, step_arrays = model_entry(step)
        # what loading gives (through the class's own reading of its saved hyperparameters), against the same
        # reading of the step's
        loads_as = type(step)._saved_params(dict(entry["params"]))
        given = type(step)._saved_params(step.get_params(deep=False))
        for key, value in loads_as.items():
            if freeze(value) != freeze(given[key]):
                raise ValueError(
                    f"Pipeline: step {name!r}: hyperparameter {key}={getattr(step, key)!r:.100} would load as "
                    f"{value!r:.100}; use str or int names (or pickle the pipeline)"
                )
        steps.append({key: (name if key == "name" else entry[key]) for key in _STEP_KEYS})
        arrays.update((_array_prefix(k) + array_name, array) for array_name, array in step_arrays.items())
    entry = {
        "class": f"{type(pipeline).__module__}:{type(pipeline).__qualname__}",
        "params": {"n_bits": pipeline.n_bits},
        "state": {"n_features_in": pipeline.n_features_in_},
        "steps": steps,
    }
    if not pipeline.feature_map_.hashing:
        entry["vocabulary"] = vocabulary_entries(pipeline.feature_map_, "Pipeline")
        past = [name for name, column in entry["vocabulary"] if column >= pipeline.n_features_in_]
        if past:
            # left by a batch whose learning overflowed part-way: the learner kept its first rows' names
            raise ValueError(
                f"Pipeline: cannot be saved: feature {past[0]!r:.100} has a column past the pipeline's "
                f"n_features_in={pipeline.n_features_in_}; learn an example with it again, or start over"
            )
    return entry, arrays


def _width_problem(pipeline, plan, width):
    """What makes the transformers' widths disagree with the pipeline's ``width`` columns, or None.

    The learner's width is its own (a fixed ``n_features`` may exceed the
    pipeline's columns); it checks the columns it is given on every example.
    """
    if plan.n_bits is not None and width > 1 << plan.n_bits:
        return f"n_features_in={width} is past the 2**{plan.n_bits} columns of the hashed names"
    for name, step in pipeline.steps:
        step_width = step.__dict__.get("n_features_in_", 0)
        if isinstance(step, Step) and not step._acts_on_names and step_width > width:
            return f"step {name!r} has n_features_in={step_width}, past the pipeline's n_features_in={width}"
    return None


def _exact_keys(path, what, entry, keys):
    if not isinstance(entry, dict):
        raise ModelFormatError(f"{path}: {what} is {entry!r:.200}; expected an object")
    unknown = sorted(set(entry) - set(keys))
    missing = [key for key in keys if key not in entry]
    if unknown or missing:
        raise ModelFormatError(
            f"{path}: {what} " + (f"has unknown entries {unknown}" if unknown else f"lacks {missing}")
        )


def _step_class(path, k, entry, last):
    where = f"step {k} ({entry['name']!r}) "
    cls = olearn_class(path, entry["class"], where)
    transformer = issubclass(cls, Step)
    # whether the learner learns rows of features is the pipeline's check, once the steps are built
    learner = issubclass(cls, OnlineLearner) and issubclass(cls, PersistenceMixin)
    if not (transformer or (learner and last)):
        kind = "a learner, which can only be the last step" if learner else "neither an olearn transformer nor a learner"
        raise ModelFormatError(f"{path}: {where}names {entry['class']!r}, {kind}")
    return cls


def _checked_steps(path, meta):
    steps = meta.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ModelFormatError(f"{path}: the metadata's steps is {steps!r:.200}; expected a list of steps")
    names = set()
    for k, entry in enumerate(steps):
        _exact_keys(path, f"step {k}", entry, _STEP_KEYS)
        name = entry["name"]
        if not isinstance(name, str) or not name or "__" in name or name == "n_bits" or name in names:
            raise ModelFormatError(f"{path}: step {k} has name {name!r:.100}; expected a new name without '__'")
        names.add(name)
        for key, kind, what in (("class", str, "a string"), ("params", dict, "an object"), ("state", dict, "an object")):
            if not isinstance(entry[key], kind):
                raise ModelFormatError(f"{path}: step {k} ({name!r}): {key} is {entry[key]!r:.200}; expected {what}")
    return steps


def pipeline_from_file(cls, path, meta, arrays):
    """The pipeline a file describes, every part checked; ModelFormatError naming the file and what is wrong."""
    unknown = sorted(set(meta) - _META_KEYS)
    if unknown:
        raise ModelFormatError(f"{path}: the metadata of a Pipeline has unknown entries {unknown}")
    _exact_keys(path, "the metadata's params", meta["params"], ("n_bits",))
    _exact_keys(path, "the metadata's state", meta["state"], ("n_features_in",))
    width = meta["state"]["n_features_in"]
    if isinstance(width, bool) or not isinstance(width, int) or not 0 <= width <= INDEX_LIMIT:
        raise ModelFormatError(
            f"{path}: state entry 'n_features_in' is {width!r:.100}; expected an integer >= 0 and at most {INDEX_LIMIT}"
        )
    steps = _checked_steps(path, meta)
    prefixes = [_array_prefix(k) for k in range(len(steps))]
    stray = sorted(name for name in arrays if not any(name.startswith(prefix) for prefix in prefixes))
    if stray:
        raise ModelFormatError(f"{path}: the file has unexpected arrays {stray}")
    built = []
    for k, entry in enumerate(steps):
        step_cls = _step_class(path, k, entry, k == len(steps) - 1)
        prefix = prefixes[k]
        step_arrays = {name[len(prefix):]: array for name, array in arrays.items() if name.startswith(prefix)}
        # pipeline files are newer than every hyperparameter: each step must record all of its own
        step = model_from_entry(path, step_cls, entry["params"], entry["state"], step_arrays, {},
                                where=f"step {k} ({entry['name']!r}): ", added=frozenset())
        built.append((entry["name"], step))
    try:
        pipeline = cls(*built, n_bits=meta["params"]["n_bits"])
        plan = pipeline._plan()
    except (TypeError, ValueError) as err:
        raise ModelFormatError(f"{path}: invalid Pipeline ({err})") from None
    problem = _width_problem(pipeline, plan, width)
    if problem:
        raise ModelFormatError(f"{path}: invalid Pipeline: {problem}")
    saved = meta.get("vocabulary", [])
    if plan.n_bits is not None and saved:
        raise ModelFormatError(f"{path}: the Pipeline hashes names (n_bits={plan.n_bits}), yet has a vocabulary")
    columns = types.SimpleNamespace(n_bits=plan.n_bits, n_features_in_=width)
    fm = _vocabulary(path, saved, None, columns)
    for step in plan.scalers:
        step.feature_map_ = fm
    pipeline.feature_map_ = fm
    pipeline.n_features_in_ = width
    return pipeline
