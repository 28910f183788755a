"""Models of every family saved by an earlier release load, and go on learning and predicting exactly as they did there.

``tests/saved_model_files/`` holds, for each case of ``tests/saved_models.py``
(``CASES``: a small fitted model of each family that can be saved, averaged
and kernel variants and a pipeline included), the model written by the code
before the learners' internals were consolidated: as a model file
(``NAME.npz``, ``save``) and pickled (``NAME.pkl``, protocol 4). There, each
model then went on with the case's ``use`` (more learning, then predictions):
``continued.npz`` records what it returned, under the case's name.

Bit for bit: the saved state is what a later release must read and continue
from, so a change of layout or of update order shows here as a changed float.
"""

import pathlib
import pickle

import numpy as np
import pytest
from saved_models import CASES

import olearn

HERE = pathlib.Path(__file__).parent / "saved_model_files"
CONTINUED = np.load(HERE / "continued.npz")


def _loaded(name, how):
    if how == "npz":
        return olearn.load(HERE / f"{name}.npz")
    with open(HERE / f"{name}.pkl", "rb") as fh:
        return pickle.load(fh)


def test_every_case_has_its_saved_files():
    assert sorted(CONTINUED.files) == sorted(CASES)


@pytest.mark.parametrize("how", ["npz", "pkl"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_saved_model_goes_on_as_it_did_in_the_release_that_saved_it(name, how):
    _, use = CASES[name]
    np.testing.assert_array_equal(use(_loaded(name, how)), CONTINUED[name], strict=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fresh_model_learns_what_the_saved_one_learned(name):
    make, use = CASES[name]
    np.testing.assert_array_equal(use(make()), CONTINUED[name], strict=True)
