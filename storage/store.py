"""The store's one declared interface: :class:`Store`, a :class:`typing.Protocol` that both backends
(:class:`storage.sqlite.SqliteStore`, :class:`storage.postgres.PostgresStore`) implement, and that the bot
types against. Every public method's contract is written here, once; a backend says only how it keeps it.

Timestamps are ISO UTC text; a person-level method reads and writes the rows of the view's workspace
(:attr:`Store.workspace`); papers, saved models, jobs, installations and OAuth states are shared by every
view. Errors are storage's own (:mod:`storage.errors`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol, Self

from storage.models import (
    DigestRecord,
    DigestStatus,
    Feedback,
    InboxEntry,
    InboxItem,
    JobRecord,
    JobStatus,
    LeaseEnd,
    LeaseKindName,
    LeaseTaken,
    LibraryImport,
    LibraryImportStatus,
    Paper,
    Person,
    SavedPaper,
    StoredInstallation,
    UpsertCounts,
    WorkspaceSummary,
)

if TYPE_CHECKING:
    from storage.channel_settings import ChannelRecord, TrendingRecord
    from storage.polls import PollRecord
    from storage.snapshot import PersonSnapshot, PersonView


class Store(Protocol):
    """Papers, people, topics, feedback, what was shown, digests and saved models in one database, which
    may serve many Slack workspaces: :meth:`for_workspace` gives the view of one, whose person-level
    methods read and write only that workspace's rows. A store as opened is the view of workspace ""
    (rows not assigned to one yet)."""

    #: What errors and logs name the database by: the SQLite file's path, the PostgreSQL URL without its
    #: password.
    path: str

    @property
    def local_file(self) -> str | None:
        """The database's file, when it is one file on this machine with one writer at a time (SQLite;
        None for PostgreSQL and an in-memory database): what must not wait on its write lock is written
        beside it."""
        ...

    # -- workspaces ------------------------------------------------------------------------------

    @property
    def workspace(self) -> str:
        """The workspace this view's person-level methods read and write ("" for the opened store)."""
        ...

    def for_workspace(self, ws: str) -> Self:
        """The view of workspace ``ws`` (a team id, or the enterprise id of an org install): the same
        database, connections and thread's open transaction, nothing opened anew (so :meth:`dispose`
        of any view closes them for all)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group one use case's writes in one transaction, held by this thread until the end; nested
        levels are savepoints. SQLite takes the write lock at once (BEGIN IMMEDIATE); PostgreSQL locks
        nothing more than the rows written."""
        ...

    def close(self) -> None:
        """Close this thread's connection (on PostgreSQL, where no connection is held outside a
        transaction, nothing); :meth:`dispose` closes them all."""
        ...

    def dispose(self) -> None:
        """Close every connection of the store, for every thread and view; it can't be used afterwards."""
        ...

    # -- papers ----------------------------------------------------------------------------------

    def upsert_papers(self, papers: Iterable[Paper]) -> UpsertCounts:
        """Add new papers and update known ones, in one transaction.

        A paper is known by its id or any id it was known by, its arXiv id across versions, its DOI, or
        its normalised title with an author surname in common (:mod:`storage.merging`); a known paper
        keeps its id, the others it had become aliases. An older arXiv version never overwrites a newer
        one. A record that matches several stored papers merges them, what people did with them moving
        to the one kept."""
        ...

    def max_paper_seq(self) -> int:
        """The change counter of the newest paper change; 0 for an empty store."""
        ...

    def count_papers(self) -> int:
        """How many papers are stored."""
        ...

    def newest_paper_added(self) -> str | None:
        """When the newest paper was first stored (ISO UTC; an update of a known paper is no new paper),
        of every workspace's; None with no papers. An index's one row: cheap enough for every scrape."""
        ...

    def get_papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        """The papers with these ids, by the id asked for; an id a paper was once known by (merged into
        another) gives that paper, with its own id; unknown ids are left out."""
        ...

    def get_paper(self, paper_id: str) -> Paper | None:
        """One paper by id, or None."""
        ...

    def find_paper_by_arxiv_id(self, arxiv_id: str) -> Paper | None:
        """The paper with this arXiv id (no version), or None."""
        ...

    def find_paper_by_url(self, url: str) -> Paper | None:
        """The paper with exactly this URL (or that a paper merged into it had), or None."""
        ...

    def find_paper_by_doi(self, doi: str) -> Paper | None:
        """The paper with this DOI, however it is written (``doi:``, ``https://doi.org/``, any case),
        or None."""
        ...

    def match_papers(self, papers: Sequence[Paper]) -> list[str | None]:
        """For each of ``papers``, the id of the stored paper it is the same paper as (the one
        :meth:`upsert_papers` would merge it into: by id or alias, arXiv id, DOI, or normalised title
        with an author surname in common), or None; nothing is written."""
        ...

    def papers_merged_since(self, seq: int) -> list[str]:
        """The ids merged into other papers (or recorded as another paper's) after change counter
        ``seq``: a running index drops them (the paper they name is among :meth:`papers_changed_since`)."""
        ...

    def papers_changed_since(self, seq: int) -> Iterator[tuple[int, Paper]]:
        """Papers added or updated after change counter ``seq``, oldest change first."""
        ...

    def paper_dates(self) -> dict[str, str | None]:
        """Each paper's published date (or, failing that, when it was added), by id."""
        ...

    # -- people and topics -----------------------------------------------------------------------

    def get_person(self, user_id: str) -> Person | None:
        """The person, or None if paperbot has never heard of them."""
        ...

    def ensure_person(self, user_id: str) -> Person:
        """The person, created with no schedule if new."""
        ...

    def list_people(self) -> list[Person]:
        """Everyone paperbot knows."""
        ...

    def set_digest_schedule(self, user_id: str, digest_time: str | None, enabled: bool,
                            since: str | None = None) -> None:
        """Set (or clear) a person's local digest time and whether digests are on, as of ``since``
        (ISO UTC, default now)."""
        ...

    def set_timezone(self, user_id: str, tz: str | None) -> None:
        """Remember a person's IANA timezone name."""
        ...

    def set_person_settings(self, user_id: str, **settings: object) -> None:
        """Set settings of a person (created if new) by their :class:`Person` field names, e.g.
        ``digest_weekday=2``: a new per-person setting is its column and its field, written and read
        with no code of its own. ValueError for a name that is not a setting of :class:`Person`."""
        ...

    def get_topics(self, user_id: str) -> list[str]:
        """A person's topics, oldest first."""
        ...

    def add_topics(self, user_id: str, topics: Iterable[str]) -> list[str]:
        """Add topics; returns those that were new (case-insensitive)."""
        ...

    def hold_person(self, user_id: str) -> AbstractContextManager[None]:
        """Hold off every other process's ``hold_person`` for this person until the block ends: for
        work that spans many transactions and Slack calls (a recommendation or digest being delivered,
        so two never pick the same papers). A process that dies loses its hold. Waits as long as the
        holder takes."""
        ...

    def lock_person(self, user_id: str) -> None:
        """Serialise this transaction with every other that locks the same person, in any process,
        until it ends (call it first inside :meth:`transaction`), so reading what they have and writing
        what follows from it are one step."""
        ...

    def record_home_opened(self, user_id: str) -> bool:
        """Record that the person has opened paperbot's Home tab; True the first time (a second call, from
        any process, even at the same moment, writes nothing and returns False)."""
        ...

    def opened_home(self, user_id: str) -> bool:
        """Whether the person has opened Home since they were first known (or last forgotten): a change
        to what it shows is published only to them, since Home is published each time it is opened."""
        ...

    def remove_topic(self, user_id: str, topic: str) -> list[str]:
        """Remove a topic (case-insensitive); returns the stored spellings removed."""
        ...

    def remove_all_topics(self, user_id: str) -> int:
        """Remove every topic of a person; returns how many there were."""
        ...

    # -- feedback --------------------------------------------------------------------------------

    def set_feedback(self, user_id: str, paper_id: str, value: int) -> None:
        """Record a like (+1) or dislike (-1), replacing any earlier one for that paper."""
        ...

    def remove_feedback(self, user_id: str, paper_id: str, value: int | None = None) -> bool:
        """Take feedback back; with ``value``, only if it is that value. True if something was removed."""
        ...

    def likes_by_person(self) -> list[list[str]]:
        """Every person's liked paper ids (one list a person) in this workspace: what people with similar
        taste liked (colleagues' likes never cross workspaces)."""
        ...

    def feedback_version(self) -> int:
        """A number that changes whenever anyone's feedback in this workspace changes (a trigger counts
        every write in the workspace's own counter, in the writer's transaction, so the number and the
        feedback become visible together)."""
        ...

    def get_feedback(self, user_id: str) -> list[Feedback]:
        """A person's likes and dislikes, oldest first."""
        ...

    # -- what was shown --------------------------------------------------------------------------

    def mark_shown(self, user_id: str, paper_id: str, reason: str = "", channel: str | None = None,
                   message_ts: str | None = None) -> None:
        """Remember that a paper was shown to a person (and, from Slack, in which message)."""
        ...

    def shown_paper_ids(self, user_id: str) -> set[str]:
        """Every paper ever shown to a person."""
        ...

    def paper_for_message(self, channel: str, message_ts: str) -> tuple[str, str] | None:
        """(user_id, paper_id) of the paper posted as this Slack message in this workspace, or None."""
        ...

    def papers_on_message(self, channel: str, message_ts: str) -> list[tuple[str, str]]:
        """(user_id, paper_id) of every paper posted as this Slack message in this workspace (several
        for a compact digest), in no particular order; [] for none."""
        ...

    def shown_reason(self, user_id: str, paper_id: str) -> str | None:
        """Why a paper shown to a person was picked (as its message says), or None if never shown."""
        ...

    # -- the reading list ------------------------------------------------------------------------

    def save_paper(self, user_id: str, paper_id: str) -> bool:
        """Put a paper on a person's reading list (a save of its own: no like or dislike comes with it).
        True if it was not there yet (a second save, even one at the same time, changes nothing)."""
        ...

    def unsave_paper(self, user_id: str, paper_id: str) -> bool:
        """Take a paper off the reading list (only the save: feedback stays); False if it was not on it."""
        ...

    def saved_papers(self, user_id: str) -> list[SavedPaper]:
        """A person's reading list, newest first."""
        ...

    def saved_paper_ids(self, user_id: str) -> set[str]:
        """Every paper on a person's reading list."""
        ...

    def saved_page(self, user_id: str, limit: int, offset: int = 0) -> list[SavedPaper]:
        """At most ``limit`` papers of a person's reading list, newest first, after the first ``offset``;
        papers no longer stored are left out (as :meth:`count_saved` leaves them out)."""
        ...

    def count_saved(self, user_id: str) -> int:
        """How many papers a person's reading list holds (of papers still stored)."""
        ...

    def liked_or_saved_since(self, since: str, limit: int) -> list[tuple[str, int, int]]:
        """The papers people of this workspace liked or saved since ``since`` (ISO UTC): (paper id, how
        many liked it, how many saved it without liking or disliking it), most-liked first, then
        most-saved, then the latest; at most ``limit``. Channels count for nothing. Never who."""
        ...

    # -- suggestions ("Who should read this?") ----------------------------------------------------

    def open_to_suggestion(self, paper_id: str, asker: str,
                           among: Sequence[str] | None = None) -> list[str]:
        """The people of this workspace a colleague may suggest paper ``paper_id`` (its stored id) to,
        by id: those who opted in (``Person.suggest``), neither ``asker`` nor a channel, who were never
        shown, never saved, never liked or disliked it and were never suggested it. ``among``: of those
        people only (None: of everyone)."""
        ...

    def record_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        """Record that ``by_user`` suggested paper ``paper_id`` to ``user_id``: True when it is the first
        suggestion of it to them (any asker's, even one at the same moment), False when one was made."""
        ...

    def drop_suggestion(self, user_id: str, paper_id: str, by_user: str) -> bool:
        """Take back ``by_user``'s suggestion of the paper to ``user_id`` (its message never reached
        them), so it may be made again; False when there was none of theirs."""
        ...

    def suggested_by(self, user_id: str, paper_id: str) -> str | None:
        """Who suggested the paper to ``user_id`` (None: nobody, or someone since forgotten)."""
        ...

    def shown_saved_counts(self, paper_ids: Sequence[str]) -> dict[str, int]:
        """How many people of this workspace saved each of ``paper_ids`` (a paper none saved is left out):
        what its paper messages may say, so nothing at all where the workspace turned these counts off
        (:meth:`set_social_counts`). Never who; one statement however many papers."""
        ...

    def person_rows(self, user_id: str) -> dict[str, list[dict]]:
        """Every row about a person, per personal table, and every row of the workspace's naming them (an
        installation they made, a channel they set up: :data:`~storage.tables.NAMING_COLUMNS`), each row
        its copied columns but an installation's sealed tokens: what they may ask to see of themselves."""
        ...

    # -- saved models ----------------------------------------------------------------------------

    def save_artifact(self, name: str, data: bytes) -> int:
        """Store a named blob (a fitted model); returns its new version number (two processes saving at
        once get two versions)."""
        ...

    def artifact_version(self, name: str) -> int:
        """The version of a named blob; 0 when there is none."""
        ...

    def load_artifact(self, name: str) -> tuple[int, bytes | None] | None:
        """(version, data) of a named blob, or None when there is none. ``data`` is whatever the row
        holds, as bytes (on SQLite, text as its UTF-8, a number as its digits), or None for NULL:
        judging whether it is usable is the caller's business."""
        ...

    # -- forgetting ------------------------------------------------------------------------------

    def forget_person(self, user_id: str) -> dict[str, int]:
        """Delete every row about a person from every table, and take their id out of the rows of the
        workspace's that name them (an installation keeps its token under the installer id "", a
        channel its settings with ``set_by`` NULL); returns rows deleted or cleared per table. Holds the
        person's lock (:meth:`lock_person`): a write for them under way elsewhere (a paper recorded as
        shown, a like) finishes first, or waits and then finds them gone, never adding a row after.
        Then :meth:`scrub_log`, so nothing of the person lingers where it can reach."""
        ...

    def scrub_log(self) -> None:
        """Leave rows deleted before now nowhere a reader of the database could find them: SQLite folds
        its write-ahead log into the file and truncates it (waiting for readers, up to the busy
        timeout); PostgreSQL vacuums the tables holding people's rows (outside a transaction only; inside
        one, autovacuum's later pass does it), so their dead versions leave the tables and indexes. What
        the server keeps beyond that (free space not yet reused, WAL, backups) is in docs/operations.md."""
        ...

    def rows_about(self, user_id: str) -> dict[str, int]:
        """How many rows each personal table holds about a person, and each table naming them (see
        :meth:`person_rows`), for checks and `forget`."""
        ...

    # -- whole workspaces ------------------------------------------------------------------------

    def adopt_workspace(self, ws: str) -> int:
        """Move every row of workspace "" (a database from before workspaces) into ``ws``, in one
        transaction; returns how many rows moved (0 the second time). Where ``ws`` has a row with the
        same key already, its own is kept, a person's taking from the old what it lacks
        (:mod:`storage.workspaces`). A row written to "" meanwhile is either moved or left for next
        time, never lost; two adoptions at once take turns."""
        ...

    def delete_workspace(self, ws: str) -> dict[str, int]:
        """Delete every row of workspace ``ws`` from every table holding workspace rows, its
        installations included, in one transaction; returns rows deleted per table. Like
        :meth:`forget_person`, nothing of it is left in the file or its log."""
        ...

    def workspaces(self) -> list[WorkspaceSummary]:
        """Every workspace with an installation or a person, by key: its latest installation, how many
        people, when its latest digest finished, and whether it shows saved counts."""
        ...

    def social_counts_on(self) -> bool:
        """Whether this workspace's paper messages say how many people here saved the paper (on unless
        :meth:`set_social_counts` turned it off)."""
        ...

    def set_social_counts(self, on: bool, at: str) -> None:
        """Turn this workspace's saved counts on or off; ``at``: when (ISO UTC)."""
        ...

    # -- installations and OAuth states (shared) -------------------------------------------------

    def save_installation(self, ws: str, enterprise_id: str | None, team_id: str | None, user_id: str,
                          is_enterprise_install: bool, data: str, at: str) -> None:
        """Keep the installation of workspace ``ws`` by ``user_id`` (the installing user; "" allowed):
        ``data`` is whatever the caller saves, encrypted by it, never read here; ``at`` is when (ISO
        UTC). Replaces that user's earlier one; the latest saved is the workspace's
        (:meth:`find_installation` without a user)."""
        ...

    def find_installation(self, ws: str, user_id: str | None = None) -> str | None:
        """The data of ``user_id``'s installation in ``ws``, or (``user_id`` None) of the latest saved
        there; None without one."""
        ...

    def delete_installations(self, ws: str, user_id: str | None = None) -> int:
        """Delete ``user_id``'s installation in ``ws``, or (None) all of them; returns how many."""
        ...

    def installation_keys(self) -> list[str]:
        """Every workspace key with an installation, in order."""
        ...

    def installations(self) -> list[StoredInstallation]:
        """Every installation row (each installer's in each workspace), by workspace key and installer."""
        ...

    def replace_installation(self, ws: str, user_id: str, expected: str, data: str) -> bool:
        """Replace the data of ``user_id``'s installation in ``ws`` by ``data``, only while it is still
        ``expected`` (what the caller read): True if replaced. Its time and place in the order of saves
        stay, so the latest saved stays the latest; a save or a replacement made meanwhile is never
        overwritten, and of racing replacements of the same data exactly one wins."""
        ...

    def issue_oauth_state(self, state: str, expires_at: str) -> None:
        """Remember an OAuth state handed out, usable once until ``expires_at`` (ISO UTC)."""
        ...

    def consume_oauth_state(self, state: str, now: str) -> bool:
        """Use up ``state``: True exactly once for a state issued and unexpired at ``now`` (ISO UTC),
        however many consume it at once. Expired states are dropped on the way."""
        ...

    # -- Slack -----------------------------------------------------------------------------------

    def claim_once(self, key: str, keep: timedelta) -> bool:
        """Claim ``key`` in this workspace: True the first time, False while an earlier claim of it is
        kept (``keep`` from now); of racing claims of the same key exactly one wins. Expired keys (of
        every workspace) are dropped on the way."""
        ...

    def timezone_checked_at(self, user_id: str) -> str | None:
        """When a person's timezone was last read from Slack (ISO UTC), or None."""
        ...

    def record_timezone(self, user_id: str, tz: str | None) -> bool:
        """Remember a known person's IANA timezone as just read from Slack. Never creates a person: an
        answer from Slack arriving after they asked to be forgotten writes nothing. True if recorded."""
        ...

    # -- leases ----------------------------------------------------------------------------------

    def take_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str, now: str,
                   dead: Iterable[str] = (), early: bool = False,
                   fresh: Mapping[str, object] | None = None) -> LeaseTaken | None:
        """Take the work ``kind`` (``leases.DIGEST``, ``leases.JOB``) keyed ``key`` for ``owner`` until
        ``until`` (ISO UTC), as of ``now``: "new" when no row was there (``fresh`` columns written with
        it), "taken" when taken over (its lease ran out, its owner is in ``dead``, or, with ``early``,
        it was given back without an owner; a job's next run also starts so), None when someone else
        holds it or it is finished."""
        ...

    def renew_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, until: str) -> bool:
        """Extend ``owner``'s lease to ``until``. False if it is no longer theirs (they must stop)."""
        ...

    def release_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, retry_at: str,
                      disown: bool = False, count: str | None = None, error: str | None = None) -> int | None:
        """Give ``owner``'s work back, to be taken again from ``retry_at`` (ISO UTC); ``disown``: by
        anyone, ``owner`` included; ``count``: a column counting such runs, one more; ``error``: why.
        Returns the counted column's new value (0 when counting nothing), None if it was not theirs."""
        ...

    def finish_lease(self, kind: LeaseKindName, key: Sequence[str], owner: str, status: LeaseEnd, at: str,
                     error: str | None = None, again_at: str | None = None) -> bool:
        """End ``owner``'s work as ``status`` at ``at``; a job may run again from ``again_at`` (ISO UTC;
        None: whenever asked). False if it was not theirs."""
        ...

    # -- daily digests ---------------------------------------------------------------------------

    def people_with_digests(self) -> list[Person]:
        """Everyone whose daily digest is on, with a time set."""
        ...

    def digest_statuses(self, since_date: str) -> dict[tuple[str, str], str]:
        """The status of every digest of local day ``since_date`` (YYYY-MM-DD) or later, by (user, day)."""
        ...

    def failed_digests(self, since_date: str, finished_since: str) -> list[DigestRecord]:
        """This workspace's digests of local days from ``since_date`` on that ended "failed" at
        ``finished_since`` (ISO UTC) or later."""
        ...

    def get_digest(self, user_id: str, local_date: str) -> DigestRecord | None:
        """One person's digest for one local day, or None if none was started."""
        ...

    def get_digests(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], DigestRecord]:
        """:meth:`get_digest` for each (user id, local day) of ``keys``, in one statement: those started,
        by key."""
        ...

    def start_digest(self, user_id: str, local_date: str, owner: str, lease_until: str, at: str) -> bool:
        """Claim a day's digest for ``owner`` (status "sending"). True if claimed; False, never an error,
        when the row exists already (someone else claimed it first: it owns the digest)."""
        ...

    def start_digests(self, keys: Iterable[tuple[str, str]], owner: str, lease_until: str,
                      at: str) -> set[tuple[str, str]]:
        """Claim for ``owner``, in one statement, each day's digest keyed (user id, local date) in ``keys``
        that has no row yet, as :meth:`start_digest` claims one (each is a lease of its own); returns
        the keys claimed. Those with a row already are left as they are (take them with
        :meth:`take_lease`, which decides whether they can be taken over)."""
        ...

    def take_over_digest(self, user_id: str, local_date: str, owner: str, lease_until: str) -> None:
        """Hand a "sending" digest to ``owner`` whoever holds it (a tool's or a test's override; claims
        take over with :meth:`take_lease`, which checks that the lease ran out or its owner died)."""
        ...

    def renew_digest_lease(self, user_id: str, local_date: str, owner: str, lease_until: str) -> bool:
        """Extend ``owner``'s claim. False if it is no longer theirs (then they must stop)."""
        ...

    def record_posted(self, user_id: str, local_date: str, owner: str, paper_id: str, reason: str,
                      channel: str | None, message_ts: str | None, lease_until: str,
                      finished_at: str | None = None) -> bool:
        """A paper of ``owner``'s digest went out: renew the lease to ``lease_until`` (or, with
        ``finished_at``, end the digest "sent" then) and remember the paper as shown, in one step.
        False, and nothing written, if the digest is no longer ``owner``'s."""
        ...

    def record_digest_failure(self, user_id: str, local_date: str, owner: str, paper_id: str) -> int:
        """Count one more failed attempt to post a paper of a digest; returns that paper's count."""
        ...

    def release_digest(self, user_id: str, local_date: str, owner: str, retry_at: str) -> int:
        """Give a digest with something still to send back, to be retried from ``retry_at`` (ISO UTC)
        by any process; returns how many runs of it have ended so."""
        ...

    def unfinished_digests(self, since_date: str) -> list[DigestRecord]:
        """Every digest of local day ``since_date`` (YYYY-MM-DD) or later still "sending" (under way, or
        waiting for its retry), oldest day first."""
        ...

    def postpone_digest(self, user_id: str, local_date: str, owner: str, retry_at: str, error: str) -> bool:
        """Give a digest back because Slack was unavailable: nobody owns it until ``retry_at`` (ISO
        UTC), then anyone may take it; counts one more outage, not an attempt. False if not ``owner``'s."""
        ...

    def finish_digest(self, user_id: str, local_date: str, owner: str, status: DigestStatus, at: str,
                      error: str | None = None) -> bool:
        """End a digest as "sent", "empty" or "failed"; it is never tried again that day."""
        ...

    def drop_digest(self, user_id: str, local_date: str, owner: str) -> None:
        """Withdraw ``owner``'s claim entirely, as if the digest had never been started."""
        ...

    def shown_among(self, user_id: str, paper_ids: Iterable[str]) -> set[str]:
        """Those of ``paper_ids`` already shown to a person (an id merged into a paper shown, too)."""
        ...

    def recent_paper_ids(self, since: str) -> set[str]:
        """Papers published (or, without a date, added) on or after ``since`` (YYYY-MM-DD)."""
        ...

    def dm_channel(self, user_id: str) -> str | None:
        """The DM channel last opened with a person, or None."""
        ...

    def remember_dm_channel(self, user_id: str, channel: str) -> None:
        """Keep the DM channel opened with a person (one statement: callers need no transaction)."""
        ...

    def forget_dm_channel(self, channel: str) -> None:
        """Stop using a DM channel Slack no longer accepts (it is opened again next time)."""
        ...

    # -- daily jobs ------------------------------------------------------------------------------

    def get_job(self, name: str) -> JobRecord | None:
        """The last run of a daily job, or None if it never ran."""
        ...

    def start_job(self, name: str, day: str, owner: str, lease_until: str, at: str) -> None:
        """Start a daily job's run for UTC ``day`` whoever holds it (a tool's or a test's override;
        claims use :meth:`take_lease` with ``leases.JOB``)."""
        ...

    def finish_job(self, name: str, owner: str, status: JobStatus, at: str, error: str | None = None,
                   again_at: str | None = None) -> bool:
        """End ``owner``'s run of a daily job as "done" or "failed"; it may run again from ``again_at``
        (ISO UTC; None: whenever asked). False if the run was not theirs."""
        ...

    # -- copying (paperbot db copy) --------------------------------------------------------------

    def table_counts(self) -> dict[str, int]:
        """How many rows each of paperbot's tables holds (every table ``paperbot db copy`` copies)."""
        ...

    def export_rows(self, table: str, batch_size: int = 1000) -> Iterator[list[dict]]:
        """Every row of ``table`` as a dict of its copied columns (storage.tables), ``batch_size`` at a
        time, in the order another store should insert them."""
        ...

    def import_rows(self, table: str, rows: list[dict]) -> int:
        """Add rows exported by another store (of either backend) to ``table``; returns how many.
        For a copy into an empty database: a row already here is a StorageError. Counters take the
        copied value; the papers change counter never goes below the newest copied ``seq``."""
        ...

    # -- feeds -----------------------------------------------------------------------------------

    def get_feeds(self, user_id: str) -> dict[str, list[str]]:
        """A person's named feeds (not the main one) with their topics, each oldest first."""
        ...

    def add_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Add topics to feed ``feed`` (spelled as stored when it exists); returns those that were new."""
        ...

    def remove_feed(self, user_id: str, feed: str) -> int:
        """Delete feed ``feed`` (its stored spelling) and which papers were picked for it; returns how
        many topics it had."""
        ...

    def remove_feed_topics(self, user_id: str, feed: str, topics: Iterable[str]) -> list[str]:
        """Remove these topics (their stored spellings) from feed ``feed``, keeping which papers were
        picked for it; returns those that were there. A feed left with no topics is gone."""
        ...

    def set_paper_feeds(self, user_id: str, feeds: Mapping[str, str]) -> None:
        """Remember the feed each paper (id -> feed name; "" is the main feed) was picked for."""
        ...

    def paper_feeds(self, user_id: str) -> dict[str, str]:
        """The feed each paper was picked for (paper id -> feed name; "" the main feed)."""
        ...

    # -- followed authors ------------------------------------------------------------------------

    def get_followed_authors(self, user_id: str) -> list[tuple[str, str]]:
        """(match key, name as typed) of every author a person follows, oldest first."""
        ...

    def follow_author(self, user_id: str, key: str, name: str) -> bool:
        """Follow an author known by match ``key``; False when already followed."""
        ...

    def unfollow_author(self, user_id: str, key: str) -> str | None:
        """Stop following the author with match ``key``; the name removed, or None."""
        ...

    # -- muted words -----------------------------------------------------------------------------

    def get_mutes(self, user_id: str) -> list[str]:
        """A person's muted words and phrases (as stored: folded), oldest first."""
        ...

    def add_mutes(self, user_id: str, words: Iterable[str]) -> list[str]:
        """Mute words (already folded); returns those that were new."""
        ...

    def remove_mute(self, user_id: str, word: str) -> bool:
        """Unmute one (folded) word; False when it was not muted."""
        ...

    def remove_all_mutes(self, user_id: str) -> list[str]:
        """Unmute everything; returns the words that were muted."""
        ...

    # -- weekly digests --------------------------------------------------------------------------

    def set_digest_weekday(self, user_id: str, weekday: int | None) -> None:
        """Make a person's digest weekly on ``weekday`` (0 = Monday), or daily with None. The time and
        whether digests are on stay as :meth:`set_digest_schedule` set them."""
        ...

    # -- papers (shared by every workspace) ------------------------------------------------------

    def recent_paper_authors(self, since: str) -> dict[str, tuple[str | None, str]]:
        """(authors as stored (JSON text), date) of the papers published (or, without a date, added) on
        or after ``since`` (YYYY-MM-DD), by paper id."""
        ...

    def papers_containing(self, fragments: Iterable[str]) -> dict[str, str]:
        """Title and abstract (``"title. abstract"``) of every paper whose lowercased title or abstract
        holds one of ``fragments`` (lowercase), by id: a coarse first pass for muted words."""
        ...

    # -- the full-text index ---------------------------------------------------------------------

    def search_text(self, phrases: Sequence[str], limit: int, every: bool = True) -> list[tuple[str, float]]:
        """Up to ``limit`` papers whose title, abstract or authors hold each of ``phrases`` (with
        ``every``; else any of them), best first, as (paper id, score) pairs, higher scores better (BM25
        on SQLite, ``ts_rank`` on PostgreSQL: comparable within one answer only). A phrase is its words
        in order, case and punctuation ignored (``"MeCo"`` and ``"meco"`` alike; ``"reward model"`` as a
        phrase); any text is safe, none is the index's syntax. Every word counts, however rare: the
        index is kept current on every paper written, merged or deleted."""
        ...

    def count_text(self, phrases: Sequence[str], at_most: int, every: bool = True) -> int:
        """How many papers :meth:`search_text` would find for ``phrases``, counted up to ``at_most``
        (cheap whatever the real number: enough to tell a rare word from a common one)."""
        ...

    def text_holders(self, phrases: Sequence[str]) -> dict[str, str]:
        """Title and abstract (``"title. abstract"``) of every paper whose title, abstract or authors
        hold any of ``phrases`` (as :meth:`search_text` reads them), by id, with no limit: the
        candidates for a muted word."""
        ...

    def paper_texts(self, after: str = "", limit: int = 5000) -> list[tuple[str, str]]:
        """Up to ``limit`` papers with an id after ``after``, in id order, as (id, ``"title. abstract"``):
        every paper's text, a page at a time."""
        ...
    # -- one person at once ----------------------------------------------------------------------

    def person_snapshot(self, user_id: str) -> PersonSnapshot:
        """The person's rows that :class:`~storage.snapshot.PersonView` answers from, each part ordered
        as its own method orders it (on PostgreSQL in one statement)."""
        ...

    def person_view(self, user_id: str) -> PersonView:
        """This store, with its reads of ``user_id`` answered from one snapshot taken now."""
        ...
    # -- a digest's progress marks ----------------------------------------------------------------

    def set_digest_papers(self, user_id: str, local_date: str, owner: str, papers: list[str],
                          reasons: dict[str, str], lease_until: str | None = None) -> bool:
        """Record the papers chosen for a digest (before any is posted), renewing ``owner``'s lease to
        ``lease_until`` in the same step when given. False if ``owner`` lost it."""
        ...

    def record_digest_header(self, user_id: str, local_date: str, owner: str, message_ts: str,
                             lease_until: str | None = None) -> bool:
        """Remember that the digest's header message went out, so it is never posted twice; with
        ``lease_until``, renew the owner's lease to it in the same update."""
        ...
    # -- channels --------------------------------------------------------------------------------

    def add_channel(self, channel_id: str, set_by: str | None = None) -> bool:
        """Keep settings for a channel (``set_by``: who ran the command, kept as the latest); True if
        the channel is new."""
        ...

    def get_channel(self, channel_id: str) -> ChannelRecord | None:
        """A channel's settings, or None for a channel paperbot keeps none for."""
        ...

    def set_trending(self, channel_id: str, on: bool, since: str | None = None) -> bool:
        """Turn a known channel's weekly trending post on (as of ``since``, ISO UTC, default now) or off;
        False for a channel paperbot keeps no settings for."""
        ...

    def trending_channels(self, week: str, on_since: str) -> list[str]:
        """The channels whose trending post is on since ``on_since`` (ISO UTC) or earlier and whose post
        for ``week`` has not ended (none yet, or one still "posting"): who may be due. Whether one is
        taken is the lease's to decide."""
        ...

    def get_trending_post(self, channel_id: str, week: str) -> TrendingRecord | None:
        """The lease of a channel's trending post for ``week``, or None before anyone took it."""
        ...

    def record_trending_message(self, channel_id: str, week: str, owner: str, message_ts: str) -> bool:
        """Remember the message ``owner``'s trending post went out as; False if it is not theirs."""
        ...

    def liked_since(self, since: str, limit: int) -> list[tuple[str, int]]:
        """The papers people of this workspace liked since ``since`` (ISO UTC), most-liked first (then
        the latest liked), at most ``limit``: (paper id, how many people liked it). Never who."""
        ...
    # -- paper vectors ---------------------------------------------------------------------------

    def papers_without_vectors(self, model: str, limit: int = 256) -> list[tuple[str, int, str]]:
        """Up to ``limit`` papers lacking a vector of ``model`` for their current text, as (paper id,
        change number, text as ``Paper.text`` builds it), oldest change first."""
        ...

    def save_paper_vectors(self, model: str, rows: Iterable[tuple[str, int, bytes]]) -> int:
        """Store (paper id, the change number it was made at, vector bytes) rows of ``model``, in one
        transaction; a row for a paper merged away or changed since is dropped. How many were stored."""
        ...

    def paper_vectors(self, model: str, ids: Iterable[str]) -> dict[str, bytes]:
        """The stored vectors of ``model`` of these papers, by id (papers without one are left out)."""
        ...

    def count_paper_vectors(self, model: str) -> int:
        """How many papers have a vector of ``model`` (current or not)."""
        ...

    # -- the inbox (issue 24): acknowledged work, each item carried out once ----------------------
    # Shared by every view: each item names its workspace. Items of one subject run in arrival order.

    def waiting_at_most(self, seconds: float) -> AbstractContextManager[None]:
        """Inside the block, a statement waits at most ``seconds`` for a connection of PostgreSQL's pool
        (else StoreUnavailable), not the pool's own timeout, and at most as long for a lock or for its
        answer (else StoreBusy): for an answer that must come soon. Outside a transaction only (one
        begun earlier keeps its own limits). SQLite has no pool: nothing changes there."""
        ...

    def inbox_put(self, entries: Iterable[InboxEntry], hold: timedelta | None = None) -> list[InboxEntry]:
        """Keep these entries to be carried out, in one transaction, in the order given (their arrival
        order). An entry whose key its workspace holds already is ignored (a request sent again, a
        journal replayed); returns the entries that were new. Each is held by its ``taker`` (see
        :meth:`inbox_release`). With ``hold``, :meth:`inbox_claim` leaves
        each alone until ``hold`` after it was received (the process that took it claims it at once
        with :meth:`inbox_claim_one`; the others only when it didn't)."""
        ...

    def inbox_claim_one(self, ws: str, key: str, owner: str, lease_until: str) -> InboxItem | None:
        """Claim the waiting item keyed ``key`` in ``ws`` for ``owner`` until ``lease_until``, held back or
        not, unless an earlier item of its subject is waiting (it then goes after that one, through
        :meth:`inbox_claim`); None when it is not there, not waiting (claimed, done, failed) or must wait
        for an earlier one."""
        ...

    def inbox_renew_all(self, owner: str, lease_until: str) -> int:
        """Extend every lease ``owner`` holds to ``lease_until``; how many."""
        ...

    def inbox_owners(self) -> list[str]:
        """Who holds items now, running or taken (each owner once), to hand back a dead one's."""
        ...

    def inbox_claim(self, owner: str, lease_until: str, now: str, limit: int) -> list[InboxItem]:
        """Claim up to ``limit`` items for ``owner`` until ``lease_until``, as of ``now``, oldest first:
        waiting ones due and running ones whose lease ran out, but never one whose subject has an earlier
        item waiting or running (so at most one per subject). Each item is claimed by one caller only,
        whatever the number of processes claiming at once; each claim counts an attempt."""
        ...

    def inbox_renew(self, ws: str, key: str, owner: str, lease_until: str) -> bool:
        """Extend ``owner``'s lease of an item; False if it is no longer theirs (they must stop)."""
        ...

    def inbox_done(self, ws: str, key: str, owner: str, at: str | None = None) -> bool:
        """``owner`` carried the item out (at ``at``, now by default); False if it was not theirs."""
        ...

    def inbox_failed(self, ws: str, key: str, owner: str, error: str, retry_at: str | None,
                     at: str | None = None) -> bool:
        """``owner`` failed the item with ``error``: to be claimed again by anyone from ``retry_at``, or,
        without one, failed for good (its subject's later items may then run). False if not theirs."""
        ...

    def inbox_release(self, owner: str) -> int:
        """Hand back every item ``owner`` holds (a stopping or dead process): those it runs and those it
        took and has not claimed yet (an entry's ``taker``), to be claimed at once by anyone; how many."""
        ...

    def inbox_purge(self, finished_before: str) -> int:
        """Delete the items done or failed for good before ``finished_before`` (their keys then no longer
        turn a replay away); how many."""
        ...

    def inbox_pending_count(self) -> int:
        """How many items are waiting or running, in every workspace."""
        ...

    def inbox_item(self, ws: str, key: str) -> InboxItem | None:
        """The item keyed ``key`` in workspace ``ws``, or None."""
        ...

    def inbox_unfinished(self, ws: str, subjects: Iterable[str]) -> set[str]:
        """Those of ``subjects`` (people's or channels' ids) with an item waiting or running in workspace
        ``ws``: requests acknowledged and not yet carried out (or failed for good)."""
        ...

    # -- reading-group polls (issue 27): a channel's, at most one open at a time -----------------

    def start_poll(self, channel_id: str, papers: Sequence[str], at: str) -> str | None:
        """Open a poll in a channel of these papers (ids, in rank order), opened at ``at`` (ISO UTC),
        its message not posted yet: the new poll's id, or None when the channel has an open poll already
        (the database decides: of two opened at once, one is)."""
        ...

    def set_poll_message(self, poll_id: str, message_ts: str) -> bool:
        """Remember the message a poll was posted as; False for a poll that is not there."""
        ...

    def drop_poll(self, poll_id: str) -> bool:
        """Delete a poll and its votes (one whose message could not be posted); False if it was not there."""
        ...

    def get_poll(self, poll_id: str) -> PollRecord | None:
        """A poll of this workspace, open or closed, or None."""
        ...

    def open_poll(self, channel_id: str) -> PollRecord | None:
        """The channel's open poll, or None."""
        ...

    def vote_in_poll(self, poll_id: str, user_id: str, paper_id: str, at: str) -> bool:
        """Record a person's vote for ``paper_id`` in an open poll, replacing any vote of theirs in it,
        and count it in the poll's ``version``; False (nothing written) when the poll is closed or not
        there. A close at the same moment comes wholly before or after the vote."""
        ...

    def poll_vote(self, poll_id: str, user_id: str) -> str | None:
        """The paper a person voted for in a poll, or None."""
        ...

    def poll_counts(self, poll_id: str) -> tuple[int, dict[str, int]]:
        """A poll's ``version`` and its votes per paper id (papers without votes left out), the version
        read first: counts read with an older version are never taken for the latest."""
        ...

    def close_poll(self, channel_id: str, at: str) -> PollRecord | None:
        """Close the channel's open poll at ``at`` (ISO UTC), in one statement: the poll as closed, or
        None when none was open (of two closes at once, one gets it)."""
        ...

    def set_poll_winner(self, poll_id: str, paper_id: str, message_ts: str | None = None) -> bool:
        """Record a closed poll's winner and the message it was posted as; False for no such poll."""
        ...

    # -- library imports -------------------------------------------------------------------------

    def claim_library_import(self, user_id: str, file_id: str, at: str, failed_before: str,
                             running_before: str) -> bool:
        """Claim the reading of a person's shared file ``file_id`` (Slack's id), as "running" since ``at``
        (ISO UTC): True for exactly one of racing claims. A file claimed before is claimed again only when
        its read failed before ``failed_before`` or has been running since before ``running_before``."""
        ...

    def finish_library_import(self, user_id: str, file_id: str, started_at: str,
                              status: LibraryImportStatus, at: str, counts: Mapping[str, int] | None = None,
                              error: str | None = None) -> bool:
        """Say how the read claimed at ``started_at`` ended (not "running"), with the reply's counts or the
        error; False when that claim is no longer the file's (taken over, or forgotten)."""
        ...

    def library_import(self, user_id: str, file_id: str) -> LibraryImport | None:
        """A person's import of file ``file_id``, or None."""
        ...

    # -- alerts ----------------------------------------------------------------------------------

    def get_alerts(self, user_id: str) -> list[tuple[str, str]]:
        """(key, phrase as typed) of a person's alerts, oldest first; ``key`` is the phrase's words as
        the full-text index cuts them (:func:`storage.fulltext.words`), joined by single spaces."""
        ...

    def add_alert(self, user_id: str, key: str, phrase: str) -> bool:
        """Add an alert; False (nothing written) when the person has one with this ``key`` already."""
        ...

    def remove_alert(self, user_id: str, key: str) -> str | None:
        """Remove the person's alert with ``key``; its phrase as typed, or None when there was none."""
        ...

    def new_papers_saying(self, user_id: str, phrases: Sequence[str], before_day: str, first_since: str,
                          oldest: str) -> list[tuple[str, str, str, str]]:
        """(id, title, abstract, added_at) of the papers whose full text (title, abstract or authors, as
        :meth:`search_text` reads it) holds any of ``phrases`` and that were added since the person's
        latest digest of a local day before ``before_day`` (YYYY-MM-DD) began, or since ``first_since``
        (ISO UTC) when they had none, and never before ``oldest`` (ISO UTC). In one statement, whatever
        the number of phrases; the caller checks which phrase each paper holds, and where."""
        ...

    def count_shown_with_reason(self, user_id: str, since: str, prefix: str) -> int:
        """How many papers were shown to a person at ``since`` (ISO UTC) or later with a reason that
        starts with ``prefix`` (compared as text, no pattern)."""
        ...

    # -- arXiv announcements read ----------------------------------------------------------------

    def arxiv_cursor(self, category: str) -> str | None:
        """The arXiv announcement date (YYYY-MM-DD) through which every announcement of ``category`` (as
        arXiv names it: "cs.LG") is stored, or None when it was never read. Shared by every workspace."""
        ...

    def set_arxiv_cursor(self, category: str, announced: str, at: str) -> bool:
        """Note that ``category``'s announcements through ``announced`` (YYYY-MM-DD) are stored, as of
        ``at`` (ISO UTC). It only moves forward: False (nothing written) when the category was read
        through a later date already."""
        ...
