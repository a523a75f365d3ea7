"""Every table that holds paperbot's data, with its columns: what ``paperbot db copy`` moves between
databases. One list for both backends; a new table or column must be added here (a test compares it with
each backend's schema)."""

from __future__ import annotations

from dataclasses import fields

from storage.models import Person

#: A person's settings: every field of :class:`Person` but its key, each a column of ``people`` of the
#: same name (so a new setting is its field and its column, see :mod:`storage.people`).
PERSON_SETTINGS = tuple(f.name for f in fields(Person) if f.name != "user_id")

#: Table -> its columns, in the order they are copied (papers before the rows that name them).
#: Left out on purpose: the migrations' own records (each database migrates itself) and PostgreSQL's
#: ``pos`` columns (generated again, in the order the rows are copied).
COPIED_TABLES: dict[str, tuple[str, ...]] = {
    "papers": ("id", "arxiv_id", "arxiv_version", "title", "abstract", "authors", "url", "venue",
               "published", "categories", "added_at", "updated_at", "seq", "doi", "title_key", "highlight",
               "result"),
    # Every other id a paper is known by (merged away, or another source's id for it), with its URL.
    "paper_aliases": ("alias", "paper_id", "url", "seq"),
    # Each paper's sentence embedding (paperbot[embeddings]), and the paper change it was made from.
    "paper_vectors": ("paper_id", "model", "seq", "vector", "computed_at"),
    "people": ("ws", "user_id", *PERSON_SETTINGS, "created_at", "tz_checked_at", "dm_channel"),
    "topics": ("ws", "user_id", "topic", "added_at"),
    "feedback": ("ws", "user_id", "paper_id", "value", "created_at"),
    "shown": ("ws", "user_id", "paper_id", "shown_at", "reason", "channel", "message_ts"),
    "digests": ("ws", "user_id", "local_date", "status", "started_at", "finished_at", "papers", "owner",
                "lease_until", "reasons", "header_ts", "failures", "attempts", "error", "outages"),
    "jobs": ("name", "day", "status", "owner", "lease_until", "started_at", "finished_at", "error"),
    "artifacts": ("name", "version", "created_at", "data"),
    "once_keys": ("ws", "key", "expires_at"),
    "installations": ("ws", "installer_id", "enterprise_id", "team_id", "is_enterprise_install", "data",
                      "installed_at", "seq"),
    "oauth_states": ("state", "expires_at"),
    "counters": ("name", "value"),
    "feed_topics": ("ws", "user_id", "feed", "topic", "added_at"),
    "followed_authors": ("ws", "user_id", "key", "name", "added_at"),
    "mutes": ("ws", "user_id", "word", "added_at"),
    "feed_papers": ("ws", "user_id", "paper_id", "feed", "picked_at"),
    # After feedback: importing feedback rows counts them again, and the copied numbers then win.
    "feedback_counters": ("ws", "value"),
    "saved": ("ws", "user_id", "paper_id", "saved_at", "like_from_save"),
    # A channel's settings (its profile and digests are rows of the tables above, under the channel id).
    "channels": ("ws", "channel_id", "set_by", "trending", "trending_since", "created_at"),
    "trending_posts": ("ws", "channel_id", "week", "status", "owner", "lease_until", "started_at",
                       "finished_at", "error", "attempts", "message_ts"),
    # Acknowledged work not carried out yet (and what was): a copy made while the bot is stopped carries
    # it out on the other database, in the same order.
    "inbox": ("seq", "ws", "key", "kind", "subject", "payload", "received_at", "status", "owner",
              "lease_until", "attempts", "error", "finished_at"),
    # A workspace's settings, where it changed one (`paperbot workspaces set`).
    "workspace_settings": ("ws", "social", "updated_at"),
    # A channel's reading-group polls, and each person's vote in one (a row naming them).
    "polls": ("ws", "poll_id", "channel_id", "message_ts", "papers", "status", "version", "opened_at",
              "closed_at", "winner", "winner_ts"),
    "poll_votes": ("ws", "poll_id", "user_id", "paper_id", "voted_at"),
    # A paper a colleague (``by_user``) suggested to a person ("Who should read this?"), sent once.
    "suggestions": ("ws", "user_id", "paper_id", "by_user", "sent_at"),
    # Library exports shared in the DM, each read once per person and Slack file (issue 27).
    "library_imports": ("ws", "user_id", "file_id", "status", "started_at", "finished_at", "counts", "error"),
    "alerts": ("ws", "user_id", "key", "phrase", "added_at"),
    # Who has opened the Home tab, and first when (so Home is published again after a command for them).
    "home_opened": ("ws", "user_id", "opened_at"),
    # How far each arXiv category's announcements were read: a copy goes on from there, not from today.
    "arxiv_cursors": ("category", "announced", "read_at"),
    # Each paper's summary by a model (issue 41), and the calls made each day (the daily limit's count).
    "summaries": ("paper_id", "model", "status", "text", "reason", "source", "owner", "lease_until",
                  "started_at", "finished_at", "error", "attempts"),
    "summary_calls": ("day", "calls"),
    # What an ingest found happened to each paper (issue 42), and which of it each person was told.
    "paper_events": ("paper_id", "kind", "detail", "found_at"),
    "followups_told": ("ws", "user_id", "paper_id", "kind", "detail", "via", "told_at"),
    # Paper links people posted in channels (issue 43), each interest at a save's weight.
    "shares": ("ws", "user_id", "paper_id", "channel_id", "shared_at"),
    # A channel's weekly recap (issue 43): its setting, and the lease of each week's post.
    "channel_recaps": ("ws", "channel_id", "weekday", "at_time", "tz", "since"),
    "recap_posts": ("ws", "channel_id", "week", "status", "owner", "lease_until", "started_at",
                    "finished_at", "error", "attempts", "message_ts"),
    # Where and when papers are presented, each person's conference plans, and the reminders claimed
    # (issue 43).
    "paper_sessions": ("paper_id", "session", "starts_at", "location"),
    "conference_plans": ("ws", "user_id", "venue", "paper_id", "place", "choice", "added_at", "decided_at"),
    "conference_reminders": ("ws", "user_id", "paper_id", "starts_at", "claimed_at"),
    # Private project descriptions watched for close papers (issue 43), and each alert one brought.
    "watches": ("ws", "user_id", "watch_id", "title", "text", "stricter", "floor", "best", "alerted_at",
                "seen_seq", "created_at"),
    "watch_alerts": ("ws", "user_id", "watch_id", "paper_id", "score", "status", "owner", "lease_until",
                     "attempts", "found_at", "sent_at", "channel", "message_ts", "verdict"),
}

