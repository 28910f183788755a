"""The checks every sequence learner passes: scikit-learn contract, persistence, streaming API, bad input."""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone

import olearn
from olearn.exceptions import NotFittedError
from olearn.sequence import HammingCost, PASequence, hamming_errors


def _weights(est):
    return np.concatenate([est.coef_.ravel(), est.intercept_, est.transition_.ravel()])


def _half_hamming(h, T):
    return h / 2


def _cost(y_true, y_pred):
    return float(np.count_nonzero(y_true != y_pred)) + 0.5


SETTINGS = [
    {},
    {"variant": "pa", "fit_intercept": True},
    {"variant": "pa2", "C": 0.5, "update": "max-loss", "cost": "sqrt-hamming"},
    {"variant": "pa1", "C": 0.1, "cost": HammingCost(_half_hamming, name="half"), "update": "max-loss"},
    {"cost": _cost},
    {"n_features": 9},
]


def _label(value):
    """A test-id label that is the same in every process (a function's repr holds its address)."""
    return getattr(value, "__name__", None) or str(value)


IDS = [",".join(f"{k}={_label(v)}" for k, v in params.items()) or "default" for params in SETTINGS]


@pytest.fixture(params=SETTINGS, ids=IDS)
def params(request):
    return dict(request.param)


@pytest.fixture
def stream(make_sequences):
    return make_sequences(40, d=4, labels=("b", "a", "c"), lengths=(0, 5), seed=21, density=0.6)


def test_the_task_is_sequence():
    assert PASequence._task == "sequence"
    assert PASequence._task in olearn._registry.TASKS


def test_constructor_stores_arguments_verbatim(params):
    est = PASequence(**params)
    for name, value in params.items():
        assert est.get_params()[name] is value
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(est))


def test_clone_and_get_set_params(params, stream):
    X, y = stream
    est = PASequence(**params).partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError, match="PASequence"):
        twin.predict(X)
    assert_array_equal(_weights(twin.partial_fit(X, y)), _weights(est))
    fresh = PASequence()
    assert fresh.set_params(**params) is fresh and fresh.get_params() == est.get_params()


def test_set_params_takes_effect_mid_stream(stream):
    X, y = stream
    est = PASequence(variant="pa").partial_fit(X[:20], y[:20])
    twin = pickle.loads(pickle.dumps(est))
    est.set_params(update="max-loss")
    est.partial_fit(X[20:], y[20:])
    twin.partial_fit(X[20:], y[20:])
    assert not np.array_equal(_weights(est), _weights(twin))


def _continues_identically(a, b, X, y):
    for p, q in zip(a.predict(X), b.predict(X)):
        assert_array_equal(p, q)
    assert_array_equal(a.classes_, b.classes_)
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.taus, rb.taus)
    assert_array_equal(ra.scores, rb.scores)
    assert_array_equal(_weights(a), _weights(b))
    # a new label and a feature never seen before (within n_features=9 when it is set)
    x = {0: 0.5, 8: -1.5}
    a.learn_one([x, x], ["new", "a"])
    b.learn_one([x, x], ["new", "a"])
    assert_array_equal(_weights(a), _weights(b))
    assert_array_equal(a.classes_, b.classes_)


def test_pickle_round_trip(params, stream):
    X, y = stream
    est = PASequence(**params).partial_fit(X[:20], y[:20])
    copy = pickle.loads(pickle.dumps(est))
    assert copy.get_params() == est.get_params()
    _continues_identically(est, copy, X[20:], y[20:])
    assert pickle.loads(pickle.dumps(PASequence(**params))).get_params() == PASequence(**params).get_params()


@pytest.mark.parametrize("labels", [("b", "a", "c"), (3, 1, 2), (True, False, True), (0.5, 2.5, 1.5)],
                         ids=["strings", "ints", "bools", "floats"])
def test_save_load_round_trip(labels, make_sequences, tmp_path):
    X, y = make_sequences(30, d=4, labels=labels, seed=22)
    est = PASequence(variant="pa2", fit_intercept=True, update="max-loss").partial_fit(X[:15], y[:15])
    loaded = olearn.load(est.save(tmp_path / "model.olearn"))
    assert type(loaded) is PASequence and loaded.get_params() == est.get_params()
    assert loaded.classes_.dtype == est.classes_.dtype and loaded.n_features_in_ == est.n_features_in_
    assert_array_equal(_weights(loaded), _weights(est))
    a, b = est, loaded
    for p, q in zip(a.predict(X), b.predict(X)):
        assert_array_equal(p, q)
    a.partial_fit(X[15:], y[15:])
    b.partial_fit(X[15:], y[15:])
    assert_array_equal(_weights(a), _weights(b))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.olearn"]


