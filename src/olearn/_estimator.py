"""scikit-learn's estimator conventions, without importing scikit-learn.

olearn's estimators follow scikit-learn's contract: constructor arguments are
stored verbatim, ``get_params``/``set_params`` read and write them (nested
``a__b`` names included), learned attributes end in ``_``, and
``sklearn.base.clone``, pipelines and grid searches work on them. They do not
inherit from ``sklearn.base.BaseEstimator`` because importing scikit-learn costs
most of a second, and the command line pays that on every run; scikit-learn is
imported only when scikit-learn itself asks for an estimator's tags or its
metadata routing.

Every estimator is safe to share between threads: it holds a re-entrant lock,
which each of its public methods and learned properties takes for the whole
call (:func:`locked`, applied to every subclass by
:meth:`Estimator.__init_subclass__`), so that the updates of one estimator are
serialised and a read sees the model between two of them. The compiled
kernels release the GIL only inside these calls, hence inside the lock.
"""

import copy
import functools
import inspect
import threading
import types

import numpy as np

from ._weights import check_sample_weight


@functools.cache
def _param_names(cls):
    """The keyword arguments of ``cls.__init__``, sorted, as scikit-learn lists them."""
    if cls.__init__ is object.__init__:
        return ()
    signature = inspect.signature(cls.__init__)
    names = []
    for parameter in signature.parameters.values():
        if parameter.name == "self":
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"{cls.__name__}.__init__ must name its parameters (no *args or **kwargs)")
        names.append(parameter.name)
    return tuple(sorted(names))


# scikit-learn's ``metadata_routing.UNCHANGED`` (its value, so that this module
# need not import scikit-learn): a ``set_*_request`` argument left as it was
_UNCHANGED = "$UNCHANGED$"

# the methods whose ``sample_weight`` scikit-learn's metadata routing can pass on
_ROUTED_METHODS = ("fit", "partial_fit", "score")


def _takes_sample_weight(cls, method):
    function = getattr(cls, method, None)
    return function is not None and "sample_weight" in inspect.signature(function).parameters


def _request_setter(method):
    def why_not(self):
        if _takes_sample_weight(type(self), method):
            return None
        return f"its {method} takes no sample_weight" if hasattr(self, method) else f"it has no {method}"

    def set_request(self, *, sample_weight=_UNCHANGED):
        import sklearn

        if not sklearn.get_config()["enable_metadata_routing"]:
            raise RuntimeError(
                f"{type(self).__name__}.set_{method}_request is only available when scikit-learn's "
                "metadata routing is enabled: sklearn.set_config(enable_metadata_routing=True)"
            )
        requests = self.get_metadata_routing()
        if sample_weight != _UNCHANGED:
            getattr(requests, method).add_request(param="sample_weight", alias=sample_weight)
        self._metadata_request = requests
        return self

    set_request.__name__ = set_request.__qualname__ = f"set_{method}_request"
    set_request.__doc__ = f"""Whether scikit-learn's metadata routing passes ``sample_weight`` to ``{method}``.

        Only with ``sklearn.set_config(enable_metadata_routing=True)``, when the
        estimator sits inside a meta-estimator (a pipeline, a grid search,
        ``cross_validate``), as scikit-learn's own ``set_{method}_request``:
        True passes it, False does not, None (the default before any call)
        makes the meta-estimator refuse a ``sample_weight`` it is given, a
        string passes the metadata of that name as ``sample_weight``, and
        ``sklearn.utils.metadata_routing.UNCHANGED`` keeps the current request.
        Returns self.
        """
    return only_when(why_not)(set_request)


def only_when(why_not):
    """Decorate a method that exists only on the instances it applies to.

    ``why_not(self)`` returns None when the method applies, else the sentence
    that says why it does not. Where it does not, reading the method raises
    AttributeError with that sentence, so ``hasattr(est, name)`` is False:
    scikit-learn's convention (its ``available_if``) for methods such as
    ``predict_proba``, which its meta-estimators and checks look for with
    ``hasattr``. Read from the class, the attribute is the plain function, so
    that documentation tools see its signature and docstring.
    """
    return lambda method: _ConditionalMethod(method, why_not)


