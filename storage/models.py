"""Plain records that cross the storage boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# The values below are stored as they are (text, or the feedback's integer): a new one is added here and
# wherever the statuses are decided, never renamed.

#: A digest's status: "sending" while a process holds its lease (storage.leases), then how it ended.
DigestStatus = Literal["sending", "sent", "empty", "failed"]
#: A shared job's status: "running" while a process holds its lease, then how its last run ended.
JobStatus = Literal["running", "done", "failed"]
#: A channel's weekly trending post (storage.channel_settings): "posting" while held, then how it ended.
TrendingStatus = Literal["posting", "posted", "empty", "failed"]
#: The kinds of lease (storage.leases.KINDS): whose rows they are.
LeaseKindName = Literal["digest", "job", "trending", "recap"]
#: How a lease was got (Store.take_lease): a row made now, or one taken over; None when not got.
LeaseTaken = Literal["new", "taken"]
#: What leased work is set to when it ends (Store.finish_lease): a digest's, a job's or a trending post's.
LeaseEnd = DigestStatus | JobStatus | TrendingStatus
#: A library import's status (storage.library_imports): "running" while one request reads the file, then
#: how it ended ("refused": too big, another kind, or no library export; "failed": it may be tried again).
LibraryImportStatus = Literal["running", "done", "refused", "failed"]
#: A paper's summary by a model (storage.summaries): "claimed" while asked for (or waiting for its retry),
#: then "ok" (checked: it may be shown), "rejected" (the check refused it) or "failed" (no usable answer).
SummaryStatus = Literal["claimed", "ok", "rejected", "failed"]
#: A feedback's value: a like (+1) or a dislike (-1).
FeedbackValue = Literal[1, -1]
#: What an inbox item carries out: a slash command, an event, or a click (an action).
InboxKind = Literal["command", "event", "action"]
#: Where an inbox item is: waiting to be claimed (or retried), claimed, carried out, given up.
InboxStatus = Literal["waiting", "running", "done", "failed"]


@dataclass(frozen=True)
class PaperSession:
    """Where and when a paper is presented at its venue (issue 43), as its records say: the session's
    name, its start as ISO UTC text, the room or poster board; each may be missing."""

    session: str | None = None
    starts_at: str | None = None
    location: str | None = None


@dataclass
class Paper:
    """One paper as paperbot knows it.

    ``id`` is the stable key. ``arxiv_id`` (without version) ties together the
    versions and sources of one arXiv paper; ``arxiv_version`` lets the newest
    text win. ``doi`` is bare and lower case ("10.1145/3292500.3330701").
    """

    id: str
    abstract: str
    title: str = ""
    authors: list[str] = field(default_factory=list)
    url: str | None = None
    venue: str | None = None
    published: str | None = None
    categories: list[str] = field(default_factory=list)
    arxiv_id: str | None = None
    arxiv_version: int | None = None
    doi: str | None = None
    #: The abstract's sentence stating the contribution, and the one stating its main finding, as the
    #: abstract has them (None: none, or not computed yet); computed at ingest (``bot/text/highlights.py``).
    highlight: str | None = None
    result: str | None = None
    #: The pages of the records merged into this paper from other sources (its OpenReview forum, its PubMed
    #: page, …), oldest first: filled when papers are read by id (``get_papers``), for the links shown.
    other_urls: list[str] = field(default_factory=list, compare=False)
    #: Where and when the paper is presented, when a record read from a file says (issue 43): stored apart
    #: (``paper_sessions``) by the ingest, never read back into a Paper.
    session: PaperSession | None = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The text the recommender reads: title and abstract."""
        return f"{self.title}. {self.abstract}" if self.title else self.abstract


@dataclass
class Person:
    """Someone who uses paperbot: their schedule and timezone. Topics and feedback are kept apart."""

    user_id: str
    tz: str | None = None
    digest_time: str | None = None  # "HH:MM" in ``tz``
    digest_enabled: bool = False
    digest_since: str | None = None  # ISO UTC: when the schedule was last set
    digest_weekday: int | None = None  # a weekly digest's day (0 = Monday); None: daily
    author_picks: int | None = None  # followed authors' new papers a digest holds; None: the default
    digest_compact: bool = False  # the digest as one message (a header, then each paper), not one a paper
    digest_quiet: bool = False  # no word on a day nothing new matched (by default they are told)
    highlights_off: bool = False  # papers without their highlights (the start of the abstract instead)
    shares_off: bool = False  # paper links they post in channels don't count as interest
    suggest: bool = False  # colleagues may suggest them papers ("Who should read this?")
    followups_off: bool = False  # never told what became of the papers they saved or liked (issue 42)


@dataclass
class DigestRecord:
    """One person's digest for one local day: the claim that makes it go out once.

    ``status`` is "sending" while some process (``owner``, until ``lease_until``) is on it, then "sent",
    "empty" (nothing worth sending) or "failed" (the person could not be reached). ``papers`` are the
    ids chosen, in order (None until chosen); ``failures`` counts failed attempts per paper.
    """

    user_id: str
    local_date: str
    status: DigestStatus
    owner: str | None = None
    lease_until: str | None = None
    papers: list[str] | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    header_ts: str | None = None
    failures: dict[str, int] = field(default_factory=dict)
    attempts: int = 0
    outages: int = 0  # runs cut short by a Slack outage (they set the backoff)
    error: str | None = None
    started_at: str | None = None
    finished_at: str | None = None


