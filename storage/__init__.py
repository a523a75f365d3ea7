"""Persistence: SQLite through sqlite-utils. Knows nothing of Slack or scikit-learn."""

from storage.models import Feedback, Paper, Person, UpsertCounts
from storage.sqlite import PERSONAL_TABLES, Store

__all__ = ["PERSONAL_TABLES", "Feedback", "Paper", "Person", "Store", "UpsertCounts"]
