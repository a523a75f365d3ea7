"""``paperbot db backup``: a consistent copy of a SQLite database in use, with the acknowledged Slack
requests still waiting beside it in its inbox journal (:mod:`bot.state.journal`), so that the copy,
served, carries out everything the original had acknowledged when the backup began.

Saved models and paper vectors live inside the database and come with it; the lock files beside it
(``.holds``, the journal's ``.lock`` files) hold nothing and are made again when needed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from bot.state.journal import Journal, journal_path
from storage import is_postgres_url
from storage.backup import BackupResult, backup_sqlite


@dataclass(frozen=True)
class Backup:
    """A backup made: the database copy, and how many bytes of unsettled journal came with it."""

    database: BackupResult
    journal_bytes: int


def back_up(database: str, target: str, force: bool = False,
            progress: Callable[[int, int], None] | None = None) -> Backup:
    """Copy the SQLite database ``database`` (in use or not) and its unsettled journal to ``target``
    (and ``target``'s journal). Raises :class:`storage.backup.BackupRefused` (a StorageError) when it
    can't: a PostgreSQL URL, no such file, an existing ``target`` without ``force``."""
    # Read before the database is copied: an entry drained meanwhile is then in the copy, and one read
    # here twice over (also in the copy) is put once when the copy's journal is drained.
    unsettled = b"" if is_postgres_url(database) else Journal(database).unsettled()
    result = backup_sqlite(database, target, force=force, progress=progress)
    copied_journal = journal_path(target)
    if unsettled:
        copied_journal.write_bytes(unsettled)
    else:  # a replaced backup's old journal must not be replayed into the new copy
        with contextlib.suppress(FileNotFoundError):
            copied_journal.unlink()
    return Backup(result, len(unsettled))
