"""One picking pipeline: which papers a person may be offered, and how a list of them is shared out.

Digests (:mod:`bot.usecases.digests.choose`), ``/papers recommend`` (:mod:`bot.usecases.recommend`),
More like this (:mod:`bot.usecases.similar`) and the onboarding round (:mod:`bot.usecases.onboarding`)
rank differently, but all of them pick through these steps:

1. :func:`left_out`: never a paper the person was shown, saved, liked, disliked or muted.
2. :func:`wants`: the feeds to rank by, and whether they follow authors (:class:`Wants`).
3. :func:`by_alerts` (digests only): the papers new since the person's previous digest that say one of
   their alerts' phrases come first of all, at most 3 a local day (:mod:`bot.usecases.alerts`).
   :func:`by_followed_authors`: a followed author's new papers come next (at most the person's
   ``author_picks``, 2 by default), "new" meaning recent, counted back from the person's own local day
   (:func:`local_today`), whichever path asks.
4. :func:`share`: the places left are shared fairly among the feeds; what one feed cannot fill goes to
   the others, in order.
5. :func:`distinct`: the picks as the papers they are now. The index may still hold, for a few seconds,
   an id that has just been merged into another paper: that id resolves to the paper it went into, which
   must neither come back when it was left out nor come twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Literal, TypeVar, cast

from bot.state.context import Context
from bot.usecases.alerts import AlertPick, alert_picks
from bot.usecases.alerts import reason as alert_reason
from bot.usecases.authors import AuthorPick, author_picks, new_papers_by
from bot.usecases.authors import reason as author_reason
from bot.usecases.digest_due import local_date
from bot.usecases.feeds import MAIN, FeedProfile, feed_profiles, shares
from bot.usecases.mutes import muted_ids
from bot.usecases.summaries import Summary
from recommender import Profile
from storage import Paper
from storage.models import SharedPaper

T = TypeVar("T")


@dataclass
class Recommendation:
    """A paper to show someone, and why."""

    paper: Paper
    score: float
    reason: str
    feed: str | None = None  # the feed it was picked for; None for someone without named feeds
    saved_by: int = 0  # people of the workspace who saved it, when a message may say so (bot.usecases.social)
    highlights: bool = True  # show the paper's highlights (the person may hide them: bot.usecases.social)
    summary: Summary | None = None  # the lab's model's checked summary, when ready (bot.usecases.social)


#: The rules that leave a paper out for a person, in the order they are told (:class:`LeftOut`).
LeftOutRule = Literal["shown", "saved", "liked", "disliked", "shared", "muted"]


@dataclass(frozen=True)
class LeftOut:
    """Every paper never to offer a person, by the rule that leaves it out (:func:`left_out_by`)."""

    shown: frozenset[str] = frozenset()
    saved: frozenset[str] = frozenset()
    liked: frozenset[str] = frozenset()
    disliked: frozenset[str] = frozenset()
    shared: frozenset[str] = frozenset()  # links they posted in a channel (bot.usecases.shares)
    muted: frozenset[str] = frozenset()

    @property
    def ids(self) -> set[str]:
        """Every paper left out, whichever rule."""
        return set(self.shown | self.saved | self.liked | self.disliked | self.shared | self.muted)

    def rule(self, paper_id: str) -> LeftOutRule | None:
        """The first rule (shown, saved, liked, disliked, shared, muted) leaving ``paper_id`` out, or
        None."""
        for name in ("shown", "saved", "liked", "disliked", "shared", "muted"):
            if paper_id in getattr(self, name):
                return cast(LeftOutRule, name)
        return None


#: What picking made of one paper for one person (:class:`Fate`): left out by a rule of :class:`LeftOut`
#: (a paper they shared: they know it);
#: nothing to pick for (they follow nothing); placed first as an alert's or a followed author's new
#: paper; picked by rank; ranked below the cut; within the cut but left for papers too close to those
#: above it (diversity); not among the candidates at all (scoring under the floor of their best match:
#: outside their feeds); not new enough for a digest of new papers only (weekly); not in the index.
FateKind = Literal["shown", "saved", "liked", "disliked", "shared", "muted", "no_interests", "alert",
                   "author", "picked", "below_cut", "too_similar", "outside", "not_new", "not_indexed"]


@dataclass(frozen=True)
class Fate:
    """What picking made of one paper for one person: ``kind`` (:data:`FateKind`); ``feed`` the feed it
    was ranked in (None: the main or only one); ``rank`` its place among that feed's ``candidates``
    (new ones first, by score) and ``cut`` how many that feed took; ``word`` the alert's phrase or the
    followed author's name that placed it, or the muted word that leaves it out."""

    kind: FateKind
    feed: str | None = None
    rank: int | None = None
    candidates: int = 0
    cut: int = 0
    word: str | None = None


