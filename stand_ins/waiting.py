"""The one way the tests and the benchmarks wait: poll a condition that another thread or process makes
true, up to a deadline, and fail naming what was waited for."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout: float = 15.0, what: str = "condition",
               pause: float = 0.02, detail: Callable[[], str] | None = None):
    """Poll ``condition`` until it returns something truthy (returned); fail after ``timeout`` seconds,
    naming ``what`` was waited for (and ``detail()``, what the failure should show, when given).
    ``condition`` may itself raise, to give up at once (a process it waits on has ended)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            more = f"\n{detail()}" if detail is not None else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{more}")
        time.sleep(pause)  # what is waited for happens in another thread or process
