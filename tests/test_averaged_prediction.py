"""Averaged prediction (issue #34) for every averaged family but the sequence tagger.

The reference is a NumPy transcription of averaging: a twin learner without
averaging (whose weights follow the same path, averaging never changes what
is learned) is read after every round, and the averaged weights are the plain
mean of those weight vectors over the rounds averaged; its scores are the
matrix products of the rows with that mean. A few rows are scored with the
entries they read averaged alone, a large batch with the whole average (binary
linear and regression average the entries alone for every batch): both must
agree with the reference, and with each other bit for bit. Learning
between predictions must show in the next prediction (nothing computed for an
earlier round is reused).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from olearn.dual import DualAscent
from olearn.exceptions import PartialUpdateError
from olearn.linear import PAClassifier, PARegressor
from olearn.multiclass import PAMulticlass
from olearn.multilabel import PAMultilabel
from olearn.quasi_additive import PNorm, Winnow
from olearn.second_order import AROW

D = 60  # wide enough that one row (3 non-zeros) averages its entries alone, and a whole batch every weight
N = 30


def _rows(seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(N, D, density=0.05, format="csr", random_state=rng, data_rvs=lambda n: rng.uniform(0.1, 1, n))
    X.sort_indices()
    truth = rng.standard_normal((4, D))
    scores = X @ truth.T
    return X, {
        "binary": np.where(scores[:, 0] > 0, 1, -1),
        "real": scores[:, 0],
        "multiclass": np.argmax(scores[:, :3], axis=1),
        "multilabel": [set(np.flatnonzero(s > 0).tolist()) for s in scores],
    }


# name, factory, target, whether the scores are decision_function (else predict)
FAMILIES = [
    ("PAClassifier", lambda **kw: PAClassifier(C=0.5, fit_intercept=True, **kw), "binary"),
    ("PARegressor", lambda **kw: PARegressor(C=0.5, fit_intercept=True, **kw), "real"),
    ("PAMulticlass", lambda **kw: PAMulticlass(C=0.5, fit_intercept=True, **kw), "multiclass"),
    ("PAMultilabel", lambda **kw: PAMultilabel(C=0.5, fit_intercept=True, **kw), "multilabel"),
    ("AROW diag", lambda **kw: AROW(covariance="diag", fit_intercept=True, **kw), "binary"),
    ("AROW full", lambda **kw: AROW(covariance="full", fit_intercept=True, **kw), "binary"),
    ("PNorm", lambda **kw: PNorm(p=3.0, fit_intercept=True, **kw), "binary"),
    ("Winnow", lambda **kw: Winnow(fit_intercept=True, **kw), "binary"),
    ("DualAscent", lambda **kw: DualAscent(fit_intercept=True, **kw), "binary"),
]


# the families that keep a whole average for the batches that read many weights (binary linear and regression
# average each weight as a row reads it, whatever the batch: see the end of this file)
KEEPING = FAMILIES[2:]

# every class declared up front (the weight vectors keep one shape)
_CLASSES = {"binary": {"classes": [-1, 1]}, "multiclass": {"classes": [0, 1, 2]},
            "multilabel": {"classes": [0, 1, 2, 3]}}


def _learn_one(learner, x, y, target):
    """partial_fit of one row."""
    return learner.partial_fit(x, [y], **_CLASSES.get(target, {}))


def _scores(learner, X, target):
    return learner.predict(X) if target == "real" else learner.decision_function(X)


def _weights(learner):
    """(coef, intercept) as 2-d and 1-d arrays, one row per output."""
    return np.atleast_2d(learner.coef_).copy(), np.atleast_1d(learner.intercept_).copy()


def _reference_scores(X, trajectory, start, target):
    """Scores of X with the mean of the weights after rounds start..T (T < start: the last weights)."""
    chosen = trajectory[start - 1:] if len(trajectory) >= start else trajectory[-1:]
    coef = np.mean([c for c, _ in chosen], axis=0)
    intercept = np.mean([b for _, b in chosen], axis=0)
    scores = X.toarray() @ coef.T + intercept
    if target in ("binary", "real"):
        return scores[:, 0]
    if target == "multiclass" and scores.shape[1] == 2:
        return scores[:, 1] - scores[:, 0]
    return scores


@pytest.mark.parametrize("average", [True, 4])
@pytest.mark.parametrize("name,make,target", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_averaged_scores_are_the_mean_of_the_weights_learn_after_learn(name, make, target, average):
    X, targets = _rows()
    y = targets[target]
    start = 1 if average is True else average
    plain, averaged = make(), make(average=average)
    trajectory = []
    for i in range(N):
        _learn_one(plain, X[i], y[i], target)
        _learn_one(averaged, X[i], y[i], target)
        trajectory.append(_weights(plain))
        # a prediction after every round: what it reads must follow the round just learned
        whole = _scores(averaged, X, target)  # every row at once: the whole average
        few = np.concatenate([_scores(averaged, X[j:j + 1], target) for j in (0, i, N - 1)])  # entries alone
        reference = _reference_scores(X, trajectory, start, target)
        assert_allclose(whole, reference, rtol=1e-9, atol=1e-12, err_msg=f"round {i + 1}, all rows")
        assert_array_equal(few, whole[[0, i, N - 1]], err_msg=f"round {i + 1}: a row alone and in the batch")


@pytest.mark.parametrize("name,make,target", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_predict_one_of_an_averaged_learner_is_its_batch_prediction(name, make, target):
    X, targets = _rows(1)
    y = targets[target]
    learner = make(average=True)
    for i in range(N):
        _learn_one(learner, X[i], y[i], target)
    batch = learner.predict(X)
    for j in range(N):
        one = learner.predict_one({int(c): float(v) for c, v in zip(X[j].indices, X[j].data)})
        if target == "multilabel":
            assert set(one) == set(learner.classes_[batch[j].astype(bool)])
        else:
            assert one == batch[j]


@pytest.mark.parametrize("name,make,target", KEEPING, ids=[f[0] for f in KEEPING])
def test_the_average_kept_for_predictions_is_not_pickled_or_copied(name, make, target):
    import copy
    import pickle

    X, targets = _rows()
    learner = make(average=True).partial_fit(X, targets[target], **_CLASSES.get(target, {}))
    before = _scores(learner, X, target)  # the whole batch: the average is computed and kept
    assert learner._kept_average[2] is not None
    for twin in (pickle.loads(pickle.dumps(learner)), copy.deepcopy(learner), copy.copy(learner)):
        assert getattr(twin, "_kept_average", None) is None
        assert_array_equal(_scores(twin, X, target), before)


@pytest.mark.parametrize("name,make,target", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_predictions_leave_the_attributes_of_an_averaged_learner_unchanged(name, make, target):
    """scikit-learn's check_dict_unchanged, on every prediction path: the average kept is no attribute."""
    X, targets = _rows(5)
    learner = make(average=True).partial_fit(X, targets[target], **_CLASSES.get(target, {}))
    before = dict(learner.__dict__)
    _scores(learner, X[:1], target)  # few entries: averaged alone
    learner.predict_one(_row_dict(X, 1))
    _scores(learner, X, target)  # the whole average, computed and kept
    learner.predict(X[:2])
    _weights(learner)
    assert learner.__dict__ == before
    keeps = any(make is kept for _, kept, _ in KEEPING)
    assert (getattr(learner, "_kept_average", None) is not None) == keeps