@dataclass
class Wants:
    """What picking needs of one person: the feeds to rank by (none with an empty profile), whether
    they follow authors, every paper never to offer them (:func:`left_out`), and whether they have
    alerts; ``rules``: the papers left out by rule (what :func:`left_out` is the union of)."""

    user_id: str
    feeds: list[FeedProfile]
    follows_authors: bool
    left_out: set[str]
    has_alerts: bool = False
    rules: LeftOut = field(default_factory=LeftOut)

    @property
    def named(self) -> bool:
        """Whether the person has named feeds (then every paper is labelled with its feed)."""
        return bool(self.feeds) and self.feeds[0].feed is not None

    @property
    def authors_feed(self) -> str | None:
        """The feed a followed author's paper counts for: the main one, or None without named feeds."""
        return MAIN if self.named else None


def profile_for(ctx: Context, user_id: str, now: datetime | None = None) -> Profile:
    """A person's profile as the recommender wants it: topics, and liked and disliked ids with their
    ages in days, so that older feedback fades. Saved papers they neither liked nor disliked count as
    weaker likes (:attr:`recommender.Profile.saved`), aged from when they were saved; so do the papers
    whose links they shared in channels (:mod:`bot.usecases.shares`), unless they turned that off."""
    now = now or datetime.now(UTC)
    store = ctx.store
    feedback = store.get_feedback(user_id)
    likes = [f for f in feedback if f.value > 0]
    dislikes = [f for f in feedback if f.value < 0]
    rated = {f.paper_id for f in feedback}
    # The ids come from the person's snapshot; the dates only for someone who saved something.
    saves = ([(s.paper_id, s.saved_at) for s in store.saved_papers(user_id) if s.paper_id not in rated]
             if store.saved_paper_ids(user_id) - rated else [])
    kept = rated | {pid for pid, _ in saves}
    saves += [(s.paper_id, s.shared_at) for s in shares_of(ctx, user_id) if s.paper_id not in kept]
    return Profile(
        topics=store.get_topics(user_id),
        liked=[f.paper_id for f in likes] + [pid for pid, _ in saves],
        disliked=[f.paper_id for f in dislikes],
        liked_age_days=[_age_days(f.created_at, now) for f in likes]
        + [_age_days(at, now) for _, at in saves],
        disliked_age_days=[_age_days(f.created_at, now) for f in dislikes],
        saved=frozenset(pid for pid, _ in saves),
    )


def shares_of(ctx: Context, user_id: str) -> list[SharedPaper]:
    """The papers whose links a person shared, as interest: none when they turned that off."""
    person = ctx.store.get_person(user_id)
    return [] if person is not None and person.shares_off else ctx.store.shared_papers(user_id)


def _age_days(created_at: str, now: datetime) -> float:
    try:
        when = datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return 0.0
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return max((now - when).total_seconds() / 86400.0, 0.0)


def left_out(ctx: Context, user_id: str) -> set[str]:
    """Every paper never to offer a person (or channel), on any path: shown to them, saved (a paper
    saved from elsewhere than its message too, liked or not), liked or disliked (a named feed's profile
    holds only its own likes, so the others' must be left out here), or holding a word they muted."""
    return left_out_by(ctx, user_id).ids


def left_out_by(ctx: Context, user_id: str) -> LeftOut:
    """The papers :func:`left_out` leaves out, by the rule that does (:class:`LeftOut`)."""
    store = ctx.store
    feedback = store.get_feedback(user_id)
    return LeftOut(shown=frozenset(store.shown_paper_ids(user_id)),
                   saved=frozenset(store.saved_paper_ids(user_id)),
                   liked=frozenset(f.paper_id for f in feedback if f.value > 0),
                   disliked=frozenset(f.paper_id for f in feedback if f.value <= 0),
                   # they know it: shared, whatever the setting
                   shared=frozenset(s.paper_id for s in store.shared_papers(user_id)),
                   muted=frozenset(muted_ids(ctx, user_id)))


