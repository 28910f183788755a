"""``olearn run --passes N`` of a uniclass learner: held-out vectors are judged against the ball of their moment,
never learned, in one masked pass per chunk.

The reference is a plain NumPy transcription of PA-I uniclass with a fixed
radius (Crammer et al. 2006, Sec. 6: w <- w + tau (y - w) / ||y - w||, tau =
min(C, ||y - w|| - epsilon)); the masked pass is also compared byte for byte
with the general path (``test_cli_holdout_families.run_cli``).
"""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from test_cli_holdout_families import RAW, assert_masked_equals_general

import olearn
from olearn.cli import cli

C, EPSILON = 0.5, 1.0


@pytest.fixture(scope="module")
def vectors_file(tmp_path_factory):
    rng = np.random.default_rng(41)
    Y = rng.normal(loc=[2.0, -1.0, 0.5, 0.0], size=(200, 4))
    path = tmp_path_factory.mktemp("uniclass") / "vectors.csv"
    np.savetxt(path, Y, delimiter=",", fmt="%.6f")
    return path, np.loadtxt(path, delimiter=",")


def pa1_uniclass_by_hand(Y, held, passes):
    """(center, per pass the held-out vectors outside the ball) of PA-I uniclass learning the rows not ``held``."""
    w = np.zeros(Y.shape[1])
    outside = []
    for _ in range(passes):
        count = 0
        for y, out in zip(Y, held):
            distance = np.linalg.norm(y - w)
            if out:
                count += distance > EPSILON
                continue
            if distance > EPSILON:
                w = w + min(C, distance - EPSILON) * (y - w) / distance
        outside.append(count)
    return w, outside


def test_held_out_vectors_are_judged_and_never_learned(vectors_file, tmp_path):
    path, Y = vectors_file
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-uniclass", "-C", str(C), "--set", f"epsilon={EPSILON}",
                                      "--passes", "3", "--holdout-every", "7", "--chunk-size", "37", str(path),
                                      "-f", str(tmp_path / "m.npz")])
    assert result.exit_code == 0, result.output
    held = np.arange(1, 201) % 7 == 0
    center, outside = pa1_uniclass_by_hand(Y, held, 3)
    got = re.findall(r"^pass \d held out: 28 examples, (\d+) outside, outside rate (\S+) h$", result.output,
                     re.MULTILINE)
    assert [int(count) for count, _ in got] == outside
    np.testing.assert_allclose(olearn.load(tmp_path / "m.npz").center_, center, rtol=1e-10, atol=1e-12)
    center_all, _ = pa1_uniclass_by_hand(Y, np.zeros(200, dtype=bool), 3)
    assert not np.allclose(center_all, center, rtol=1e-6)  # learning the held-out vectors would move the center


RUNS = {
    "pa1-uniclass": ["-a", "pa1-uniclass", "--set", f"epsilon={EPSILON}"],
    "pa-uniclass learn_radius": ["-a", "pa-uniclass", "--set", "learn_radius=true", "--set", "B=10"],
}


@pytest.mark.parametrize("name", list(RUNS))
def test_masked_uniclass_pass_equals_the_general_path(name, vectors_file, tmp_path, monkeypatch):
    path = vectors_file[0]
    assert_masked_equals_general((RUNS[name], RAW), path, tmp_path, monkeypatch)


def test_a_refused_uniclass_chunk_leaves_the_learner_as_it_was():
    rng = np.random.default_rng(42)
    Y = rng.normal(size=(30, 3))
    est = olearn.PAUniclass(variant="pa1", learn_radius=True, B=10.0).partial_fit(Y[:10])
    center, radius = est.center_, est.radius_
    Y[15] = 1e200  # ||y - w||^2 overflows: the pass stops part way
    assert est._held_out_pass(Y[10:], None, np.arange(11, 31) % 10 == 0) is None
    np.testing.assert_array_equal(est.center_, center)
    assert est.radius_ == radius
