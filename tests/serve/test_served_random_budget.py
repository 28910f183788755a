"""A kernel learner's random budget behind ``olearn serve``: seeded as ``olearn run`` seeds it (``--random-seed``,
default 0; ``--set random_state`` wins), so that a crash before the first snapshot, whose restart replays the log
from the learner's hyperparameters, recovers the model that answered (the same support vectors removed).

The reference is the library's learner seeded explicitly, learning the same examples one by one (the first batch
of a learner that has learned nothing is learned so). A budget of 5 support vectors on rows that a Perceptron keeps
getting wrong removes a vector at random on most mistakes, so two seeds learn different models.
"""

import numpy as np
import pytest
from click.testing import CliRunner

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.cli import cli  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import encode  # noqa: E402

KERNEL = ["--algo", "perceptron", "--set", "kernel=rbf", "--set", "budget=5", "--set", "budget_policy=random"]
# no snapshot before the kill: the restart replays the whole log from the learner's hyperparameters
NO_SNAPSHOT = ["--snapshot-every", "1000000", "--snapshot-seconds", "100000"]


def _rows():
    """An XOR-like sign of 4 features, noisy: 60 rows as the service reads them."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    return [{str(j): float(value) for j, value in enumerate(row)} for row in X], [int(label) for label in y]


def _learner(random_state=None):
    return olearn.Perceptron(kernel="rbf", budget=5, budget_policy="random", random_state=random_state)


def _offline(xs, ys, random_state):
    learner = _learner(random_state)
    for x, y in zip(xs, ys):
        learner.learn_one(x, y)
    return learner


def _served(server, tmp_path, name):
    path = tmp_path / name
    with server.client() as client:
        path.write_bytes(client.get("/model").content)
    return olearn.load(path)


def test_a_crash_before_any_snapshot_recovers_the_model_of_seed_0(serve, tmp_path):
    xs, ys = _rows()
    server = serve([*KERNEL, *NO_SNAPSHOT])
    with server.client() as client:
        client.post("/learn", json={"x": xs, "y": ys}).raise_for_status()
    before = _served(server, tmp_path, "before.npz")
    server.kill()
    server.start()
    assert_same_model(_served(server, tmp_path, "after.npz"), before)
    assert_same_model(before, _offline(xs, ys, 0))
    assert not np.array_equal(before.support_vectors_.toarray(), _offline(xs, ys, 3).support_vectors_.toarray())


def test_a_learner_left_unseeded_gets_a_seed_recorded_that_replays_and_rollbacks_keep(tmp_path):
    """The library's service started from ``random_state=None``: a seed is drawn at the start and kept with the
    learner's hyperparameters, in the log's checkpoint and in a version taken before anything was learned, so that
    the live learner, one rolled back to that version and their replay after a crash all draw from it."""
    xs, ys = _rows()
    store = Store(tmp_path / "state")
    model = store.open(_learner, say=lambda text: None)
    seed = model.estimator.random_state
    assert isinstance(seed, int)

    def learn(part):
        examples = read_labelled({"x": xs[part], "y": ys[part]}, Limits())
        store.append([encode(ServedModel.record("learn", examples, None, None, model.apply("learn", examples)))])

    assert store.take_version(model, True)["version"] == 1  # the learner that has learned nothing
    learn(slice(0, 30))
    assert_same_model(model.estimator, _offline(xs[:30], ys[:30], seed))
    model.roll_back(*store.versions.load(1))
    store.append([encode({"op": "rollback", "version": 1, "seq": model.seq})])
    learn(slice(30, 60))
    store.close()
    assert_same_model(model.estimator, _offline(xs[30:], ys[30:], seed))
    recovered = Store(tmp_path / "state").open(lambda: None, say=lambda text: None)
    assert recovered.seq == 60 and recovered.version == 1
    assert_same_model(recovered.estimator, model.estimator)


def _learner_of_command(monkeypatch, *args):
    """The learner ``olearn serve ARGS`` would serve from a fresh state (the service itself not started)."""
    built = []
    monkeypatch.setattr("olearn.serve.serve", lambda initial, *rest, **options: built.append(initial()) or 0)
    result = CliRunner().invoke(cli, ["serve", "--public-reads", *args])
    assert result.exit_code == 0, result.output
    return built[0]


@pytest.mark.parametrize("args, random_state", [
    ([], 0),
    (["--random-seed", "3"], 3),
    (["--random-seed", "3", "--set", "random_state=7"], 7),  # --set random_state wins
])
def test_the_command_seeds_a_random_budget(monkeypatch, args, random_state):
    assert _learner_of_command(monkeypatch, *KERNEL, *args).random_state == random_state


@pytest.mark.parametrize("args, message", [
    (["--algo", "pa1", "--random-seed", "3"], "--algo pa1 as set draws no random numbers"),
    ([*KERNEL, "--random-seed", str(2**64)], f"{2**64} is not in the range 0<=x<={2**64 - 1}"),
])
def test_a_random_seed_that_seeds_nothing_or_is_out_of_range_is_refused(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["serve", "--public-reads", "--state-dir", str(tmp_path / "state"), *args])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "state").exists()


def test_a_model_file_keeps_its_generator(tmp_path):
    xs, ys = _rows()
    path = tmp_path / "model.npz"
    _offline(xs, ys, 3).save(path)
    result = CliRunner().invoke(cli, ["serve", str(path), "--random-seed", "3", "--public-reads",
                                      "--state-dir", str(tmp_path / "state")])
    assert result.exit_code == 2 and "carries on from the generator state saved with it" in result.output
