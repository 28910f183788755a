"""scikit-learn's estimator conventions, without importing scikit-learn.

olearn's estimators follow scikit-learn's contract: constructor arguments are
stored verbatim, ``get_params``/``set_params`` read and write them (nested
``a__b`` names included), learned attributes end in ``_``, and
``sklearn.base.clone``, pipelines and grid searches work on them. They do not
inherit from ``sklearn.base.BaseEstimator`` because importing scikit-learn costs
most of a second, and the command line pays that on every run; scikit-learn is
imported only when scikit-learn itself asks for an estimator's tags or its
metadata routing.
"""

import functools
import inspect
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


class Estimator:
    """Base class of every olearn estimator: parameters, cloning, repr, tags."""

    _estimator_type = None
    # the problem the estimator solves, for ``all_estimators(task=...)``: one of
    # olearn._registry.TASKS
    _task = None

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
