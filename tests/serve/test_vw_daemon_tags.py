"""The tag ``olearn serve --vw-port`` writes after a line's prediction is the one Vowpal Wabbit reads: the last token
before the first ``|`` when it touches the bar (a number too) or starts with ``'``.

The tags are those Vowpal Wabbit 9.11 gives the same lines (its Python package's example objects). A word in the
place of the label or the importance weight, which VW 9 reads as 0 with a warning (its text parser and
simple_label_parser.cc), is answered with an error line, as ``olearn run`` refuses it.
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


@pytest.mark.parametrize("line, named", [(b"1 yes |a x", "the importance weight 'yes' is not a number"),
                                         (b"yes |a x", "the label 'yes' is not a number")])
def test_a_word_where_vowpal_wabbit_reads_a_number_is_refused_not_taken_for_the_tag(line, named):
    from types import SimpleNamespace

    from olearn.serve._requests import RequestError
    from olearn.serve._vw_daemon import VWDaemon, VWReading

    daemon = VWDaemon(SimpleNamespace(estimator=None), None, None, None, VWReading(n_bits=8))
    with pytest.raises(RequestError, match=named):
        daemon._example(line)
