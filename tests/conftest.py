"""Shared fixtures: seeded random streams and the registry of estimators to test.

* ``make_stream`` (fixture): a function ``(n, d, density=1.0, seed=0, noise=0.1)
  -> (X, y)`` giving a dense array X (rows of squared norm about 1, a fraction
  ``density`` of entries nonzero) and labels y in {-1, +1} from a random
  hyperplane with a fraction ``noise`` of labels flipped. Both classes appear.
* ``estimator_case`` (parametrized argument): every binary classifier that
  ``olearn.all_estimators(task="binary")`` lists, with its default hyperparameters and the
  non-default settings of ``SETTINGS`` below. A new estimator is covered with its
  defaults as soon as it is registered; add its interesting settings here.
* ``estimator_class`` (parametrized argument): every registered binary classifier class.
* ``regressor_case`` / ``regressor_class``: the same for the registered
  regressors (``task="regression"``, settings from ``REGRESSOR_SETTINGS``).
* With ``-n`` (``--dist loadgroup``, pyproject's addopts) the tests marked
  ``pytest.mark.xdist_group(NAME)`` run on one worker, and so do the tests of a module that
  share a module-scoped fixture (a Dask cluster, a command's run), built once rather than once
  per worker: :func:`pytest_collection_modifyitems` gives their node ids the ``@NAME`` suffix
  that xdist's scheduler groups by (the module's path for the latter). The ``estimator_case``
  tests of a module with an averaged second-order learner are one group (:func:`_compile_group`).
* ``checking_pass_stops`` (fixture): a list that receives what each call of the
  binary linear and diagonal second-order passes that check rows themselves
  returns (-1, or the row where the pass stopped), so that a test knows a batch
  took that path.
  The other tasks (multiclass, multilabel, uniclass, sequence) have their own
  contracts and their own common tests.
"""

from dataclasses import dataclass, field

import numpy as np
import pytest

import olearn

# Non-default hyperparameters worth running every common check with: each one
# switches on a different branch of the shared kernel (intercept, step rules,
# losses, schedules, projection, conservative updates).
SETTINGS = {
    "Perceptron": [
        {"eta": 0.5},
        {"fit_intercept": True, "eta": 2.0},
        {"n_features": 9},
        {"kernel": "linear", "eta": 0.5, "fit_intercept": True},
        {"kernel": "linear", "budget": 5, "budget_policy": "smallest"},
        {"average": True},
    ],
    "PAClassifier": [
        {"variant": "pa"},
        {"variant": "pa1", "C": 0.05, "fit_intercept": True},
        {"variant": "pa2", "C": 0.5},
        {"variant": "pa2", "C": float("inf"), "fit_intercept": True},
        {"kernel": "linear", "variant": "pa2", "C": 0.5, "fit_intercept": True},
        {"kernel": "linear", "budget": 7, "budget_policy": "random", "random_state": 3},
        {"kernel": "linear", "variant": "pa", "budget": 4, "n_features": 9},
        {"variant": "pa1", "average": 3, "fit_intercept": True},
    ],
    "OGDClassifier": [
        {"loss": "logistic", "schedule": "inverse", "eta": 2.0, "fit_intercept": True},
        {"loss": "squared", "schedule": "constant", "eta": 0.2, "radius": 0.8},
        {"loss": "hinge", "schedule": "sqrt", "radius": 0.5, "fit_intercept": True},
        {"conservative": True, "schedule": "constant", "eta": 0.7},
        {"schedule": "sqrt", "average": True},
    ],
    "OnlineSVM": [
        {"radius": 0.3, "schedule": "constant", "eta": 0.5},
        {"fit_intercept": False, "schedule": "inverse", "radius": 2.0},
        {"average": 2},
    ],
    "AROW": [
        {"r": 0.1, "fit_intercept": True},
        {"covariance": "diag"},
        {"covariance": "diag", "r": 4.0, "fit_intercept": True},
        {"n_features": 9},
        {"average": True, "fit_intercept": True},
        {"covariance": "diag", "average": 3},
    ],
    "NAROW": [{"b": 0.3}, {"b": 5.0, "fit_intercept": True}, {"covariance": "diag", "b": 2.0},
              {"covariance": "diag", "average": True}],
    "Fig1AROW": [{"r": 0.5}, {"covariance": "diag", "r": 2.0, "fit_intercept": True}, {"average": True}],
    "SecondOrderPerceptron": [{"a": 0.2, "fit_intercept": True}, {"average": True}],
    "CW": [{"eta": 0.7, "covariance": "full"}, {"eta": 0.95, "fit_intercept": True},
           {"eta": 0.8, "covariance": "full", "average": 2}],
    "AdaGrad": [{"eta": 0.3, "delta": 0.0, "fit_intercept": True}, {"delta": 0.1},
                {"average": True, "fit_intercept": True}],
    "Winnow": [{"C": 0.3, "fit_intercept": True}, {"C": 5.0}, {"C": 0.7, "balanced": False, "fit_intercept": True},
               {"C": 0.5, "average": True}],
    "PNorm": [{"p": 3.0, "aggressive": True, "R": 1.7, "fit_intercept": True}, {"p": 6.0}, {"p": 3.0, "average": 2}],
    "DualAscent": [
        {"regularizer": "pnorm", "p": 3.0, "update": "aggressive", "C": 0.6, "gamma": 0.8},
        {"regularizer": "pnorm", "p": 3.0, "update": "last-k", "k": 3, "C": 0.6, "fit_intercept": True},
        {"update": "last-k", "k": 1, "C": 0.5},
        {"update": "all", "C": 0.6},
        {"regularizer": "entropy", "C": 0.4},
        {"regularizer": "entropy", "update": "all", "C": 0.3, "n_features": 9},
        {"C": 0.5, "average": True},
    ],
}


