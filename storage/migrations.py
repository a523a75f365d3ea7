"""The schema, as a history of sqlite-utils migrations. Append; never edit a released step."""

from sqlite_utils.db import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("paperbot")


@migrations()
def m001_core(db: Database) -> None:
    db["papers"].create(
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
    db["papers"].create_index(["arxiv_id"], unique=True)
    db["papers"].create_index(["seq"])

    db["people"].create(
        {
            "user_id": str,
            "tz": str,
            "digest_time": str,  # "HH:MM", local to tz
            "digest_enabled": int,
            "created_at": str,
        },
        pk="user_id",
    )
    db["topics"].create(
        {"user_id": str, "topic": str, "added_at": str},
        pk=("user_id", "topic"),
    )
    db["feedback"].create(
        {"user_id": str, "paper_id": str, "value": int, "created_at": str},
        pk=("user_id", "paper_id"),
    )
    db["shown"].create(
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
    db["shown"].create_index(["channel", "message_ts"])
    db["digests"].create(
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
    db["artifacts"].create(
        {"name": str, "version": int, "created_at": str, "data": bytes},
        pk="name",
    )


@migrations()
def m002_slack(db: Database) -> None:
    # Slack event ids already handled, so that a redelivered event is processed once.
    db["slack_events"].create({"event_id": str, "received_at": str}, pk="event_id")
    db["slack_events"].create_index(["received_at"])
    # When the timezone was last read from Slack (refreshed at most daily).
    db["people"].add_column("tz_checked_at", str)


@migrations()
def m003_digests(db: Database) -> None:
    # Exactly-once daily digests: a claim row per person and local day (see Store.start_digest).
    digests = db["digests"]
    digests.add_column("owner", str)  # "host:pid:start" of the process sending it
    digests.add_column("lease_until", str)  # ISO UTC; another process may take over after it
    digests.add_column("reasons", str)  # JSON {paper id: why it was picked}, beside `papers`
    digests.add_column("header_ts", str)  # the header message, once posted
    digests.add_column("failures", str)  # JSON {paper id: failed attempts}
    digests.add_column("attempts", int)  # runs that ended with something still to send
    digests.add_column("error", str)  # why a digest ended "failed"
    digests.create_index(["local_date"])
    # When the schedule was last set: a time already past on that day starts the next day.
    db["people"].add_column("digest_since", str)
    # The DM channel, once opened (conversations.open is rate-limited more tightly than posting).
    db["people"].add_column("dm_channel", str)
    # Daily jobs shared by every process (feed ingestion): one row per job name.
    db["jobs"].create(
        {"name": str, "day": str, "status": str, "owner": str, "lease_until": str, "started_at": str,
         "finished_at": str, "error": str},
        pk="name",
    )


@migrations()
def m004_feedback_counter(db: Database) -> None:
    # Bumped by triggers on every change to feedback, whoever makes it, so a process can tell with one
    # read whether its cached view of everyone's likes (the colleagues' co-likes) is stale.
    db["counters"].create({"name": str, "value": int}, pk="name")
    db["counters"].insert({"name": "feedback", "value": 0})
    for event in ("insert", "update", "delete"):
        # ``event`` is one of the three constants above.
        db.execute(f"create trigger feedback_{event}_counted after {event} on feedback begin"  # noqa: S608
                   " update counters set value = value + 1 where name = 'feedback'; end")


@migrations()
def m005_once_keys(db: Database) -> None:
    # Keys of what must run at most once, each kept until it expires: Slack event ids (Slack redelivers
    # for minutes) and the trigger ids of slash commands and clicks (a replay within Slack's 5-minute
    # signature window). Replaces slack_events, whose ids only mattered for minutes.
    db["once_keys"].create({"key": str, "expires_at": str}, pk="key")
    db["once_keys"].create_index(["expires_at"])
    db["slack_events"].drop(ignore=True)


@migrations()
def m006_digest_outages(db: Database) -> None:
    # Runs of a digest cut short because Slack was down: they set its backoff and never count
    # toward giving up (only the end of the local day does that).
    db["digests"].add_column("outages", int)


@migrations()
def m007_job_leases(db: Database) -> None:
    # A finished job's lease_until now says when it may run again (storage.leases); before, it was
    # cleared. A feed ingest done today waits for tomorrow, a failed one may be tried at once.
    db.execute("update jobs set lease_until = date(day, '+1 day') || 'T00:00:00+00:00'"
               " where status = 'done' and lease_until is null and day is not null")
    db.execute("update jobs set lease_until = finished_at where status = 'failed' and lease_until is null")


@migrations()
def m008_topics_unique_ignoring_case(db: Database) -> None:
    # One row per person and topic ignoring case, kept by the database itself (add_topics inserts with
    # ON CONFLICT DO NOTHING): a check in Python is only atomic under SQLite's exclusive transactions.
    # Any duplicates already stored keep their first spelling. (SQLite's lower() folds ASCII only;
    # add_topics still checks the rest with casefold.)
    db.execute("delete from topics where rowid not in"
               " (select min(rowid) from topics group by user_id, lower(topic))")
    db.execute("create unique index if not exists idx_topics_user_lower_topic"
               " on topics (user_id, lower(topic))")
