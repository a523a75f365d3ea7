"""Schema steps written once for both backends: every step from m011 on is declared here, and only here.

SQLite's migrator (``storage/migrations.py``) and PostgreSQL's (``storage/pg_migrations.py``) each apply
their own first steps (m001…m010, which differ by backend), then :data:`STEPS` in order, each step
recorded under its ``name`` in the backend's own record (``_sqlite_migrations``, ``schema_migrations``),
as each always was, so a database runs each step once whichever paperbot made it.

A step is a few backend-neutral changes, turned into each dialect's SQL by :func:`statements`:

- :class:`CreateTable`, :class:`AddColumn` and :class:`CreateIndex`, with columns of the four neutral
  types below (timestamps and JSON stay text on both backends, see ``storage/pg_migrations.py``);
- :class:`Sql`, one statement valid on both (a data fix, a trigger…), with a per-backend text for
  the rare place where the dialects differ;
- :class:`Only`, a statement for one backend alone (a virtual table, a function the other lacks).

Recipe (a new per-person setting), appended to :data:`STEPS`::

    Step("m019_digest_format", (AddColumn("people", Column("digest_format")),)),

and the column in ``storage/tables.py`` (what ``paperbot db copy`` moves; tests/storage/test_copy.py
compares it with both backends' schemas). tests/storage/test_schema_steps.py applies such a step to
databases of both backends.

Append; never edit or reorder a released step: a database remembers steps by name only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

#: The two SQL dialects paperbot's backends speak.
Dialect = Literal["sqlite", "postgres"]
#: A column's type, the same values on both backends: "bigint" for change numbers that grow without end
#: (``seq``), "blob" for bytes.
ColumnType = Literal["text", "integer", "bigint", "blob"]

#: How each dialect spells each type. SQLite stores any integer in INTEGER; the spellings are the ones the
#: released history uses, so a table made by a step reads like its neighbours.
TYPE_NAMES: dict[Dialect, dict[ColumnType, str]] = {
    "sqlite": {"text": "TEXT", "integer": "INTEGER", "bigint": "INTEGER", "blob": "BLOB"},
    "postgres": {"text": "text", "integer": "integer", "bigint": "bigint", "blob": "bytea"},
}

# Names are interpolated into SQL: only plain lower-case identifiers are accepted. They are written bare
# (column definitions aside) as in the released steps, whose SQLite text this reproduces byte for byte;
# a name a backend reserves fails on the first run of the tests there.
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def _checked(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{name!r} is not a plain lower-case SQL name")
    return name


@dataclass(frozen=True)
class Column:
    """A column: its name, type, whether it may hold NULL, and the value a row gets without one."""

    name: str
    type: ColumnType = "text"
    not_null: bool = False
    default: str | int | None = None

    def __post_init__(self) -> None:
        _checked(self.name)
        if self.type not in TYPE_NAMES["sqlite"]:
            raise ValueError(f"column {self.name}: unknown type {self.type!r}")
        if isinstance(self.default, bool):  # a bool is an int to Python, a different value to SQL
            raise ValueError(f"column {self.name}: give a default of 0 or 1, not {self.default}")

    def sql(self, dialect: Dialect, primary_key: bool = False) -> str:
        """The column's definition in ``dialect`` (``primary_key``: the table's key on its own)."""
        text = f'"{self.name}" {TYPE_NAMES[dialect][self.type]}'
        if self.not_null:
            text += " NOT NULL"
        if self.default is not None:
            text += f" DEFAULT {_literal(self.default)}"
        if primary_key:
            text += " PRIMARY KEY"
        return text


def _literal(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class CreateTable:
    """A new table, with its primary key (one or more of its columns; one is declared on the column)."""

    table: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]

    def __post_init__(self) -> None:
        _checked(self.table)
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.table}: a column is named twice")
        if not self.primary_key or not set(self.primary_key) <= set(names):
            raise ValueError(f"table {self.table}: the primary key must be some of its columns")

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL making it in ``dialect``."""
        alone = self.primary_key[0] if len(self.primary_key) == 1 else None
        parts = [c.sql(dialect, primary_key=c.name == alone) for c in self.columns]
        if alone is None:
            parts.append(f"primary key ({', '.join(self.primary_key)})")
        return [f"create table {self.table} ({', '.join(parts)})"]


