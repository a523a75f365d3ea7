"""Copying one whole database into another, of either backend (``paperbot db copy``): e.g. an existing
SQLite install into the PostgreSQL database it moves to.

The target must be empty. Everything goes in one transaction on the target, and the counts are checked
before it commits: a copy that fails, or finds the counts different, leaves the target as empty as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from storage.errors import StorageError
from storage.tables import COPIED_TABLES

#: Called as ``progress(table, rows_done, rows_in_table)`` as the copy goes.
Progress = Callable[[str, int, int], None]

#: Rows that every freshly migrated database holds: they don't make a target "hold data". Their
#: numbers are compared as the application reads them instead (the change counter, each workspace's
#: feedback version): a fresh target may hold counter rows the source has none of.
_ALWAYS_THERE = {"counters", "feedback_counters"}


class TargetNotEmpty(StorageError):
    """The copy's target already holds data: copying into it would mix two installs."""


class CopyMismatch(StorageError):
    """The target's counts differ from the source's after copying (nothing was kept)."""


def copy_database(source, target, progress: Progress | None = None, batch_size: int = 1000) -> dict[str, int]:
    """Copy every row of every table of ``source`` into the empty store ``target`` (either backend);
    returns the rows copied per table. Raises :class:`TargetNotEmpty` (before writing anything),
    :class:`CopyMismatch`, or another :class:`StorageError`; the target is then left unchanged."""
    held = _rows_held(target)
    if held:
        raise TargetNotEmpty(f"{target.path} already holds data ({held}): paperbot db copy only copies"
                             " into an empty database")
    totals = source.table_counts()
    copied: dict[str, int] = {}
    with target.transaction():
        for table in COPIED_TABLES:
            done = 0
            if progress:
                progress(table, done, totals[table])
            for batch in source.export_rows(table, batch_size):
                done += target.import_rows(table, batch)
                if progress:
                    progress(table, done, max(totals[table], done))
            copied[table] = done
        _check(source, target, copied)  # inside the transaction: a mismatch keeps nothing
    return copied


def _rows_held(store) -> str:
    """What ``store`` holds, in a few words ("12 papers, 3 people"); empty when it holds nothing."""
    counts = store.table_counts()
    return ", ".join(f"{n} {t}" for t, n in counts.items() if n and t not in _ALWAYS_THERE)


def _check(source, target, copied: dict[str, int]) -> None:
    now = source.table_counts()
    there = target.table_counts()
    for table in COPIED_TABLES:
        if table in _ALWAYS_THERE:
            continue
        if not now[table] == copied[table] == there[table]:
            changed = " (the source changed while copying: stop paperbot and copy again)" \
                if now[table] != copied[table] else ""
            raise CopyMismatch(f"{target.path}: {table} has {there[table]} rows after copying"
                               f" {copied[table]} of {now[table]}{changed}; nothing was kept")
    numbers = [("papers change number", source.max_paper_seq(), target.max_paper_seq())]
    for ws in sorted({""} | {w.ws for w in source.workspaces()}):
        numbers.append((f"feedback version of workspace {ws!r}" if ws else "feedback version",
                        source.for_workspace(ws).feedback_version(),
                        target.for_workspace(ws).feedback_version()))
    for what, ours, theirs in numbers:
        if ours != theirs:
            raise CopyMismatch(f"{target.path}: its {what} is {theirs} after copying, not {ours} as in"
                               f" {source.path}; nothing was kept")


class CopyingStore(Protocol):
    """Every table's rows out and in (``paperbot db copy``)."""

    def table_counts(self) -> dict[str, int]:
        """How many rows each of paperbot's tables holds (every table ``paperbot db copy`` copies)."""
        ...

    def export_rows(self, table: str, batch_size: int = 1000) -> Iterator[list[dict]]:
        """Every row of ``table`` as a dict of its copied columns (storage.tables), ``batch_size`` at a
        time, in the order another store should insert them."""
        ...

    def import_rows(self, table: str, rows: list[dict]) -> int:
        """Add rows exported by another store (of either backend) to ``table``; returns how many.
        For a copy into an empty database: a row already here is a StorageError. Counters take the
        copied value; the papers change counter never goes below the newest copied ``seq``."""
        ...
