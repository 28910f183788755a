"""Fitted models of every learner family that can be saved, and a way to use each one.

``CASES`` maps a name to ``(make, use)``: ``make()`` returns a small fitted
model; ``use(model)`` returns its predictions (as one float array) after more
learning, so that a loaded model can be checked to work, and two models
compared by what they do. Shared by ``tests/test_persistence_checks.py`` and the
fuzz campaign ``tests/fuzz/test_model_files.py``.
"""

import numpy as np
import scipy.sparse as sp

import olearn
from olearn.experts import Hedge, RandomizedWeightedMajority
from olearn.multiclass import MIRA, MulticlassPerceptron, PACostSensitive, PAMulticlass
from olearn.multilabel import PAMultilabel
from olearn.preprocessing import MaxAbsScaler
from olearn.sequence import PASequence
from olearn.uniclass import PAUniclass

_rng = np.random.default_rng(0)
X = np.round(_rng.normal(size=(12, 4)), 2)
X[:, 3] = 0.0  # the last feature is only seen when learning continues
X_MORE = np.round(_rng.normal(size=(6, 4)), 2)
# the models learned from three dense columns grow on a fourth one: a sparse batch may name
# features never learned, where a dense batch must be as wide as the model
X_WIDER = sp.csr_matrix(X_MORE)
Y_BINARY = np.array(["no", "yes"] * 6)
Y_REAL = X @ np.array([1.0, -2.0, 0.5, 1.0])
Y_CLASS = np.array([0, 1, 2] * 4)
LOSSES = np.round(_rng.uniform(size=(8, 3)), 2)
ADVICE = (_rng.uniform(size=(8, 3)) > 0.5).astype(float)
OUTCOMES = (_rng.uniform(size=8) > 0.5).astype(float)


def _floats(*parts):
    return np.concatenate([np.asarray(p, dtype=float).ravel() for p in parts])


def _binary(make):
    def use(model):
        model.partial_fit(X_WIDER, Y_BINARY[:6])
        return _floats(model.decision_function(X_WIDER), model.predict(X_WIDER) == "yes")

    return (lambda: make().partial_fit(X[:, :3], Y_BINARY)), use


def _regression(make):
    def use(model):
        model.partial_fit(X_WIDER, Y_REAL[:6])
        return _floats(model.predict(X_WIDER))

    return (lambda: make().partial_fit(X[:, :3], Y_REAL)), use


def _multiclass(make):
    def use(model):
        model.partial_fit(X_WIDER, Y_CLASS[:6])
        return _floats(model.decision_function(X_WIDER), model.predict(X_WIDER))

    return (lambda: make().partial_fit(X[:, :3], Y_CLASS)), use


def _multilabel(make):
    sets = [[0], [1, 2], [], [2], [0, 1], [1]] * 2

    def use(model):
        model.partial_fit(X_WIDER, sets[:6])
        return _floats(model.decision_function(X_WIDER), model.predict(X_WIDER))

    return (lambda: make().partial_fit(X[:, :3], sets)), use


def _uniclass():
    def use(model):
        model.partial_fit(X_MORE)
        return _floats(model.decision_function(X_MORE))

    return (lambda: PAUniclass(variant="pa1", C=0.5).partial_fit(X)), use


def _sequence(make):
    xs = [X[:4, :3], X[4:7, :3], X[7:12, :3]]
    ys = [list("abab"), list("bba"), list("abcab")]

    def use(model):
        model.partial_fit([X_MORE[:3], X_MORE[3:]], [list("cab"), list("aba")])
        return _floats(model.coef_, model.transition_, [len(p) for p in model.predict([X_MORE])])

    return (lambda: make().partial_fit(xs, ys)), use


def _allocation(make):
    def use(model):
        for row in LOSSES[:3]:
            model.learn_one(row)
        return _floats(model.weights_, model.predict_one())

    def fitted():
        model = make()
        for row in LOSSES:
            model.learn_one(row)
        return model

    return fitted, use


