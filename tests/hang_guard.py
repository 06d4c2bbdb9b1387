"""A test that hangs fails the run, printing where every thread was, instead of hanging it:
each test (set-up and tear-down included) gets HANG_GUARD_SECONDS, by default 300, then
faulthandler ends the process. Whole runs take well under a minute here; a hang in a
process-handling test would otherwise stop the run, and CI, for good."""

import faulthandler
import os

import pytest

SECONDS = float(os.environ.get("HANG_GUARD_SECONDS", 300))
_stderr = None


def pytest_configure(config):
    global _stderr
    # A copy of the real stderr, taken before the tests run: pytest redirects file
    # descriptor 2 while a test runs, and that output is lost when the process ends.
    _stderr = os.dup(2)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(SECONDS, exit=True, file=_stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
