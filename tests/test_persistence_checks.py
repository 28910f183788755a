"""A model file is checked before any of it reaches an estimator; temp files of killed writers are cleaned up.

Each test writes a file that a crash, a bug or an attacker could produce and
checks that ``olearn.load`` refuses it with a ModelFormatError naming the file
and what is wrong (never a raw traceback, never a model that writes out of
bounds later).
"""

import io
import json
import os
import signal
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn import _atomic as atomic
from olearn._atomic import atomic_write
from olearn.data import save_cache
from olearn.exceptions import ModelFormatError
from saved_models import CASES

# -- helpers -------------------------------------------------------------------------------


def _members(path):
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return json.loads(str(arrays.pop("__meta__"))), arrays


def _write(path, meta, arrays, meta_text=None):
    text = json.dumps(meta) if meta_text is None else meta_text
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(text), **arrays)


def _saved(tmp_path, name):
    make, _ = CASES[name]
    path = tmp_path / f"{name}.npz"
    make().save(path)
    return path


def _refused(path, match):
    with pytest.raises(ModelFormatError, match=match) as info:
        olearn.load(path)
    assert os.fspath(path) in str(info.value)
    return info.value


def _changed(tmp_path, name, state=None, params=None, meta=None, arrays=None, drop=()):
    """The saved model ``name`` rewritten with changed state entries, hyperparameters, metadata or arrays."""
    path = _saved(tmp_path, name)
    saved_meta, saved_arrays = _members(path)
    saved_meta["state"].update(state or {})
    saved_meta["params"].update(params or {})
    saved_meta.update(meta or {})
    saved_arrays.update(arrays or {})
    for key in drop:
        saved_arrays.pop(key)
    _write(path, saved_meta, saved_arrays)
    return path


# -- every family round-trips ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_family_round_trips_and_keeps_learning(tmp_path, name):
    make, use = CASES[name]
    path = tmp_path / "m.npz"
    make().save(path)
    assert_array_equal(use(olearn.load(path)), use(make()))


# -- the reproducers of the issue ------------------------------------------------------------


def test_claimed_width_larger_than_the_weights(tmp_path):
    path = _changed(tmp_path, "pa1", state={"n_features_in": 100_000})
    _refused(path, r"'weights' has shape \(4,\); expected 100001 entries")


@pytest.mark.parametrize("name, array", [("pa1", "weights"), ("arow-full", "covariance_root"), ("winnow", "theta"),
                                         ("multilabel", "weights"), ("hedge", "log_weights")])
def test_nan_in_a_learned_array(tmp_path, name, array):
    path = _saved(tmp_path, name)
    meta, arrays = _members(path)
    arrays[array] = arrays[array].copy()
    arrays[array].flat[0] = np.nan
    _write(path, meta, arrays)
    _refused(path, rf"'{array}' has nan at flat index 0; expected a finite number")


def test_weights_of_the_wrong_shape(tmp_path):
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    _write(path, meta, {**arrays, "weights": arrays["weights"][None, :]})
    _refused(path, r"'weights' has shape \(1, 4\); expected 1 dimension")


@pytest.mark.parametrize("dtype", [np.float32, np.int64, ">f8", np.complex128])
def test_weights_of_the_wrong_dtype(tmp_path, dtype):
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    _write(path, meta, {**arrays, "weights": arrays["weights"].astype(dtype)})
    _refused(path, r"'weights' has dtype .*; expected float64")


def test_three_classes_in_a_binary_model(tmp_path):
    path = _changed(tmp_path, "pa1", arrays={"classes": np.array(["maybe", "no", "yes"])})
    _refused(path, r"n_classes is 3; the hyperparameters require in \[1, 2\]")


def test_binary_classes_unsorted_or_repeated(tmp_path):
    _refused(_changed(tmp_path, "pa1", arrays={"classes": np.array(["yes", "no"])}), r"'classes' is not sorted")
    _refused(_changed(tmp_path, "sop", arrays={"classes": np.array(["no", "no"])}), r"'classes' repeats a label")


@pytest.mark.parametrize("params, match", [
    ({"C": -5}, r"parameter C=-5 is invalid"),
    ({"variant": "pa3"}, r"parameter variant='pa3' is invalid"),
    ({"C": "1.0"}, r"parameter C='1.0' is invalid"),
    ({"fit_intercept": 1}, r"parameter fit_intercept=1 is invalid"),
    ({"from_the_future": 3}, r"invalid PAClassifier hyperparameters .*from_the_future"),
])
def test_hyperparameters_go_through_the_estimators_checks(tmp_path, params, match):
    _refused(_changed(tmp_path, "pa1", params=params), match)


