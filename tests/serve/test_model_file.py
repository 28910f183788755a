"""``GET /model`` sends the model of the acknowledged updates, made in memory: a read never writes to disk."""

import os

import olearn

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()


def _files(folder):
    return {name: (os.stat(os.path.join(folder, name)).st_size, os.stat(os.path.join(folder, name)).st_mtime_ns)
            for name in os.listdir(folder)}


def test_model_reads_write_nothing_and_send_every_acknowledged_update(serve, tmp_path):
    server = serve(["--algo", "pa1", "--snapshot-every", "1000000", "--snapshot-seconds", "3600"])
    offline = olearn.PAClassifier(variant="pa1")
    with server.client() as client:
        assert client.get("/model").status_code == 409  # nothing learned yet
        before = _files(server.state_dir)
        for round_ in range(3):
            x, y = {"user": f"u{round_}", "3": 0.5 + round_}, (-1) ** round_
            assert client.post("/learn", json={"x": x, "y": y}).status_code == 200
            offline.learn_one(x, y)  # "3" is a name: an --algo service reads every key as one
            logged = _files(server.state_dir)
            assert logged.keys() == before.keys()  # the log grew; no snapshot was taken
            for _ in range(3):
                response = client.get("/model")
                assert response.status_code == 200
                assert response.headers["X-Olearn-Updates"] == str(round_ + 1)
                assert _files(server.state_dir) == logged
            path = tmp_path / f"model-{round_}.npz"
            path.write_bytes(response.content)
            assert_same_model(olearn.load(path), offline)
