"""Parameter mixing of the multiclass, regression and second-order learners, on a local cluster of threads.

References, computed independently of the mixing code: the serial learners
(mixing one shard for E epochs must be E serial passes, bit for bit), and
plain NumPy averages of k models each trained serially on its own shard
(one epoch of mixing k shards from a fresh model, McDonald, Hall & Mann 2010,
Fig. 2), or, for the Gaussian learners, NumPy's transcription of the
documented KL rule: precisions averaged, means averaged in their weights.
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.linear import OGDClassifier, PARegressor
from olearn.multiclass import MIRA, MulticlassPerceptron, PAMulticlass
from olearn.second_order import CW, NAROW

TIMEOUT = 300  # a hang guard only


def data(n, d, k, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ rng.normal(size=(d, k)), axis=1) if k else X @ rng.normal(size=d)
    return X, y


def thirds(X, y):
    return [(X[i::3], y[i::3]) for i in range(3)]


MULTICLASS = [lambda: PAMulticlass(variant="pa1", C=0.5, fit_intercept=True), lambda: MulticlassPerceptron(),
              lambda: MIRA(beta=0.5)]


@pytest.mark.parametrize("make", MULTICLASS)
def test_multiclass_mixing_of_one_shard_is_the_serial_learner(client, make):
    X, y = data(150, 4, 3, seed=1)
    res = parameter_mixing(make(), [(X, y)], epochs=3, classes=[0, 1, 2], timeout=TIMEOUT)
    serial = make()
    for _ in range(3):
        serial.partial_fit(X, y, classes=[0, 1, 2])
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    assert np.array_equal(res.estimator.intercept_, serial.intercept_)


@pytest.mark.parametrize("make", MULTICLASS)
def test_multiclass_mixing_averages_the_prototypes_of_independent_models(client, make):
    X, y = data(240, 4, 3, seed=2)
    shards = thirds(X, y)
    res = parameter_mixing(make(), shards, classes=[0, 1, 2], timeout=TIMEOUT)
    models = [make().partial_fit(Xs, ys, classes=[0, 1, 2]) for Xs, ys in shards]
    np.testing.assert_allclose(res.estimator.coef_, np.mean([m.coef_ for m in models], axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(res.estimator.intercept_, np.mean([m.intercept_ for m in models], axis=0),
                               rtol=1e-12, atol=1e-14)


def test_regression_mixing_averages_independent_models(client):
    X, y = data(240, 5, 0, seed=3)
    make = lambda: PARegressor(variant="pa1", C=0.3, epsilon=0.05)  # noqa: E731
    shards = thirds(X, y)
    res = parameter_mixing(make(), shards, timeout=TIMEOUT)
    np.testing.assert_allclose(res.estimator.coef_, np.mean([make().partial_fit(*s).coef_ for s in shards], axis=0),
                               rtol=1e-12, atol=1e-14)
    one = parameter_mixing(make(), [(X, y)], epochs=2, timeout=TIMEOUT).estimator
    assert np.array_equal(one.coef_, make().partial_fit(X, y).partial_fit(X, y).coef_)


def held_out_pa1_regression_pass(X, y, w, C, epsilon, every):
    """A PA-I regression pass (Crammer et al. 2006, Sec. 5) holding out the rows every, 2 every, ... (from 1): each
    predicted by w of its moment, never learned. Returns w and the held-out sums |error|, error^2, loss."""
    w, sums = w.copy(), np.zeros(3)
    for i, (x, target) in enumerate(zip(X, y), start=1):
        error = w @ x - target
        loss = max(0.0, abs(error) - epsilon)
        if i % every == 0:
            sums += (abs(error), error * error, loss)
        elif loss > 0.0:
            w = w - np.sign(error) * min(C, loss / (x @ x)) * x
    return w, sums


def test_regression_mixing_holds_rows_out_and_sums_their_errors(client):
    X, y = data(240, 5, 0, seed=3)
    shards = thirds(X, y)
    res = parameter_mixing(PARegressor(variant="pa1", C=0.3, epsilon=0.05), shards, epochs=3, holdout_every=7,
                           timeout=TIMEOUT)
    w = np.zeros(5)
    for epoch in range(3):
        passes = [held_out_pa1_regression_pass(*shard, w, 0.3, 0.05, 7) for shard in shards]
        w = np.mean([shard_w for shard_w, _ in passes], axis=0)
        np.testing.assert_allclose(res.held_out_sums[epoch], [sums for _, sums in passes], rtol=1e-10)
    np.testing.assert_allclose(res.estimator.coef_, w, rtol=1e-10, atol=1e-12)
    assert res.held_out[..., 0].tolist() == [[11, 11, 11]] * 3  # rows 7, 14, ..., 77 of each shard of 80
    assert not res.held_out[..., 1].any()  # a regressor makes no mistakes
    assert res.n_rounds == 3 * 3 * (80 - 11)


GAUSSIAN = [lambda: CW(eta=0.8), lambda: CW(eta=0.8, covariance="full"), lambda: NAROW(b=2.0),
            lambda: NAROW(b=2.0, covariance="diag")]


@pytest.mark.parametrize("make", GAUSSIAN)
def test_gaussian_mixing_averages_the_precisions_of_independent_models(client, make):
    X, y = data(240, 4, 2, seed=4)
    y = np.where(y == 1, 1, -1)
    shards = thirds(X, y)
    res = parameter_mixing(make(), shards, timeout=TIMEOUT)
    models = [make().partial_fit(Xs, ys, classes=[-1, 1]) for Xs, ys in shards]
    covariances = [np.diag(m.covariance_) if m.covariance_.ndim == 1 else m.covariance_ for m in models]
    precision = np.mean([np.linalg.inv(c) for c in covariances], axis=0)
    mean = np.linalg.solve(precision, np.mean([np.linalg.solve(c, m.coef_[0]) for c, m in zip(covariances, models)],
                                              axis=0))
    np.testing.assert_allclose(res.estimator.coef_[0], mean, rtol=1e-9, atol=1e-12)
    got = res.estimator.covariance_
    np.testing.assert_allclose(np.diag(got) if got.ndim == 1 else got, np.linalg.inv(precision), rtol=1e-9, atol=1e-12)
    one = parameter_mixing(make(), [(X, y)], epochs=2, timeout=TIMEOUT).estimator
    serial = make().partial_fit(X, y, classes=[-1, 1]).partial_fit(X, y)
    assert np.array_equal(one.coef_, serial.coef_) and np.array_equal(one.covariance_, serial.covariance_)


def test_multiclass_classes_are_fixed_up_front_and_checked_in_every_shard(client):
    X, y = data(60, 3, 3, seed=5)
    with pytest.raises(ValueError, match=r"PAMulticlass learns on shards from its classes given up front: pass classes="):
        parameter_mixing(PAMulticlass(), [(X, y)])
    est = PAMulticlass().partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    before = est.coef_.copy()
    y_bad = y.copy()
    y_bad[40] = 7
    with pytest.raises(ValueError, match=r"shard 1 .*label 7 at row 10 is not one of the classes \[0, 1, 2\]"):
        parameter_mixing(est, [(X[:30], y[:30]), (X[30:], y_bad[30:])], timeout=TIMEOUT)
    assert np.array_equal(est.coef_, before) and est.classes_.tolist() == [0, 1, 2]


def test_classes_contradicting_those_learned_are_named_as_plain_numbers():
    from olearn.distributed._models import start_with_classes
    from olearn.linear import PAClassifier

    est = PAClassifier().partial_fit(np.eye(2), np.array([-1.0, 1.0]))  # classes_ of float64 labels
    with pytest.raises(ValueError) as err:
        start_with_classes(est, np.array([0.0, 1.0]))
    assert str(err.value) == "classes=[0.0, 1.0] differs from the classes [-1.0, 1.0] already learned"


def write_parquet(path, X, y, order=("a", "y", "b")):
    import pandas as pd

    columns = {"a": X[:, 0], "y": y, "b": X[:, 1]}
    pd.DataFrame({name: columns[name] for name in order}).to_parquet(path)


def test_parquet_shards_are_read_in_batches_by_the_label_column_s_name(client, tmp_path):
    pytest.importorskip("pyarrow")
    from olearn.linear import PAClassifier

    X, y = data(200, 2, 2, seed=6)
    labels = np.where(y == 1, "yes", "no")
    write_parquet(tmp_path / "p-0.parquet", X[:120], labels[:120])
    write_parquet(tmp_path / "p-1.parquet", X[120:], labels[120:])
    res = parameter_mixing(PAClassifier(), str(tmp_path / "*.parquet"), label_column="y", classes=["no", "yes"],
                           chunk_size=32, epochs=2, timeout=TIMEOUT)
    target = np.where(y == 1, 1, -1)
    expected = parameter_mixing(PAClassifier(), [(X[:120], target[:120]), (X[120:], target[120:])], epochs=2,
                                timeout=TIMEOUT)
    np.testing.assert_allclose(res.estimator.coef_, expected.estimator.coef_, rtol=1e-12, atol=0)
    assert res.estimator.classes_.tolist() == ["no", "yes"]


def test_parquet_label_column_by_position_or_a_clear_error(client, tmp_path):
    pytest.importorskip("pyarrow")
    from olearn.linear import PAClassifier

    X, y = data(40, 2, 2, seed=7)
    write_parquet(tmp_path / "a.parquet", X, np.where(y == 1, 1, -1))
    by_name = parameter_mixing(PAClassifier(), str(tmp_path / "a.parquet"), label_column="y", timeout=TIMEOUT)
    for position in (1, -2):  # columns a, y, b
        by_position = parameter_mixing(PAClassifier(), str(tmp_path / "a.parquet"), label_column=position,
                                       timeout=TIMEOUT)
        assert by_position.estimator.vocabulary_ == by_name.estimator.vocabulary_ == {"a": 0, "b": 1}
        np.testing.assert_array_equal(by_position.estimator.coef_, by_name.estimator.coef_)
    with pytest.raises(ValueError, match=r"a.parquet: no column named 'z' holds the label; the columns are a, y, b"):
        parameter_mixing(PAClassifier(), str(tmp_path / "a.parquet"), label_column="z")
    with pytest.raises(ValueError, match=r"a.parquet: label_column=3 is no column position; it has 3 columns"):
        parameter_mixing(PAClassifier(), str(tmp_path / "a.parquet"), label_column=3)


def test_a_dask_dataframe_is_learned_partition_by_partition_by_its_label_column(client):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from olearn.linear import PAClassifier

    X, y = data(200, 2, 2, seed=8)
    frame = pd.DataFrame({"a": X[:, 0], "label": np.where(y == 1, "yes", "no"), "b": X[:, 1]})
    ddf = client.persist(dd.from_pandas(frame, npartitions=2))
    res = parameter_mixing(PAClassifier(), ddf, label_column="label", classes=["no", "yes"], epochs=2, timeout=TIMEOUT)
    target = np.where(y == 1, 1, -1)
    halves = [(X[lo:hi], target[lo:hi]) for lo, hi in zip(ddf.divisions[:-1], (*ddf.divisions[1:-1], 200))]
    expected = parameter_mixing(PAClassifier(), halves, epochs=2, timeout=TIMEOUT)
    assert res.n_shards == 2
    np.testing.assert_allclose(res.estimator.coef_, expected.estimator.coef_, rtol=1e-12, atol=0)
    by_position = parameter_mixing(PAClassifier(), ddf, label_column=1, classes=["no", "yes"], epochs=2,
                                   timeout=TIMEOUT)
    np.testing.assert_array_equal(by_position.estimator.coef_, res.estimator.coef_)


@pytest.mark.parametrize("method", ["predict", "decision_function", "predict_proba"])
def test_predictions_on_dask_collections_are_dask_collections_of_the_serial_predictions(client, method):
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd

    import olearn.distributed

    X, y = data(90, 3, 3, seed=9)
    est = PAMulticlass().fit(X, y) if method != "predict_proba" else OGDClassifier(loss="logistic").fit(X, y % 2)
    expected = getattr(est, method)(X)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for collection in (da.from_array(X, chunks=(25, 3)), dd.from_pandas(frame, npartitions=3)):
        got = getattr(olearn.distributed, method)(est, collection)
        assert isinstance(got, da.Array if isinstance(collection, da.Array) else (dd.Series, dd.DataFrame))
        np.testing.assert_array_equal(np.asarray(got.compute()), expected)
    wrong = est.classes_[(np.searchsorted(est.classes_, est.predict(X[:5])) + 1) % len(est.classes_)]
    est.partial_fit(X[:5], wrong)  # learning on afterwards does not change a prediction already made
    assert not np.array_equal(getattr(est, method)(X), expected)
    np.testing.assert_array_equal(np.asarray(got.compute()), expected)


def test_progress_is_reported_after_each_epoch_s_mixing(client):
    from olearn.linear import PAClassifier

    X, y = data(90, 3, 2, seed=10)
    seen = []
    res = parameter_mixing(PAClassifier(), thirds(X, np.where(y == 1, 1, -1)), epochs=2, timeout=TIMEOUT,
                           progress=lambda epoch, totals: seen.append((epoch, totals[:, 3].tolist())))
    assert seen == [(1, [30, 30, 30]), (2, [30, 30, 30])] and res.n_rounds == 180
