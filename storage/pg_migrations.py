"""The PostgreSQL schema: its own first steps m001…m010, then the steps shared with SQLite
(:mod:`storage.schema_steps`, m011 on), where every new step goes. Never edit a released step.

The first steps mirror SQLite's (``storage/migrations.py``) one for one, with the same tables and
columns, so that a row moves between the backends unchanged. Differences, each on purpose:

- timestamps stay ISO UTC text, as the Store's interface and SQLite hold them: compared as text they
  order as the instants do, and a copied row is byte for byte the same;
- JSON columns stay text: ``jsonb`` would reorder a digest's ``reasons``, whose order is shown;
- artifacts are ``bytea``;
- ``topics`` and ``feedback`` get a ``pos`` identity column to keep SQLite's insertion order (its rowid);
- ``counters`` holds a ``papers`` row from the start: the change feed's counter (see PostgresStore).

A step of its own is SQL, or a function of the connection for what SQL alone can't do (m010 reads titles
as text); a shared step becomes such a function. Each applied step is recorded by name in
``schema_migrations``, so a database applies each step once. Several processes starting together
migrate once: :func:`apply` holds an advisory lock around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import psycopg

from storage import schema_steps
from storage.merging import Connection, merge_stored_duplicates
from storage.moments import utcnow
from storage.schema_steps import Step

#: Key of the advisory lock held while migrating (any constant bigint unique to paperbot).
MIGRATION_LOCK = 7_401_286_113
#: First key of the two-key advisory locks that serialise one person's work (PostgresStore.lock_person);
#: the two-key space does not overlap the one-key space MIGRATION_LOCK is in.
PERSON_LOCK_SPACE = 74_012
#: The same for PostgresStore.hold_person, held across a whole delivery; a space of its own, since a
#: delivery's own transactions take lock_person on other connections meanwhile.
PERSON_HOLD_SPACE = 74_013
#: Key of the advisory lock PostgresStore.adopt_workspace holds for its transaction: two processes
#: adopting at once (each at its start) take turns instead of waiting on each other's rows.
ADOPT_LOCK = 7_401_286_114

#: A step as :func:`apply` runs it: its recorded name, and SQL or a function of the connection.
Migration = tuple[str, str | Callable[[psycopg.Connection], None]]


def _paper_identity(conn: psycopg.Connection) -> None:
    """m010: as SQLite's step of the same name (storage/migrations.py)."""
    conn.execute("""
        alter table papers add column doi text, add column title_key text;
        create index idx_papers_doi on papers (doi);
        create index idx_papers_title_key on papers (title_key);
        create table paper_aliases (alias text primary key, paper_id text not null, url text,
                                    seq bigint not null);
        create index idx_paper_aliases_paper_id on paper_aliases (paper_id);
        create index idx_paper_aliases_seq on paper_aliases (seq);
        create index idx_paper_aliases_url on paper_aliases (url);
        create index idx_feedback_paper_id on feedback (paper_id);
        create index idx_shown_paper_id on shown (paper_id);
    """)
    # Queued with the paper writers (an older process may still be writing), as upsert_papers is.
    counter = conn.execute("select greatest(value, (select coalesce(max(seq), 0) from papers)) from counters"
                           " where name = 'papers' for update").fetchone()
    assert counter is not None, "m001 writes the 'papers' counter"
    last = merge_stored_duplicates(Connection(conn.execute, format_marks=True),
                                   utcnow(), int(counter[0]))
    conn.execute("update counters set value = %s where name = 'papers'", [last])


