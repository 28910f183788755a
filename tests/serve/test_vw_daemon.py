"""``olearn serve --vw-port``: VW's daemon protocol, spoken by a client as VW users write theirs (lines streamed
over a socket, netcat-style), answered as ``olearn predict`` answers the same file, learned durably."""

import contextlib
import io
import re
import socket
import subprocess
import sys

import olearn

from serve_helpers import PATIENCE, TOKEN, require_serve_extra

require_serve_extra()

TRAIN = "1 |f a:1 b:2\n-1 'neg|f c:1\n1 |g a b\n-1 |f c:2 d\n1 0.5 |f a:0.25 |g b\n"
TEST = "|f a:1\n'mytag |f a:1 c:1\n|g a\n\n|f d b:0.5\nwho|f c:3 a\n"


def _olearn(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "olearn", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _vw_port(server):
    """The VW port of ``server``'s last start (its log holds every start)."""
    return int(re.findall(r"VW's daemon protocol on 127\.0\.0\.1:([0-9]+)", server.output())[-1])


def _stream(port, text):
    """Send ``text`` on a new connection, half-close it, and read every answer line until the service closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as sock:
        sock.sendall(text.encode())
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.decode().splitlines()


def test_predictions_are_those_of_olearn_predict_and_labelled_lines_learn(serve, tmp_path):
    (tmp_path / "train.vw").write_text(TRAIN)
    (tmp_path / "test.vw").write_text(TEST)
    _olearn("run", "-a", "pa1", "-b", "12", "train.vw", "--save", "model.npz", cwd=tmp_path)
    expected = _olearn("predict", "-m", "model.npz", "test.vw", cwd=tmp_path).split()
    server = serve([str(tmp_path / "model.npz"), "--vw-port", "0"])
    port = _vw_port(server)
    # one line out per example line, the blank one skipped; a tag follows the prediction, as vw --daemon writes it
    tags = ["", " mytag", "", "", " who"]
    assert _stream(port, TOKEN + "\n" + TEST) == [label + tag for label, tag in zip(expected, tags)]
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 0  # unlabelled lines are not learned
        # nor kept for feedback by id: VW clients send no ids, so their predictions name none and log nothing
        assert re.search(r"^olearn_feedback_pending 0\.0$", client.get("/metrics").text, re.M)

    # labelled lines are predicted before they are learned, and learned once in the log, as olearn learns the file
    offline = olearn.load(tmp_path / "model.npz")
    X, y, weights = olearn.data.load_vw(tmp_path / "test.vw", n_bits=12)
    labelled = "".join(f"{1 if k % 2 else -1} {line}\n" for k, line in enumerate(TEST.splitlines()) if line)
    (tmp_path / "labelled.vw").write_text(labelled)
    X, y, weights = olearn.data.load_vw(tmp_path / "labelled.vw", n_bits=12)
    want = [str(int(offline.predict_learn_one(X[i], y[i]))) for i in range(X.shape[0])]
    assert _stream(port, TOKEN + "\n" + labelled) == [label + tag for label, tag in zip(want, tags)]
    server.kill()
    server.start()  # after kill -9, the model is the log's
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 5
        (tmp_path / "served.npz").write_bytes(client.get("/model").content)
    assert olearn.load(tmp_path / "served.npz").coef_.tolist() == offline.coef_.tolist()


def test_a_connection_without_the_token_is_refused_and_a_read_token_only_predicts(serve, tmp_path):
    (tmp_path / "read.txt").write_text("read-token-0123456789abcdef\n")
    (tmp_path / "read.txt").chmod(0o600)
    server = serve(["--algo", "pa1", "--vw-port", "0", "--classes=-1,1", "--read-token-file", str(tmp_path / "read.txt")])
    port = _vw_port(server)
    refused = _stream(port, "1 |f a\n")
    assert len(refused) == 1 and refused[0].startswith("error: the first line must be a token")
    answers = _stream(port, "read-token-0123456789abcdef\n1 |f a\n|f a\n")
    assert answers[0].startswith("error: learning needs the write token") and answers[1] == "0"
    # a line the service refuses is answered with an error, and the lines after it are served
    answers = _stream(port, TOKEN + "\n1 |f a\n7 |f a\n-1 |f b\n|f a\nno bar here\n")
    assert answers[0] == "0" and answers[2] == "1" and answers[3] == "1"
    assert answers[1].startswith("error: ") and answers[4].startswith("error: column")
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 2


def test_loopback_connections_need_no_token_when_trusted(serve, tmp_path):
    server = serve(["--algo", "pa1", "--vw-port", "0", "--vw-trust-loopback"])
    assert _stream(_vw_port(server), "1 |f a\n-1 |f b\n|f a\n") == ["0", "1", "1"]


def test_the_client_of_the_docs_runs(serve, tmp_path, monkeypatch):
    import pathlib

    page = pathlib.Path(__file__).resolve().parents[2] / "docs" / "serve.md"
    block = next(b for b in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S) if "socket" in b)
    server = serve(["--algo", "pa1", "--vw-port", "0"])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "token.txt").write_text(TOKEN + "\n")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block.replace("26542", str(_vw_port(server))), "serve.md", "exec"), {})
    assert printed.getvalue().splitlines() == ["0", "1 query42"]


def test_how_lines_are_read_is_kept_with_the_state_and_in_the_model_file(serve, tmp_path):
    (tmp_path / "train.vw").write_text(TRAIN)
    (tmp_path / "test.vw").write_text(TEST)
    state = tmp_path / "state"
    server = serve(["--algo", "pa1", "--vw-port", "0", "--vw-bits", "12"], state)
    _stream(_vw_port(server), TOKEN + "\n" + TRAIN)
    answered = _stream(_vw_port(server), TOKEN + "\n" + TEST)
    with server.client() as client:
        (tmp_path / "served.npz").write_bytes(client.get("/model").content)
    # the model file says how VW files are read into its columns: olearn predict reads test.vw as the service did
    done = subprocess.run([sys.executable, "-m", "olearn", "predict", "-m", "served.npz", "test.vw"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0 and "does not record" not in done.stderr
    assert done.stdout.split() == [line.split()[0] for line in answered]
    assert olearn.load(tmp_path / "served.npz").n_features_in_ <= 2**12
    server.stop()
    # a restart without --vw-bits reads lines as the state learned them, into the same 2^12 columns
    server = serve(["--algo", "pa1", "--vw-port", "0"], state)
    assert _stream(_vw_port(server), TOKEN + "\n" + TEST) == answered
    server.stop()
    refused = subprocess.run([sys.executable, "-m", "olearn", "serve", "--algo", "pa1", "--vw-port", "0",
                              "--vw-bits", "18", "--token-file", server.token_file, "--state-dir", str(state),
                              "--port", "0"], capture_output=True, text=True, timeout=PATIENCE)
    assert refused.returncode != 0 and "start without --vw-bits, or with --vw-bits 12" in refused.stderr
    # a restart without --vw-port still says, in its model files, how the state's lines were read
    server = serve(["--algo", "pa1"], state)
    with server.client() as client:
        (tmp_path / "restarted.npz").write_bytes(client.get("/model").content)
    assert olearn._persistence.read_input_info(tmp_path / "restarted.npz") == {"format": "vw", "bits": 12}


def test_vw_bits_may_not_contradict_the_models_training_file(tmp_path):
    (tmp_path / "train.vw").write_text(TRAIN)
    _olearn("run", "-a", "pa1", "-b", "12", "train.vw", "--save", "model.npz", cwd=tmp_path)
    done = subprocess.run([sys.executable, "-m", "olearn", "serve", "model.npz", "--vw-port", "0", "--vw-bits", "14",
                           "--public-reads", "--state-dir", "state"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=PATIENCE)
    assert done.returncode == 2 and "--vw-bits 14: model.npz was learned from a VW file hashed into 2^12" in done.stderr