def test_every_hyperparameter_must_be_saved(tmp_path):
    """A missing one would silently take its default: PA-II saved, PA-I loaded."""
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    del meta["params"]["variant"]
    _write(path, meta, arrays)
    _refused(path, r"the metadata lacks the PAClassifier hyperparameters \['variant'\]")


def test_n_features_must_match_the_saved_width(tmp_path):
    path = _changed(tmp_path, "perceptron-n_features", params={"n_features": 100_000})
    _refused(path, r"n_features_in is 4; the hyperparameters require 100000")


@pytest.mark.parametrize("counter", [-1.0, 2.5, np.inf])
def test_round_counter_must_be_a_count(tmp_path, counter):
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    arrays["state"][0] = counter
    _write(path, meta, arrays)
    _refused(path, r"'state' has .* index 0; expected a (count|finite number)")


def test_scale_of_the_weights_must_be_positive(tmp_path):
    path = _saved(tmp_path, "ogd-ball")
    meta, arrays = _members(path)
    arrays["state"][1] = 0.0
    _write(path, meta, arrays)
    _refused(path, r"'state' has 0\.0 at index 1; expected a finite number > 0")


@pytest.mark.parametrize("n", ["three", -1, 2.0, True, None])
def test_n_features_in_must_be_a_non_negative_integer(tmp_path, n):
    _refused(_changed(tmp_path, "pa1", state={"n_features_in": n}), r"state entry 'n_features_in' is")


@pytest.mark.parametrize("name", ["pa1", "pa-rbf-budget", "multiclass-rbf", "sequence", "uniclass", "arow-full"])
@pytest.mark.parametrize("n", [2**31, 2**40, 2**63])
def test_a_width_past_the_column_limit_is_refused_before_anything_is_allocated(tmp_path, name, n):
    # a kernel learner used to reserve n_features_in floats at load: 2**40 asked numpy for 8 TiB
    _refused(_changed(tmp_path, name, state={"n_features_in": n}),
             r"state entry 'n_features_in' is \d+; expected an integer >= \d and at most 2147483647")


def test_unknown_or_missing_state_entries(tmp_path):
    _refused(_changed(tmp_path, "pa1", state={"mystery": 1}), r"unknown entries \['mystery'\]")
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    del meta["state"]["n_features_in"]
    _write(path, meta, arrays)
    _refused(path, r"lacks 'n_features_in'")


def test_missing_and_extra_arrays(tmp_path):
    _refused(_changed(tmp_path, "pa1", drop=["state"]), r"lacks arrays \['state'\]")
    _refused(_changed(tmp_path, "pa1", arrays={"backdoor": np.ones(2)}), r"unexpected arrays \['backdoor'\]")


def test_plain_winnow_keeps_its_second_model_only_while_one_class_is_known(tmp_path):
    """The other encoding's arrays are optional, but checked when present and never half there."""
    from olearn.quasi_additive import Winnow

    one_class = Winnow(balanced=False, C=0.5).partial_fit([[1.0, 0.0], [0.0, 1.0]], ["b", "b"])
    path = tmp_path / "one_class.npz"
    one_class.save(path)
    _, arrays = _members(path)
    assert {"other_theta", "other_weights", "other_state"} <= set(arrays)
    loaded = olearn.load(path).partial_fit([[1.0, 1.0]], ["a"])
    assert_array_equal(loaded.coef_, one_class.partial_fit([[1.0, 1.0]], ["a"]).coef_)

    meta, arrays = _members(path)
    _write(path, meta, {**arrays, "other_theta": np.ones(7)})
    _refused(path, r"array 'other_theta' has shape \(7,\)")
    _write(path, meta, {k: v for k, v in arrays.items() if k != "other_weights"})
    _refused(path, "other_weights")
    balanced_meta = {**meta, "params": {**meta["params"], "balanced": True}}
    _write(path, balanced_meta, arrays)
    _refused(path, "unexpected arrays")