#: The released PostgreSQL-only steps, in order.
HISTORY: list[Migration] = [
    ("m001_core", """
        create table papers (
            id text primary key,
            arxiv_id text,
            arxiv_version integer,
            title text,
            abstract text not null,
            authors text,
            url text,
            venue text,
            published text,
            categories text,
            added_at text,
            updated_at text,
            seq bigint not null
        );
        create unique index idx_papers_arxiv_id on papers (arxiv_id);
        create index idx_papers_seq on papers (seq);
        create table people (
            user_id text primary key,
            tz text,
            digest_time text,
            digest_enabled integer,
            created_at text
        );
        create table topics (
            user_id text, topic text, added_at text,
            pos bigint generated always as identity,
            primary key (user_id, topic)
        );
        create table feedback (
            user_id text, paper_id text, value integer, created_at text,
            pos bigint generated always as identity,
            primary key (user_id, paper_id)
        );
        create table shown (
            user_id text, paper_id text, shown_at text, reason text, channel text, message_ts text,
            primary key (user_id, paper_id)
        );
        create index idx_shown_channel_message_ts on shown (channel, message_ts);
        create table digests (
            user_id text, local_date text, status text, started_at text, finished_at text, papers text,
            primary key (user_id, local_date)
        );
        create table artifacts (name text primary key, version integer, created_at text, data bytea);
        create table counters (name text primary key, value bigint not null);
        insert into counters (name, value) values ('papers', 0);
    """),
    ("m002_slack", """
        create table slack_events (event_id text primary key, received_at text);
        create index idx_slack_events_received_at on slack_events (received_at);
        alter table people add column tz_checked_at text;
    """),
    ("m003_digests", """
        alter table digests add column owner text;
        alter table digests add column lease_until text;
        alter table digests add column reasons text;
        alter table digests add column header_ts text;
        alter table digests add column failures text;
        alter table digests add column attempts integer;
        alter table digests add column error text;
        create index idx_digests_local_date on digests (local_date);
        alter table people add column digest_since text;
        alter table people add column dm_channel text;
        create table jobs (
            name text primary key, day text, status text, owner text, lease_until text, started_at text,
            finished_at text, error text
        );
    """),
    # The counter row is updated in the writer's own transaction, so a reader sees the new version
    # exactly when it can see the feedback that made it (a sequence would change before the commit).
    ("m004_feedback_counter", """
        insert into counters (name, value) values ('feedback', 0);
        create function feedback_counted() returns trigger language plpgsql as $$
        begin
            update counters set value = value + 1 where name = 'feedback';
            return null;
        end $$;
        create trigger feedback_counted after insert or update or delete on feedback
            for each row execute function feedback_counted();
    """),
    ("m005_once_keys", """
        create table once_keys (key text primary key, expires_at text);
        create index idx_once_keys_expires_at on once_keys (expires_at);
        drop table if exists slack_events;
    """),
    ("m006_digest_outages", """
        alter table digests add column outages integer;
    """),
    # A finished job's lease_until now says when it may run again (storage.leases), as on SQLite.
    ("m007_job_leases", """
        update jobs set lease_until = (day::date + 1)::text || 'T00:00:00+00:00'
            where status = 'done' and lease_until is null and day is not null;
        update jobs set lease_until = finished_at where status = 'failed' and lease_until is null;
    """),
    # One row per person and topic ignoring case, kept by the database (add_topics: ON CONFLICT DO
    # NOTHING), so two follows at once can't both add "Cats" and "cats"; duplicates keep the first.
    ("m008_topics_unique_ignoring_case", """
        delete from topics t using topics u
            where t.user_id = u.user_id and lower(t.topic) = lower(u.topic) and t.pos > u.pos;
        create unique index idx_topics_user_lower_topic on topics (user_id, lower(topic));
    """),
    # One database serves many Slack workspaces: every row about people gets the workspace it belongs to
    # (``ws``: the team id, or the enterprise id of an org install), part of its key, so the same user
    # id in two workspaces is two people; rows from before get '' until PostgresStore.adopt_workspace
    # moves them. The feedback counter becomes one per workspace (feedback_counters), starting at the
    # time in microseconds so that a workspace deleted and installed again never repeats a number a
    # process may hold for the old one. Installations (data encrypted by the caller) and OAuth states
    # are shared.
    ("m009_workspaces", """
        alter table people add column ws text not null default '';
        alter table people drop constraint people_pkey, add primary key (ws, user_id);
        alter table topics add column ws text not null default '';
        alter table topics drop constraint topics_pkey, add primary key (ws, user_id, topic);
        drop index idx_topics_user_lower_topic;
        create unique index idx_topics_ws_user_lower_topic on topics (ws, user_id, lower(topic));
        alter table feedback add column ws text not null default '';
        alter table feedback drop constraint feedback_pkey, add primary key (ws, user_id, paper_id);
        alter table shown add column ws text not null default '';
        alter table shown drop constraint shown_pkey, add primary key (ws, user_id, paper_id);
        drop index idx_shown_channel_message_ts;
        create index idx_shown_ws_channel_message_ts on shown (ws, channel, message_ts);
        alter table digests add column ws text not null default '';
        alter table digests drop constraint digests_pkey, add primary key (ws, user_id, local_date);
        drop index idx_digests_local_date;
        create index idx_digests_ws_local_date on digests (ws, local_date);
        alter table once_keys add column ws text not null default '';
        alter table once_keys drop constraint once_keys_pkey, add primary key (ws, key);
        create table feedback_counters (ws text primary key, value bigint not null);
        insert into feedback_counters (ws, value) select '', value from counters where name = 'feedback';
        delete from counters where name = 'feedback';
        create or replace function feedback_counted() returns trigger language plpgsql as $$
        begin
            if tg_op in ('INSERT', 'UPDATE') then
                insert into feedback_counters (ws, value)
                    values (new.ws, (extract(epoch from clock_timestamp()) * 1000000)::bigint)
                    on conflict (ws) do update set value = feedback_counters.value + 1;
            end if;
            if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.ws <> new.ws) then
                insert into feedback_counters (ws, value)
                    values (old.ws, (extract(epoch from clock_timestamp()) * 1000000)::bigint)
                    on conflict (ws) do update set value = feedback_counters.value + 1;
            end if;
            return null;
        end $$;
        create table installations (
            ws text not null, installer_id text not null, enterprise_id text, team_id text,
            is_enterprise_install integer not null, data text not null, installed_at text not null,
            seq bigint not null,
            primary key (ws, installer_id)
        );
        create table oauth_states (state text primary key, expires_at text not null);
        create index idx_oauth_states_expires_at on oauth_states (expires_at);
    """),
    # One paper across sources (DOI, title and a surname), every id it had kept as an alias, stored
    # duplicates merged with what people did with them.
    ("m010_paper_identity", _paper_identity),
]


