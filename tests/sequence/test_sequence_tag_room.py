"""Room for new tags: declared ``classes`` and geometric growth give the model learned without them, bit for bit.

A new tag takes a free column of the emission weights (the room doubles when
full, or is declared whole up front), instead of a copy of every weight.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from oracles.sequence import pa_sequence

import olearn
from olearn.sequence import PASequence


def _late_labels(make_sequences):
    """A stream whose labels first appear out of their sorted order: d first, then b, then a, c last."""
    X, y = make_sequences(40, d=4, labels=("a", "b", "c", "d"), lengths=(1, 4), seed=3)
    order = ["d", "b", "a", "c"]
    y = [np.array([order[min(j, i // 8)] for j in np.searchsorted(order, labels) % 4]) if i < 32 else labels
         for i, labels in enumerate(y)]
    firsts = [next(i for i, labels in enumerate(y) if tag in labels) for tag in order]
    assert firsts == sorted(firsts) and len(set(firsts)) == 4
    return X, y


@pytest.mark.parametrize("params", [{}, {"fit_intercept": True, "average": True}, {"update": "max-loss", "C": 0.3}])
def test_declared_classes_learn_bit_for_bit_the_model_learned_without(params, make_sequences):
    X, y = _late_labels(make_sequences)
    plain, declared = PASequence(**params), PASequence(classes=["c", "a", "d", "b"], **params)
    runs = [olearn.run(est, X, y) for est in (plain, declared)]
    assert runs[0].predictions[0] is None and runs[1].predictions[0] is None  # declared tags take part once seen
    assert_array_equal(runs[0].losses, runs[1].losses)
    assert_array_equal(runs[0].taus, runs[1].taus)
    for est in (plain, declared):
        est.partial_fit(X, y)
    assert_array_equal(plain.coef_, declared.coef_)
    assert_array_equal(plain.intercept_, declared.intercept_)
    assert_array_equal(plain.transition_, declared.transition_)
    for a, b in zip(plain.predict(X), declared.predict(X)):
        assert_array_equal(a, b)


def test_tags_arriving_out_of_order_match_the_plain_transcription(make_sequences):
    """The columns of the tags follow their arrival; the model is the NumPy transcription's (Sec. 8-9)."""
    X, y = _late_labels(make_sequences)
    trace = pa_sequence(X, y, ["a", "b", "c", "d"], variant="pa1", C=0.5, fit_intercept=True)
    for classes in (None, ["a", "b", "c", "d"]):
        est = PASequence(C=0.5, fit_intercept=True, classes=classes)
        res = olearn.run(est, X, y)
        assert_allclose(res.taus, trace.taus, rtol=1e-9, atol=1e-12)
        assert_allclose(est.coef_, trace.coef, rtol=1e-9, atol=1e-12)
        assert_allclose(est.intercept_, trace.intercept, rtol=1e-9, atol=1e-12)
        assert_allclose(est.transition_, trace.transition, rtol=1e-9, atol=1e-12)


def _one_new_tag_per_sequence(n_tags):
    rng = np.random.default_rng(0)
    X = [rng.standard_normal((2, 6)) for _ in range(n_tags)]
    y = [[f"t{i:02d}", f"t{i // 2:02d}"] for i in range(n_tags)]
    return X, y


def test_a_new_tag_takes_a_free_column_instead_of_copying_the_weights():
    n_tags = 40
    X, y = _one_new_tag_per_sequence(n_tags)
    est = PASequence(average=True)
    grown = 0
    for x, tags in zip(X, y):
        before = est.__dict__.get("_emission")
        est.learn_one(x, tags)
        grown += est._emission is not before
    # room doubles: 1, 2, 4, ..., 64 columns (one copy per doubling, not one per tag)
    assert grown <= 1 + int(np.ceil(np.log2(n_tags)))
    declared = PASequence(average=True, classes=[f"t{i:02d}" for i in range(n_tags)])
    declared.learn_one(X[0], y[0])
    room = declared._emission
    for x, tags in zip(X[1:], y[1:]):
        declared.learn_one(x, tags)
    assert declared._emission is room
    assert_array_equal(declared.coef_, est.coef_)
    assert_array_equal(declared.transition_, est.transition_)


def test_a_tag_outside_the_declared_classes_is_refused_and_the_model_kept(make_sequences):
    X, y = make_sequences(6, labels=("a", "b"), lengths=(2, 3), seed=1)
    est = PASequence(classes=["a", "b"]).partial_fit(X, y)
    coef, transition = est.coef_, est.transition_
    with pytest.raises(ValueError, match=r"y\[1\] has the label 'z' at position 1, which is not one of the declared"):
        est.partial_fit(X[:2], [y[0], np.array([y[1][0], "z", *y[1][2:]])])
    assert est.classes_.tolist() == ["a", "b"]
    assert_array_equal(est.coef_, coef)
    assert_array_equal(est.transition_, transition)


@pytest.mark.parametrize("classes", [[], ["a", "a"], "ab", ["a", 1], [1.0, float("nan")], np.array(["a"])])
def test_bad_declared_classes_are_named(classes, make_sequences):
    X, y = make_sequences(2)
    with pytest.raises(ValueError, match="parameter classes="):
        PASequence(classes=classes).partial_fit(X, y)


def test_a_model_with_tags_in_arrival_order_saves_and_loads_in_sorted_order(make_sequences, tmp_path):
    X, y = _late_labels(make_sequences)
    est = PASequence(fit_intercept=True, average=True, classes=["d", "c", "b", "a"]).partial_fit(X, y)
    loaded = olearn.load(est.save(tmp_path / "tagger.npz"))
    assert loaded.classes == ["d", "c", "b", "a"]
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.intercept_, est.intercept_)
    assert_array_equal(loaded.transition_, est.transition_)
    for a, b in zip(loaded.predict(X), est.predict(X)):
        assert_array_equal(a, b)
    # learning goes on alike
    assert_array_equal(loaded.partial_fit(X, y).coef_, est.partial_fit(X, y).coef_)
