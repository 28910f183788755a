"""The service's files are its user's only (0600, the folder 0700), and a token file or a state folder
that other users can read is reported at start."""

import os
import stat

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_state_is_private_and_readable_secrets_are_reported(serve, tmp_path, token_file):
    os.chmod(token_file, 0o644)
    server = serve(["--algo", "pa1", "--snapshot-every", "1"], tmp_path / "state")
    with server.client() as client:
        for i in range(3):
            assert client.post("/learn", json={"x": {"user": f"u{i}@example.com"}, "y": 1}).status_code == 200
        assert client.get("/model").status_code == 200
    server.stop()
    names = os.listdir(server.state_dir)
    assert any(name.startswith("snapshot-") for name in names) and any(name.startswith("log-") for name in names)
    assert _mode(server.state_dir) == 0o700
    for name in names:
        assert _mode(os.path.join(server.state_dir, name)) == 0o600, name
    output = server.output()
    assert f"the token file {token_file} can be read by other users (mode 644); chmod 600" in output
    assert "the state folder" not in output


def test_a_state_folder_others_can_read_is_reported(serve, tmp_path, token_file):
    os.chmod(token_file, 0o600)
    state = tmp_path / "shared"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    server = serve(["--algo", "pa1"], state)
    output = server.output()
    assert f"the state folder {state} can be read by other users (mode 755); chmod 700" in output
    assert "the token file" not in output