def test_a_callable_cost_cannot_be_saved_portably(stream, tmp_path):
    X, y = stream
    est = PASequence(cost=_cost).partial_fit(X, y)
    with pytest.raises(ValueError, match="use pickle"):
        est.save(tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []


def test_save_before_fit_is_not_fitted(tmp_path):
    with pytest.raises(NotFittedError):
        PASequence().save(tmp_path / "m.npz")


def test_predict_before_fit_raises_but_predict_one_is_none():
    est = PASequence()
    X = [np.ones((2, 3))]
    for call in (lambda: est.predict(X), lambda: est.coef_, lambda: est.transition_, lambda: est.intercept_):
        with pytest.raises(NotFittedError, match="PASequence"):
            call()
    assert est.predict_one(np.ones((2, 3))) is None
    with pytest.raises(ValueError, match="nan"):
        est.predict_one(np.array([[1.0, np.nan]]))
    est.learn_one(np.ones((2, 3)), ["u", "v"])
    assert est.predict_one(np.ones((2, 3))).tolist() in (["u", "u"], ["u", "v"], ["v", "u"], ["v", "v"])


def test_the_first_sequence_has_no_prediction_and_is_learned():
    """With w = 0 the rival of 'ab' is 'aa' (ties go to the smallest labels); one PA step of the bare Phi
    separates them."""
    X = [np.array([[1.0, 0.0], [0.0, 1.0]])]
    res = olearn.run(est := PASequence(variant="pa", fit_intercept=False, end_transition=False), X, [["a", "b"]])
    assert res.predictions[0] is None and res.n_mistakes == 1
    assert_array_equal(est.predict(X)[0], ["a", "b"])


def test_empty_sequences_and_empty_batches():
    est = PASequence()
    assert est.partial_fit([], []) is est and not hasattr(est, "classes_")
    res = olearn.run(est, [np.empty((0, 2)), []], [[], []])
    assert res.n_rounds == 2 and res.n_mistakes == 0 and res.cumulative_loss == 0.0
    assert [p.size for p in res.predictions] == [0, 0]
    est.fit([np.ones((1, 2)), np.empty((0, 2))], [["a"], []])
    assert [p.tolist() for p in est.predict([np.empty((0, 2)), np.ones((2, 2))])] == [[], ["a", "a"]]


def test_score_is_the_fraction_of_correct_positions(stream):
    X, y = stream
    est = PASequence().partial_fit(X, y)
    errors = hamming_errors(y, est.predict(X))
    assert est.score(X, y) == pytest.approx(1 - errors.sum() / sum(len(s) for s in y))


def test_widths_grow_and_dict_rows_are_accepted():
    est = PASequence(variant="pa")
    est.learn_one(np.ones((2, 2)), ["a", "b"])
    est.learn_one([{5: 1.0}, {0: -1.0, 2: 0.5}], ["b", "a"])
    assert est.n_features_in_ == 6 and est.coef_.shape == (2, 6)
    assert len(est.predict([np.ones((3, 8))])[0]) == 3  # unseen features weigh 0


# -- bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("X", "y", "message"),
    [
        ([np.ones((3, 2))], [["a", "b"]], r"sequence 0: X\[0\] has 3 positions but y\[0\] has 2 labels"),
        ([np.ones((3, 2))], [["a"] * 3, ["b"]], "X has 1 sequences but y has 2"),
        (np.ones((3, 2)), [["a"] * 3], "X must be a list of sequences; got one array of shape"),
        (sp.csr_matrix(np.ones((3, 2))), [["a"] * 3], "got one sparse matrix"),
        ([np.ones(3)], [["a"] * 3], r"X\[0\] must be 2-d"),
        ([np.ones((2, 2)), np.array([[1.0, 2.0], [np.nan, 0.0]])], [["a"] * 2] * 2,
         r"X\[1\] contains nan at row 1, column 0"),
        ([np.ones((2, 2)), sp.csr_matrix(np.array([[1.0, np.inf]]))], [["a"] * 2, ["a"]],
         r"X\[1\] contains inf at row 0, column 1"),
        ([[{0: 1.0}, {"f": float("nan")}]], [["a", "b"]], r"X\[0\], position 1: feature 'f' has value nan"),
        ([np.ones((2, 2))], [[1.0, np.nan]], r"y\[0\] contains nan at position 1"),
        ([np.ones((2, 2))], ["ab"], r"y\[0\] is a string"),
        ([np.ones((2, 2))], None, "y is missing"),
        ([np.ones((2, 2))], [[["a"], ["b"]]], r"y\[0\] must be a 1-d sequence"),
        ([np.ones((2, 2))], [[1, "a"]], None),  # mixed labels are read as strings by NumPy: no error
    ],
)
def test_bad_input_is_named(X, y, message):
    est = PASequence()
    if message is None:
        est.fit(X, y)
        return
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


