"""Tables on Dask: Dask DataFrames and Parquet files read on the workers, and predictions as Dask collections.

References: the serial learner fed the same rows as a pandas DataFrame
(``learn_many``: a numeric column is the feature of its name, a text value
``v`` of column ``c`` the feature ``c=v``), whose vocabulary is also written
out by hand below; with one shard, mixing is that serial pass bit for bit.
"""

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

import dask.array as da
import dask.dataframe as dd

from olearn import PAClassifier
from olearn.distributed import decision_function, delayed_updates, make_shards, parameter_mixing, predict


def table(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "city": rng.choice(["paris", "lyon", "nice"], n)})
    frame["y"] = np.where(frame.a + (frame.city == "paris") - 0.5 > 0, 1, -1)
    return frame


def serial(frame, **params):
    est = PAClassifier(**params)
    est.partial_fit(np.empty((0, 0)), [], classes=[-1, 1])
    return est.learn_many(frame.drop(columns="y"), frame.y)


def test_a_dask_dataframe_is_learned_as_the_serial_learner_learns_its_rows(client):
    frame = table(200, 0)
    res = parameter_mixing(PAClassifier(), dd.from_pandas(frame, npartitions=1), label_column="y", client=client,
                           chunk_size=30)
    ref = serial(frame)
    order = list(dict.fromkeys(["a", *("city=" + frame.city)]))  # the names in the order the rows first show them
    assert list(res.estimator.vocabulary_) == order
    assert res.estimator.vocabulary_ == ref.vocabulary_
    np.testing.assert_array_equal(res.estimator.coef_, ref.coef_)
    assert res.n_rounds == 200


def test_parquet_files_are_read_on_the_workers_as_tables(client, tmp_path):
    frame = table(300, 1)
    frame.iloc[:120].to_parquet(tmp_path / "part-0.parquet")
    frame.iloc[120:].to_parquet(tmp_path / "part-1.parquet")
    one = parameter_mixing(PAClassifier(), str(tmp_path / "part-0.parquet"), label_column="y", client=client,
                           chunk_size=7)
    np.testing.assert_array_equal(one.estimator.coef_, serial(frame.iloc[:120]).coef_)
    by_glob = parameter_mixing(PAClassifier(), str(tmp_path / "*.parquet"), label_column="y", client=client, epochs=2)
    by_dir = parameter_mixing(PAClassifier(), tmp_path.as_uri(), label_column="y", client=client, epochs=2)
    assert by_glob.n_shards == by_dir.n_shards == 2
    np.testing.assert_array_equal(by_glob.estimator.coef_, by_dir.estimator.coef_)
    # the vocabulary takes the names file after file, as one serial pass over the files would
    assert by_glob.estimator.vocabulary_ == serial(frame).vocabulary_
    delayed = delayed_updates(PAClassifier(), str(tmp_path / "*.parquet"), tau=1, label_column="y", client=client)
    assert delayed.n_rounds == 300


def test_hashed_names_take_the_learners_hash_columns(client):
    frame = table(150, 2)
    res = parameter_mixing(PAClassifier(n_bits=8), dd.from_pandas(frame, npartitions=1), label_column="y",
                           client=client)
    ref = serial(frame, n_bits=8).coef_  # as wide as its highest hashed column; the shards span all 2**8
    assert res.estimator.coef_.shape == (1, 256)
    np.testing.assert_array_equal(res.estimator.coef_[:, : ref.shape[1]], ref)
    assert not res.estimator.coef_[:, ref.shape[1] :].any()


def test_a_parquet_name_or_format_is_never_read_as_text_or_a_cache(tmp_path):
    frame = table(10, 3)
    frame.to_parquet(tmp_path / "data.parquet")
    frame.to_parquet(tmp_path / "data.bin")
    for path, fmt in ((tmp_path / "data.parquet", "auto"), (tmp_path / "data.bin", "parquet")):
        (shard,) = make_shards(str(path), fmt=fmt, label_column="y")
        (part,) = shard.parts
        assert part.resolved_format() == "parquet"
    with pytest.raises(ValueError, match="label_column="):
        make_shards(str(tmp_path / "data.parquet"))
    with pytest.raises(ValueError, match="no column named 'label'"):
        make_shards(str(tmp_path / "data.parquet"), label_column="label")
    with pytest.raises(ValueError, match="applies to tables"):
        make_shards([(np.eye(2), [1, -1])], label_column="y")
    with pytest.raises(ValueError, match="fsspec"):
        make_shards("s3://bucket/data/*.parquet", label_column="y")


def test_predictions_on_dask_collections_are_dask_collections_equal_to_the_serial_ones(client):
    frame = table(120, 4)
    est = serial(frame)
    features = frame.drop(columns="y")
    answers = predict(est, dd.from_pandas(features, npartitions=3))
    assert isinstance(answers, dd.Series)
    computed = answers.compute()
    np.testing.assert_array_equal(computed.to_numpy(), est.predict_many(features).to_numpy())
    assert computed.index.equals(features.index)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 4))
    linear = PAClassifier().fit(X, np.where(X[:, 0] > 0, 1, -1))
    scores = decision_function(linear, da.from_array(X, chunks=(20, 4)))
    assert isinstance(scores, da.Array)
    np.testing.assert_array_equal(scores.compute(), linear.decision_function(X))
    np.testing.assert_allclose(scores.compute(), X @ linear.coef_[0] + linear.intercept_[0], rtol=1e-12)
    np.testing.assert_array_equal(predict(linear, da.from_array(X, chunks=(20, 4))).compute(), linear.predict(X))


def test_olearn_run_learns_parquet_shards_by_their_label_column(client, tmp_path):
    from click.testing import CliRunner

    import olearn
    from olearn.cli import cli

    frame = table(300, 6)
    frame.iloc[:150].to_parquet(tmp_path / "part-0.parquet")
    frame.iloc[150:].to_parquet(tmp_path / "part-1.parquet")
    model = tmp_path / "model.npz"
    out = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--scheduler", client.scheduler.address, "--passes", "2",
                                   str(tmp_path / "*.parquet"), "--label-column", "y", "--save", str(model)])
    assert out.exit_code == 0, out.output
    assert re.search(r"^shards\s+2 on 2 workers", out.output, re.M), out.output
    # progress on stderr: the dashboard's link once, then a line per epoch
    assert out.stderr.count("Dask dashboard: ") == 1
    assert re.search(r"^epoch 1/2 done: 2 shards, 2\d\d examples, [\d,]+ examples/s$", out.stderr, re.M), out.stderr
    assert re.search(r"^epoch 2/2 done: 2 shards, [45]\d\d examples", out.stderr, re.M), out.stderr
    quiet = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--scheduler", client.scheduler.address, "--quiet",
                                     str(tmp_path / "*.parquet"), "--label-column", "y"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    ref = parameter_mixing(PAClassifier(variant="pa1"), [str(tmp_path / "part-0.parquet"), str(tmp_path / "part-1.parquet")],
                           label_column="y", epochs=2, holdout_every=10, client=client)
    saved = olearn.load(str(model))
    np.testing.assert_array_equal(saved.coef_, ref.estimator.coef_)
    assert saved.vocabulary_ == ref.estimator.vocabulary_