def _on_postgres(step: Step) -> Callable[[psycopg.Connection], None]:
    """A shared step as a function of the connection (:func:`apply` runs it in one transaction)."""
    def run(conn: psycopg.Connection) -> None:
        for sql in schema_steps.statements(step, "postgres"):
            conn.execute(sql)  # no parameters: psycopg sends it as it is, '%' included

    return run


def migration_list(steps: Sequence[Step] | None = None) -> list[Migration]:
    """The PostgreSQL-only steps, then ``steps`` (by default the shared :data:`storage.schema_steps.STEPS`).
    Raises ValueError when a step's name is already taken."""
    shared = schema_steps.STEPS if steps is None else steps
    listed: list[Migration] = [*HISTORY, *((step.name, _on_postgres(step)) for step in shared)]
    names = [name for name, _ in listed]
    taken = sorted({name for name in names if names.count(name) > 1})
    if taken:
        raise ValueError(f"schema step names used twice: {', '.join(taken)}")
    return listed


#: What :func:`apply` applies (PostgresStore, on opening a database).
MIGRATIONS: list[Migration] = migration_list()


def apply(conn: psycopg.Connection, migrations: Sequence[Migration] | None = None) -> list[str]:
    """Apply the steps (by default :data:`MIGRATIONS`) not yet recorded in ``schema_migrations``, each in
    its own transaction, under an advisory lock so that processes starting together wait for the first
    and then find nothing to do. ``conn`` must be in autocommit mode. Returns the names applied now."""
    applied_now = []
    conn.execute("select pg_advisory_lock(%s)", [MIGRATION_LOCK])
    try:
        conn.execute("create table if not exists schema_migrations (name text primary key,"
                     " applied_at text not null"
                     " default to_char(now() at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS+00:00'))")
        done = {row[0] for row in conn.execute("select name from schema_migrations")}
        for name, sql in MIGRATIONS if migrations is None else migrations:
            if name in done:
                continue
            with conn.transaction():
                if callable(sql):
                    sql(conn)
                else:
                    conn.execute(sql)
                conn.execute("insert into schema_migrations (name) values (%s)", [name])
            applied_now.append(name)
    finally:
        conn.execute("select pg_advisory_unlock(%s)", [MIGRATION_LOCK])
    return applied_now
