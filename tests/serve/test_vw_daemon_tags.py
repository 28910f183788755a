"""The tag ``olearn serve --vw-port`` writes after a line's prediction is the one Vowpal Wabbit reads: the last token
before the first ``|`` when it touches the bar (a number too), starts with ``'`` or is not a number.

The tags are those Vowpal Wabbit 9.11 gives the same lines (its Python package's example objects).
"""

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()


@pytest.mark.parametrize("line, tag", [
    (b"1 2|a x", "2"),
    (b"1 0.5 3|a x", "3"),
    (b"1|a x", "1"),
    (b"1 2 |a x", None),
    (b"1 2 'q |a x", "q"),
    (b"0.5 3 mytag|a x", "mytag"),
    (b"|a x", None),
])
def test_the_tag_of_a_line_is_vowpal_wabbit_s(line, tag):
    from olearn.serve._vw_daemon import _tag

    assert _tag(line) == tag
