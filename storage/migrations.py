"""SQLite's schema: its own first steps m001…m010 as sqlite-utils migrations, then the steps shared with
PostgreSQL (:mod:`storage.schema_steps`, m011 on), where every new step goes. Never edit a released step.

sqlite-utils records each applied step by name in ``_sqlite_migrations`` (migration set "paperbot"), so
a database applies each step once, whichever paperbot made it.
"""

from collections.abc import Callable, Sequence

from sqlite_utils.db import Database
from sqlite_utils.migrations import Migrations

from storage import schema_steps
from storage.merging import Connection, merge_stored_duplicates
from storage.moments import utcnow
from storage.schema_steps import Step

#: The name sqlite-utils records the steps under; every paperbot database has it.
MIGRATION_SET = "paperbot"

#: The released SQLite-only steps, in order, each recorded under its function's name.
HISTORY: list[Callable[[Database], None]] = []


def _released(step: Callable[[Database], None]) -> Callable[[Database], None]:
    HISTORY.append(step)
    return step


@_released
def m001_core(db: Database) -> None:
    db.table("papers").create(
        {
            "id": str,
            "arxiv_id": str,
            "arxiv_version": int,
            "title": str,
            "abstract": str,
            "authors": str,  # JSON list
            "url": str,
            "venue": str,
            "published": str,
            "categories": str,  # JSON list
            "added_at": str,
            "updated_at": str,
            "seq": int,  # bumped on every change, so a running process can pick up new papers
        },
        pk="id",
        not_null={"abstract", "seq"},
    )
    db.table("papers").create_index(["arxiv_id"], unique=True)
    db.table("papers").create_index(["seq"])

    db.table("people").create(
        {
            "user_id": str,
            "tz": str,
            "digest_time": str,  # "HH:MM", local to tz
            "digest_enabled": int,
            "created_at": str,
        },
        pk="user_id",
    )
    db.table("topics").create(
        {"user_id": str, "topic": str, "added_at": str},
        pk=("user_id", "topic"),
    )
    db.table("feedback").create(
        {"user_id": str, "paper_id": str, "value": int, "created_at": str},
        pk=("user_id", "paper_id"),
    )
    db.table("shown").create(
        {
            "user_id": str,
            "paper_id": str,
            "shown_at": str,
            "reason": str,
            "channel": str,
            "message_ts": str,
        },
        pk=("user_id", "paper_id"),
    )
    db.table("shown").create_index(["channel", "message_ts"])
    db.table("digests").create(
        {
            "user_id": str,
            "local_date": str,
            "status": str,  # "sending" | "sent"
            "started_at": str,
            "finished_at": str,
            "papers": str,  # JSON list of paper ids chosen for this digest
        },
        pk=("user_id", "local_date"),
    )
    db.table("artifacts").create(
        {"name": str, "version": int, "created_at": str, "data": bytes},
        pk="name",
    )


@_released
def m002_slack(db: Database) -> None:
    # Slack event ids already handled, so that a redelivered event is processed once.
    db.table("slack_events").create({"event_id": str, "received_at": str}, pk="event_id")
    db.table("slack_events").create_index(["received_at"])
    # When the timezone was last read from Slack (refreshed at most daily).
    db.table("people").add_column("tz_checked_at", str)


@_released
def m003_digests(db: Database) -> None:
    # Exactly-once daily digests: a claim row per person and local day (see Store.start_digest).
    digests = db.table("digests")
    digests.add_column("owner", str)  # "host:pid:start" of the process sending it
    digests.add_column("lease_until", str)  # ISO UTC; another process may take over after it
    digests.add_column("reasons", str)  # JSON {paper id: why it was picked}, beside `papers`
    digests.add_column("header_ts", str)  # the header message, once posted
    digests.add_column("failures", str)  # JSON {paper id: failed attempts}
    digests.add_column("attempts", int)  # runs that ended with something still to send
    digests.add_column("error", str)  # why a digest ended "failed"
    digests.create_index(["local_date"])
    # When the schedule was last set: a time already past on that day starts the next day.
    db.table("people").add_column("digest_since", str)
    # The DM channel, once opened (conversations.open is rate-limited more tightly than posting).
    db.table("people").add_column("dm_channel", str)
    # Daily jobs shared by every process (feed ingestion): one row per job name.
    db.table("jobs").create(
        {"name": str, "day": str, "status": str, "owner": str, "lease_until": str, "started_at": str,
         "finished_at": str, "error": str},
        pk="name",
    )


