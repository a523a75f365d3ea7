"""The store's named errors. Each ``str()`` is one line naming the database, fit to show a person;
the bot turns them into replies and exit statuses at its edges."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator


class StorageError(Exception):
    """The database could not do what was asked."""


class StoreUnavailable(StorageError):
    """The database can't be opened or read (a missing folder, no permission, not a database)."""


class StoreBusy(StorageError):
    """Another process held the database's write lock for longer than a write waits."""


class StoreFull(StorageError):
    """The disk (or the database's size limit) is full: nothing more can be written."""


@contextlib.contextmanager
def translated(where: str) -> Iterator[None]:
    """Turn SQLite's own errors raised inside into the named errors above, naming ``where``."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise _named(exc, where) from exc
    except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
        if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
            raise
        raise StoreUnavailable(f"{where} is not a usable database ({exc})") from exc


def _named(exc: sqlite3.OperationalError, where: str) -> Exception:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(f"{where} is busy: another process has held its write lock too long")
    if "full" in text:
        return StoreFull(f"{where}: the disk is full, so nothing more could be saved")
    if "unable to open" in text or "readonly" in text or "disk I/O" in text:
        return StoreUnavailable(f"can't open the database {where} ({text})")
    return exc
