"""A person's own numbers (`/papers stats`): week by week over the last :data:`WEEKS` weeks, in their own
timezone and starting on Mondays, how many papers they were shown, rated and saved, and their 👍 share;
with the topics and feeds their likes came from, read from the reason each liked paper was shown with.
And a workspace's 👍 share week over week, for the admin channel's report.

Everything is computed from what is stored already (the ``shown``, ``feedback`` and ``saved`` tables):
nothing is counted apart. A week's ratings and 👍 share are of the papers paperbot had shown the person
(a rating of a paper never shown, an imported library or a pasted link, says nothing of its picks); a
like of such a paper still counts among the likes' sources, as "elsewhere".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import TypeVar
from zoneinfo import ZoneInfo

from bot.presentation.reason_sources import source_of
from bot.state.context import Context
from bot.usecases.digest_due import zone
from bot.usecases.digest_vocabulary import Clock, utc_now
from storage.moments import iso_utc

#: Weeks `/papers stats` covers, the current one (partial) included.
WEEKS = 8
#: The admin report's word: last week's 👍 share at most this much of the week before's (fell by a third).
FALL = Fraction(2, 3)
#: Ratings each of the two weeks needs before their shares are compared: a handful says nothing.
MIN_RATINGS = 10
#: What a like of a paper paperbot never showed the person counts as among the sources.
ELSEWHERE = "elsewhere"

K = TypeVar("K", str, str | None)


@dataclass(frozen=True)
class Week:
    """One week of a person's numbers, from its Monday (``start``, their local date): papers ``shown``,
    ratings of papers shown (``rated``, of them ``liked``), papers ``saved``. ``partial``: the current
    week, counted so far (``days`` of it: 1 on a Monday, 7 on a Sunday)."""

    start: date
    shown: int = 0
    rated: int = 0
    liked: int = 0
    saved: int = 0
    partial: bool = False
    days: int = 7

    @property
    def share(self) -> float | None:
        """The 👍 share of the week's ratings (0 to 1), None without any."""
        return self.liked / self.rated if self.rated else None


@dataclass(frozen=True)
class LikeSources:
    """Where the likes of the weeks came from, most first: each ``topics`` named by a liked paper's
    reason (a paper may name several), each feed (``feeds``: a named feed, or None for the main feed) of
    the likes picked for a feed's topics or its interests as a whole, and how many of the rest were of
    each other ``kinds`` (:class:`bot.presentation.reason_sources.Source`'s kinds but "topics" and
    "feed", and :data:`ELSEWHERE`)."""

    topics: tuple[tuple[str, int], ...] = ()
    feeds: tuple[tuple[str | None, int], ...] = ()
    kinds: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class PersonStats:
    """A person's :data:`WEEKS` weeks, oldest first (the last one partial), in timezone ``tz``, and where
    their likes came from."""

    weeks: tuple[Week, ...]
    likes: LikeSources
    tz: str

    @property
    def empty(self) -> bool:
        """Nothing shown, rated or saved in all those weeks."""
        return not any(w.shown or w.rated or w.saved for w in self.weeks)

    @property
    def liked(self) -> int:
        """Likes of papers shown, over the weeks."""
        return sum(w.liked for w in self.weeks)

    @property
    def rated(self) -> int:
        """Ratings of papers shown, over the weeks."""
        return sum(w.rated for w in self.weeks)


def person_stats(ctx: Context, user_id: str, clock: Clock = utc_now, tz: str | None = None,
                 weeks: int = WEEKS) -> PersonStats:
    """``user_id``'s numbers for the last ``weeks`` weeks of their timezone (``tz``, else the stored one;
    UTC when unknown), Monday to Sunday, the current week so far."""
    if tz is None:
        person = ctx.store.get_person(user_id)
        tz = person.tz if person is not None else None
    zone_ = zone(tz)
    today = clock().astimezone(zone_).date()
    first = today - timedelta(days=today.weekday() + 7 * (weeks - 1))
    since = iso_utc(datetime.combine(first, time(0), tzinfo=zone_))
    counts = [Counter[str]() for _ in range(weeks)]
    topics, feeds, kinds = Counter[str](), Counter[str | None](), Counter[str]()
    for row in ctx.store.person_activity(user_id, since):
        index = (_local_day(row.at, zone_) - first).days // 7
        if not 0 <= index < weeks:
            continue  # stored before the first Monday's local midnight, or after now (a clock moved)
        week = counts[index]
        if row.kind != "rated":
            week[row.kind] += 1
            continue
        if not row.shown:
            if row.value > 0:
                kinds[ELSEWHERE] += 1
            continue
        week["rated"] += 1
        if row.value <= 0:
            continue
        week["liked"] += 1
        source = source_of(row.reason)
        if source.kind == "topics":
            topics.update(source.topics)
        if source.kind in ("topics", "feed"):
            feeds[source.feed] += 1
        else:
            kinds[source.kind] += 1
    found = tuple(
        Week(first + timedelta(weeks=i), shown=c["shown"], rated=c["rated"], liked=c["liked"],
             saved=c["saved"], partial=i == weeks - 1, days=today.weekday() + 1 if i == weeks - 1 else 7)
        for i, c in enumerate(counts))
    return PersonStats(found, LikeSources(_most(topics), _most(feeds), _most(kinds)), zone_.key)


def _local_day(at: str, tz: ZoneInfo) -> date:
    moment = datetime.fromisoformat(at)
    if moment.tzinfo is None:  # stored as UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(tz).date()


def _most(counted: Counter[K]) -> tuple[tuple[K, int], ...]:
    """Most first; ties by name (the main feed, None, first)."""
    return tuple(sorted(counted.items(), key=lambda kv: (-kv[1], kv[0] or "")))


@dataclass(frozen=True)
class Share:
    """A week's 👍 share of a workspace: ``liked`` of ``rated`` (ratings of papers paperbot had shown),
    from its Monday (``start``, UTC)."""

    start: date
    liked: int
    rated: int

    @property
    def share(self) -> float | None:
        return self.liked / self.rated if self.rated else None


def week_share(ctx: Context, start: date) -> Share:
    """The 👍 share of ``ctx``'s workspace for the UTC week from Monday ``start``."""
    since = datetime.combine(start, time(0), tzinfo=UTC)
    liked, rated = ctx.store.rating_counts(iso_utc(since), iso_utc(since + timedelta(weeks=1)))
    return Share(start, liked, rated)


def last_monday(now: datetime) -> date:
    """The Monday (UTC) the week before ``now``'s began: the last week that is whole."""
    today = now.astimezone(UTC).date()
    return today - timedelta(days=today.weekday() + 7)


def share_fell(ctx: Context, now: datetime) -> tuple[Share, Share] | None:
    """(the week before's, last week's) 👍 shares of ``ctx``'s workspace when last week's (the last whole
    UTC week before ``now``'s) fell to :data:`FALL` of the week before's or below, each week with
    :data:`MIN_RATINGS` ratings at least; None otherwise."""
    last = week_share(ctx, last_monday(now))
    if last.rated < MIN_RATINGS:
        return None
    before = week_share(ctx, last.start - timedelta(weeks=1))
    if before.rated < MIN_RATINGS or not before.liked:
        return None
    if Fraction(last.liked, last.rated) > FALL * Fraction(before.liked, before.rated):
        return None
    return before, last
