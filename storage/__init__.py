"""Persistence: SQLite through sqlite-utils, or PostgreSQL through psycopg (``open_store`` picks one).
Knows nothing of Slack or scikit-learn. :class:`Store` is the one interface both backends implement."""

from storage.errors import StorageError, StoreBusy, StoreFull, StoreUnavailable
from storage.models import (
           DigestRecord,
           Feedback,
           JobRecord,
           Paper,
           PaperEvent,
           Person,
           SavedPaper,
           StoredInstallation,
           UpsertCounts,
           WorkspaceSummary,
)
from storage.opening import (
    ACCEPTED_FORMS,
    UnknownDatabase,
    database_target,
    is_new_file,
    is_postgres_url,
    open_store,
    remove_sqlite_file,
)
from storage.store import Store
from storage.tables import PERSONAL_TABLES

# The backends load on first use: the SQLite one (and sqlite-utils, ~0.15 s to import) so that what
# needs only the records (`paperbot eval`, the paper views) starts without it; the PostgreSQL one since
# psycopg is an optional extra.
_LAZY = {"SqliteStore": "storage.sqlite", "PostgresStore": "storage.postgres"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'storage' has no attribute {name!r}")


__all__ = ["ACCEPTED_FORMS", "PERSONAL_TABLES", "DigestRecord", "Feedback", "JobRecord", "Paper",
           "PaperEvent", "Person",
           "PostgresStore", "SavedPaper", "SqliteStore", "StorageError", "Store", "StoreBusy", "StoreFull",
           "StoreUnavailable", "StoredInstallation", "UnknownDatabase", "UpsertCounts", "WorkspaceSummary",
           "database_target", "is_new_file", "is_postgres_url", "open_store", "remove_sqlite_file"]
