"""An averaged second-order learner keeps each coordinate's running sum beside its mean, through growth, a change
of the classes' sides, copies and pickles."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from olearn.second_order import AROW


def _rows(n, width, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n, width, density=0.4, format="csr", random_state=rng, data_rvs=lambda k: rng.uniform(-1, 1, k))
    X.sort_indices()
    return X, np.where(X @ rng.standard_normal(width) > 0, "yes", "no")


def _beside(learner):
    """Whether the running sum U shares its records with the mean: U_j in the record of w_j, after it."""
    w, u = learner._w, learner._avg_sum
    same_records = w.base is not None and w.base is u.base and w.strides == u.strides
    return same_records and 0 < u.ctypes.data - w.ctypes.data < w.strides[0]


@pytest.mark.parametrize("covariance", ["diag", "full"])
def test_the_running_sum_stays_beside_the_mean_and_copies_go_on_as_the_original(covariance):
    X, y = _rows(40, 6, seed=3)
    # the first rows are narrow and of the class "yes" alone: the model grows, then the classes change sides
    first = np.flatnonzero(y == "yes")[:3]
    narrow = sp.csr_matrix(X[first].toarray()[:, :2])
    model = AROW(covariance=covariance, average=True).partial_fit(narrow, y[first]).partial_fit(X[:20], y[:20])
    plain = AROW(covariance=covariance).partial_fit(narrow, y[first]).partial_fit(X[:20], y[:20])
    assert _beside(model) and list(model.classes_) == ["no", "yes"]
    # the mean is that of the learner without averaging (averaging never changes what is learned)
    assert_array_equal(model._w, plain._w)
    assert np.abs(model._avg_sum).sum() > 0.0
    copies = [copy.deepcopy(model), pickle.loads(pickle.dumps(model))]
    for learner in (model, *copies):
        learner.partial_fit(X[20:], y[20:])
    for other in copies:
        assert _beside(other)
        assert_array_equal(other.coef_, model.coef_)
        assert_array_equal(other.decision_function(X), model.decision_function(X))
