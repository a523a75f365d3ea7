"""Throttled progress reports, so a CLI can draw a bar without being called per record."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, "int | None"], None]

#: Records between two reports; a report is always made at the end too.
EVERY = 500


class Ticker:
    """Counts records and calls ``progress(done, total)`` every ``every`` records and at the end.

    ``done`` and ``total`` are in whatever unit the caller measures (bytes, entries); the record
    count only sets the pace of the reports.
    """

    def __init__(self, progress: Progress | None, total: int | None, every: int = EVERY) -> None:
        self.progress = progress
        self.total = total
        self.every = every
        self.count = 0

    def tick(self, done: int) -> None:
        """Note one more record; report when it completes a batch."""
        self.count += 1
        if self.progress is not None and self.count % self.every == 0:
            self.progress(done, self.total)

    def finish(self, done: int) -> None:
        """Report the final position."""
        if self.progress is not None:
            self.progress(done, self.total)