class _ConditionalMethod:
    def __init__(self, method, why_not):
        self.method = method
        self.why_not = why_not
        functools.update_wrapper(self, method)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.method
        reason = self.why_not(obj)
        if reason is not None:
            raise AttributeError(f"{type(obj).__name__} has no {self.method.__name__}: {reason}")
        return types.MethodType(self.method, obj)


def locked(method):
    """``method`` called holding its estimator's lock (``self._lock``, re-entrant: methods call each other).

    The design guide's rule for concurrency: one lock per estimator, taken
    around every read or write of its learned state, so that two threads
    calling one estimator take turns, and a compiled kernel that releases the
    GIL runs while its caller holds the lock.
    """
    return wrapper(method, _LOCKED)


# acquire and release rather than a with statement: on the one-example path, twice as fast
_LOCKED = """lock_ = {self}._lock
lock_.acquire()
try:
    return _method_({arguments})
finally:
    lock_.release()"""


def wrapper(method, body, **names):
    """A function with ``method``'s parameters (and defaults, name, docstring) whose body is ``body``.

    ``body`` is Python source in which ``{self}`` is the first parameter and
    ``{arguments}`` passes every parameter on (``_method_({arguments})`` calls
    ``method`` as the wrapper was called); ``_method_`` and ``names`` are its
    globals, and its own names end in ``_``, as no parameter's does. Spelling
    the parameters out rather than taking ``*args, **kwargs`` matters on the
    one-example path, where a call costs a few microseconds and packing the
    arguments costs about as much as the lock (``benchmarks/bench_lock.py``).
    The wrapper's ``holds_lock`` is True.
    """
    header, arguments = _parameters(method)
    source = body.format(self=arguments[0], arguments=", ".join(arguments)).replace("\n", "\n    ")
    scope = {**names, "_method_": method}
    exec(f"def wrapper({header}):\n    {source}\n", scope)  # noqa: S102 - built from the method's signature
    function = functools.wraps(method)(scope["wrapper"])
    function.__defaults__ = method.__defaults__
    function.__kwdefaults__ = method.__kwdefaults__
    function.holds_lock = True
    return function


def _parameters(function):
    """(the parameters of ``function``'s ``def``, without their defaults, and the arguments that pass each on).

    The defaults are the function's own ``__defaults__`` and ``__kwdefaults__``,
    given to the new function as they are.
    """
    header, call, keyword_only = [], [], False
    for parameter in inspect.signature(function).parameters.values():
        name = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            header.append(f"*{name}")
            call.append(f"*{name}")
            keyword_only = True
        elif parameter.kind is parameter.VAR_KEYWORD:
            header.append(f"**{name}")
            call.append(f"**{name}")
        elif parameter.kind is parameter.KEYWORD_ONLY:
            if not keyword_only:
                header.append("*")
                keyword_only = True
            header.append(name)
            call.append(f"{name}={name}")
        else:
            header.append(name)
            call.append(name)
    return ", ".join(header), call


def call_locked(estimator, function, *args, **kwargs):
    """``function(*args, **kwargs)`` holding ``estimator``'s lock, as its own methods hold it.

    For code outside the estimator's methods that reads or writes its state
    (:func:`olearn.run`, the River adapter); a pipeline's lock comes with its
    steps' (:attr:`Estimator._locking`).
    """
    return estimator._locking(lambda _, *a, **k: function(*a, **k))(estimator, *args, **kwargs)


# public attributes that read no learned state: left without the lock
_UNLOCKED = frozenset({"get_params"})


