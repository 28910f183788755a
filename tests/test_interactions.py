"""``olearn.preprocessing.Interactions``: crossed dict features, alone and in a pipeline, against hand-written rows."""

import numpy as np
import pytest

import olearn
from olearn.compose import Pipeline
from olearn.preprocessing import FeatureHasher, Interactions, OneHotEncoder, StandardScaler


def test_named_pairs_cross_categories_and_numbers():
    x = {"user": "alice", "item": "book", "price": 9.0, "age": 30}
    assert Interactions([("user", "item"), ("price", "age")]).transform_one(x) == {
        **x, "user=alice*item=book": 1.0, "price*age": 270.0}
    # a name takes the keys of its namespace, VW's 'name^feature'
    x = {"user^age": 30.0, "user^tall": 1.0, "item^price": 2.0, "other": 5.0}
    assert Interactions([("user", "item")]).transform_one(x) == {**x, "user^age*item^price": 60.0,
                                                                 "user^tall*item^price": 2.0}


def test_letters_follow_vws_rules():
    x = {"a^x": 2.0, "apple^y": 3.0, "b^z": 5.0, "w": 7.0}
    assert Interactions(["ab"]).transform_one(x) == {**x, "a^x*b^z": 10.0, "apple^y*b^z": 15.0}
    # a repeated letter: each pair once, squares included; 'ba' after 'ab' is the same term
    assert Interactions(["aa", "ab", "ba"]).transform_one({"a^x": 2.0, "a^y": 3.0}) == {
        "a^x": 2.0, "a^y": 3.0, "a^x*a^x": 4.0, "a^x*a^y": 6.0, "a^y*a^y": 9.0}
    # ':' is every namespace of the example, nondecreasing; a key without '^' is the default namespace ' '
    assert Interactions([":b"]).transform_one(x) == {**x, "w*b^z": 35.0, "a^x*b^z": 10.0, "apple^y*b^z": 15.0,
                                                     "b^z*b^z": 25.0}
    assert Interactions(["abc"]).transform_one(x) == x  # no c: nothing crossed
    # what a term crossed, a wildcard does not cross again
    assert Interactions(["ab", "::"]).transform_one(x) == Interactions(["::"]).transform_one(x)


def test_the_default_crosses_every_pair_and_none_values_are_absent():
    assert Interactions().transform_one({"x": 2.0, "y": 3.0, "z": None}) == {
        "x": 2.0, "y": 3.0, "z": None, "x*x": 4.0, "x*y": 6.0, "y*y": 9.0}


@pytest.mark.parametrize("interactions", [[], ["a"], [("user",)], [("user", 3)], "ab", None])
def test_bad_terms_are_refused_by_name(interactions):
    with pytest.raises(ValueError, match="interactions"):
        Interactions(interactions).transform_one({"a^x": 1.0})


def test_a_pipeline_learns_the_hand_crossed_examples():
    rng = np.random.default_rng(1)
    rows = [({"user": f"u{rng.integers(5)}", "item": f"i{rng.integers(5)}", "price": float(rng.normal())},
             int(rng.choice([-1, 1]))) for _ in range(60)]
    model = Interactions([("user", "item"), ("user", "price")]) | olearn.PAClassifier(variant="pa1")
    reference = olearn.PAClassifier(variant="pa1")
    for x, y in rows:
        crossed = {**x, f"user={x['user']}*item={x['item']}": 1.0, f"user={x['user']}*price": x["price"]}
        assert model.predict_learn_one(x, y) == reference.predict_learn_one(crossed, y)
    test = {"user": "u1", "item": "i2", "price": 0.5}
    assert model.decision_function([test]) == reference.decision_function(
        [{**test, "user=u1*item=i2": 1.0, "user=u1*price": 0.5}])
    # in batches, the same (the batch pass may sum in another order)
    batch = Interactions([("user", "item"), ("user", "price")]) | olearn.PAClassifier(variant="pa1")
    batch.partial_fit([x for x, _ in rows], [y for _, y in rows])
    np.testing.assert_allclose(batch.decision_function([test]), model.decision_function([test]), rtol=1e-12)


def test_a_pipeline_saves_and_loads_its_interactions(tmp_path):
    model = Pipeline(Interactions([("a", "b")]), StandardScaler(), olearn.PAClassifier(), n_bits=12)
    for x, y in [({"a": 1.0, "b": 2.0}, 1), ({"a": -1.0, "b": 2.0}, -1), ({"a": 0.5, "b": -1.0}, -1)]:
        model.learn_one(x, y)
    model.save(tmp_path / "model.npz")
    loaded = olearn.load(tmp_path / "model.npz")
    assert loaded["interactions"].transform_one({"a": 3.0, "b": 2.0})["a*b"] == 6.0
    assert loaded.decision_function([{"a": 3.0, "b": 2.0}]) == model.decision_function([{"a": 3.0, "b": 2.0}])


def test_a_pipeline_refuses_what_it_cannot_cross():
    model = Interactions([("a", "b")]) | olearn.PAClassifier()
    with pytest.raises(TypeError, match="give dicts"):
        model.learn_one(np.array([1.0, 2.0]), 1)
    with pytest.raises(TypeError, match="give dicts"):
        model.partial_fit(np.ones((2, 2)), [1, -1])
    assert "feature_map_" not in model.__dict__  # nothing learned
    with pytest.raises(ValueError, match="after a FeatureHasher"):
        (FeatureHasher() | Interactions([("a", "b")]) | olearn.PAClassifier()).learn_one({"a": 1.0}, 1)
    with pytest.raises(ValueError, match="after 'standardscaler'"):
        (StandardScaler() | Interactions([("a", "b")]) | olearn.PAClassifier()).learn_one({"a": 1.0}, 1)


def test_one_hot_then_cross_in_step_order():
    model = OneHotEncoder(features=["zip"]) | Interactions([("zip", "age")]) | olearn.PAClassifier()
    model.learn_one({"zip": 75001, "age": 2.0}, 1)
    # the encoder made zip the category zip=75001 first, which the term's 'zip' names
    assert sorted(model.feature_map_.vocabulary()) == ["age", "zip=75001", "zip=75001*age"]
    assert model["interactions"].transform_one({"zip=75001": 1.0, "age": 2.0})["zip=75001*age"] == 2.0