def wants(ctx: Context, user_id: str, now: datetime | None = None, alerts: bool = False) -> Wants | None:
    """What picking needs of a person (see :class:`Wants`); None when they follow nothing at all (no
    topic, no feed, no like, no author; with ``alerts``, for a digest, the one path alerts reach: no
    alert either)."""
    feeds = [f for f in feed_profiles(ctx, user_id, profile_for(ctx, user_id, now)) if not f.profile.is_empty]
    follows_authors = bool(ctx.store.get_followed_authors(user_id))
    has_alerts = alerts and bool(ctx.store.get_alerts(user_id))
    if not feeds and not follows_authors and not has_alerts:
        return None
    rules = left_out_by(ctx, user_id)
    return Wants(user_id, feeds, follows_authors, rules.ids, has_alerts, rules)


def local_today(ctx: Context, user_id: str, now: datetime | None = None) -> date:
    """The person's calendar day at ``now`` (default: this moment) where they are: a followed author's
    "new" papers count back from it on every path, as the digest due that day does."""
    person = ctx.store.get_person(user_id)
    return local_date(person.tz if person else None, now or datetime.now(UTC))


def by_followed_authors(ctx: Context, who: Wants, n: int, today: date) -> list[AuthorPick]:
    """Authors' new papers (:func:`bot.usecases.authors.is_new` on the person's local ``today``) by
    authors they follow, none left out for them, newest first: up to ``n``, and no more than the
    person's :func:`~bot.usecases.authors.author_picks` (2 unless they asked otherwise)."""
    if not who.follows_authors or n <= 0:
        return []
    n = min(n, author_picks(ctx, who.user_id))
    return new_papers_by(ctx, who.user_id, today, who.left_out)[:n] if n > 0 else []


def by_alerts(ctx: Context, who: Wants, n: int, today: date, weekly: bool = False) -> list[AlertPick]:
    """New papers saying one of the person's alerts (:func:`bot.usecases.alerts.alert_picks`), none left
    out for them: up to ``n``, and no more than the day's alert papers left."""
    if not who.has_alerts or n <= 0:
        return []
    return alert_picks(ctx, who.user_id, today, who.left_out, n, weekly)


def alert_recommendations(ctx: Context, who: Wants, picks: Iterable[AlertPick]) -> list[Recommendation]:
    """Alerts' papers as recommendations, each with a reason naming its alert, for the main feed
    (papers deleted since are left out)."""
    picks = list(picks)
    papers = ctx.store.get_papers([p.paper_id for p in picks])
    return [Recommendation(papers[p.paper_id], 1.0, alert_reason(p.phrase), who.authors_feed)
            for p in picks if p.paper_id in papers]


def author_recommendations(ctx: Context, who: Wants, picks: Iterable[AuthorPick]) -> list[Recommendation]:
    """Followed authors' papers as recommendations, each with a reason naming the author (papers
    deleted since are left out)."""
    picks = list(picks)
    papers = ctx.store.get_papers([p.paper_id for p in picks])
    return [Recommendation(papers[p.paper_id], 1.0, author_reason(p.author), who.authors_feed)
            for p in picks if p.paper_id in papers]


def share(n: int, parts: int, pick: Callable[[int, int, set[str]], list[T]], taken: set[str],
          key: Callable[[T], str]) -> list[list[T]]:
    """``n`` places shared among ``parts`` feeds: each its fair share first, then (with several) what
    one could not fill goes to the others, in order. ``pick(i, k, taken)`` gives feed ``i`` up to ``k``
    more, none of ``taken``; each pick's id (``key``) is added to ``taken``, so no paper comes twice."""
    out: list[list[T]] = [[] for _ in range(parts)]

    def fill(i: int, k: int) -> None:
        if k > 0:
            more = pick(i, k, taken)
            out[i].extend(more)
            taken.update(key(item) for item in more)

    for i, k in enumerate(shares(n, parts)):
        fill(i, k)
    if parts > 1:
        for i in range(parts):
            fill(i, n - sum(len(found) for found in out))
    return out


def distinct(recs: Iterable[Recommendation], left: Iterable[str] = ()) -> list[Recommendation]:
    """``recs`` in order, as the papers they are now (their papers were read by id, and an id merged
    into another paper reads as that paper): one whose paper is in ``left`` or came before is dropped."""
    seen = set(left)
    out = []
    for rec in recs:
        if rec.paper.id not in seen:
            seen.add(rec.paper.id)
            out.append(rec)
    return out
