"""One way to open the store: a PostgreSQL URL gives the PostgreSQL store, anything else a SQLite file."""

from __future__ import annotations

from storage.errors import StoreUnavailable
from storage.store import Store

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL database rather than a SQLite file."""
    return target.strip().lower().startswith(_POSTGRES_SCHEMES)


def open_store(target: str) -> Store:
    """The store at ``target``: a ``postgresql://`` or ``postgres://`` URL opens
    :class:`storage.postgres.PostgresStore`, anything else is a SQLite file path (or ``:memory:``).

    Both have the same methods and records; errors are storage's own (:class:`StoreUnavailable` when
    the database can't be opened)."""
    target = str(target)
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
