"""A clock the test moves by hand, for code that takes ``clock=`` (digests, their retries and leases)."""

from __future__ import annotations

from datetime import datetime, timedelta


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
