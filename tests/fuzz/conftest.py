"""Fixtures of the fuzz suite: ``campaign`` runs a campaign function in a child process."""

import pytest

from _campaign import run_campaign


@pytest.fixture
def campaign(request):
    """``campaign("module:function", n_examples, seed=0) -> inputs tried``, crash-isolated."""

    def run(target, n_examples, seed=0, timeout=900):
        return run_campaign(request, target, n_examples, seed=seed, timeout=timeout)

    return run