#: Tables the database derives from the papers and keeps itself (triggers, see ``m019_fulltext``):
#: never copied, since the target indexes the papers copied into it. SQLite keeps shadow tables beside
#: its FTS5 table, named after it (``paper_text_data``, …).
DERIVED_TABLES = ("paper_text",)


def derived(table: str) -> bool:
    """Whether ``table`` is one of :data:`DERIVED_TABLES` or a shadow table SQLite keeps for one."""
    return any(table == name or table.startswith(name + "_") for name in DERIVED_TABLES)


#: Tables whose rows each belong to one workspace (a ``ws`` column, part of their keys): what
#: ``delete_workspace`` empties and ``adopt_workspace`` moves, with the installations.
WORKSPACE_TABLES = ("people", "topics", "feedback", "shown", "digests", "once_keys", "feedback_counters",
                    "saved", "feed_topics", "followed_authors", "mutes", "feed_papers", "channels",
                    "trending_posts", "inbox", "workspace_settings", "polls", "poll_votes",
                    "suggestions", "library_imports", "alerts", "home_opened", "followups_told", "shares",
                    "channel_recaps", "recap_posts", "conference_plans", "conference_reminders",
                    "watches", "watch_alerts")

#: Every table with rows about a person, keyed by ``ws`` and ``user_id``: what ``forget_person`` deletes
#: and ``person_rows`` hands over. A new personal table must be added here (and to WORKSPACE_TABLES).
#: A watch's text is the first thing forgetting deletes (issue 43): its tables come first.
PERSONAL_TABLES = ("watches", "watch_alerts",
                   "people", "topics", "feedback", "shown", "digests", "saved", "feed_topics",
                   "followed_authors", "mutes", "feed_papers", "poll_votes", "suggestions",
                   "library_imports", "alerts", "home_opened", "followups_told", "shares",
                   "conference_plans", "conference_reminders")

#: Columns outside the personal tables that name a person, by table: who installed paperbot (an
#: installation) and who last set a channel up. Those rows are the workspace's (its token, the channel's
#: schedule) and stay when the person is forgotten; only their id goes (``forget_person``), and
#: ``person_rows`` hands over the rows naming them. A new column naming a person must be added here.
#: A personal table may name a second person too (a suggestion: the colleague's row, naming the asker):
#: its rows are about whoever either column names, and forgetting the one it names leaves NULL there.
NAMING_COLUMNS: dict[str, str] = {"installations": "installer_id", "channels": "set_by",
                                  "suggestions": "by_user"}

