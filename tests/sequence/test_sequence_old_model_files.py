"""Model files saved before ``end_transition`` existed (and before a per-tag bias was the default).

The two files of ``saved_before_end_transition/`` were written by the olearn of the previous defaults
(no end transition; ``fit_intercept=False`` by default): ``bare.olearn`` by ``PASequence()``,
``averaged_bias.olearn`` by ``PASequence(average=True, fit_intercept=True)``, both after
``partial_fit(X[:20], y[:20])`` on the sequences below. The expected predictions and the losses of
``olearn.run`` on the remaining sequences were recorded by that olearn, the losses as exact hex floats:
a loaded file must reproduce them bit for bit.
"""

import os

import numpy as np
import pytest

import olearn
from olearn.sequence import PASequence

HERE = os.path.join(os.path.dirname(__file__), "saved_before_end_transition")

EXPECTED = {
    "bare": (
        [list("cabca"), list("ca"), list("ab"), list("ca"), list("accc"), list("ab"), list("abcab"), list("cca"),
         list("aca"), list("cab")],
        ["0x1.01727da43e73ep+2", "0x1.5fcccb3cc63b6p+0", "0x1.7cbf154be82acp+0", "0x1.fe5cd1e416de8p+0",
         "0x1.ec57637d8dd10p+1", "0x1.37d204291595cp+0", "0x1.d8fb3a0031b8ap+1", "0x1.3bc4ac5182b05p+1",
         "0x1.a20cdccfe84aap+0", "0x1.832537705af6ep+1"],
    ),
    "averaged_bias": (
        [list("caaaa"), list("ca"), list("cc"), list("ca"), list("ccac"), list("bc"), list("caccc"), list("caa"),
         list("cab"), list("cab")],
        ["0x1.74e47b2d4efd9p+1", "0x1.6678aef4ef506p+1", "0x1.603664940b714p+0", "0x1.1f488ec016a49p+1",
         "0x1.2e615ac895d6bp+2", "0x1.475b07558b2e8p+0", "0x1.bf2cdd6e3d634p+1", "0x1.9f1bc242fbf88p+0",
         "0x1.c1df148227ef1p+1", "0x1.4cd9688f684b4p+1"],
    ),
}


def _sequences():
    rng = np.random.default_rng(7)
    X = [np.round(rng.normal(size=(int(n), 3)), 2) for n in rng.integers(1, 6, size=30)]
    y = [[str(v) for v in rng.choice(list("abc"), size=len(x))] for x in X]
    return X, y


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_old_file_loads_with_the_old_defaults_and_predicts_as_it_did(name):
    X, y = _sequences()
    predictions, losses = EXPECTED[name]
    model = olearn.load(os.path.join(HERE, f"{name}.olearn"))
    assert model.end_transition is False
    assert model.fit_intercept is (name == "averaged_bias")
    assert not model.end_transition_.any()
    assert [p.tolist() for p in model.predict(X[20:])] == predictions
    res = olearn.run(model, X[20:], y[20:])
    assert [float(v).hex() for v in res.losses] == losses
    # learning went on without the end transition: its weights are still 0
    assert not model.end_transition_.any()


def test_an_old_file_saved_again_keeps_its_model(tmp_path):
    X, _ = _sequences()
    model = olearn.load(os.path.join(HERE, "bare.olearn"))
    model.save(tmp_path / "again.olearn")
    again = olearn.load(tmp_path / "again.olearn")
    assert again.get_params() == model.get_params()
    assert [p.tolist() for p in again.predict(X[20:])] == EXPECTED["bare"][0]


def test_a_new_file_keeps_the_end_transition(tmp_path):
    X, y = _sequences()
    model = PASequence(average=True).partial_fit(X[:20], y[:20])
    assert model.end_transition_.any()
    model.save(tmp_path / "new.olearn")
    loaded = olearn.load(tmp_path / "new.olearn")
    assert loaded.end_transition is True and loaded.fit_intercept is True
    np.testing.assert_array_equal(loaded.end_transition_, model.end_transition_)
    assert [p.tolist() for p in loaded.predict(X[20:])] == [p.tolist() for p in model.predict(X[20:])]
    np.testing.assert_array_equal(olearn.run(loaded, X[20:], y[20:]).losses, olearn.run(model, X[20:], y[20:]).losses)


def test_end_transition_arrays_must_match_the_hyperparameter(tmp_path):
    """A file whose end-transition weights contradict its ``end_transition`` is refused, naming the arrays."""
    from test_persistence_checks import _members, _write

    from olearn.exceptions import ModelFormatError

    X, y = _sequences()
    path = tmp_path / "m.olearn"
    PASequence(average=True).partial_fit(X[:20], y[:20]).save(path)
    meta, members = _members(path)
    for drop in ("end_transition", "average_end_transition"):
        _write(path, meta, {name: array for name, array in members.items() if name != drop})
        with pytest.raises(ModelFormatError, match="end-transition arrays"):
            olearn.load(path)
    meta["params"]["end_transition"] = False
    _write(path, meta, members)
    with pytest.raises(ModelFormatError, match=r"end_transition=False and average=True need \[\]"):
        olearn.load(path)
