"""Fixtures of the tests of ``olearn serve``: servers run as subprocesses on a free port, and always stopped after
the test; the helpers the tests import are in ``serve_helpers``.

``serve`` (fixture): ``serve(args, state_dir)`` starts ``olearn serve`` with
``args`` on the state folder (with ``--token-file`` holding ``TOKEN`` unless
``token=False``) and returns a :class:`Server` once its ``/ready`` answers;
every server a test started is killed at its end.
"""

import pytest

from serve_helpers import TOKEN, Server, free_port


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token.txt"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)  # as an operator keeps it: a token others can read is warned about
    return str(path)


@pytest.fixture
def serve(tmp_path, token_file):
    started = []

    def start(args, state_dir=None, port=None, token=True):
        server = Server(list(args), str(state_dir or tmp_path / "state"), port or free_port(),
                        token_file if token else None)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.kill()