def _advice(make):
    def use(model):
        predictions = [model.predict_one(ADVICE[t]) for t in range(3)]
        for t in range(3):
            model.learn_one(ADVICE[t], OUTCOMES[t])
        return _floats(model.weights_, predictions)

    def fitted():
        model = make()
        for t in range(8):
            model.learn_one(ADVICE[t], OUTCOMES[t])
        return model

    return fitted, use


COST = [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]

CASES = {
    "pa1": _binary(lambda: olearn.PAClassifier(variant="pa1", C=0.5, fit_intercept=True)),
    "perceptron-n_features": _binary(lambda: olearn.Perceptron(n_features=4)),
    "ogd-ball": _binary(lambda: olearn.OGDClassifier(radius=0.5, loss="logistic")),
    "pa-rbf-budget": _binary(lambda: olearn.PAClassifier(kernel="rbf", budget=5, budget_policy="random",
                                                         random_state=1, fit_intercept=True)),
    "perceptron-poly": _binary(lambda: olearn.Perceptron(kernel="poly", degree=2)),
    "regressor": _regression(lambda: olearn.PARegressor(variant="pa2", C=0.5, fit_intercept=True)),
    "regressor-linear-kernel": _regression(lambda: olearn.PARegressor(kernel="linear", epsilon=0.1)),
    "pa1-averaged": _binary(lambda: olearn.PAClassifier(variant="pa1", C=0.5, average=3)),
    "regressor-averaged": _regression(lambda: olearn.PARegressor(variant="pa1", average=True, fit_intercept=True)),
    "pa-multiclass": _multiclass(lambda: PAMulticlass(variant="pa1", fit_intercept=True)),
    "pa-multiclass-averaged": _multiclass(lambda: PAMulticlass(variant="pa2", average=2)),
    "mira": _multiclass(lambda: MIRA()),
    "multiclass-perceptron": _multiclass(lambda: MulticlassPerceptron(update="max")),
    "multiclass-rbf": _multiclass(lambda: PAMulticlass(kernel="rbf", budget=6, random_state=2)),
    "cost-sensitive": _multiclass(lambda: PACostSensitive(cost=COST, update="max-loss")),
    "multilabel": _multilabel(lambda: PAMultilabel(variant="pa1", C=0.5)),
    "multilabel-averaged": _multilabel(lambda: PAMultilabel(variant="pa2", fit_intercept=True, average=4)),
    "uniclass": _uniclass(),
    "sequence": _sequence(lambda: PASequence(variant="pa1", fit_intercept=True)),
    "sequence-averaged": _sequence(lambda: PASequence(variant="pa1", average=True)),
    "arow-full": _binary(lambda: olearn.AROW(r=0.5, fit_intercept=True)),
    "pipeline-arow-full": _binary(lambda: MaxAbsScaler() | olearn.AROW(r=0.5, fit_intercept=True)),
    "sop": _binary(lambda: olearn.SecondOrderPerceptron()),
    "sop-averaged": _binary(lambda: olearn.SecondOrderPerceptron(average=True)),
    "cw-diag": _binary(lambda: olearn.CW(covariance="diag")),
    "adagrad": _binary(lambda: olearn.AdaGrad(delta=0.5)),
    "winnow": _binary(lambda: olearn.Winnow(C=0.5)),
    "pnorm": _binary(lambda: olearn.PNorm(p=3.0, aggressive=True, fit_intercept=True)),
    "dual-last-k": _binary(lambda: olearn.DualAscent(update="last-k", k=3, fit_intercept=True)),
    "dual-all": _binary(lambda: olearn.DualAscent(update="all", regularizer="entropy", n_features=4)),
    "arow-diag-averaged": _binary(lambda: olearn.AROW(covariance="diag", average=2)),
    "narow-averaged": _binary(lambda: olearn.NAROW(average=True, fit_intercept=True)),
    "winnow-plain-averaged": _binary(lambda: olearn.Winnow(balanced=False, average=True)),
    "dual-last-k-averaged": _binary(lambda: olearn.DualAscent(update="last-k", k=2, average=3)),
    "hedge": _allocation(lambda: Hedge(eta=0.5)),
    "randomized-majority": _advice(lambda: RandomizedWeightedMajority(beta=0.5, random_state=4)),
}
