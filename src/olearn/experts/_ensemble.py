r"""Online learners as experts: an ensemble mixed by exponential weights."""

import copy
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .._estimator import Estimator
from .._labels import plain_label
from .._validation import check_row
from ..exceptions import NotFittedError
from ._base import AdviceLearner
from ._voting import WeightedMajority


class LearnerEnsemble(Estimator):
    r"""Binary olearn learners as experts, mixed by an experts algorithm.

    On every round each learner predicts a class (progressive validation:
    before it learns the round), the mixer turns these votes into the
    ensemble's prediction, then the mixer learns which learners were right
    and every learner learns the example. With the default mixer, Weighted
    Majority, the ensemble makes at most
    :math:`(\ln(1/\beta) M_i + \ln n) / \ln\frac{2}{1+\beta}` mistakes, where
    :math:`M_i` are the mistakes of the best of the n learners on the same
    stream (Littlestone & Warmuth 1994); ``run`` reports this bound.

    The classes are sorted as in scikit-learn; a learner's vote is 1 for
    ``classes_[-1]`` and 0 for the other class. The experts algorithms are
    symmetric in the two outcomes, so the mixer's state does not depend on
    which class is called 1.

    Parameters
    ----------
    learners : list of olearn binary classifiers
        They learn in place.
    mixer : Halving, WeightedMajority, RandomizedWeightedMajority or WeightedAverage, default=None
        None means ``WeightedMajority(beta=0.5)``. It learns in place too.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier, Perceptron
    >>> from olearn.experts import LearnerEnsemble, WeightedMajority
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 5)); y = np.where(X[:, 0] + 0.1 * X[:, 1] > 0, "yes", "no")
    >>> ens = LearnerEnsemble([Perceptron(), PAClassifier(variant="pa1", C=0.01)],
    ...                       mixer=WeightedMajority(beta=np.exp(-1)))
    >>> res = ens.run(X, y)
    >>> bool(res.n_mistakes <= res.loss_bound[-1]), ens.classes_.tolist()
    (True, ['no', 'yes'])
    >>> ens.predict_one(X[0]) == y[0]
    True
    """

    def __init__(self, learners, mixer=None):
        self.learners = learners
        self.mixer = mixer

    def _mixer(self):
        if self.mixer is None:
            if not hasattr(self, "_default_mixer"):
                self._default_mixer = WeightedMajority(beta=0.5)
            return self._default_mixer
        if not isinstance(self.mixer, AdviceLearner):
            raise ValueError(
                f"LearnerEnsemble: parameter mixer={self.mixer!r} is invalid; expected Halving, WeightedMajority, "
                "RandomizedWeightedMajority or WeightedAverage"
            )
        return self.mixer

    def _check_learners(self):
        if not isinstance(self.learners, (list, tuple)) or not self.learners:
            raise ValueError("LearnerEnsemble: learners must be a non-empty list of olearn binary classifiers")

    def run(self, X, y):
        """Progressive validation of the ensemble over the rows of X; returns an :class:`ExpertsResult`.

        Each learner runs with :func:`olearn.run` (its compiled pass); the
        result is the mixer's, with prediction 1 meaning ``classes_[-1]``.
        Input that one learner or the mixer refuses (with any exception) leaves
        the ensemble, every learner and the mixer as they were before the call.
        """
        self._check_learners()
        mixer = self._mixer()
        # the learners and the mixer are the user's objects: their state is put back in place
        members = [*self.learners, mixer, self]
        saved = [copy.deepcopy(vars(member)) for member in members[:-1]] + [dict(vars(self))]
        try:
            return self._run(mixer, X, y)
        except BaseException:
            for member, state in zip(members, saved):
                member.__dict__.clear()
                member.__dict__.update(state)
            raise

    def _run(self, mixer, X, y):
        from ..evaluate import run

        y = np.asarray(y)
        known = getattr(self, "classes_", y[:0])
        classes = np.unique(np.concatenate([known, y]))
        if classes.size > 2:
            raise ValueError(f"LearnerEnsemble mixes binary classifiers; y has the classes {classes.tolist()}")
        positive = classes[-1]
        votes = np.empty((y.size, len(self.learners)))
        for j, learner in enumerate(self.learners):
            votes[:, j] = run(learner, X, y).predictions == positive
        self.classes_ = classes
        return mixer.run(votes, (y == positive).astype(np.float64))

    def learn_one(self, x, y):
        """Predict, then learn one example (dict, 1-d array or sparse row) with every learner and the mixer; returns self.

        A dict may name its features: each learner maps the names to its own columns.
        """
        if isinstance(x, Mapping):
            self.run([x], [y])
            return self
        indices, data, n_features = check_row(x)
        self.run(sp.csr_matrix((data, indices, [0, indices.size]), shape=(1, n_features)), [y])
        return self

    def predict_one(self, x):
        """The ensemble's class for one example."""
        if not hasattr(self, "classes_"):
            raise NotFittedError("this LearnerEnsemble has not learned any example yet; call learn_one or run first")
        positive = self.classes_[-1]
        votes = [float(learner.predict_one(x) == positive) for learner in self.learners]
        vote = self._mixer().predict_one(votes)
        return plain_label(positive if vote >= 0.5 or self.classes_.size == 1 else self.classes_[0])

    @property
    def weights_(self):
        """The mixer's weights of the learners."""
        return self._mixer().weights_
