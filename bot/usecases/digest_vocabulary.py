"""The words the digest pipeline and its neighbours share: what time it is (:data:`Clock`), whose process
is alive (:data:`Alive`), how digests reach people (:class:`Courier`, :class:`Posted`), what a digest says
besides its papers, as data the adapter phrases (:class:`DigestHeader`, :class:`NothingMatched`), and what
became of one digest (:class:`Outcome`) and why (:class:`Note`).

A leaf (it imports no use case): the modules of the pipeline (:mod:`bot.usecases.digests.send`,
:mod:`~bot.usecases.digests.run`, …), :mod:`bot.usecases.delivery`, :mod:`bot.usecases.trending` and
the Slack adapter all take these from here rather than from one another.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from storage import StoreBusy, StoreUnavailable

if TYPE_CHECKING:  # for the annotations only: this module imports no use case
    from bot.usecases.followups import Followup
    from bot.usecases.recommend import Recommendation

Clock = Callable[[], datetime]
#: Whether the process an owner id names is alive: True, False (gone), or None (can't tell from here).
Alive = Callable[[str | None], bool | None]


def utc_now() -> datetime:
    """The current moment in UTC: the default clock (tests pass their own)."""
    return datetime.now(UTC)


#: Errors that say the database is away for a while (down, restarting, a connection cut, a lock held
#: too long), not that this digest is at fault: it is given back, uncounted, to go out when it answers.
DATABASE_AWAY = (StoreUnavailable, StoreBusy)


@dataclass(frozen=True)
class DigestHeader:
    """A digest's first message, as data (the adapter phrases it): ``papers`` in it, for local ``day``;
    ``by_feed``: its sections, (feed name, papers) in order; ``extra``: asked for after the day's digest;
    ``weekly``: the person's weekly digest; ``channel``: a channel's own digest, posted in the channel;
    ``compact``: the first line of a compact digest (the header and its papers in one message);
    ``followups``: what became of papers the person (or channel) saved or liked, told with it."""

    papers: int
    day: date
    by_feed: tuple[tuple[str, int], ...] = ()
    extra: bool = False
    weekly: bool = False
    channel: bool = False
    compact: bool = False
    followups: tuple[Followup, ...] = ()


@dataclass(frozen=True)
class NothingMatched:
    """The note to a person whose digest had nothing worth sending (``weekly``: their weekly digest)."""

    weekly: bool = False


#: What a digest says besides its papers, for :attr:`Courier.phrase` to put into words.
Said = DigestHeader | NothingMatched


@dataclass
class Posted:
    """What a DM already holds of a digest: the header's ts, and (channel, ts) per paper id."""

    header_ts: str | None = None
    papers: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class Courier:
    """How digests reach people. The Slack adapter builds one; tests pass their own.

    ``open(user) -> channel``; ``post_text(channel, text) -> ts`` (a digest's header, or a note);
    ``post_paper(channel, rec) -> (channel, ts)``; ``phrase(said) -> text``: the adapter's words for a
    :class:`DigestHeader` or a :class:`NothingMatched` (the use cases say what, never how). Each post
    raises :class:`~bot.errors.Unreachable` when the person can't be reached at all,
    :class:`~bot.errors.Outage` when Slack itself is unavailable (the digest waits for it), and any other
    exception for a failure of that message (counted).
    ``find_posted(channel, since) -> Posted`` (optional): the digest messages posted in ``channel``
    since that moment, so a digest taken over after a crash does not post again what went out
    without being recorded. ``settle``: how long a post the service has received may take to show
    in ``find_posted`` (it is carried out even when its poster died meanwhile).
    ``post_compact(channel, header, recs) -> (channel, ts)`` (optional): a compact digest, the header
    (phrased) and every paper in one message, for whoever asked for that; at most ``compact_most``
    papers (a digest with more goes out as usual). ``find_posted`` names such a message as the header
    and as each of its papers.
    """

    open: Callable[[str], str]
    post_text: Callable[[str, str], str]
    post_paper: Callable[[str, Recommendation], tuple[str, str]]
    phrase: Callable[[Said], str]
    find_posted: Callable[[str, datetime], Posted] | None = None
    settle: timedelta = timedelta(0)
    post_compact: Callable[[str, str, list[Recommendation]], tuple[str, str]] | None = None
    compact_most: int = 0


@dataclass(frozen=True)
class Note:
    """Why a digest (or a channel's weekly post) ended as it did, or what it waits for: a key and its
    facts, which the adapters word (bot.slack.views.digest_texts.note_text). Stored in the row's
    ``error`` column as JSON (:meth:`stored`, :meth:`read`).

    ``why``: "left_to_helpers", "stopping", "requests_unfinished" (its person's acknowledged requests
    are still being carried out), "no_papers" (not started); "database_away", "crashed"
    (``detail``: the error's own text); "waiting_for_slack"; "slack_unavailable" (``detail``: Slack's
    error; ``retry_at``: the next try, ISO UTC); "slack_until_day_end" (``detail``); "unreachable"
    (``detail``); "undelivered_yet" (``count`` papers left); "undelivered" (``count`` papers never
    delivered, a sent digest; ``cause``: the Note why they were not, if any); "none_posted" (``count``
    papers, none of which could be posted); "gave_up" (after ``count`` tries; ``cause``); "day_ended"
    (before it could be sent; ``cause``: what it waited for); "text" (a
    row written before notes were data: ``detail`` holds its text).
    """

    why: str
    count: int | None = None
    detail: str | None = None
    retry_at: str | None = None
    cause: Note | None = None

    def stored(self) -> str:
        """The JSON the row keeps."""
        return json.dumps(self._fields(), separators=(",", ":"))

    def _fields(self) -> dict:
        fields = {k: v for k, v in (("why", self.why), ("count", self.count), ("detail", self.detail),
                                    ("retry_at", self.retry_at)) if v is not None}
        if self.cause is not None:
            fields["cause"] = self.cause._fields()
        return fields

    @classmethod
    def read(cls, text: str | None) -> Note | None:
        """The note a row keeps (None for none; an older row's free text as a "text" note)."""
        if not text:
            return None
        try:
            fields = json.loads(text)
            return cls._of(fields)
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls("text", detail=text)

    @classmethod
    def _of(cls, fields: dict) -> Note:
        cause = fields.get("cause")
        return cls(str(fields["why"]), fields.get("count"), fields.get("detail"), fields.get("retry_at"),
                   cls._of(cause) if isinstance(cause, dict) else None)


def error_note(exc: BaseException) -> str:
    """An unexpected error's own words, for a "crashed" note's ``detail``."""
    return f"{type(exc).__name__}: {exc}"


#: What happened to one digest (see :class:`Outcome`).
OutcomeStatus = Literal["sent", "empty", "failed", "incomplete", "busy", "done", "skipped", "extra"]


@dataclass
class Outcome:
    """What happened to one digest.

    ``status``: "sent", "empty" (nothing worth sending; recorded for the day), "failed" (could not
    reach the person; recorded for the day), "incomplete" (something left, retried later), "busy"
    (another process is sending it), "done" (it had already ended), "skipped" (not started: stopping),
    "extra" (an explicit request after the day's digest: sent outside the daily claim). ``outage``:
    Slack was unavailable (the digest is "incomplete", or an extra one stopped short). ``database_away``:
    the database failed under it (it is "incomplete", and goes out once the database answers). ``note``:
    why, when there is more to say.
    """

    user_id: str
    local_date: date
    status: OutcomeStatus
    delivered: int = 0
    failed: int = 0
    note: Note | None = None
    outage: bool = False
    database_away: bool = False