def _with_the_covariance_itself(tmp_path, name):
    """The saved full-covariance model ``name`` as files written before the square root hold it: Sigma itself."""
    path = _saved(tmp_path, name)
    meta, arrays = _members(path)
    root = arrays.pop("covariance_root")
    return path, meta, {**arrays, "covariance": root @ root.T}


def test_covariance_must_be_symmetric_positive_definite(tmp_path):
    path, meta, arrays = _with_the_covariance_itself(tmp_path, "arow-full")
    skewed = arrays["covariance"].copy()
    skewed[0, 1] += 0.5
    _write(path, meta, {**arrays, "covariance": skewed})
    _refused(path, r"'covariance' is not symmetric")
    _write(path, meta, {**arrays, "covariance": -arrays["covariance"]})
    _refused(path, r"'covariance' has a variance \(a diagonal entry\) <= 0")
    indefinite = arrays["covariance"].copy()
    indefinite[0, 1] = indefinite[1, 0] = 2.0 * np.sqrt(indefinite[0, 0] * indefinite[1, 1])
    _write(path, meta, {**arrays, "covariance": indefinite})
    _refused(path, r"'covariance' is not positive definite \(an eigenvalue is -")
    _write(path, meta, {**arrays, "covariance": arrays["covariance"][:-1, :-1]})
    _refused(path, r"'covariance' has shape \(3, 3\); expected 4 entries")


def test_diagonal_variances_must_be_positive(tmp_path):
    path = _saved(tmp_path, "cw-diag")
    meta, arrays = _members(path)
    arrays["covariance"][1] = 0.0
    _write(path, meta, arrays)
    _refused(path, r"'covariance' has 0\.0 at flat index 1; expected a finite number > 0")


def test_a_diagonal_covariance_in_a_full_model(tmp_path):
    path, meta, arrays = _with_the_covariance_itself(tmp_path, "arow-full")
    meta["params"]["covariance"] = "diag"
    _write(path, meta, arrays)
    _refused(path, r"'covariance' has shape \(4, 4\); expected 1 dimension")


def test_the_square_root_of_a_full_covariance_is_checked(tmp_path):
    path = _saved(tmp_path, "arow-full")
    meta, arrays = _members(path)
    root = arrays["covariance_root"]
    zero_row = root.copy()
    zero_row[2] = 0.0
    _write(path, meta, {**arrays, "covariance_root": zero_row})
    _refused(path, r"'covariance_root' makes a variance of 0\.0 at index 2; expected a finite number > 0")
    huge = root.copy()
    huge[1, 1] = 1e200
    _write(path, meta, {**arrays, "covariance_root": huge})
    _refused(path, r"'covariance_root' makes a variance of inf at index 1")
    _write(path, meta, {**arrays, "covariance": root @ root.T})
    _refused(path, r"holds \['covariance_root', 'covariance'\] of the arrays .*; expected exactly one")
    del arrays["covariance_root"]
    _write(path, meta, arrays)
    _refused(path, r"holds none of the arrays \['covariance_root', 'covariance'\]; expected exactly one")


def test_a_file_holding_the_full_covariance_itself_loads_and_learns_on(tmp_path):
    """Files written before the square root hold Sigma: it loads with its Cholesky factor as the root, and the next
    round is AROW's update of that Sigma (Crammer, Kulesza & Dredze 2009, Fig. 1; r = 0.5, intercept last)."""
    path, meta, arrays = _with_the_covariance_itself(tmp_path, "arow-full")
    _write(path, meta, arrays)
    loaded = olearn.load(path)
    assert_allclose(loaded.covariance_, arrays["covariance"][:3, :3], rtol=1e-14, atol=1e-15)
    x, w, sigma = np.array([0.5, -1.0, 2.0, 1.0]), arrays["weights"], arrays["covariance"]
    loss, sx = 1.0 - w @ x, sigma @ x
    assert loss > 0  # the premise: the round updates
    beta = 1.0 / (x @ sx + 0.5)
    loaded.learn_one(dict(enumerate(x[:3])), loaded.classes_[1])
    assert_allclose(loaded.coef_[0], (w + loss * beta * sx)[:3], rtol=1e-12)
    assert_allclose(loaded.covariance_, (sigma - beta * np.outer(sx, sx))[:3, :3], rtol=1e-12, atol=1e-15)


