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
from storage.sqlite import PERSONAL_TABLES, Store

__all__ = ["PERSONAL_TABLES", "DigestRecord", "Feedback", "JobRecord", "Paper", "Person", "Store",
           "StorageError", "StoreBusy", "StoreFull", "StoreUnavailable", "UpsertCounts", "WorkspaceSummary",
           "is_postgres_url", "open_store", "SavedPaper"]