def _lock_public_methods(cls):
    """Wrap, by ``cls._locking``, the public methods and properties that ``cls`` defines or takes from a mixin.

    A mixin (a base that is no estimator class: a family's kernel path, its saved
    state) is wrapped by no ``__init_subclass__`` of its own, so its members are
    wrapped here, in the estimator class that takes them; the mixin is left as it is.
    """
    for name in dir(cls):
        if name.startswith("_") or name in _UNLOCKED:
            continue
        owner = next(klass for klass in cls.__mro__ if name in vars(klass))
        if owner is not cls and (owner is object or issubclass(owner, Estimator)):
            continue
        value = vars(owner)[name]
        if inspect.isfunction(value) and not getattr(value, "holds_lock", False):
            setattr(cls, name, cls._locking(value))
        elif isinstance(value, _ConditionalMethod) and not getattr(value.method, "holds_lock", False):
            setattr(cls, name, _ConditionalMethod(cls._locking(value.method), value.why_not))
        elif type(value) is property and not getattr(value.fget, "holds_lock", False):
            wrapped = [None if f is None else cls._locking(f) for f in (value.fget, value.fset, value.fdel)]
            setattr(cls, name, property(*wrapped, doc=value.__doc__))


class Estimator:
    """Base class of every olearn estimator: parameters, cloning, repr, tags, and the lock that serialises its calls.

    The lock lives in a slot, not in ``__dict__``: it is no parameter and no
    learned attribute, never pickled, copied or cloned; each new instance
    (constructed, cloned, copied or unpickled) gets its own.
    """

    __slots__ = ("_lock", "__dict__", "__weakref__")

    _estimator_type = None
    # the problem the estimator solves, for ``all_estimators(task=...)``: one of
    # olearn._registry.TASKS
    _task = None

    # how a method is made to hold the estimator's lock (a pipeline's holds its steps' locks too)
    _locking = staticmethod(locked)

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._lock = threading.RLock()
        return self

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _lock_public_methods(cls)

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self._lock = threading.RLock()
        self.__dict__.update(state)

    def __copy__(self):
        with self._lock:
            new = type(self).__new__(type(self))
            new.__setstate__(self.__getstate__())
        return new

    def __deepcopy__(self, memo):
        # the state copied while no other thread changes it (pickle instead writes the arrays as they are:
        # pickle a deep copy of a model that other threads are learning)
        with self._lock:
            new = type(self).__new__(type(self))
            memo[id(self)] = new
            new.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return new

    @classmethod
    def _get_param_names(cls):
        return list(_param_names(cls))

    def get_params(self, deep=True):
        """The constructor's parameters (and, if ``deep``, those of nested estimators as ``a__b``)."""
        params = {}
        for name in _param_names(type(self)):
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner) for key, inner in value.get_params(deep=True).items())
            params[name] = value
        return params

    def set_params(self, **params):
        """Set parameters by name (``a__b`` reaches into a nested estimator); returns self."""
        names = _param_names(type(self))
        nested = {}
        for key, value in params.items():
            name, delimiter, inner = key.partition("__")
            if name not in names:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid parameters: {', '.join(names)}"
                )
            if delimiter:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
        for name, inner in nested.items():
            getattr(self, name).set_params(**inner)
        return self

    def __repr__(self):
        names = _param_names(type(self))
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values() if p.name in names
        }
        shown = []
        for name in names:
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            same = value is default or (type(value) is type(default) and _equal(value, default))
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def get_metadata_routing(self):
        """The ``sample_weight`` requests of this estimator, for scikit-learn's metadata routing.

        A ``sklearn.utils.metadata_routing.MetadataRequest`` in which ``fit``,
        ``partial_fit`` and ``score`` ask for ``sample_weight`` where they take
        one, as set by ``set_fit_request``, ``set_partial_fit_request`` and
        ``set_score_request`` (unset, None, until then: a meta-estimator given
        weights then refuses them instead of dropping them).
        """
        requests = getattr(self, "_metadata_request", None)
        if requests is None:
            from sklearn.utils.metadata_routing import MetadataRequest

            requests = MetadataRequest(owner=self)
            for method in _ROUTED_METHODS:
                if _takes_sample_weight(type(self), method):
                    getattr(requests, method).add_request(param="sample_weight", alias=None)
        return requests

    set_fit_request = _request_setter("fit")
    set_partial_fit_request = _request_setter("partial_fit")
    set_score_request = _request_setter("score")

    def __sklearn_tags__(self):
        # scikit-learn asks for tags only once it is running, so importing it here is free
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        classifier = self._estimator_type == "classifier"
        regressor = self._estimator_type == "regressor"
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=classifier or regressor),
            input_tags=InputTags(sparse=True),
            classifier_tags=ClassifierTags() if classifier else None,
            regressor_tags=RegressorTags() if regressor else None,
        )


    def _expected_failed_checks(self):
        """scikit-learn's common checks that cannot apply to this kind of learner: {check name: reason}.

        For ``check_estimator(est, expected_failed_checks=est._expected_failed_checks())``
        and ``parametrize_with_checks(..., expected_failed_checks=...)``, which
        report them as expected failures. Only a check whose data or premise
        is not this learner's kind of input or target, or whose premise an
        online learner cannot meet (weights equal to repeated rows in any
        order), belongs here, each with the reason; anything else is a bug to
        fix.
        """
        return {}


