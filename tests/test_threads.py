"""One estimator shared by threads: its calls take turns (a lock per estimator and per pipeline).

Each stress test runs threads over one estimator with a tiny switch interval,
so that the threads interleave as finely as the interpreter allows, and checks
what a serial run of the same rows gives, through quantities that do not
depend on the order of the rows. The rows are built so that the reference
needs no learner: every row's features are new, so a Perceptron scores it 0,
counts a mistake and adds ``y * x`` to weights nobody else touches; each
feature's weight is ``y * value`` whatever the order, and the kept ``||w||^2``
is the sum of their squares.
"""

import copy
import pickle
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._estimator import Estimator
from olearn._kernels._codes import S_SCALE, S_SQNORM, S_T
from olearn.preprocessing import StandardScaler

# how long a thread may take before the test calls it hung (a hang guard, not a timing assertion)
HANG_GUARD = 600


@pytest.fixture
def switching_often():
    """The interpreter switches threads every microsecond (Python's default: every 5 ms)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def run_threads(*targets):
    """Run each target on its own thread, all released at once; re-raise the first error of any."""
    errors = []
    start = threading.Barrier(len(targets))

    def guarded(target):
        try:
            start.wait()
            target()
        except BaseException as err:  # noqa: BLE001 - reported below, on the test's thread
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=(target,), daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]


def named_rows(prefix, n_rows, seed):
    """``n_rows`` dicts of two names of their own each (``{prefix}{i}a``, ``{prefix}{i}b``), and labels +-1."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.5, 2.0, size=(n_rows, 2)).tolist()
    labels = rng.choice([-1, 1], size=n_rows).tolist()
    return [{f"{prefix}{i}a": a, f"{prefix}{i}b": b} for i, (a, b) in enumerate(values)], labels


def expected_weights(rows, labels):
    """The weight of each name after a Perceptron learns rows of new names, in any order: y * value."""
    return {name: y * value for x, y in zip(rows, labels) for name, value in x.items()}


def assert_bijection(vocabulary, names):
    """Every name has a column of its own, and the columns are 0, 1, ... with none left out."""
    assert set(vocabulary) == set(names)
    assert sorted(vocabulary.values()) == list(range(len(names)))


def assert_kept_norm(learner, n_rounds):
    state = learner._state
    assert state[S_T] == n_rounds
    weights = state[S_SCALE] * learner._w
    assert state[S_SQNORM] == pytest.approx(float(weights @ weights), rel=1e-12)


# -- new names from two threads --------------------------------------------------------------


def test_new_names_from_two_threads_each_get_a_column_of_their_own(switching_often):
    rows_a, labels_a = named_rows("a", 3000, seed=1)
    rows_b, labels_b = named_rows("b", 3000, seed=2)
    model = olearn.Perceptron()

    def learn(rows, labels):
        return lambda: [model.learn_one(x, y) for x, y in zip(rows, labels)]

    run_threads(learn(rows_a, labels_a), learn(rows_b, labels_b))

    expected = expected_weights(rows_a + rows_b, labels_a + labels_b)
    vocabulary = model.vocabulary_
    assert_bijection(vocabulary, expected)
    assert model.n_features_in_ == len(expected)
    coef = model.coef_.ravel()
    assert {name: coef[column] for name, column in vocabulary.items()} == expected
    assert_kept_norm(model, len(rows_a) + len(rows_b))


def test_new_names_from_two_threads_through_a_pipeline(switching_often):
    rows_a, labels_a = named_rows("a", 2000, seed=3)
    rows_b, labels_b = named_rows("b", 2000, seed=4)
    model = StandardScaler() | olearn.Perceptron()

    def learn(rows, labels):
        return lambda: [model.predict_learn_one(x, y) for x, y in zip(rows, labels)]

    run_threads(learn(rows_a, labels_a), learn(rows_b, labels_b))

    # each name is seen once: the scaler's mean of its column (an absent feature counts 0) is its value over
    # the number of rows, whatever the order
    n_rows = len(rows_a) + len(rows_b)
    values = {name: value / n_rows for x in rows_a + rows_b for name, value in x.items()}
    vocabulary = model.feature_map_.vocabulary()
    assert_bijection(vocabulary, values)
    assert model.n_features_in_ == len(values)
    mean = model["standardscaler"].mean_
    assert {name: mean[column] for name, column in vocabulary.items()} == pytest.approx(values, rel=1e-9)
    assert_kept_norm(model["perceptron"], len(rows_a) + len(rows_b))