@dataclass(frozen=True)
class AddColumn:
    """A new column of an existing table; existing rows get its default (NULL without one)."""

    table: str
    column: Column

    def __post_init__(self) -> None:
        _checked(self.table)
        # Neither backend can fill a NOT NULL column of existing rows without a default.
        if self.column.not_null and self.column.default is None:
            raise ValueError(f"{self.table}.{self.column.name}: a NOT NULL column added later"
                             " needs a default")

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL adding it in ``dialect``."""
        return [f"alter table {self.table} add column {self.column.sql(dialect)}"]


@dataclass(frozen=True)
class CreateIndex:
    """An index of ``table`` on ``columns``: column names, or expressions such as ``lower(topic)`` (then
    ``name`` is required). Its name defaults to ``idx_<table>_<columns>``, the history's convention."""

    table: str
    columns: tuple[str, ...]
    unique: bool = False
    name: str | None = None

    def __post_init__(self) -> None:
        _checked(self.table)
        if not self.columns:
            raise ValueError(f"an index of {self.table} needs columns")
        if self.name is not None:
            _checked(self.name)
        elif not all(_IDENTIFIER.fullmatch(c) for c in self.columns):
            raise ValueError(f"an index of {self.table} on an expression needs a name")

    @property
    def index_name(self) -> str:
        """The index's name in the database."""
        return self.name or "_".join(("idx", self.table, *self.columns))

    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL making it (the same in both dialects)."""
        unique = "unique " if self.unique else ""
        return [f"create {unique}index {self.index_name} on {self.table} ({', '.join(self.columns)})"]


@dataclass(frozen=True)
class Sql:
    """One statement valid on both backends (a data fix, a trigger…), or, where the dialects differ, the
    text for one backend in ``sqlite`` or ``postgres`` (``text`` is then the other's). One statement per
    :class:`Sql`: SQLite runs one per call, and splitting at ``;`` would cut a trigger's body."""

    text: str
    sqlite: str | None = None
    postgres: str | None = None

    def statements(self, dialect: Dialect) -> list[str]:
        """The statement for ``dialect``."""
        chosen = self.sqlite if dialect == "sqlite" else self.postgres
        return [self.text if chosen is None else chosen]


@dataclass(frozen=True)
class Only:
    """One statement for one backend alone, nothing on the other: for what one backend keeps in a shape
    the other has no word for (SQLite's FTS5 virtual table and its triggers; PostgreSQL's functions)."""

    dialect: Dialect
    text: str

    def __post_init__(self) -> None:
        if self.dialect not in TYPE_NAMES:
            raise ValueError(f"unknown dialect {self.dialect!r}")

    def statements(self, dialect: Dialect) -> list[str]:
        """The statement when ``dialect`` is its backend, else none."""
        return [self.text] if dialect == self.dialect else []


Change = CreateTable | AddColumn | CreateIndex | Sql | Only


@dataclass(frozen=True)
class Step:
    """One change of the schema: its name (``mNNN_what``, numbered after the last step; recorded once
    applied) and its changes, applied in order in one transaction with that record."""

    name: str
    changes: tuple[Change, ...]

    def __post_init__(self) -> None:
        _checked(self.name)
        if not self.changes:
            raise ValueError(f"step {self.name} changes nothing")


def statements(step: Step, dialect: Dialect) -> list[str]:
    """Every SQL statement of ``step`` in ``dialect``, in order."""
    return [sql for change in step.changes for sql in change.statements(dialect)]


def _key(name: str) -> Column:
    """A text column that is part of a key: never NULL."""
    return Column(name, not_null=True)


#: The steps both backends share, in order, from m011 on (m001-m010 differ by backend, in
#: ``storage/migrations.py`` and ``storage/pg_migrations.py``). Append only.
STEPS: list[Step] = [
    # A person's reading list. ``like_from_save`` says the save made the like that came with it (there
    # was none before), so unsaving takes back only that like. ``saved_at`` is to the microsecond, so
    # "newest first" holds for two saves within a second.
    Step("m011_saved", (
        CreateTable("saved", (_key("ws"), _key("user_id"), _key("paper_id"), _key("saved_at"),
                              Column("like_from_save", "integer", not_null=True, default=0)),
                    primary_key=("ws", "user_id", "paper_id")),
        CreateIndex("saved", ("ws", "user_id", "saved_at"), name="idx_saved_ws_user_saved_at"),
    )),
    # Issue 12: named feeds beside the main one (the main feed stays in ``topics``, so a person without
    # feeds ranks as before), followed authors (``key``: the name as matched, so "Andrea Bajcsy" and
    # "andrea  bajcsy" are one), muted words (stored folded), and which feed each paper was picked for
    # (feedback on it trains that feed). One feed name, topic or word per person ignoring case: the
    # database decides (unique indexes, ON CONFLICT DO NOTHING).
    Step("m012_feeds_authors_mutes", (
        CreateTable("feed_topics", (_key("ws"), _key("user_id"), _key("feed"), _key("topic"),
                                    Column("added_at")),
                    primary_key=("ws", "user_id", "feed", "topic")),
        CreateIndex("feed_topics", ("ws", "user_id", "lower(feed)", "lower(topic)"), unique=True,
                    name="idx_feed_topics_lower"),
        CreateTable("followed_authors", (_key("ws"), _key("user_id"), _key("key"), _key("name"),
                                         Column("added_at")),
                    primary_key=("ws", "user_id", "key")),
        CreateTable("mutes", (_key("ws"), _key("user_id"), _key("word"), Column("added_at")),
                    primary_key=("ws", "user_id", "word")),
        CreateTable("feed_papers", (_key("ws"), _key("user_id"), _key("paper_id"), _key("feed"),
                                    Column("picked_at")),
                    primary_key=("ws", "user_id", "paper_id")),
        CreateIndex("feed_papers", ("paper_id",)),  # a merge moves them
    )),
    # A weekly digest instead of the daily one: the weekday it goes out on (0 = Monday), NULL for daily.
    # It is keyed by the local date of that day, so the daily digest's once-a-day rules hold for it.
    Step("m013_weekly_digests", (AddColumn("people", Column("digest_weekday", "integer")),)),
    # Issue 13: a channel's own settings. Its profile and digests are a "subject" in the person-level
    # tables whose id is the channel id (people, topics, feedback, shown, digests); this table says
    # which subjects are channels, who set them up, and whether the weekly trending post is on.
    # ``trending_posts`` is the lease of one channel's trending post for one week (the Monday's date):
    # its key is what makes the post go out once a week, whichever process gets there.
    Step("m015_channels", (
        CreateTable("channels", (_key("ws"), _key("channel_id"), Column("set_by"),
                                 Column("trending", "integer", not_null=True, default=0),
                                 Column("trending_since"), Column("created_at")),
                    primary_key=("ws", "channel_id")),
        CreateTable("trending_posts", (_key("ws"), _key("channel_id"), _key("week"), _key("status"),
                                       Column("owner"), Column("lease_until"), Column("started_at"),
                                       Column("finished_at"), Column("error"),
                                       Column("attempts", "integer", not_null=True, default=0),
                                       Column("message_ts")),
                    primary_key=("ws", "channel_id", "week")),
        CreateIndex("feedback", ("ws", "created_at")),  # trending counts a week of likes in one workspace
    )),
    # Issue 14: each paper's sentence embedding (the optional extra), computed once. ``seq`` is the
    # paper's change number when it was computed: a paper changed since (a merge) is computed again.
    # One row per paper; a row of another model is replaced when that model's vector is computed.
    Step("m018_paper_vectors", (
        CreateTable("paper_vectors", (_key("paper_id"), _key("model"), Column("seq", "bigint", not_null=True),
                                      Column("vector", "blob", not_null=True), Column("computed_at")),
                    primary_key=("paper_id",)),
    )),
    # Issue 23: every word of every paper findable, the rarest included (a method's name that only one
    # paper holds is no word of the TF-IDF vocabulary). ``paper_text`` is the full-text index of each
    # paper's title, abstract and authors, kept by the database itself on every insert, change and
    # delete of a paper (an ingest, a merge, a copy), and filled here from the papers already stored.
    # Words are lowercased, never stemmed, so a name is found as written. SQLite: an FTS5 table over
    # ``papers`` (external content: the text is not stored twice; its rowids, which VACUUM keeps, tie
    # the two). PostgreSQL: a ``tsvector`` per paper (``simple`` configuration) under a GIN index.
    # Derived data: ``paperbot db copy`` moves the papers, and each database indexes them again.
    Step("m019_fulltext", (
        Only("sqlite", "create virtual table paper_text using fts5(title, abstract, authors,"
                       " content='papers', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')"),
        Only("sqlite", "create trigger paper_text_insert after insert on papers begin"
                       " insert into paper_text (rowid, title, abstract, authors)"
                       " values (new.rowid, new.title, new.abstract, new.authors); end"),
        Only("sqlite", "create trigger paper_text_delete after delete on papers begin"
                       " insert into paper_text (paper_text, rowid, title, abstract, authors)"
                       " values ('delete', old.rowid, old.title, old.abstract, old.authors); end"),
        Only("sqlite", "create trigger paper_text_update after update of title, abstract, authors on papers"
                       " when old.title is not new.title or old.abstract is not new.abstract"
                       " or old.authors is not new.authors begin"
                       " insert into paper_text (paper_text, rowid, title, abstract, authors)"
                       " values ('delete', old.rowid, old.title, old.abstract, old.authors);"
                       " insert into paper_text (rowid, title, abstract, authors)"
                       " values (new.rowid, new.title, new.abstract, new.authors); end"),
        Only("sqlite", "insert into paper_text (paper_text) values ('rebuild')"),
        Only("postgres", "create table paper_text (paper_id text primary key, doc tsvector not null)"),
        # A title's words weigh most (A), then the abstract's (B), then the authors' (C). ASCII
        # punctuation becomes a space first, so that every run of letters and digits is a word, as in
        # FTS5: PostgreSQL's parser would keep "github.com/x" or "a@b.org" whole, and their words unfound.
        Only("postgres", "create function paper_text_words(text text) returns text language sql immutable"
                         " as $$ select regexp_replace(coalesce(text, ''), '[[:punct:]]+', ' ', 'g') $$"),
        Only("postgres", "create function paper_text_doc(title text, abstract text, authors text)"
                         " returns tsvector language sql immutable as $$"
                         " select setweight(to_tsvector('simple', paper_text_words(title)), 'A')"
                         " || setweight(to_tsvector('simple', paper_text_words(abstract)), 'B')"
                         " || setweight(to_tsvector('simple', paper_text_words(authors)), 'C') $$"),
        Only("postgres", "create function paper_text_sync() returns trigger language plpgsql as $$ begin"
                         " if tg_op <> 'INSERT' then delete from paper_text where paper_id = old.id; end if;"
                         " if tg_op <> 'DELETE' then insert into paper_text (paper_id, doc)"
                         " values (new.id, paper_text_doc(new.title, new.abstract, new.authors)); end if;"
                         " return null; end $$"),
        Only("postgres", "create trigger paper_text_kept after insert or delete on papers"
                         " for each row execute function paper_text_sync()"),
        Only("postgres", "create trigger paper_text_changed after update of id, title, abstract, authors"
                         " on papers for each row when (old.id is distinct from new.id"
                         " or old.title is distinct from new.title"
                         " or old.abstract is distinct from new.abstract"
                         " or old.authors is distinct from new.authors) execute function paper_text_sync()"),
        Only("postgres", "insert into paper_text (paper_id, doc)"
                         " select id, paper_text_doc(title, abstract, authors) from papers"),
        Only("postgres", "create index idx_paper_text_doc on paper_text using gin (doc)"),
    )),
    # Issue 23: a save is its own, weaker signal, never a like. The likes a save made (``like_from_save``:
    # the person had given none) were never given by the person: they go, and the saves stay saves. A
    # dislike given since stays (the person's own word); a like given on its own had cleared the flag.
    # The flag then says what is now always true: no like came with the save.
    Step("m020_saves_apart", (
        Sql("delete from feedback where value > 0 and exists (select 1 from saved s where s.ws = feedback.ws"
            " and s.user_id = feedback.user_id and s.paper_id = feedback.paper_id and s.like_from_save = 1)"),
        Sql("update saved set like_from_save = 0 where like_from_save = 1"),
    )),
    # Issue 23: how many followed authors' new papers a digest holds (`/papers digest authors N`, 0-10);
    # NULL for the default.
    Step("m021_author_picks", (AddColumn("people", Column("author_picks", "integer")),)),
    # Issue 23: a compact digest, the day's papers in one message (1) rather than a header and one message
    # a paper (0, the default: people who never set it keep what they had).
    Step("m022_compact_digests", (AddColumn("people", Column("digest_compact", "integer", not_null=True,
                                                             default=0)),)),
    # Issue 24: every Slack command, event and click recorded durably when it is acknowledged, and carried
    # out exactly once by whichever process claims it (a lease: ``owner`` until ``lease_until``). ``key`` is
    # the request's idempotency key, unique per workspace; ``seq`` numbers arrivals (SQLite's rowid, a
    # PostgreSQL identity), so one ``subject``'s (a person's or channel's) work runs in the order it came.
    # ``status`` is "waiting", "running", "done" or "failed"; a waiting row's ``lease_until`` is the time it
    # may be retried from.
    Step("m023_inbox", (
        Sql("create table inbox (seq bigint generated by default as identity primary key, ws text not null,"
            " key text not null, kind text not null, subject text not null, payload text not null,"
            " received_at text not null, status text not null default 'waiting', owner text,"
            " lease_until text, attempts integer not null default 0, error text, finished_at text)",
            sqlite="create table inbox (\"seq\" INTEGER PRIMARY KEY, \"ws\" TEXT NOT NULL,"
                   " \"key\" TEXT NOT NULL, \"kind\" TEXT NOT NULL, \"subject\" TEXT NOT NULL,"
                   " \"payload\" TEXT NOT NULL, \"received_at\" TEXT NOT NULL,"
                   " \"status\" TEXT NOT NULL DEFAULT 'waiting', \"owner\" TEXT,"
                   " \"lease_until\" TEXT, \"attempts\" INTEGER NOT NULL DEFAULT 0, \"error\" TEXT,"
                   " \"finished_at\" TEXT)"),
        CreateIndex("inbox", ("ws", "key"), unique=True),
        # The oldest unfinished item of a subject: what a claim checks before taking a later one.
        CreateIndex("inbox", ("ws", "subject", "seq")),
        CreateIndex("inbox", ("status", "lease_until")),
    )),
    # Issue 24: a day's digests are found by (workspace, day) and each one by (workspace, person, day). An
    # index on (ws, local_date) alone matched that lookup as well as the primary key did, and PostgreSQL,
    # without statistics yet (a first morning, autovacuum off), took it and read every digest of the day
    # for each of a digest's updates (1-6 ms each at 10,000 people). With the person in it, whichever index
    # the planner takes leads straight to the row.
    Step("m024_digests_by_day", (
        Sql("drop index idx_digests_ws_local_date"),
        CreateIndex("digests", ("ws", "local_date", "user_id")),
    )),
    # Issue 26: no silent days. A person whose digest had nothing worth sending is told so, unless they
    # asked for quiet (1); and the newest paper's arrival (Home, the admin channel) is read by an index.
    Step("m025_no_silent_days", (
        AddColumn("people", Column("digest_quiet", "integer", not_null=True, default=0)),
        CreateIndex("papers", ("added_at",)),
    )),
    # Issue 27: a workspace's own settings (one row per workspace, written only when changed: no row is
    # the defaults); ``social`` 1 lets paper messages say how many people here saved the paper. Those
    # counts are read by paper, so saves get an index that leads with the paper.
    Step("m026_workspace_settings", (
        CreateTable("workspace_settings", (_key("ws"), Column("social", "integer", not_null=True, default=1),
                                           Column("updated_at")), ("ws",)),
        CreateIndex("saved", ("ws", "paper_id")),
    )),
    # Issue 27: "Who should read this?". A person opts in to being suggested papers by colleagues
    # (``people.suggest``, 0 by default), and each suggestion sent is a row keyed by the colleague and the
    # paper, so one colleague gets one paper once, whoever asks (the database decides: insert … on
    # conflict do nothing). ``by_user`` is the asker (NULL once they are forgotten).
    Step("m027_suggestions", (
        AddColumn("people", Column("suggest", "integer", not_null=True, default=0)),
        CreateTable("suggestions", (_key("ws"), _key("user_id"), _key("paper_id"), Column("by_user"),
                                    _key("sent_at")),
                    primary_key=("ws", "user_id", "paper_id")),
        CreateIndex("suggestions", ("ws", "by_user")),
    )),
    # Issue 27: reading-group polls. A poll is one channel's message of 2-6 papers (``papers``: their ids
    # in rank order, JSON) with a Vote button each; ``status`` is "open", then "closed" (once, by one
    # update), and at most one poll of a channel is open: the partial unique index says so, so a second
    # poll opened at the same moment elsewhere inserts nothing. ``version`` counts the votes cast, so the
    # message's counts can be shown as the database has them whoever updates it last. A person's vote is
    # one row per poll (a new vote replaces theirs); ``winner`` is the paper the close chose and
    # ``winner_ts`` the message it was posted as.
    Step("m028_polls", (
        CreateTable("polls", (_key("ws"), _key("poll_id"), _key("channel_id"), Column("message_ts"),
                              _key("papers"), _key("status"),
                              Column("version", "integer", not_null=True, default=0), Column("opened_at"),
                              Column("closed_at"), Column("winner"), Column("winner_ts")),
                    primary_key=("ws", "poll_id")),
        Sql("create unique index idx_polls_one_open on polls (ws, channel_id) where status = 'open'"),
        CreateTable("poll_votes", (_key("ws"), _key("poll_id"), _key("user_id"), _key("paper_id"),
                                   Column("voted_at")),
                    primary_key=("ws", "poll_id", "user_id")),
    )),
    # Issue 27: a library export (.bib, .ris, Zotero CSV) shared in paperbot's DM, read once per (workspace,
    # person, Slack file id): both events of one share race to insert the row and one wins. ``status`` is
    # "running" (since ``started_at``), then "done", "refused" (too big, another kind, no export) or
    # "failed" (a download or a database failure: the same file may be tried again); ``counts`` is the
    # reply's numbers as JSON.
    Step("m029_library_imports", (
        CreateTable("library_imports", (_key("ws"), _key("user_id"), _key("file_id"), _key("status"),
                                        _key("started_at"), Column("finished_at"), Column("counts"),
                                        Column("error")),
                    ("ws", "user_id", "file_id")),
    )),
    # Issue 27: alerts, phrases whose new papers join the person's next digest whatever their rank.
    # ``key``: the phrase's words as the full-text index cuts them, lowercased (one alert per person and
    # key: "Graph  Transformers" is "graph transformers"); ``phrase`` as typed, for the reason to name it.
    Step("m030_alerts", (
        CreateTable("alerts", (_key("ws"), _key("user_id"), _key("key"), _key("phrase"), Column("added_at")),
                    primary_key=("ws", "user_id", "key")),
    )),
    # Issue 39: how far each arXiv category's daily announcements have been read (the arXiv announcement
    # date, YYYY-MM-DD, through which every one is stored), so a missed day is caught up on the next run.
    # One row per category, shared by every workspace as the papers are.
    Step("m031_arxiv_cursors", (
        CreateTable("arxiv_cursors", (_key("category"), _key("announced"), Column("read_at")),
                    ("category",)),
    )),
    # Issue 39: who has opened paperbot's Home tab (Slack's ``app_home_opened``), one row per person, written
    # once (insert … on conflict do nothing): Home is published again after a command only for them, since
    # a person who never opened it sees nothing of it, and Home is published whenever it is opened.
    Step("m032_home_opened", (
        CreateTable("home_opened", (_key("ws"), _key("user_id"), Column("opened_at")), ("ws", "user_id")),
    )),
    # Issue 41: what each paper does, in its abstract's own words: the sentence stating the contribution
    # (``highlight``) and the one stating the main finding (``result``), computed at ingest outside storage
    # (``bot/text/highlights.py``) and replaced with the abstract. NULL ``highlight``: not computed yet
    # (the papers stored before this step, and any written without them), which the ingest fills in, found
    # by the partial index; "" once computed with nothing to show.
    Step("m033_highlights", (
        AddColumn("papers", Column("highlight")),
        AddColumn("papers", Column("result")),
        Sql("create index idx_papers_no_highlight on papers (id) where highlight is null"),
    )),
    # Issue 41: a person who hides the highlights (1) sees the start of the abstract instead.
    Step("m034_highlights_off", (
        AddColumn("people", Column("highlights_off", "integer", not_null=True, default=0)),
    )),
    # Issue 41: a paper's summary by a model the lab runs (PAPERBOT_LLM_URL), one row per paper and model,
    # shared by every workspace as the papers are; asked for once, whichever process gets there first: the
    # row is a lease (storage.leases.SUMMARY), "claimed" while a process asks (or while it waits for its
    # retry, without an owner), then "ok", "rejected" (the check refused it: ``reason`` says why) or
    # "failed" (no usable answer after the attempts allowed). ``source`` fingerprints the title and
    # abstract it was asked from, so a new version's changed abstract is asked again. ``summary_calls``
    # counts the calls made each UTC day, so the daily limit holds across processes; the rows finished on
    # a day are counted by ``finished_at`` (/metrics, the admin report).
    Step("m035_summaries", (
        CreateTable("summaries", (_key("paper_id"), _key("model"), _key("status"), Column("text"),
                                  Column("reason"), Column("source"), Column("owner"), Column("lease_until"),
                                  Column("started_at"), Column("finished_at"), Column("error"),
                                  Column("attempts", "integer", not_null=True, default=0)),
                    ("paper_id", "model")),
        CreateIndex("summaries", ("finished_at",)),
        CreateTable("summary_calls", (_key("day"), Column("calls", "integer", not_null=True, default=0)),
                    ("day",)),
    )),
    # Issue 42: what becomes of a paper. ``paper_events``: what an ingest found happened to a stored paper
    # (``kind``: "version" the abstract changed, "accepted" a venue or journal version, "doi", "code" a code
    # link, "withdrawn"; ``detail``: the venue, the DOI, the link, the version), written in the transaction
    # of the merge that found it, once per paper, kind and detail; shared by every workspace as the papers
    # are, and moved with its paper when papers merge. ``followups_told``: each event a person (or a
    # channel) was told of, once: the key decides across processes; ``via`` is the digest's local day that
    # carried it, or "dm:" and the local day of a follow-up message of its own. ``followups_off`` (1): a
    # person told of none. Events are kept only of papers someone saved or liked: saved gets an index by
    # paper (feedback has one).
    Step("m036_followups", (
        CreateTable("paper_events", (_key("paper_id"), _key("kind"), _key("detail"), Column("found_at")),
                    ("paper_id", "kind", "detail")),
        CreateIndex("paper_events", ("found_at",)),
        CreateTable("followups_told", (_key("ws"), _key("user_id"), _key("paper_id"), _key("kind"),
                                       _key("detail"), _key("via"), Column("told_at")),
                    ("ws", "user_id", "paper_id", "kind", "detail")),
        CreateIndex("followups_told", ("ws", "user_id", "via")),
        CreateIndex("followups_told", ("paper_id",)),
        CreateIndex("saved", ("paper_id",)),  # whether anyone saved a paper an ingest changed
        AddColumn("people", Column("followups_off", "integer", not_null=True, default=0)),
    )),
    # Issue 43: a paper link a person posted in a channel the bot is in (a ``link_shared`` event) counts
    # as interest at a save's weight, once per person and paper; ``shares_off`` turns that off.
    Step("m037_shares", (
        CreateTable("shares", (_key("ws"), _key("user_id"), _key("paper_id"), Column("channel_id"),
                               _key("shared_at")),
                    ("ws", "user_id", "paper_id")),
        AddColumn("people", Column("shares_off", "integer", not_null=True, default=0)),
    )),
    # Issue 43 (scoop watch): ``watches``, a person's (or a channel's) private project description, its
    # text never shown to anyone else; ``stricter`` (times "be stricter" was pressed) and ``floor`` (the
    # closest paper they called not close, in millionths of a cosine) raise its bar; ``best`` (millionths)
    # and ``alerted_at``: its closest alert and its latest, for at most one alert a day unless closer;
    # ``seen_seq``: the newest paper change compared with it. ``watch_alerts``: each (watch, paper) alert,
    # once (the key decides), a lease while it is posted (``status`` due, sending, sent).
    Step("m038_watches", (
        CreateTable("watches", (_key("ws"), _key("user_id"), _key("watch_id"), Column("title"),
                                _key("text"), Column("stricter", "integer", not_null=True, default=0),
                                Column("floor", "integer", not_null=True, default=0),
                                Column("best", "integer", not_null=True, default=0),
                                Column("alerted_at"), Column("seen_seq", "bigint", not_null=True, default=0),
                                _key("created_at")),
                    ("ws", "user_id", "watch_id")),
        CreateTable("watch_alerts", (_key("ws"), _key("user_id"), _key("watch_id"), _key("paper_id"),
                                     Column("score", "integer", not_null=True, default=0), _key("status"),
                                     Column("owner"), Column("lease_until"),
                                     Column("attempts", "integer", not_null=True, default=0),
                                     _key("found_at"), Column("sent_at"), Column("channel"),
                                     Column("message_ts"), Column("verdict")),
                    ("ws", "user_id", "watch_id", "paper_id")),
        CreateIndex("watch_alerts", ("status",)),
    )),
    # Issue 43: conference plans. ``paper_sessions``: where and when a paper is presented, as the records of
    # a venue carry it (``session``, ``starts_at`` ISO UTC, ``location``), one row per paper, shared by every
    # workspace as the papers are. ``conference_plans``: the papers a person's plan for a venue holds
    # (``venue``: the venue as they asked for it, lower case; ``place``: its rank) and what they chose,
    # "going" or "skip" (NULL: not yet). ``conference_reminders``: the reminder of a Going paper's session,
    # claimed once (insert … on conflict do nothing) before it is sent, whichever process gets there first.
    Step("m039_conference_plans", (
        CreateTable("paper_sessions", (_key("paper_id"), Column("session"), Column("starts_at"),
                                       Column("location")),
                    ("paper_id",)),
        CreateIndex("paper_sessions", ("starts_at",)),
        CreateTable("conference_plans", (_key("ws"), _key("user_id"), _key("venue"), _key("paper_id"),
                                         Column("place", "integer", not_null=True, default=0),
                                         Column("choice"), Column("added_at"), Column("decided_at")),
                    ("ws", "user_id", "venue", "paper_id")),
        CreateTable("conference_reminders", (_key("ws"), _key("user_id"), _key("paper_id"), _key("starts_at"),
                                             Column("claimed_at")),
                    ("ws", "user_id", "paper_id", "starts_at")),
    )),
    # Issue 43: a channel's weekly recap (`/papers channel recap weekly [DAY] [HH:MM]`): what the workspace
    # liked and saved that week and the papers of the channel's best nobody was shown or rated.
    # ``channel_recaps``: the channel's setting, one row while it is on (``weekday`` 0 = Monday, ``at_time``
    # HH:MM in ``tz``, the timezone of who set it, NULL for UTC; ``since``: when it was set, ISO UTC).
    # ``recap_posts``: the lease of one channel's recap for one week (keyed by the local date it is due):
    # as ``trending_posts``, its key makes the recap go out once a week, whichever process gets there.
    Step("m040_channel_recaps", (
        CreateTable("channel_recaps", (_key("ws"), _key("channel_id"),
                                       Column("weekday", "integer", not_null=True), _key("at_time"),
                                       Column("tz"), Column("since")),
                    primary_key=("ws", "channel_id")),
        CreateTable("recap_posts", (_key("ws"), _key("channel_id"), _key("week"), _key("status"),
                                    Column("owner"), Column("lease_until"), Column("started_at"),
                                    Column("finished_at"), Column("error"),
                                    Column("attempts", "integer", not_null=True, default=0),
                                    Column("message_ts")),
                    primary_key=("ws", "channel_id", "week")),
    )),
]
