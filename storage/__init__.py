"""Persistence: SQLite through sqlite-utils, or PostgreSQL through psycopg (``open_store`` picks one).
Knows nothing of Slack or scikit-learn."""

from storage.errors import StorageError, StoreBusy, StoreFull, StoreUnavailable
from storage.models import (
           DigestRecord,
           Feedback,
           JobRecord,
           Paper,
           Person,
           SavedPaper,
           UpsertCounts,
           WorkspaceSummary,
)
from storage.opening import is_postgres_url, open_store

# The SQLite store (and sqlite-utils, ~0.15 s to import) loads on first use, so what needs only the
# records (`paperbot eval`, the paper views) starts without it.
_LAZY = ("Store", "PERSONAL_TABLES")


def __getattr__(name: str):
    if name in _LAZY:
        from storage import sqlite

        return getattr(sqlite, name)
    raise AttributeError(f"module 'storage' has no attribute {name!r}")


__all__ = ["PERSONAL_TABLES", "DigestRecord", "Feedback", "JobRecord", "Paper", "Person", "Store",
           "StorageError", "StoreBusy", "StoreFull", "StoreUnavailable", "UpsertCounts", "WorkspaceSummary",
           "is_postgres_url", "open_store", "SavedPaper"]
