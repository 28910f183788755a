"""The harness itself: a crash in a campaign fails the test; a clean campaign reports its count."""

import pytest


def campaign_counts(n_examples, seed):
    return n_examples + seed


def campaign_segfaults(n_examples, seed):
    import ctypes

    ctypes.string_at(0)  # reads address 0: SIGSEGV


def campaign_raises(n_examples, seed):
    raise ValueError("an undocumented outcome")


def test_clean_campaign_reports_its_count(campaign, request):
    factor = request.config.getoption("--fuzz-long") or 1.0
    assert campaign("fuzz.test_campaign_isolation:campaign_counts", 7, seed=2) == int(7 * factor) + 2


def test_segfault_in_campaign_fails_the_test_not_the_runner(campaign):
    with pytest.raises(AssertionError, match=r"crashed the interpreter \(signal 11\)"):
        campaign("fuzz.test_campaign_isolation:campaign_segfaults", 1)


def test_exception_in_campaign_fails_with_its_traceback(campaign):
    with pytest.raises(AssertionError, match="an undocumented outcome"):
        campaign("fuzz.test_campaign_isolation:campaign_raises", 1)
