"""A consistent copy of a SQLite database that may be in use (``paperbot db backup``).

SQLite's online backup API copies the pages as of one moment. It copies in steps of :data:`STEP_PAGES`
pages, letting go of the source between steps, so a busy bot never waits long for it; a write by
another connection between steps makes SQLite start the copy again. A database written to more often
than a copy takes could restart forever, so after :data:`RESTARTS` restarts the rest is copied in one
step: the database is in WAL mode, where that step is a read transaction, which writers don't wait for.

The copy is written under a temporary name beside the target, checked (``PRAGMA integrity_check``), made
a single self-contained file (rollback journal rather than WAL: it can be moved on its own; paperbot
turns WAL back on when it opens it), synced, and only then given the target's name, so a target name
never holds half a copy. PostgreSQL has its own tools for this: :data:`POSTGRES_RECIPE`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from storage.errors import StorageError, translated
from storage.opening import is_postgres_url

#: Pages copied per step (4 MiB at SQLite's default 4 KiB page size): a few milliseconds of the source.
STEP_PAGES = 1024
#: Restarts (writes by others between steps) before the rest is copied in one step.
RESTARTS = 5
#: How long a step waits for a connection that holds the database exclusively (a migration).
BUSY_SECONDS = 90

POSTGRES_RECIPE = ("pg_dump -Fc --no-owner -f paperbot.dump \"$PAPERBOT_DB\"; restore into an empty database"
                   " with pg_restore --no-owner -d postgresql://…/new paperbot.dump")


class BackupRefused(StorageError):
    """The backup was not made: the target exists, or the source is not a SQLite file to back up."""


@dataclass(frozen=True)
class BackupResult:
    """What a backup wrote: the copy's path, its size in bytes and pages, and how often it restarted."""

    path: str
    size: int
    pages: int
    restarts: int


def backup_sqlite(source: str | Path, target: str | Path, force: bool = False,
                  step_pages: int = STEP_PAGES, restarts: int = RESTARTS,
                  progress: Callable[[int, int], None] | None = None) -> BackupResult:
    """Copy the SQLite database ``source`` (in use or not) to ``target``, consistently.

    Raises :class:`BackupRefused` when ``source`` is a PostgreSQL URL (the message gives
    :data:`POSTGRES_RECIPE`) or no file, or when ``target`` exists and not ``force``; a StorageError when
    either can't be read or written. ``progress(done, total)`` is called with pages after each step."""
    source, target = str(source), Path(target)
    if is_postgres_url(source):
        # The URL is not repeated: it may hold a password.
        raise BackupRefused(f"the database is PostgreSQL: back it up with PostgreSQL's own tools: "
                            f"{POSTGRES_RECIPE}")
    if not Path(source).is_file():
        raise BackupRefused(f"there is no SQLite database at {source} to back up")
    if target.exists() and not force:
        raise BackupRefused(f"{target} exists already: give another name, or --force to replace it")
    if target.is_dir():
        raise BackupRefused(f"{target} is a folder: give a file name")
    if target.resolve() == Path(source).resolve():
        raise BackupRefused(f"{target} is the database itself: give another name")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        pages, restarted = _copy(source, partial, step_pages, restarts, progress)
        _check_and_seal(partial)
        _rename(partial, target, force)
    finally:
        for leftover in (partial, Path(f"{partial}-journal"), Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    return BackupResult(str(target), target.stat().st_size, pages, restarted)


class _Restarted(Exception):
    """Raised from the progress callback to stop a step-wise copy that keeps restarting."""


def _copy(source: str, partial: Path, step_pages: int, restarts: int,
          progress: Callable[[int, int], None] | None) -> tuple[int, int]:
    """Copy ``source`` into ``partial``: step-wise, then at once after ``restarts`` restarts. Returns the
    pages copied and the restarts seen."""
    # Read-write, though nothing is written: a read-only connection can't recover the WAL a crashed
    # process left, and mode=rw never creates a missing file.
    with translated(source):
        src = sqlite3.connect(Path(source).resolve().as_uri() + "?mode=rw", uri=True, timeout=BUSY_SECONDS)
    try:
        with translated(str(partial)):
            stepwise = _Steps(restarts, progress)
            try:
                return _attempt(src, partial, step_pages, stepwise), stepwise.restarts
            except _Restarted:
                at_once = _Steps(None, progress)
                return _attempt(src, partial, -1, at_once), stepwise.restarts + at_once.restarts
    finally:
        src.close()


class _Steps:
    """The progress callback of one attempt: counts restarts (pages left going up), and gives up the
    attempt after ``limit`` of them."""

    def __init__(self, limit: int | None, progress: Callable[[int, int], None] | None):
        self.limit, self.progress = limit, progress
        self.restarts = 0
        self._remaining: int | None = None

    def __call__(self, _status: int, remaining: int, total: int) -> None:
        if self._remaining is not None and remaining > self._remaining:
            self.restarts += 1
            if self.limit is not None and self.restarts >= self.limit:
                raise _Restarted
        self._remaining = remaining
        if self.progress is not None:
            self.progress(total - remaining, total)


def _attempt(src: sqlite3.Connection, partial: Path, pages: int, steps: _Steps) -> int:
    """One backup of ``src`` into ``partial`` (overwritten) in steps of ``pages``; its page count."""
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst, pages=pages, progress=steps, sleep=0)
        return int(dst.execute("pragma page_count").fetchone()[0])
    finally:
        dst.close()


def _check_and_seal(partial: Path) -> None:
    """Check the copy, make it one file (no WAL), and sync it to disk."""
    with translated(str(partial)):
        conn = sqlite3.connect(partial)
        try:
            found = [row[0] for row in conn.execute("pragma integrity_check")]
            if found != ["ok"]:
                raise StorageError(f"the copy failed SQLite's integrity check: {'; '.join(found[:3])}")
            conn.execute("pragma journal_mode = delete")
        finally:
            conn.close()
    fd = os.open(partial, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _rename(partial: Path, target: Path, force: bool) -> None:
    """Give the copy the target's name; without ``force``, never over a file that appeared meanwhile."""
    try:
        if force:
            os.replace(partial, target)
        else:
            os.link(partial, target)  # fails if the target exists, unlike a rename
    except FileExistsError:
        raise BackupRefused(f"{target} exists already: give another name, or --force to replace it") from None
    except OSError as exc:
        raise StorageError(f"can't write the backup {target} ({exc.strerror or exc})") from exc
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