REGRESSOR_SETTINGS = {
    "PARegressor": [
        {"variant": "pa", "epsilon": 0.0},
        {"variant": "pa1", "C": 0.05, "fit_intercept": True},
        {"variant": "pa2", "C": 0.5, "epsilon": 0.3},
        {"variant": "pa2", "C": float("inf"), "fit_intercept": True},
        {"kernel": "linear", "variant": "pa2", "C": 0.5, "epsilon": 0.05, "fit_intercept": True},
        {"kernel": "linear", "budget": 6, "budget_policy": "random", "random_state": 1},
        {"variant": "pa1", "C": 0.5, "average": 4, "fit_intercept": True},
    ],
}


@dataclass(frozen=True)
class EstimatorCase:
    """One registered estimator class with one hyperparameter setting."""

    name: str
    cls: type
    params: dict = field(default_factory=dict)

    def make(self, **overrides):
        return self.cls(**{**self.params, **overrides})

    @property
    def id(self):
        if not self.params:
            return f"{self.name}-default"
        return self.name + "-" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))


def estimator_cases(task="binary", settings=SETTINGS):
    """Every registered estimator of that task, with its defaults and with each of its settings."""
    cases = []
    for name, cls in olearn.all_estimators(task=task):
        cases.append(EstimatorCase(name, cls, {}))
        for params in settings.get(name, []):
            cases.append(EstimatorCase(name, cls, dict(params)))
    return cases


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-long", type=float, default=0.0, metavar="FACTOR",
        help="run every campaign under tests/fuzz, and the kill -9 campaign of tests/serve/test_crash.py, "
             "FACTOR times longer than in CI (e.g. 200)")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """On a worker of ``--dist loadgroup``, each test marked ``xdist_group`` gets its groups as node id suffix.

    xdist's worker hook does this by writing ``item._nodeid``, which pytest 9.2 no longer reads (its node id
    lives in ``item._id``): the suffix never reached the scheduler, and a group's tests ran on every worker.
    Where xdist's suffix took effect, this leaves the node id as it is. A test of no group that uses a
    module-scoped fixture is put in its module's group.
    """
    if not getattr(config.option, "loadgroup", False):  # xdist sets it on its workers of --dist loadgroup
        return
    for item in items:
        groups = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                         for mark in item.iter_markers("xdist_group")})
        if not groups and _uses_a_module_fixture(item):
            groups = [item.nodeid.split("::")[0]]
        if groups and item.nodeid.rfind("@") <= item.nodeid.rfind("]"):  # no suffix yet (xdist's own test)
            grouped = f"{item.nodeid}@{'_'.join(groups)}"
            if hasattr(item, "_id"):  # pytest 9.2 and later
                item._id = type(item._id).parse(grouped)
            else:
                item._nodeid = grouped


def _uses_a_module_fixture(item):
    """Whether the test uses a fixture of module scope (made once per module on each worker that runs it)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values() if defs)


def _compile_group(case, module):
    """The xdist group of a case whose kernels are compiled on first use (not ahead of time), or none.

    The averaged second-order learners share compiled passes (AROW's, NAROW's and AdaGrad's diagonal one,
    AROW's and Fig1AROW's full one) that take tens of seconds to compile: two workers that met two of them
    at once would each compile the same pass. Those cases of one module run on one worker, one after the
    other, and all but the first find the pass compiled.
    """
    from olearn.second_order._base import SecondOrderClassifier

    if case.params.get("average") and issubclass(case.cls, SecondOrderClassifier):
        return [pytest.mark.xdist_group(f"{module}-averaged-second-order")]
    return []


def pytest_generate_tests(metafunc):
    module = metafunc.definition.nodeid.split("::")[0]
    for prefix, task, settings in (("estimator", "binary", SETTINGS),
                                   ("regressor", "regression", REGRESSOR_SETTINGS)):
        if f"{prefix}_case" in metafunc.fixturenames:
            cases = estimator_cases(task, settings)
            metafunc.parametrize(f"{prefix}_case", [pytest.param(c, id=c.id, marks=_compile_group(c, module))
                                                    for c in cases])
        if f"{prefix}_class" in metafunc.fixturenames:
            registered = olearn.all_estimators(task=task)
            metafunc.parametrize(f"{prefix}_class", [cls for _, cls in registered], ids=[n for n, _ in registered])


def _make_stream(n, d, density=1.0, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if density < 1.0:
        X *= rng.random((n, d)) < density
    # rows of squared norm about 1, so that unit learning rates are stable
    X /= np.sqrt(d * density)
    u = rng.standard_normal(d)
    y = np.where(X @ u > 0, 1, -1)
    y[rng.random(n) < noise] *= -1
    # both classes, the positive one first (streams that start with the other
    # class are built explicitly by the tests that need them)
    y[0], y[1] = 1, -1
    return X, y


@pytest.fixture
def make_stream():
    """``make_stream(n, d, density=1.0, seed=0, noise=0.1) -> (X dense, y in {-1, +1})``."""
    return _make_stream


@pytest.fixture
def checking_pass_stops(monkeypatch):
    """What each call of a checking pass returned (-1, or the row where it stopped), in order of the calls."""
    from olearn._kernels import _compiled

    stops = []

    def spy(kernel):
        def call(*args):
            stops.append(int(kernel(*args)))
            return stops[-1]
        return call

    monkeypatch.setattr(_compiled, "checking_linear_pass", spy(_compiled.checking_linear_pass))
    monkeypatch.setattr(_compiled, "checking_averaged_pass", spy(_compiled.checking_averaged_pass))
    monkeypatch.setattr(_compiled, "checking_diagonal_pass", spy(_compiled.checking_diagonal_pass))
    return stops
