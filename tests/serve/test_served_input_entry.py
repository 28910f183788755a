"""The model files of a service record the ``input`` entry of the model it started from (how its training data
was read, the K of ``olearn run --oaa K``), and the state keeps it: a model fetched from the service, a snapshot
or a version, resumed with ``olearn run -i``, refuses the labels the fresh run refused, and a service restarted on
its state folder takes only the labels 1..K."""

import subprocess
import sys

import olearn
from olearn._persistence import read_input_info

from serve_helpers import PATIENCE, require_serve_extra

require_serve_extra()

# what olearn run --oaa 3 records of a VW file read with the default options (18 hash bits)
OAA_3_OF_VW = {"format": "vw", "bits": 18, "oaa": 3}


def _olearn(*args, cwd):
    return subprocess.run([sys.executable, "-m", "olearn", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=PATIENCE)


def test_a_served_oaa_model_keeps_refusing_labels_past_k_in_its_files_and_after_a_restart(serve, tmp_path):
    (tmp_path / "train.vw").write_text("1 | a\n2 | b\n")
    (tmp_path / "four.vw").write_text("4 | a\n")
    assert _olearn("run", "--oaa", "3", "train.vw", "-f", "m.npz", "--quiet", cwd=tmp_path).returncode == 0
    assert read_input_info(tmp_path / "m.npz") == OAA_3_OF_VW
    state = tmp_path / "state"
    server = serve([str(tmp_path / "m.npz")], state)
    with server.client() as client:
        assert client.post("/learn", json={"x": {"5": 1.0}, "y": 3}).status_code == 200
        assert client.post("/versions").status_code == 200
        (tmp_path / "served.npz").write_bytes(client.get("/model").content)
    assert read_input_info(tmp_path / "served.npz") == OAA_3_OF_VW
    # the files the service wrote in its state folder record it too: the first snapshot (MODEL) and the version
    assert read_input_info(state / f"snapshot-{0:016d}.npz") == OAA_3_OF_VW
    assert read_input_info(state / f"version-{1:010d}.npz") == OAA_3_OF_VW

    # olearn run -i of the fetched model refuses the label 4, as the fresh run does (not a new class learned)
    fresh = _olearn("run", "--oaa", "3", "four.vw", "--quiet", cwd=tmp_path)
    resumed = _olearn("run", "-i", "served.npz", "four.vw", "--quiet", cwd=tmp_path)
    assert fresh.returncode == 1 and "example 1 has the label 4, which --oaa 3 (labels 1 to 3) do not list" in \
        fresh.stderr
    assert resumed.returncode == 1 and "example 1 has the label 4, which --oaa 3 (labels 1 to 3, kept by the model " \
        "served.npz) do not list" in resumed.stderr

    # a restart on the state folder, without MODEL, takes the labels 1..3 only, the log replayed from the checkpoint
    server.kill()
    server = serve(["--algo", "pa1-multiclass"], state)
    with server.client() as client:
        refused = client.post("/learn", json={"x": {"5": 1.0}, "y": 4})
        assert refused.status_code == 422, refused.text
        assert "this service takes the labels 1, 2, 3 (--oaa 3, which the model was learned with)" in \
            refused.json()["error"]
        assert client.post("/learn", json={"x": {"6": 1.0}, "y": 2}).status_code == 200
        assert client.get("/health").json()["updates"] == 2
        (tmp_path / "restarted.npz").write_bytes(client.get("/model").content)
    assert read_input_info(tmp_path / "restarted.npz") == OAA_3_OF_VW
    server.stop()
    # and a --classes other than 1..3 is refused at the start of the state, as with MODEL
    done = _olearn("serve", "--algo", "pa1-multiclass", "--classes", "1,2", "--public-reads", "--state-dir",
                   str(state), "--port", "0", cwd=tmp_path)
    assert done.returncode == 1 and "--classes names other labels than 1..3" in done.stderr


def test_the_model_files_record_the_reading_of_vw_lines_in_place_of_another_format_and_keep_k():
    from olearn.serve._vw_daemon import VWReading, served_input

    libsvm = {"format": "libsvm", "zero_based": False, "oaa": 4}
    assert served_input(libsvm, None) is libsvm
    assert served_input(libsvm, VWReading(12)) == {"format": "vw", "bits": 12, "oaa": 4}
    # a VW file read as the lines are: the entry whole, the names behind its hashed columns too
    vw = {"format": "vw", "bits": 12, "hashed_names": {"columns": {"3": ["f^a"]}, "limit": 10, "complete": True}}
    assert served_input(vw, VWReading(12)) is vw
    assert served_input(vw, VWReading(14)) == {"format": "vw", "bits": 14}


def _store_of(folder, input_info=None, feature_keys=None):
    from olearn.serve._store import Store

    store = Store(folder)
    return store, store.open(olearn.PAMulticlass, say=lambda text: None, input_info=input_info,
                             feature_keys=feature_keys)


def test_a_state_keeps_its_input_entry_and_one_of_before_it_was_kept_takes_models(tmp_path):
    from olearn.serve._wal import encode, read_log

    state = tmp_path / "state"
    store, model = _store_of(state, feature_keys="indices")  # started from a learner, with no entry
    assert model.input_info == {}
    store.close()
    store, model = _store_of(state, OAA_3_OF_VW)  # a state keeps its own: the MODEL given is not read
    assert model.input_info == {}
    store.close()
    # the checkpoint as an olearn of before wrote it, without the entry: the MODEL given at the restart gives it,
    # as the command line read its --oaa K at every start, and a new checkpoint keeps it (and the feature keys)
    (path,) = state.glob("log-*.wal")
    records, _ = read_log(path)
    del records[0]["input"]
    path.write_bytes(b"".join(encode(record) for record in records))
    store, model = _store_of(state, OAA_3_OF_VW)
    assert model.input_info == OAA_3_OF_VW and model.feature_keys == "indices"
    store.close()
    (path,) = state.glob("log-*.wal")
    assert read_log(path)[0][0]["input"] == OAA_3_OF_VW
    store, model = _store_of(state)
    assert model.input_info == OAA_3_OF_VW and model.feature_keys == "indices"
    store.close()