def test_support_set_must_be_valid_csr(tmp_path):
    path = _saved(tmp_path, "pa-rbf-budget")
    meta, arrays = _members(path)
    indices = arrays["support_indices"].copy()
    indices[0] = 3  # n_features_in is 3
    _write(path, meta, {**arrays, "support_indices": indices})
    _refused(path, r"'support_indices' holds a column index outside \[0, n_features_in = 3\)")
    indptr = arrays["support_indptr"].copy()
    indptr[[1, 2]] = indptr[[2, 1]]
    _write(path, meta, {**arrays, "support_indptr": indptr})
    _refused(path, r"'support_indptr' is not a CSR row pointer")


def test_support_set_larger_than_the_budget(tmp_path):
    path = _changed(tmp_path, "pa-rbf-budget", params={"budget": 2})
    _refused(path, r"n_support is 5; the hyperparameters require in \[0, 2\]")


def test_multiclass_labels_must_match_the_prototypes(tmp_path):
    path = _changed(tmp_path, "pa-multiclass", arrays={"labels": np.array([0, 1])})
    _refused(path, r"'weights' has shape \(4, 3\); expected 2 entries along axis 1")
    _refused(_changed(tmp_path, "mira", arrays={"labels": np.array([0, 1, 0])}), r"'labels' repeats a label")
    _refused(_changed(tmp_path, "multiclass-rbf", arrays={"labels": np.array([0, 1, 2, 3])}),
             r"'support_coef' has shape \(6, 3\); expected 4 entries along axis 1")


def test_cost_sensitive_model_must_have_every_class_of_its_cost_matrix(tmp_path):
    cost = [[0.0, 1.0], [1.0, 0.0]]
    _refused(_changed(tmp_path, "cost-sensitive", params={"cost": cost}), r"n_classes is 3; the hyperparameters require 2")


def test_multilabel_count_of_labels(tmp_path):
    _refused(_changed(tmp_path, "multilabel", arrays={"state": np.array([7])}),
             r"'state' has 7 at index 0; expected n_labels = 3")


def test_uniclass_center_needs_a_coordinate(tmp_path):
    path = _changed(tmp_path, "uniclass", state={"n_features_in": 0}, arrays={"center": np.zeros(0)})
    _refused(path, r"state entry 'n_features_in' is 0; expected an integer >= 1")


def test_sequence_transition_matches_the_classes(tmp_path):
    path = _saved(tmp_path, "sequence")
    meta, arrays = _members(path)
    _write(path, meta, {**arrays, "transition": arrays["transition"][:-1]})
    _refused(path, r"'transition' has shape \(3, 3\); expected 4 entries along axis 0")


def test_dual_ascent_stored_examples(tmp_path):
    path = _saved(tmp_path, "dual-last-k")
    meta, arrays = _members(path)
    _write(path, meta, {**arrays, "store_y": -2.0 * arrays["store_y"]})
    _refused(path, r"'store_y' has .*; expected -1 or \+1")
    _refused(_changed(tmp_path, "dual-last-k", params={"k": 1}), r"n_stored is 3; the hyperparameters require in \[0, 1\]")


def test_randomized_experts_generator_state(tmp_path):
    path = _saved(tmp_path, "randomized-majority")
    meta, arrays = _members(path)
    meta["state"]["rng"] = {"bit_generator": "MT19937", "state": {}}
    _write(path, meta, arrays)
    _refused(path, r"state entry 'rng' is not the state of a PCG64 generator")
    _refused(_changed(tmp_path, "randomized-majority", state={"pending": 1.5}), r"'pending' is 1\.5")


# -- the archive and its metadata -------------------------------------------------------------


def _rezip(path, compress_type=zipfile.ZIP_STORED, flag_bits=0, skip=()):
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w") as target:
        for info, data in members:
            if info.filename in skip:
                continue
            info.compress_type = compress_type
            target.writestr(info, data)
    if flag_bits:
        content = bytearray(path.read_bytes())
        for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            start = content.find(signature)
            while start >= 0:
                content[start + offset] |= flag_bits
                start = content.find(signature, start + 4)
        path.write_bytes(bytes(content))


def test_compressed_members_are_refused(tmp_path):
    path = _saved(tmp_path, "pa1")
    _rezip(path, compress_type=zipfile.ZIP_DEFLATED)
    _refused(path, r"member '.*\.npy' is unreadable \(it is compressed")


