"""Every table that holds paperbot's data, with its columns: what ``paperbot db copy`` moves between
databases. One list for both backends; a new table or column must be added here (a test compares it with
each backend's schema)."""

from __future__ import annotations

#: Table -> its columns, in the order they are copied (papers before the rows that name them).
#: Left out on purpose: the migrations' own records (each database migrates itself) and PostgreSQL's
#: ``pos`` columns (generated again, in the order the rows are copied).
COPIED_TABLES: dict[str, tuple[str, ...]] = {
    "papers": ("id", "arxiv_id", "arxiv_version", "title", "abstract", "authors", "url", "venue",
               "published", "categories", "added_at", "updated_at", "seq"),
    "people": ("user_id", "tz", "digest_time", "digest_enabled", "created_at", "tz_checked_at",
               "digest_since", "dm_channel"),
    "topics": ("user_id", "topic", "added_at"),
    "feedback": ("user_id", "paper_id", "value", "created_at"),
    "shown": ("user_id", "paper_id", "shown_at", "reason", "channel", "message_ts"),
    "digests": ("user_id", "local_date", "status", "started_at", "finished_at", "papers", "owner",
                "lease_until", "reasons", "header_ts", "failures", "attempts", "error", "outages"),
    "jobs": ("name", "day", "status", "owner", "lease_until", "started_at", "finished_at", "error"),
    "artifacts": ("name", "version", "created_at", "data"),
    "once_keys": ("key", "expires_at"),
    "counters": ("name", "value"),
}

#: The order rows are read in: insertion order where it is shown (topics, feedback: the SQLite rowid,
#: PostgreSQL's ``pos``), else the key, so that a copy of a copy lists the same rows the same way.
ORDER_BY: dict[str, dict[str, str]] = {
    "sqlite": {"topics": "rowid", "feedback": "rowid"},
    "postgres": {"topics": "pos", "feedback": "pos"},
}
KEYS: dict[str, str] = {
    "papers": "seq, id", "people": "user_id", "shown": "user_id, paper_id", "digests": "user_id, local_date",
    "jobs": "name", "artifacts": "name", "once_keys": "key", "counters": "name",
}


def order_by(backend: str, table: str) -> str:
    """The ``order by`` clause of ``table``'s rows on ``backend`` ("sqlite" or "postgres")."""
    return ORDER_BY[backend].get(table) or KEYS[table]


def columns(table: str) -> tuple[str, ...]:
    """The copied columns of ``table``; ValueError for a table that is not copied."""
    try:
        return COPIED_TABLES[table]
    except KeyError:
        raise ValueError(f"{table!r} is not one of paperbot's tables") from None