def test_more_features_than_n_features_is_refused_naming_the_sequence():
    # whatever order a shuffled pass would visit them in (seed 3 visits X[1] first), X[1] is named
    for seed in range(4):
        est = PASequence(n_features=3, random_state=seed)
        with pytest.raises(ValueError, match=r"X\[1\] has 4 features, more than n_features=3"):
            est.fit([np.ones((1, 3)), np.ones((2, 4))], [["a"], ["a", "b"]])
        assert not hasattr(est, "classes_")
    est.fit([np.ones((1, 3))], [["a"]])
    with pytest.raises(ValueError, match=r"X\[0\] has 5 features"):
        est.predict([np.ones((1, 5))])
    with pytest.raises(ValueError, match=r"x\[0\] has 5 features"):
        est.predict_one(np.ones((1, 5)))


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"variant": "pa3"}, "variant"),
        ({"C": 0.0}, "C"),
        ({"C": -1.0}, "C"),
        ({"C": float("nan")}, "C"),
        ({"update": "max_loss"}, "update"),
        ({"cost": "hamming-squared"}, "cost"),
        ({"cost": 3}, "cost"),
        ({"fit_intercept": 1}, "fit_intercept"),
        ({"n_features": 0}, "n_features"),
        ({"n_bits": 32}, "n_bits"),
    ],
)
def test_invalid_hyperparameters_are_named(params, name):
    est = PASequence(**params)
    with pytest.raises(ValueError, match=f"parameter {name}="):
        est.fit([np.ones((1, 2))], [["a"]])
    assert not hasattr(est, "classes_")


def test_max_loss_refuses_a_cost_that_is_not_of_the_hamming_distance():
    est = PASequence(update="max-loss", cost=_cost)
    with pytest.raises(ValueError, match="update='max-loss' needs a cost of the Hamming distance alone"):
        est.fit([np.ones((1, 2))], [["a"]])
    assert not hasattr(est, "classes_")
    est.set_params(cost=HammingCost(_half_hamming)).fit([np.ones((1, 2))], [["a"]])


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        (HammingCost(lambda h, T: -h), r"gives -1.0 at h=1, T=2; expected a finite number >= 0"),
        (HammingCost(lambda h, T: h + 1), r"gives 1.0 at h=0, T=2; a correct labelling must cost 0"),
        (lambda a, b: float("nan"), "the cost returned nan for sequence 0"),
        (lambda a, b: "high", "the cost returned 'high' for sequence 0"),
    ],
)
def test_bad_costs_are_refused(cost, message):
    est = PASequence(cost=cost)
    X = [np.eye(2), np.eye(2)]
    with pytest.raises(ValueError, match=message):
        est.fit(X, [["a", "b"], ["b", "a"]])


def test_a_failing_callable_cost_keeps_the_sequences_before_it():
    calls = []

    def fragile(y_true, y_pred):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("cost service down")
        return 1.0

    est = PASequence(cost=fragile, max_iter=1, shuffle=False)
    X = [np.eye(2), np.array([[1.0, 1.0], [0.0, 1.0]]), np.ones((1, 2))]
    with pytest.raises(RuntimeError, match="cost service down"):
        est.fit(X, [["a", "b"], ["b", "a"], ["c"]])
    assert est.classes_.tolist() == ["a", "b"]  # "c" was never learned
    assert np.isfinite(_weights(est)).all()