# -- the whole average kept between predictions, and every change of the state that must drop it ------


def _row_dict(X, i):
    return {int(c): float(v) for c, v in zip(X[i].indices, X[i].data)}


def _predict_twice(learner, X, target):
    """The scores of every row, twice: the first call computes the whole average and keeps it, the second reads it."""
    first = _scores(learner, X, target)
    second = _scores(learner, X, target)
    assert_array_equal(second, first)
    return second


def _by_learn_one(learner, X, y, rows):
    for i in rows:
        learner.learn_one(_row_dict(X, i), y[i])


def _by_predict_learn_one(learner, X, y, rows):
    for i in rows:
        learner.predict_learn_one(_row_dict(X, i), y[i])


def _by_partial_fit(learner, X, y, rows):
    learner.partial_fit(X[rows], [y[i] for i in rows])


# each learning path, applied to the averaged learner after its twin learned the same rows one by one
PATHS = [("learn_one", _by_learn_one), ("predict_learn_one", _by_predict_learn_one),
         ("partial_fit", _by_partial_fit)]


@pytest.mark.parametrize("name,make,target", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_kept_average_follows_every_learning_path(name, make, target):
    X, targets = _rows(2)
    y = targets[target]
    plain, averaged = make(), make(average=True)
    trajectory = []
    for i in range(3):  # every class seen: the later paths need no classes=
        _learn_one(plain, X[i], y[i], target)
        _learn_one(averaged, X[i], y[i], target)
        trajectory.append(_weights(plain))
    rows = iter(range(3, N))
    for path, learn in PATHS * 3:
        _predict_twice(averaged, X, target)  # an average kept before the rows below are learned
        chunk = [next(rows) for _ in range(3)]
        for i in chunk:
            _learn_one(plain, X[i], y[i], target)
            trajectory.append(_weights(plain))
        learn(averaged, X, y, chunk)
        reference = _reference_scores(X, trajectory, 1, target)
        assert_allclose(_predict_twice(averaged, X, target), reference, rtol=1e-9, atol=1e-12,
                        err_msg=f"after {path} of rows {chunk}")


@pytest.mark.parametrize("name,make,target", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_kept_average_follows_a_refit_a_refused_batch_and_copies(name, make, target):
    """Each state is checked against a learner that reached it afresh and kept no average (the mean itself is
    checked against NumPy above)."""
    import copy
    import pickle

    X, targets = _rows(3)
    y = targets[target]

    def fresh(*slices):
        learner = make(average=True, shuffle=False, max_iter=1).fit(X[slices[0]], y[slices[0]])
        for rows in slices[1:]:
            learner.partial_fit(X[rows], y[rows])
        return _scores(learner, X, target)

    averaged = make(average=True, shuffle=False, max_iter=1)
    averaged.fit(X[:10], y[:10])
    _predict_twice(averaged, X, target)
    # fit forgets and learns again: as many rounds as before, other weights
    averaged.fit(X[10:20], y[10:20])
    reference = fresh(slice(10, 20))
    assert_array_equal(_predict_twice(averaged, X, target), reference, err_msg="after fit")
    # a refused batch (a row of NaN last) leaves the learner, and what it predicts, as they were
    bad = sp.vstack([X[20:25], sp.csr_matrix(np.full((1, D), np.nan))]).tocsr()
    with pytest.raises(ValueError):
        averaged.partial_fit(bad, [y[i] for i in (20, 21, 22, 23, 24, 0)])
    assert_array_equal(_predict_twice(averaged, X, target), reference, err_msg="after a refused batch")
    # a copy learns alone: each follows its own rounds
    twin = copy.deepcopy(averaged)
    twin.partial_fit(X[20:25], y[20:25])
    assert_array_equal(_predict_twice(averaged, X, target), reference, err_msg="the original after its copy learned")
    assert_array_equal(_predict_twice(twin, X, target), fresh(slice(10, 20), slice(20, 25)),
                       err_msg="the copy after it learned")
    # a batch stopped by an overflow keeps the rounds before it (PartialUpdateError)
    huge = sp.vstack([X[25:28], sp.csr_matrix(np.full((1, D), 1e300))]).tocsr()
    with pytest.raises(PartialUpdateError) as stopped:
        twin.partial_fit(huge, [y[i] for i in (25, 26, 27, 28)])
    assert stopped.value.rows_kept == 3
    assert_array_equal(_predict_twice(twin, X, target), fresh(slice(10, 20), slice(20, 25), slice(25, 28)),
                       err_msg="after a batch stopped by an overflow")
    assert "_kept_average" not in pickle.loads(pickle.dumps(twin)).__dict__


@pytest.mark.parametrize("make,change", [(lambda **kw: PNorm(p=3.0, fit_intercept=True, **kw), {"p": 2.0}),
                                         (lambda **kw: Winnow(fit_intercept=True, **kw), {"fit_intercept": False})],
                         ids=["PNorm", "Winnow"])
def test_the_kept_average_follows_a_new_link(make, change):
    """set_params of the link's parameters relinks w in place (the round count stays): the average is read again."""
    import pickle

    X, targets = _rows(4)
    averaged = make(average=True).partial_fit(X, targets["binary"], classes=[-1, 1])
    kept = _predict_twice(averaged, X, "binary")
    averaged.set_params(**change)
    fresh = pickle.loads(pickle.dumps(averaged))  # no average kept: computed from the model
    assert "_kept_average" not in fresh.__dict__
    assert_array_equal(_predict_twice(averaged, X, "binary"), _scores(fresh, X, "binary"))
    assert not np.array_equal(_scores(fresh, X, "binary"), kept)


# -- binary linear and regression: the scores of the materialised average, bit for bit, with nothing kept ------


def _materialised(learner):
    """(coef, intercept) of the average by its documented formula ``(sigma v - u) / (N - a + 1)``, in NumPy, from
    the learner's raw state (``v`` and ``u`` laid out with the intercept's weight last)."""
    from olearn._kernels._codes import A_SIGMA, A_START, S_T

    rounds = learner._state[S_T] - learner._avg_state[A_START] + 1.0
    average = (learner._avg_state[A_SIGMA] * learner._w - learner._avg) / rounds
    bias = 1.0 if learner.fit_intercept else 0.0
    return average[: learner.n_features_in_], average[-1] * bias


def _check_materialised_bits(learner, X, target, when):
    coef, intercept = _materialised(learner)
    reference = X @ coef + intercept
    assert_array_equal(learner.coef_.ravel(), coef, err_msg=when)
    assert_array_equal(_scores(learner, X, target), reference, err_msg=f"{when}: the whole batch")
    # a few rows and larger batches alike average the entries they read as they read them
    for lo, hi in ((0, 1), (1, 4), (50, 60)):
        assert_array_equal(_scores(learner, X[lo:hi], target), reference[lo:hi], err_msg=f"{when}: rows {lo}..{hi}")
    for i in range(0, X.shape[0], 37):
        one = learner.predict_one(_row_dict(X, i))
        expected = reference[i] if target == "real" else (1 if reference[i] > 0 else -1)
        assert one == expected, f"{when}: predict_one of row {i}"
    assert getattr(learner, "_kept_average", None) is None, f"{when}: nothing is kept between predictions"


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("average", [True, 7])
@pytest.mark.parametrize("name,make,target", FAMILIES[:2], ids=[f[0] for f in FAMILIES[:2]])
def test_binary_linear_and_regression_score_the_materialised_average_bit_for_bit(name, make, target, average,
                                                                                 fit_intercept):
    """``X @ coef_ + intercept_`` of the average computed whole in NumPy: right after learning (the first batch),
    a row alone, predict_one, and again after more rounds; many random rows, many terms each."""
    rng = np.random.default_rng(6)
    width = 300
    X = sp.random(400, width, density=0.05, format="csr", random_state=rng, data_rvs=lambda n: rng.uniform(-1, 1, n))
    X.sort_indices()
    y = X @ rng.standard_normal(width)
    y = np.where(y > 0, 1, -1) if target == "binary" else y
    learner = make(average=average, shuffle=False, max_iter=1)
    learner.set_params(fit_intercept=fit_intercept)
    learner.fit(X[:200], y[:200])
    _check_materialised_bits(learner, X, target, "right after fit")
    learner.partial_fit(X[200:300], y[200:300])
    _check_materialised_bits(learner, X, target, "after 100 more rounds")
    for i in range(300, 310):
        learner.learn_one(_row_dict(X, i), y[i])
        _check_materialised_bits(learner, X[::7], target, f"after learn_one of row {i}")
