"""One way to open the store, and one function that decides what a database setting names
(:func:`database_target`): a PostgreSQL URL gives the PostgreSQL store, a file path (or ``sqlite:///path``)
a SQLite file, anything else is refused."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from urllib.parse import urlsplit

from storage.errors import StoreUnavailable
from storage.store import Store

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_SQLITE_URL = "sqlite:///"
#: A URL's scheme and its "://" (RFC 3986: a letter, then letters, digits, "+", "-", ".").
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: The forms a database setting takes, for the line that refuses another.
ACCEPTED_FORMS = "a file path, sqlite:///path or postgresql://user:password@host:port/dbname"


class UnknownDatabase(StoreUnavailable):
    """A database setting in none of the accepted forms (:data:`ACCEPTED_FORMS`): ``mysql://…``, say."""


def is_postgres_url(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL database rather than a SQLite file."""
    return target.strip().lower().startswith(_POSTGRES_SCHEMES)


def database_target(value: str) -> str:
    """What a database setting (``--db``, ``PAPERBOT_DB``, ``--to``) names, in the form :func:`open_store`
    takes: a ``postgresql://`` (or ``postgres://``) URL as it is; ``sqlite:///path`` as the path, read as
    SQLAlchemy reads it (``sqlite:///x.db`` relative, ``sqlite:////abs/x.db`` absolute); any other
    ``scheme://`` refused (:class:`UnknownDatabase`, the value without its password); anything else a
    file path. The same answer for what it returns, so calling it twice changes nothing."""
    value = str(value)
    if is_postgres_url(value):
        return value
    if value.lower().startswith(_SQLITE_URL) and value[len(_SQLITE_URL):].strip():
        return value[len(_SQLITE_URL):]
    if _SCHEME.match(value.strip()):
        raise UnknownDatabase(f"{_without_password(value.strip())} is not a database paperbot can open: "
                              f"give {ACCEPTED_FORMS}")
    return value


def _without_password(url: str) -> str:
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    return url.replace(f":{password}@", ":***@", 1) if password else url


#: What SQLite (and paperbot's person holds) keep beside a database file.
_BESIDE = ("-wal", "-shm", "-journal", ".holds")


def is_new_file(target: str) -> bool:
    """Whether ``target`` (:func:`database_target`'s form) is a SQLite file not made yet: opening a store
    on it would make it."""
    return not is_postgres_url(target) and target != ":memory:" and not Path(target).exists()


def remove_sqlite_file(target: str) -> None:
    """Delete the SQLite file ``target`` and what SQLite keeps beside it (its WAL, shared memory and
    rollback journal), with every store on it closed first: for a database made in vain."""
    for path in (target, *(f"{target}{suffix}" for suffix in _BESIDE)):
        with contextlib.suppress(FileNotFoundError):
            Path(path).unlink()


def open_store(target: str) -> Store:
    """The store at ``target`` (:func:`database_target`'s forms): a ``postgresql://`` or ``postgres://``
    URL opens :class:`storage.postgres.PostgresStore`, a file path (or ``:memory:``) or
    ``sqlite:///path`` a SQLite file.

    Both have the same methods and records; errors are storage's own (:class:`StoreUnavailable` when
    the database can't be opened, :class:`UnknownDatabase` when ``target`` names none)."""
    target = database_target(target)
    if not is_postgres_url(target):
        from storage.sqlite import SqliteStore

        return SqliteStore(target)
    # Imported here: psycopg is an optional extra, and SQLite users never need it.
    try:
        from storage.postgres import PostgresStore, redacted
    except ImportError as exc:
        raise StoreUnavailable(f"can't open a PostgreSQL database without psycopg ({exc.name} is missing):"
                               " install paperbot with its postgres extra, paperbot[postgres]") from exc
    try:
        return PostgresStore(target)
    except ValueError as exc:  # a URL psycopg can't parse
        raise StoreUnavailable(f"can't open the database {redacted(target)} (not a usable URL)") from exc