_lock_public_methods(Estimator)


def locking_its_estimator(function):
    """``function(estimator, ...)`` called holding ``estimator``'s lock, as the estimator's own methods hold it.

    For the public functions that read or write an estimator's state from
    outside its methods (:func:`olearn.run`, the Dask fits); anything else
    given as ``estimator`` goes to ``function`` as it is, to be refused there.
    """
    @functools.wraps(function)
    def under_lock(estimator, *args, **kwargs):
        if not isinstance(estimator, Estimator):
            return function(estimator, *args, **kwargs)
        return call_locked(estimator, function, estimator, *args, **kwargs)

    return under_lock


def _equal(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def score_weights(sample_weight, n_rows, owner):
    """``score``'s ``sample_weight`` checked as ``fit``'s (one finite weight >= 0 per row), or None.

    All-zero weights are refused: they weigh no row, so there is no score.
    """
    weights = check_sample_weight(sample_weight, n_rows)
    if weights is not None and n_rows and not weights.any():
        raise ValueError(f"{owner}.score: sample_weight is all zeros; a weighted score needs a positive weight")
    return weights


def _score_targets(y, n_rows, what):
    """``score``'s y read as ``fit`` reads it: one entry per row, a single column flattened with a warning."""
    from ._validation import _one_per_row

    return _one_per_row(y, n_rows, "y", what)


class ClassifierEstimator(Estimator):
    """An estimator that predicts classes; ``score`` is the accuracy."""

    _estimator_type = "classifier"

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``)."""
        predicted = self.predict(X)
        weights = score_weights(sample_weight, predicted.shape[0], type(self).__name__)
        correct = predicted == _score_targets(y, predicted.shape[0], "labels")
        return float(np.average(correct, weights=weights))


class RegressorEstimator(Estimator):
    """An estimator that predicts real numbers; ``score`` is R^2 (scikit-learn's ``r2_score``)."""

    _estimator_type = "regressor"

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination R^2 of ``predict(X)`` against ``y`` (1 is perfect).

        A constant ``y`` gives 1.0 for perfect predictions and 0.0 otherwise, as
        scikit-learn's ``r2_score`` does.
        """
        predicted = self.predict(X)
        y = _score_targets(y, predicted.shape[0], "targets").astype(np.float64)
        weights = score_weights(sample_weight, predicted.shape[0], type(self).__name__)
        weights = np.ones_like(y) if weights is None else weights
        residual = float(np.sum(weights * (y - predicted) ** 2))
        total = float(np.sum(weights * (y - np.average(y, weights=weights)) ** 2))
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return 1.0 - residual / total