def test_encrypted_members_are_refused(tmp_path):
    path = _saved(tmp_path, "pa1")
    _rezip(path, flag_bits=0x1)
    _refused(path, r"member '.*\.npy' is unreadable \(it is encrypted\)")


def test_bad_crc_is_refused(tmp_path):
    path = _saved(tmp_path, "pa1")
    content = bytearray(path.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(content))) as archive:
        info = archive.getinfo("weights.npy")
    content[info.header_offset + 30 + len("weights.npy") + 130] ^= 0xFF  # a byte of the array's data
    path.write_bytes(bytes(content))
    _refused(path, r"member 'weights\.npy' is unreadable \(Bad CRC-32")


@pytest.mark.parametrize("keep", [0.3, 0.7, 0.98])
def test_truncated_file_is_refused(tmp_path, keep):
    path = _saved(tmp_path, "arow-full")
    content = path.read_bytes()
    path.write_bytes(content[: int(len(content) * keep)])
    _refused(path, r"not an olearn model file|unreadable")


def test_array_data_shorter_than_its_header_says(tmp_path):
    path = _saved(tmp_path, "pa1")
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    members["weights.npy"] = members["weights.npy"].replace(b"(4,)", b"(9999999999,)", 1)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    _refused(path, r"member 'weights\.npy' is unreadable \(it holds \d+ bytes of data; its header declares shape \(9999999999,\)")


def test_member_that_is_not_an_array(tmp_path):
    path = _saved(tmp_path, "pa1")
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("README.txt", "hello")
    _refused(path, r"member 'README\.txt' is not one \.npy array")


@pytest.mark.parametrize("meta, match", [
    ({"params": [1, 2]}, r"metadata entry 'params' is \[1, 2\]; expected an object"),
    ({"state": "full"}, r"metadata entry 'state' is 'full'; expected an object"),
    ({"class": 7}, r"metadata entry 'class' is 7; expected a string"),
    ({"format_version": True}, r"model format version True"),
])
def test_metadata_of_the_wrong_types(tmp_path, meta, match):
    _refused(_changed(tmp_path, "pa1", meta=meta), match)


def test_metadata_member_that_is_not_a_string(tmp_path):
    path = _saved(tmp_path, "pa1")
    _, arrays = _members(path)
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.arange(3), **arrays)
    _refused(path, r"the metadata is not a JSON string")


def test_optional_new_metadata_keys_are_accepted(tmp_path):
    path = _changed(tmp_path, "pa1", meta={"input": {"format": "libsvm", "index_base": 1}})
    make, use = CASES["pa1"]
    assert_array_equal(use(olearn.load(path)), use(make()))


# -- temporary files of killed writers ----------------------------------------------------------


