"""A parallel run keeps the tests of one ``xdist_group`` on one worker (the hook in ``tests/conftest.py``).

xdist's scheduler groups by the ``@NAME`` suffix of the node ids it gets from the workers; without it
the doc pages that serve on one port could run at once, and a module's shared build is made per worker.
"""

import pytest


def _in_a_grouping_run(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not a worker of a --dist loadgroup run")


@pytest.fixture(scope="module")
def shared():
    """A module-scoped fixture: the tests that use it are their module's group."""
    return "built once"


@pytest.mark.xdist_group("suffix-check")
def test_a_grouped_test_runs_under_its_groups_name(request):
    _in_a_grouping_run(request)
    assert request.node.nodeid.endswith("::test_a_grouped_test_runs_under_its_groups_name@suffix-check")


def test_a_test_of_a_module_fixture_runs_in_its_modules_group(request, shared):
    _in_a_grouping_run(request)
    assert request.node.nodeid == ("tests/test_xdist_groups.py::test_a_test_of_a_module_fixture_runs_in_its_modules_group"
                                   "@tests/test_xdist_groups.py")


def test_an_ungrouped_test_keeps_its_node_id(request):
    assert request.node.nodeid.endswith("::test_an_ungrouped_test_keeps_its_node_id")