@_released
def m004_feedback_counter(db: Database) -> None:
    # Bumped by triggers on every change to feedback, whoever makes it, so a process can tell with one
    # read whether its cached view of everyone's likes (the colleagues' co-likes) is stale.
    db.table("counters").create({"name": str, "value": int}, pk="name")
    db.table("counters").insert({"name": "feedback", "value": 0})
    for event in ("insert", "update", "delete"):
        # ``event`` is one of the three constants above.
        db.execute(f"create trigger feedback_{event}_counted after {event} on feedback begin"  # noqa: S608
                   " update counters set value = value + 1 where name = 'feedback'; end")


@_released
def m005_once_keys(db: Database) -> None:
    # Keys of what must run at most once, each kept until it expires: Slack event ids (Slack redelivers
    # for minutes) and the trigger ids of slash commands and clicks (a replay within Slack's 5-minute
    # signature window). Replaces slack_events, whose ids only mattered for minutes.
    db.table("once_keys").create({"key": str, "expires_at": str}, pk="key")
    db.table("once_keys").create_index(["expires_at"])
    db.table("slack_events").drop(ignore=True)


@_released
def m006_digest_outages(db: Database) -> None:
    # Runs of a digest cut short because Slack was down: they set its backoff and never count
    # toward giving up (only the end of the local day does that).
    db.table("digests").add_column("outages", int)


@_released
def m007_job_leases(db: Database) -> None:
    # A finished job's lease_until now says when it may run again (storage.leases); before, it was
    # cleared. A feed ingest done today waits for tomorrow, a failed one may be tried at once.
    db.execute("update jobs set lease_until = date(day, '+1 day') || 'T00:00:00+00:00'"
               " where status = 'done' and lease_until is null and day is not null")
    db.execute("update jobs set lease_until = finished_at where status = 'failed' and lease_until is null")


@_released
def m008_topics_unique_ignoring_case(db: Database) -> None:
    # One row per person and topic ignoring case, kept by the database itself (add_topics inserts with
    # ON CONFLICT DO NOTHING): a check in Python is only atomic under SQLite's exclusive transactions.
    # Any duplicates already stored keep their first spelling. (SQLite's lower() folds ASCII only;
    # add_topics still checks the rest with casefold.)
    db.execute("delete from topics where rowid not in"
               " (select min(rowid) from topics group by user_id, lower(topic))")
    db.execute("create unique index if not exists idx_topics_user_lower_topic"
               " on topics (user_id, lower(topic))")


#: The tables m009 gives a workspace column, with the columns they had and their new keys.
_BY_WORKSPACE = {
    "people": ('"user_id" TEXT, "tz" TEXT, "digest_time" TEXT, "digest_enabled" INTEGER, "created_at" TEXT,'
               ' "tz_checked_at" TEXT, "digest_since" TEXT, "dm_channel" TEXT', "ws, user_id"),
    "topics": ('"user_id" TEXT, "topic" TEXT, "added_at" TEXT', "ws, user_id, topic"),
    "feedback": ('"user_id" TEXT, "paper_id" TEXT, "value" INTEGER, "created_at" TEXT',
                 "ws, user_id, paper_id"),
    "shown": ('"user_id" TEXT, "paper_id" TEXT, "shown_at" TEXT, "reason" TEXT, "channel" TEXT,'
              ' "message_ts" TEXT', "ws, user_id, paper_id"),
    "digests": ('"user_id" TEXT, "local_date" TEXT, "status" TEXT, "started_at" TEXT, "finished_at" TEXT,'
                ' "papers" TEXT, "owner" TEXT, "lease_until" TEXT, "reasons" TEXT, "header_ts" TEXT,'
                ' "failures" TEXT, "attempts" INTEGER, "error" TEXT, "outages" INTEGER',
                "ws, user_id, local_date"),
    "once_keys": ('"key" TEXT, "expires_at" TEXT', "ws, key"),
}

#: A workspace's feedback counter starts at the time in microseconds, not at 0: after a workspace is
#: deleted and installed again, its new counter never repeats a number that a process may still hold
#: for the deleted one's likes (it would take a million feedback writes a second).
FEEDBACK_COUNTER_START = "cast((julianday('now') - 2440587.5) * 86400000000 as integer)"