def _killed_writer(path):
    """Start writing ``path`` in a child process and kill it with SIGKILL before it finishes."""
    # the writer's module alone (it needs only the standard library): a quick child
    code = (
        "import importlib.util, os, signal, sys\n"
        "spec = importlib.util.spec_from_file_location('atomic', sys.argv[2])\n"
        "atomic = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(atomic)\n"
        "with atomic.atomic_write(sys.argv[1]) as fh:\n"
        "    fh.write(b'half a file')\n"
        "    fh.flush()\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, os.fspath(path), atomic.__file__])
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.skipif(os.name != "posix", reason="killed writers are detected by process id on POSIX")
@pytest.mark.parametrize("writer", ["model", "cache"])
def test_next_write_removes_temp_files_of_killed_writers(tmp_path, writer):
    target = tmp_path / "target"
    for _ in range(3):  # each killed writer removes its killed predecessor's file before writing its own
        _killed_writer(target)
        leftovers = sorted(p.name for p in tmp_path.iterdir())
        assert len(leftovers) == 1 and leftovers[0].startswith(".target.")
    (tmp_path / ".other.1.ab.olearn-tmp").write_bytes(b"another target's")
    if writer == "model":
        CASES["pa1"][0]().save(target)
        olearn.load(target)
    else:
        save_cache(target, np.eye(2), np.array([0.0, 1.0]))
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.1.ab.olearn-tmp", "target"]


def test_temp_files_of_live_writers_are_kept(tmp_path):
    target = tmp_path / "m.npz"
    live = tmp_path / f".m.npz.{os.getppid()}.00.olearn-tmp"  # the parent of this process is alive
    live.write_bytes(b"being written")
    with atomic_write(target) as fh:
        fh.write(b"done")
    assert live.read_bytes() == b"being written" and target.read_bytes() == b"done"


def test_failed_write_leaves_the_target_and_no_temp_file(tmp_path):
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    with pytest.raises(ZeroDivisionError), atomic_write(target) as fh:
        fh.write(b"new")
        1 / 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"] and target.read_bytes() == b"old"


@pytest.mark.parametrize("params", [{"budget": 2**63}, {"degree": 2**63}])
def test_kernel_integers_beyond_int64_are_refused(tmp_path, params):
    """Found by the fuzz campaign: such a budget passed the checks, then overflowed the kernel's int64 codes."""
    _refused(_changed(tmp_path, "perceptron-poly", params=params), r"parameter (budget|degree)=9223372036854775808 is invalid")
    with pytest.raises(ValueError, match=r"is invalid"):
        olearn.Perceptron(kernel="poly", **params).fit(np.eye(2), [0, 1])


def test_a_long_run_of_rank_one_updates_saves_and_loads(tmp_path):
    """Thousands of rank-one shrinking updates along three directions left Sigma itself with eigenvalues of about
    -1e-9 before the square root; S S^T stays positive semi-definite."""
    rng = np.random.default_rng(1)
    directions = rng.normal(size=(3, 20)) * np.array([1e3, 1.0, 1e-3])[:, None]
    X = directions[rng.integers(3, size=20000)]
    y = np.where(rng.random(20000) < 0.5, 1, -1)
    model = olearn.AROW(r=1e-6).partial_fit(X, y)
    model.save(tmp_path / "m.npz")
    assert_array_equal(olearn.load(tmp_path / "m.npz").decision_function(X[:50]), model.decision_function(X[:50]))


def test_a_saved_covariance_that_rounding_left_slightly_indefinite_still_loads(tmp_path):
    """Such a Sigma (in a file written before the square root) loads, its negative eigenvalue taken as 0 in the root."""
    path, meta, arrays = _with_the_covariance_itself(tmp_path, "arow-full")
    values, vectors = np.linalg.eigh(arrays["covariance"])
    values[0] = -1e-9 * values[-1]
    indefinite = vectors @ np.diag(values) @ vectors.T
    _write(path, meta, {**arrays, "covariance": 0.5 * (indefinite + indefinite.T)})
    loaded = olearn.load(path)
    assert_array_equal(loaded.coef_[0], arrays["weights"][:3])
    values[0] = 0.0
    assert_allclose(loaded.covariance_, (vectors @ np.diag(values) @ vectors.T)[:3, :3], rtol=1e-12, atol=1e-14)


def test_zip_of_an_unknown_version_is_refused(tmp_path):
    """Found by the fuzz campaign: zipfile raises NotImplementedError for a version byte it does not know."""
    path = _saved(tmp_path, "pa1")
    content = bytearray(path.read_bytes())
    central = content.find(b"PK\x01\x02")
    content[central + 6] = 67  # "version needed to extract" 6.7
    path.write_bytes(bytes(content))
    _refused(path, r"zip file version 6\.7")


@pytest.mark.parametrize("covariance", ["diag", "full"])
def test_cw_with_a_huge_saved_weight_refuses_the_round_cleanly(tmp_path, covariance):
    """Found by the fuzz campaign: a finite weight of 1e308 made CW's step divide by zero (ZeroDivisionError)."""
    model = olearn.CW(covariance=covariance).partial_fit(np.eye(3), ["no", "yes", "no"])
    model._w[2] = 1e308
    model.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    before = loaded.coef_.copy()
    with pytest.raises(FloatingPointError, match="overflowed at row 0; the model is unchanged"):
        loaded.partial_fit(np.array([[0.0, 0.0, 1.0]]), ["no"])
    assert_array_equal(loaded.coef_, before)


def test_every_savable_estimator_declares_its_state_schema():
    import importlib
    import inspect
    import pkgutil

    from olearn._estimator import Estimator
    from olearn._persistence import PersistenceMixin

    classes = set()
    for info in pkgutil.walk_packages(olearn.__path__, prefix="olearn."):
        if not info.name.endswith("__main__"):
            module = importlib.import_module(info.name)
            classes |= {obj for _, obj in inspect.getmembers(module, inspect.isclass)
                        if issubclass(obj, PersistenceMixin) and issubclass(obj, Estimator) and "__init__" in vars(obj)}
    assert len(classes) >= 25
    assert [cls.__name__ for cls in classes if not callable(getattr(cls, "_state_schema", None))] == []


def test_hedge_with_an_infinite_learning_rate_is_refused(tmp_path):
    """Found by the fuzz campaign: eta=inf passed the checks, then the update divided by zero."""
    from olearn.experts import FixedShare, Hedge

    _refused(_changed(tmp_path, "hedge", params={"eta": float("inf")}), r"parameter eta=inf is invalid")
    for learner in (Hedge(eta=float("inf")), FixedShare(eta=float("inf"), alpha=0.1)):
        with pytest.raises(ValueError, match=r"parameter eta=inf is invalid"):
            learner.learn_one(np.array([0.2, 0.5]))


# -- save refuses what load would refuse ---------------------------------------------------------


@pytest.mark.parametrize("existing", [False, True], ids=["new", "replacing"])
def test_save_refuses_a_state_load_would_refuse_and_writes_nothing(tmp_path, existing):
    """A covariance whose variance is not positive was saved, and then every load refused the file."""
    model = olearn.AROW().partial_fit(np.eye(3), [1, -1, 1])
    model._cov[1] = 0.0  # a row of the covariance's square root: a variance of 0
    path = tmp_path / "m.npz"
    if existing:
        path.write_bytes(b"old model")
    with pytest.raises(ModelFormatError, match=r"not saved, the file would not load: .*m\.npz: invalid AROW model: "
                                               r"array 'covariance_root' makes a variance of 0\.0 at index 1"):
        model.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["m.npz"] if existing else [])
    if existing:
        assert path.read_bytes() == b"old model"


