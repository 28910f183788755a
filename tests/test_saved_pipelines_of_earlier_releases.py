"""Pipelines saved by an earlier release load, and go on learning and predicting exactly as they did there.

``tests/saved_pipelines/`` holds two pipelines written by the code before the
pipeline's plan and its transformers' base moved (olearn.compose._plan,
olearn.compose._step): ``named`` is ``OneHotEncoder() | Interactions(["::"]) |
StandardScaler() | PAClassifier(variant="pa1", C=0.5)`` and ``hashed`` is
``FeatureHasher(n_bits=6) | MaxAbsScaler() | PARegressor(epsilon=0.1)``, each
after ``learn_one`` of the 30 dicts ``first`` of ``streams.json`` (the labels
its first 30 ``y``), saved as a model file (``.npz``) and pickled (``.pkl``).
There, each then learned ``more`` (``partial_fit``, the next ``y``) and
predicted ``probe`` with ``predict_one``: ``predicted`` records what it said.
"""

import json
import pathlib
import pickle

import pytest

import olearn
from olearn import PAClassifier, PARegressor
from olearn.preprocessing import FeatureHasher, Interactions, MaxAbsScaler, OneHotEncoder, StandardScaler

HERE = pathlib.Path(__file__).parent / "saved_pipelines"
STREAMS = json.loads((HERE / "streams.json").read_text())
FRESH = {
    "named": lambda: OneHotEncoder() | Interactions(["::"]) | StandardScaler() | PAClassifier(variant="pa1", C=0.5),
    "hashed": lambda: FeatureHasher(n_bits=6) | MaxAbsScaler() | PARegressor(epsilon=0.1),
}


def _loaded(name, how):
    if how == "npz":
        return olearn.load(HERE / f"{name}.npz")
    with open(HERE / f"{name}.pkl", "rb") as fh:
        return pickle.load(fh)


@pytest.mark.parametrize("how", ["npz", "pkl"])
@pytest.mark.parametrize("name", sorted(FRESH))
def test_a_saved_pipeline_goes_on_as_it_did_in_the_release_that_saved_it(name, how):
    case = STREAMS["cases"][name]
    model = _loaded(name, how)
    model.partial_fit(STREAMS["more"], case["y"][30:])
    assert [model.predict_one(x) for x in STREAMS["probe"]] == case["predicted"]


@pytest.mark.parametrize("name", sorted(FRESH))
def test_a_fresh_pipeline_learns_what_the_saved_one_learned(name):
    case = STREAMS["cases"][name]
    model = FRESH[name]()
    for x, y in zip(STREAMS["first"], case["y"][:30]):
        model.learn_one(x, y)
    model.partial_fit(STREAMS["more"], case["y"][30:])
    assert [model.predict_one(x) for x in STREAMS["probe"]] == case["predicted"]