@_released
def m009_workspaces(db: Database) -> None:
    # One database serves many Slack workspaces: every row about people gets the workspace it belongs
    # to (``ws``: the team id, or the enterprise id of an org install), part of its key, so the same
    # user id in two workspaces is two people. Rows from before get '' ("not assigned yet") until
    # Store.adopt_workspace moves them. SQLite can't change a primary key in place: each table is
    # built again, keeping its rowids (topics and feedback are listed in rowid order).
    for table, (columns, key) in _BY_WORKSPACE.items():
        names = ", ".join(part.split()[0] for part in columns.split(","))
        # Only the constants above are interpolated.
        db.execute(f'create table "{table}_ws" ({columns}, "ws" TEXT NOT NULL DEFAULT \'\','
                   f" primary key ({key}))")
        db.execute(f'insert into "{table}_ws" (rowid, {names}) select rowid, {names} from "{table}"')  # noqa: S608
        db.execute(f'drop table "{table}"')
        db.execute(f'alter table "{table}_ws" rename to "{table}"')
    db.execute("create unique index idx_topics_ws_user_lower_topic on topics (ws, user_id, lower(topic))")
    db.execute("create index idx_shown_ws_channel_message_ts on shown (ws, channel, message_ts)")
    db.execute("create index idx_digests_ws_local_date on digests (ws, local_date)")
    db.execute("create index idx_once_keys_expires_at on once_keys (expires_at)")
    # The feedback counter, one per workspace (the old triggers went with the old feedback table).
    db.execute('create table feedback_counters ("ws" TEXT PRIMARY KEY, "value" INTEGER NOT NULL)')
    db.execute("insert into feedback_counters (ws, value)"
               " select '', value from counters where name = 'feedback'")
    db.execute("delete from counters where name = 'feedback'")
    bump = ("insert into feedback_counters (ws, value) values ({row}.ws, " + FEEDBACK_COUNTER_START + ")"  # noqa: S608
            " on conflict (ws) do update set value = value + 1;")
    db.execute("create trigger feedback_insert_counted after insert on feedback begin "
               + bump.format(row="new") + " end")
    db.execute("create trigger feedback_update_counted after update on feedback begin "
               + bump.format(row="new") + " end")
    db.execute("create trigger feedback_update_moved_counted after update of ws on feedback"
               " when old.ws <> new.ws begin " + bump.format(row="old") + " end")
    db.execute("create trigger feedback_delete_counted after delete on feedback begin "
               + bump.format(row="old") + " end")
    # Shared by every workspace: the installations (their data encrypted by the caller, opaque here)
    # and the single-use states of the OAuth flow.
    db.execute('create table installations ("ws" TEXT NOT NULL, "installer_id" TEXT NOT NULL,'
               ' "enterprise_id" TEXT, "team_id" TEXT, "is_enterprise_install" INTEGER NOT NULL,'
               ' "data" TEXT NOT NULL, "installed_at" TEXT NOT NULL, "seq" INTEGER NOT NULL,'
               " primary key (ws, installer_id))")
    db.execute('create table oauth_states ("state" TEXT PRIMARY KEY, "expires_at" TEXT NOT NULL)')
    db.execute("create index idx_oauth_states_expires_at on oauth_states (expires_at)")


@_released
def m010_paper_identity(db: Database) -> None:
    # One paper across sources: a paper is also the same paper by its DOI, or by its normalised title
    # with an author surname in common (storage.identity). Every other id it is known by stays in
    # paper_aliases; papers already stored twice are merged here, what people did with the copy moving
    # to the paper kept (storage.merging), in every workspace.
    db.table("papers").add_column("doi", str)
    db.table("papers").add_column("title_key", str)
    db.execute("create index idx_papers_doi on papers (doi)")
    db.execute("create index idx_papers_title_key on papers (title_key)")
    db.execute('create table paper_aliases ("alias" TEXT PRIMARY KEY, "paper_id" TEXT NOT NULL, "url" TEXT,'
               ' "seq" INTEGER NOT NULL)')
    db.execute("create index idx_paper_aliases_paper_id on paper_aliases (paper_id)")
    db.execute("create index idx_paper_aliases_seq on paper_aliases (seq)")
    db.execute("create index idx_paper_aliases_url on paper_aliases (url)")
    # A merge moves these rows by paper id.
    db.execute("create index idx_feedback_paper_id on feedback (paper_id)")
    db.execute("create index idx_shown_paper_id on shown (paper_id)")
    seq = db.execute("select coalesce(max(seq), 0) from papers").fetchone()[0]
    merge_stored_duplicates(Connection(db.execute), utcnow(), int(seq))


def _on_sqlite(step: Step) -> Callable[[Database], None]:
    """A shared step as a sqlite-utils migration (run by it in one transaction with its record)."""
    def apply(db: Database) -> None:
        for sql in schema_steps.statements(step, "sqlite"):
            db.execute(sql)

    apply.__name__ = step.name
    return apply


def migration_set(steps: Sequence[Step] | None = None) -> Migrations:
    """The migration set "paperbot": the SQLite-only steps, then ``steps`` (by default the shared
    :data:`storage.schema_steps.STEPS`). Raises ValueError when a step's name is already taken."""
    combined = Migrations(MIGRATION_SET)
    for released in HISTORY:
        combined()(released)
    for step in schema_steps.STEPS if steps is None else steps:
        combined(name=step.name)(_on_sqlite(step))
    return combined


#: What SqliteStore applies to every database it opens.
migrations = migration_set()