def test_overflow_is_refused_and_leaves_the_model_finite():
    # the bare Phi: its one update makes the second sequence's scores overflow
    est = PASequence(variant="pa", fit_intercept=False, end_transition=False).partial_fit([np.eye(2)], [["a", "b"]])
    before = _weights(est)
    huge = np.array([[1e300, 0.0], [0.0, -1e300]])
    with pytest.raises(FloatingPointError, match="at sequence 1; the model keeps the updates of sequences 0..0"):
        est.partial_fit([np.eye(2), huge, np.ones((1, 2))], [["b", "a"], ["a", "b"], ["z"]])
    assert np.isfinite(_weights(est)).all()
    assert est.classes_.tolist() == ["a", "b"]
    assert not np.array_equal(_weights(est), before)  # the first sequence was learned
    learned = _weights(est)
    with pytest.raises(FloatingPointError, match="at sequence 0; the model is unchanged by this call"):
        est.learn_one(huge, ["b", "a"])
    assert_array_equal(_weights(est), learned)
    assert np.isfinite(_weights(est)).all()


def test_weights_left_by_a_stopped_batch_that_brought_a_label_go_to_the_compiled_pass(monkeypatch):
    """The labels of a stopped batch are forgotten by selecting the kept labels' columns of the weights, which numpy
    lays out column by column: the weights must stay C-ordered, the compiled pass's type, or every later batch goes to
    numba's kernel (compiled on first use, for tens of seconds, on an install that has the compiled one)."""
    from olearn._kernels import _compiled

    if _compiled.EXTENSION is None:
        pytest.skip("olearn was installed without the compiled kernels")
    bare = {"variant": "pa", "fit_intercept": False, "end_transition": False}
    est = PASequence(**bare).partial_fit([np.eye(2)], [["a", "b"]])
    with pytest.raises(FloatingPointError, match="at sequence 1"):
        est.partial_fit([np.eye(2), np.diag([1e300, -1e300]), np.ones((1, 2))], [["b", "a"], ["a", "b"], ["z"]])

    def no_numba(name):
        raise AssertionError(f"{name} went to numba: the weights are not of the compiled pass's types")

    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    est.learn_one(np.eye(2)[::-1], ["a", "b"])
    # the stream the learner kept: the first batch, the first sequence of the stopped one, the last sequence
    kept = PASequence(**bare).partial_fit([np.eye(2), np.eye(2), np.eye(2)[::-1]], [["a", "b"], ["b", "a"], ["a", "b"]])
    assert est.classes_.tolist() == kept.classes_.tolist() == ["a", "b"]
    assert_array_equal(_weights(est), _weights(kept))


def test_hamming_errors_checks_its_input():
    with pytest.raises(ValueError, match="y_true has 1 sequences but y_pred has 2"):
        hamming_errors([["a"]], [["a"], ["b"]])
    with pytest.raises(ValueError, match="sequence 0: y_true has 1 labels but y_pred has 2"):
        hamming_errors([["a"]], [["a", "b"]])
    assert hamming_errors([], []).tolist() == []
    assert math.isclose(PASequence().fit([np.eye(2)], [["a", "b"]]).score([np.eye(2)], [["a", "b"]]), 1.0)


def test_an_update_that_would_overflow_a_weight_leaves_every_weight_unchanged():
    """||z||^2 and tau are finite, but one emission weight would pass the largest float: nothing moves."""
    from olearn._kernels._codes import STEP_PA
    from olearn._kernels._sequence import sequence_update

    emission = np.array([[0.0, 1.7e308], [0.0, 0.0]])  # feature 0, then the intercept row; labels a, b
    transition = np.zeros((3, 2))
    before = (emission.copy(), transition.copy())
    no_averaging = np.zeros(2, dtype=np.int64)
    args = (np.array([0, 1]), np.array([0], dtype=np.int32), np.array([1.0]), np.array([0, 1]), 0,
            np.array([1]), np.array([0]), 1.0, emission, transition, np.array([0, 1]), no_averaging, 0.0, 0.0)
    # scratch of the sequence's size: a slot per stored entry, one per distinct feature and the intercept's
    scratch = (np.empty(1, dtype=np.int64), np.zeros(2), np.zeros(2, dtype=bool), np.zeros((3, 2)))
    tau, ok = sequence_update(*args, 1e308, STEP_PA, math.inf, *scratch)
    assert not ok and math.isfinite(tau)
    assert_array_equal(emission, before[0])
    assert_array_equal(transition, before[1])
    tau, ok = sequence_update(*args, 1.0, STEP_PA, math.inf, *scratch)
    assert ok and tau == pytest.approx(1.0 / 4.0)  # ||z||^2 = 1 + 1 (emission) + 1 + 1 (start transitions)
    assert emission[0].tolist() == [-0.25, 1.7e308 + 0.25] and transition[2].tolist() == [-0.25, 0.25]