@dataclass
class JobRecord:
    """The last run of a shared job (the daily feed ingest, a refit): for which UTC ``day``, by whom, how
    it ended. A lease (:mod:`storage.leases`): while "running", ``lease_until`` is how long ``owner``
    holds it; once "done" or "failed", from when it may run again (None: whenever asked)."""

    name: str
    day: str
    status: JobStatus
    owner: str | None = None
    lease_until: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    error: str | None = None


@dataclass
class Feedback:
    """A like (+1) or dislike (-1) of one paper, with when it was given (ISO UTC)."""

    paper_id: str
    value: FeedbackValue
    created_at: str


@dataclass(frozen=True)
class PaperEvent:
    """Something an ingest found happened to a paper (issue 42): its ``kind`` ("version", "accepted",
    "doi", "code", "withdrawn"), what it says (``detail``: the venue, the DOI, the link…) and when it
    was found (ISO UTC)."""

    paper_id: str
    kind: str
    detail: str
    found_at: str | None = None


@dataclass
class UpsertCounts:
    """What an ingest did to the papers table."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class WorkspaceSummary:
    """One workspace the database serves: ``ws`` is its key (the team id, or the enterprise id of an
    org-wide install; "" for rows not assigned to one yet). The installation fields come from its latest
    saved installation (None, and False, without one); ``people`` counts the people paperbot knows there;
    ``last_digest_at`` is when its latest finished digest ended (ISO UTC), None before any; ``social``:
    whether its paper messages say how many people there saved the paper."""

    ws: str
    team_id: str | None
    enterprise_id: str | None
    is_enterprise_install: bool
    installed_at: str | None
    people: int
    last_digest_at: str | None
    social: bool = True


@dataclass(frozen=True)
class StoredInstallation:
    """One installation row as stored: its workspace key ``ws``, ``installer_id`` (the installing user;
    "" for none) and ``data``, what the caller saved there (encrypted by it, never read here)."""

    ws: str
    installer_id: str
    data: str


@dataclass(frozen=True)
class SavedPaper:
    """A paper on a person's reading list, and when they saved it (ISO UTC)."""

    paper_id: str
    saved_at: str


@dataclass
class SharedPaper:
    """A paper whose link a person posted in a channel, and when (ISO UTC)."""

    paper_id: str
    shared_at: str


@dataclass(frozen=True)
class InboxEntry:
    """A piece of work acknowledged to Slack and not yet carried out: ``key`` (the request's idempotency
    key, unique in workspace ``ws``), its ``kind``, its ``subject`` (the person or channel whose work it
    is: their items run in arrival order), ``payload`` (text, typically JSON: what carrying it out needs),
    when it was received (ISO UTC), and ``taker``, the process that received it and will carry it out
    ("" for none): while it lives, others leave the entry to it."""

    ws: str
    key: str
    kind: InboxKind
    subject: str
    payload: str
    received_at: str
    taker: str = ""


@dataclass(frozen=True)
class InboxItem:
    """An inbox row: its entry, its arrival number ``seq``, and where its lease stands."""

    entry: InboxEntry
    seq: int
    status: InboxStatus
    owner: str | None
    lease_until: str | None
    attempts: int
    error: str | None = None


@dataclass(frozen=True)
class LibraryImport:
    """One library export a person shared (Slack's file id), read once: its status, when it started and
    ended (ISO UTC), the reply's ``counts`` (entries read, matched, added, liked, skipped by reason) and,
    when it failed, why (for the log)."""

    user_id: str
    file_id: str
    status: LibraryImportStatus
    started_at: str
    finished_at: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class SummaryRecord:
    """A paper's summary by ``model`` as stored (storage.summaries): its status (:data:`SummaryStatus`),
    the text (an "ok" or "rejected" one's), why it was refused (``reason``, the check's code) or failed
    (``error``), the fingerprint of the title and abstract it was asked from (``source``), and when it was
    finished (ISO UTC)."""

    paper_id: str
    model: str
    status: SummaryStatus
    text: str | None = None
    reason: str | None = None
    source: str | None = None
    error: str | None = None
    attempts: int = 0
    finished_at: str | None = None


@dataclass(frozen=True)
class Watch:
    """A private project description watched for close papers (issue 43): whose (a person or a channel,
    in workspace ``ws``), its title and text, how much stricter its owner asked it to be (``stricter``
    times, and ``floor``: the closest paper they called not close), its closest alert (``best``) and
    latest (``alerted_at``), and the newest paper change compared with it (``seen_seq``). Scores are
    cosines in millionths."""

    ws: str
    user_id: str
    watch_id: str
    title: str | None
    text: str
    stricter: int
    floor: int
    best: int
    alerted_at: str | None
    seen_seq: int
    created_at: str


@dataclass(frozen=True)
class WatchAlert:
    """A paper that came too close to a watch: once per watch and paper. ``status``: "due" (to be posted),
    "sending" (held by ``owner`` until ``lease_until``), "sent" (``channel``, ``message_ts``); ``verdict``:
    what its owner said of it ("close", "not_close"), if anything; ``attempts``: posts begun."""

    ws: str
    user_id: str
    watch_id: str
    paper_id: str
    score: int
    status: str
    attempts: int
    found_at: str
    channel: str | None = None
    message_ts: str | None = None
    verdict: str | None = None
