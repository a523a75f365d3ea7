"""Persistence: SQLite through sqlite-utils. Knows nothing of Slack or scikit-learn."""

from storage.errors import StorageError, StoreBusy, StoreFull, StoreUnavailable
from storage.models import DigestRecord, Feedback, JobRecord, Paper, Person, UpsertCounts
from storage.sqlite import PERSONAL_TABLES, Store

__all__ = ["PERSONAL_TABLES", "DigestRecord", "Feedback", "JobRecord", "Paper", "Person", "Store",
           "StorageError", "StoreBusy", "StoreFull", "StoreUnavailable", "UpsertCounts"]