# -- a batch and single rows at once -----------------------------------------------------------


def disjoint_rows(columns, seed):
    """One row per column of ``columns``, its only feature; values in [0.5, 2) and labels +-1."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 2.0, size=len(columns)), rng.choice([-1, 1], size=len(columns))


def batches_and_rows(n_batches=10, batch_rows=2000, n_single=4000):
    """Batches over the even columns, single rows over the odd columns past them: each single row widens the model.

    A single row learned while a batch's compiled pass runs (it releases the
    GIL) moves the weights to a wider array under the pass's feet.
    """
    even = np.arange(0, 2 * n_batches * batch_rows, 2)
    odd = 2 * n_batches * batch_rows + np.arange(1, 2 * n_single, 2)
    batch_values, batch_labels = disjoint_rows(even, seed=5)
    single_values, single_labels = disjoint_rows(odd, seed=6)
    batches = []
    for k in range(n_batches):
        part = slice(k * batch_rows, (k + 1) * batch_rows)
        X = sp.csr_matrix((batch_values[part], even[part], np.arange(batch_rows + 1)),
                          shape=(batch_rows, int(even[part][-1]) + 1))
        batches.append((X, batch_labels[part]))
    singles = [({int(j): float(v)}, int(y)) for j, v, y in zip(odd, single_values, single_labels)]
    expected = np.zeros(max(even[-1], odd[-1]) + 1)
    expected[even] = batch_labels * batch_values
    expected[odd] = single_labels * single_values
    return batches, singles, expected


def learn_on_two_threads(model, batches, singles):
    """``model`` learns the batches (partial_fit) on one thread and the single rows (learn_one) on another at
    once; returns the number of rows learned."""

    def fit_batches():
        for X, y in batches:
            model.partial_fit(X, y, classes=[-1, 1])

    def learn_rows():
        for x, y in singles:
            model.learn_one(x, y)

    run_threads(fit_batches, learn_rows)
    return sum(X.shape[0] for X, _ in batches) + len(singles)


@pytest.mark.parametrize("attempt", range(3))
def test_partial_fit_and_learn_one_at_once_lose_no_update(switching_often, attempt):
    # both threads start at once on a fresh learner: the first call of each may start the model
    batches, singles, expected = batches_and_rows(n_batches=20, batch_rows=5000)
    model = olearn.Perceptron()
    n_rounds = learn_on_two_threads(model, batches, singles)
    assert_kept_norm(model, n_rounds)
    np.testing.assert_array_equal(model.coef_.ravel(), expected)


@pytest.mark.parametrize("attempt", range(2))
def test_a_pipelines_batches_and_rows_at_once_lose_no_update(switching_often, attempt):
    batches, singles, _ = batches_and_rows(n_batches=5, n_single=2000)
    model = StandardScaler() | olearn.Perceptron()
    n_rows = learn_on_two_threads(model, batches, singles)
    # each column is seen once: the scaler's mean of it is its value over the number of rows
    values = {}
    for X, _ in batches:
        values.update(zip(X.indices.tolist(), X.data.tolist()))
    for x, _ in singles:
        values.update(x)
    mean = model["standardscaler"].mean_
    assert model.n_features_in_ == mean.size == max(values) + 1
    assert {j: mean[j] for j in values} == pytest.approx({j: v / n_rows for j, v in values.items()}, rel=1e-9)
    assert_kept_norm(model["perceptron"], n_rows)


# -- reading while another thread learns -------------------------------------------------------


def test_reads_see_the_model_between_two_updates(switching_often):
    n_columns = 3000
    columns = np.arange(n_columns)
    values, labels = disjoint_rows(columns, seed=7)
    expected = labels * values
    model = olearn.Perceptron()
    model.learn_one({0: float(values[0])}, int(labels[0]))
    # row j holds feature j alone: its score is w_j
    probes = sp.identity(n_columns, format="csr")
    done = threading.Event()

    def learn():
        try:
            for j in columns[1:]:
                model.learn_one({int(j): float(values[j])}, int(labels[j]))
        finally:
            done.set()

    def read():
        reads = 0
        while not done.is_set() or reads < 3:
            scores = model.decision_function(probes)
            # the columns are learned in order: a state between two updates has learned a prefix of them
            learned = int(np.count_nonzero(scores))
            np.testing.assert_array_equal(scores[:learned], expected[:learned])
            assert not scores[learned:].any()
            coef = model.coef_.ravel()
            np.testing.assert_array_equal(coef, expected[:coef.size])
            model.predict_one({int(n_columns - 1): 1.0})
            reads += 1

    run_threads(learn, read)
    np.testing.assert_array_equal(model.coef_.ravel(), expected)


# -- the lock itself ---------------------------------------------------------------------------


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_public_method_and_property_of_every_estimator_holds_the_lock():
    olearn.all_estimators()  # imports every family (the pipelines and transformers are imported above)
    unlocked = []
    for cls in {Estimator, *_subclasses(Estimator)}:
        for name in dir(cls):
            if name.startswith("_") or name == "get_params":
                continue
            value = next(vars(klass)[name] for klass in cls.__mro__ if name in vars(klass))
            function = getattr(value, "fget", None) or getattr(value, "method", None) or value
            if callable(function) and not getattr(function, "holds_lock", False):
                unlocked.append(f"{cls.__name__}.{name}")
    assert not unlocked


@pytest.mark.parametrize("make", [olearn.PAClassifier, lambda: StandardScaler() | olearn.PAClassifier()],
                         ids=["learner", "pipeline"])
def test_the_lock_is_no_parameter_and_no_learned_state(make):
    from sklearn.base import clone

    model = make()
    model.learn_one({"a": 1.0}, 1)
    model.learn_one({"b": 2.0}, -1)
    assert "_lock" not in vars(model) and "_lock" not in model.get_params()
    for other in [clone(model), copy.copy(model), copy.deepcopy(model),
                  *(pickle.loads(pickle.dumps(model, protocol)) for protocol in range(pickle.HIGHEST_PROTOCOL + 1))]:
        assert other._lock is not model._lock
        assert type(other._lock) is type(model._lock)
    for other in [copy.deepcopy(model), pickle.loads(pickle.dumps(model))]:
        assert other.predict_one({"a": 1.0, "b": 1.0}) == model.predict_one({"a": 1.0, "b": 1.0})


def test_a_pipeline_holds_its_steps_locks_while_it_runs():
    learner = olearn.Perceptron()
    model = StandardScaler() | learner
    seen = []
    row_method = type(learner)._learn_row

    def spying(self, *args):
        # the learner's lock is held by this thread: another thread could not acquire it now
        seen.append(self._lock._is_owned() and model["standardscaler"]._lock._is_owned())
        return row_method(self, *args)

    learner._learn_row = spying.__get__(learner)
    model.learn_one({"a": 1.0}, 1)
    assert seen == [True]


# the compiled kernels that release the GIL and read or write a learner's state
RELEASING_KERNELS = ("binary_linear_pass", "checking_linear_pass", "binary_linear_scores")


@pytest.mark.parametrize("piped", [False, True], ids=["learner", "pipeline"])
def test_the_kernels_that_release_the_gil_run_inside_the_lock(monkeypatch, piped):
    from olearn._kernels import _compiled

    learner = olearn.PAClassifier()
    model = StandardScaler() | learner if piped else learner
    held = []
    for name in RELEASING_KERNELS:
        kernel = getattr(_compiled, name)

        def spy(*args, kernel=kernel, name=name):
            held.append((name, learner._lock._is_owned(), not piped or model._lock._is_owned()))
            return kernel(*args)

        monkeypatch.setattr(_compiled, name, spy)
    rng = np.random.default_rng(8)
    X = sp.random(400, 50, density=0.2, format="csr", random_state=9)
    y = rng.choice([-1, 1], size=400)
    model.partial_fit(X, y, classes=[-1, 1])
    model.partial_fit(X[:3], y[:3])
    model.predict(X)
    model.decision_function(X)
    olearn.run(model, X, y)
    if not piped:
        model.score(X, y)
        model.fit(X, y)
    assert {name for name, _, _ in held} == set(RELEASING_KERNELS)
    assert all(learner_held and pipeline_held for _, learner_held, pipeline_held in held), held