def test_save_refuses_a_pipeline_whose_learner_would_not_load(tmp_path):
    from olearn.preprocessing import StandardScaler

    pipe = (StandardScaler() | olearn.AROW()).partial_fit(np.eye(3), [1, -1, 1])
    pipe.steps[-1][1]._cov[0] = 0.0
    with pytest.raises(ModelFormatError, match=r"not saved.*'covariance_root' makes a variance of 0\.0"):
        pipe.save(tmp_path / "p.npz")
    assert list(tmp_path.iterdir()) == []


def test_deeply_nested_metadata_is_a_format_error(tmp_path):
    """Found by the fuzz campaign: JSON nested beyond Python's recursion limit raised RecursionError."""
    path = _saved(tmp_path, "pa1")
    meta, arrays = _members(path)
    text = json.dumps(meta)[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}"
    _write(path, meta, arrays, meta_text=text)
    _refused(path, r"the metadata nests too deeply to be read")


# -- hyperparameters a file must record, and those it must not combine -----------------------------------------


@pytest.mark.parametrize("name, param", [("sequence", "n_bits"), ("pa1", "average"), ("arow-full", "max_iter")])
def test_a_file_of_this_olearn_lacking_a_hyperparameter_is_refused(tmp_path, name, param):
    """Found by the fuzz campaign: a PASequence file without n_bits loaded with n_bits=None and predicted other tags
    (its names had been hashed). A file that says it records every hyperparameter must."""
    path = _saved(tmp_path, name)
    meta, arrays = _members(path)
    assert meta["all_params"] is True
    del meta["params"][param]
    _write(path, meta, arrays)
    _refused(path, rf"the metadata lacks the \w+ hyperparameters \['{param}'\]")
    # an older olearn's file does not say so, and loads with the default (what that model did)
    del meta["all_params"]
    _write(path, meta, arrays)
    loaded = olearn.load(path)
    assert getattr(loaded, param) == type(loaded)().get_params()[param]


def test_a_bad_all_params_entry_is_refused(tmp_path):
    path = _changed(tmp_path, "pa1", meta={"all_params": 1})
    _refused(path, r"metadata entry 'all_params' is 1; expected true")


@pytest.mark.parametrize("name", ["pa-rbf-budget", "perceptron-poly", "multiclass-rbf"])
def test_a_kernel_model_with_an_average_is_refused_at_load(tmp_path, name):
    """Found by the fuzz campaign: average=31 loaded, and then every prediction raised."""
    path = _changed(tmp_path, name, params={"average": 31})
    _refused(path, r"invalid \w+ hyperparameters .*average=31 (is not available with a|cannot be combined with) "
                   r"kernel")
