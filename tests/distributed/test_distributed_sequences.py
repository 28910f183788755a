"""Iterative parameter mixing of PASequence, on a local cluster of threads.

References, computed independently of the mixing code: the serial learner
(mixing one shard for E epochs must be E serial passes, bit for bit), and
plain NumPy averages of k models each trained serially on its own shard
(one epoch of mixing k shards from a fresh model, McDonald, Hall & Mann 2010,
Fig. 2), each model's weights laid by tag name into the union of the tags
(a tag a model never met weighs 0 there).
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.sequence import PASequence

TIMEOUT = 300  # a hang guard only


def sequences(n, d, tags, seed):
    """n noisy one-hot sequences of 1..5 positions whose tag is the feature that is on."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n):
        codes = rng.integers(0, len(tags), size=rng.integers(1, 6))
        X.append(np.eye(d)[codes] + 0.1 * rng.normal(size=(codes.size, d)))
        y.append(np.array(list(tags))[codes])
    return X, y


def by_tag(model, tags, d):
    """(emission (len(tags), d), transition (len(tags) + 1, len(tags))) of ``model`` laid out by tag name."""
    place = {tag: i for i, tag in enumerate(tags)}
    emission, transition = np.zeros((len(tags), d)), np.zeros((len(tags) + 1, len(tags)))
    known = list(model.classes_)
    rows = [place[t] for t in known] + [len(tags)]
    for i, tag in enumerate(known):
        emission[place[tag], : model.coef_.shape[1]] = model.coef_[i]
        for j, to in enumerate(known):
            transition[place[tag], place[to]] = model.transition_[i, j]
    for j, to in enumerate(known):
        transition[rows[-1], place[to]] = model.transition_[-1, j]
    return emission, transition


@pytest.mark.parametrize("make", [lambda: PASequence(), lambda: PASequence(variant="pa2", C=0.5, fit_intercept=True),
                                  lambda: PASequence(update="max-loss")])
def test_sequence_mixing_of_one_shard_is_the_serial_learner(client, make):
    X, y = sequences(80, 4, "abc", seed=1)
    res = parameter_mixing(make(), [(X, y)], epochs=3, timeout=TIMEOUT)
    serial = make()
    for _ in range(3):
        serial.partial_fit(X, y)
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    assert np.array_equal(res.estimator.intercept_, serial.intercept_)
    assert np.array_equal(res.estimator.transition_, serial.transition_)
    assert res.totals[:, 0, 3].tolist() == [80, 80, 80]


def test_sequence_mixing_averages_independent_models_tag_by_tag(client):
    # the shards meet different tags (the first never sees "d") and have different widths
    X0, y0 = sequences(40, 3, "abc", seed=2)
    X1, y1 = sequences(40, 5, "abcde", seed=3)
    X2, y2 = sequences(40, 5, "bde", seed=4)
    shards = [(X0, y0), (X1, y1), (X2, y2)]
    res = parameter_mixing(PASequence(fit_intercept=True), shards, timeout=TIMEOUT)
    models = [PASequence(fit_intercept=True).partial_fit(X, y) for X, y in shards]
    tags = list("abcde")
    laid = [by_tag(m, tags, 5) for m in models]
    got = res.estimator
    assert got.classes_.tolist() == tags and got.n_features_in_ == 5
    np.testing.assert_allclose(got.coef_, np.mean([e for e, _ in laid], axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.transition_, np.mean([t for _, t in laid], axis=0), rtol=1e-12, atol=1e-14)
    intercepts = np.zeros((3, 5))
    for i, m in enumerate(models):
        intercepts[i, [tags.index(t) for t in m.classes_]] = m.intercept_
    np.testing.assert_allclose(got.intercept_, intercepts.mean(axis=0), rtol=1e-12, atol=1e-14)
    # weighted by the sequences learned: 40 each, so the same
    weighted = parameter_mixing(PASequence(fit_intercept=True), shards, weighting="examples", timeout=TIMEOUT)
    np.testing.assert_allclose(weighted.estimator.coef_, got.coef_, rtol=1e-12, atol=1e-14)


def test_conll_file_shards_are_the_sequences_they_hold(client, tmp_path):
    from olearn.data import load_conll

    lines = ["The w=the DT\ncat w=cat NN\n\nDogs w=dogs NNS\nrun w=run VBP\n\n", "A w=a DT\ndog w=dog NN\n\n"]
    paths = []
    for i, text in enumerate(lines):
        paths.append(str(tmp_path / f"part-{i}.conll"))
        with open(paths[-1], "w") as f:
            f.write(text * 5)
    res = parameter_mixing(PASequence(n_bits=10), paths, bits=10, epochs=2, timeout=TIMEOUT)
    pairs = parameter_mixing(PASequence(n_bits=10), [load_conll(p, n_bits=10) for p in paths], epochs=2,
                             timeout=TIMEOUT)
    assert np.array_equal(res.estimator.coef_, pairs.estimator.coef_)
    assert np.array_equal(res.estimator.transition_, pairs.estimator.transition_)
    assert res.n_rounds == 2 * 15  # 15 sequences a pass


def test_held_out_sequences_count_as_mistakes_when_wrong_anywhere(client):
    X, y = sequences(60, 4, "abc", seed=5)
    res = parameter_mixing(PASequence(), [(X, y)], epochs=2, holdout_every=3, timeout=TIMEOUT)
    serial = PASequence()
    learned = [i for i in range(60) if (i + 1) % 3]
    serial.partial_fit([X[i] for i in learned], [y[i] for i in learned])
    held = [i for i in range(60) if (i + 1) % 3 == 0]
    assert res.held_out[0, 0, 0] == 20
    # epoch 1: each held-out sequence is predicted by the learner of the sequences before it
    expected = 0
    for i in held:
        before = [j for j in learned if j < i]
        model = PASequence().partial_fit([X[j] for j in before], [y[j] for j in before])
        expected += not np.array_equal(model.predict([X[i]])[0], y[i])
    assert res.held_out[0, 0, 1] == expected
    # epoch 2: the model of epoch 1 learns on; the held-out rows are still never learned
    serial.partial_fit([X[i] for i in learned], [y[i] for i in learned])
    assert np.array_equal(res.estimator.coef_, serial.coef_)


def test_sequence_tags_and_named_features_are_refused_with_the_reason(client):
    X, y = sequences(10, 3, "ab", seed=6)
    with pytest.raises(ValueError, match=r"takes its labels as they come.*PASequence\(classes=\[\.\.\.\]\)"):
        parameter_mixing(PASequence(), [(X, y)], classes=["a", "b"])
    named = [[{"w=the": 1.0}, {"w=cat": 1.0}], [{"w=dogs": 1.0}]]
    est = PASequence()
    with pytest.raises(ValueError, match=r"shard 0 .*a column of its own vocabulary; hash the names, "
                                         r"PASequence\(n_bits=18\)"):
        parameter_mixing(est, [(named, [["DT", "NN"], ["NNS"]])], timeout=TIMEOUT)
    assert not est._is_started()
    hashed = parameter_mixing(PASequence(n_bits=12), [(named, [["DT", "NN"], ["NNS"]])], timeout=TIMEOUT)
    assert hashed.estimator.predict(named)[1].tolist() == ["NNS"]