#: Every table with rows about a person or naming one: what ``rows_about`` counts and ``person_rows``
#: hands over (each once).
TABLES_ABOUT_A_PERSON = tuple(dict.fromkeys((*PERSONAL_TABLES, *NAMING_COLUMNS)))


def about_person(table: str) -> str:
    """The condition (one ``?``: the person's id) of the rows of ``table`` (one of
    :data:`TABLES_ABOUT_A_PERSON`) about or naming a person: its person column, or any of its two."""
    names = dict.fromkeys(("user_id",) * (table in PERSONAL_TABLES) + (NAMING_COLUMNS.get(table, ""),))
    names.pop("", None)
    if len(names) == 1:
        return f"{next(iter(names))} = ?"
    return f"? in ({', '.join(names)})"


#: Columns of those rows an export leaves out, by table: an installation's sealed tokens are the
#: workspace's credentials, not the person's data, and its ``seq`` only orders the saves.
UNEXPORTED_COLUMNS: dict[str, frozenset[str]] = {"installations": frozenset({"data", "seq"})}

#: The order rows are read in: insertion order where it is shown (topics, feedback: the SQLite rowid,
#: PostgreSQL's ``pos``), else the key, so that a copy of a copy lists the same rows the same way.
ORDER_BY: dict[str, dict[str, str]] = {
    "sqlite": {"topics": "rowid", "feedback": "rowid"},
    "postgres": {"topics": "pos", "feedback": "pos"},
}
KEYS: dict[str, str] = {
    "papers": "seq, id", "paper_aliases": "seq, alias", "paper_vectors": "paper_id", "people": "ws, user_id",
    "shown": "ws, user_id, paper_id", "digests": "ws, user_id, local_date", "jobs": "name",
    "artifacts": "name", "once_keys": "ws, key",
    "installations": "ws, installer_id", "oauth_states": "state", "counters": "name",
    "feedback_counters": "ws", "saved": "ws, user_id, paper_id", "feed_topics": "ws, user_id, feed, topic",
    "followed_authors": "ws, user_id, key", "mutes": "ws, user_id, word",
    "feed_papers": "ws, user_id, paper_id", "channels": "ws, channel_id",
    "trending_posts": "ws, channel_id, week", "inbox": "seq", "workspace_settings": "ws",
    "polls": "ws, poll_id", "poll_votes": "ws, poll_id, user_id",
    "suggestions": "ws, user_id, paper_id",
    "library_imports": "ws, user_id, file_id",
    "alerts": "ws, user_id, key",
    "home_opened": "ws, user_id",
    "arxiv_cursors": "category",
    "summaries": "paper_id, model",
    "summary_calls": "day",
    "paper_events": "paper_id, kind, detail",
    "followups_told": "ws, user_id, paper_id, kind, detail",
    "shares": "ws, user_id, paper_id",
    "channel_recaps": "ws, channel_id",
    "recap_posts": "ws, channel_id, week",
    "paper_sessions": "paper_id",
    "conference_plans": "ws, user_id, venue, paper_id",
    "conference_reminders": "ws, user_id, paper_id, starts_at",
    "watches": "ws, user_id, watch_id",
    "watch_alerts": "ws, user_id, watch_id, paper_id",
}


def order_by(backend: str, table: str) -> str:
    """The ``order by`` clause of ``table``'s rows on ``backend`` ("sqlite" or "postgres")."""
    return ORDER_BY[backend].get(table) or KEYS[table]


def copied_rows_insert(table: str) -> str:
    """The ``insert`` (qmark style) of copied rows of ``table``: a counter takes the copied value (the
    feedback counters were counted again by the feedback copied: the source's number wins)."""
    names = columns(table)
    if table in ("counters", "feedback_counters"):
        key = names[0]
        return (f"insert into {table} ({key}, value) values (?, ?)"  # noqa: S608
                f" on conflict ({key}) do update set value = excluded.value")
    return f"insert into {table} ({', '.join(names)}) values ({', '.join('?' * len(names))})"  # noqa: S608


def columns(table: str) -> tuple[str, ...]:
    """The copied columns of ``table``; ValueError for a table that is not copied."""
    try:
        return COPIED_TABLES[table]
    except KeyError:
        raise ValueError(f"{table!r} is not one of paperbot's tables") from None
