"""A parallel run keeps the tests of one ``xdist_group`` on one worker (the hook in ``tests/conftest.py``).

xdist's scheduler groups by the ``@NAME`` suffix of the node ids it gets from the workers; without it
the doc pages that serve on one port could run at once, and a module's shared build is made per worker.
"""

import pytest


@pytest.mark.xdist_group("suffix-check")
def test_a_grouped_test_runs_under_its_groups_name(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not a worker of a --dist loadgroup run")
    assert request.node.nodeid.endswith("::test_a_grouped_test_runs_under_its_groups_name@suffix-check")


def test_an_ungrouped_test_keeps_its_node_id(request):
    assert request.node.nodeid.endswith("::test_an_ungrouped_test_keeps_its_node_id")
