"""Several feeds: named ones beside the main feed (``follow``'s topics), each ranked on its own topics
and on the likes of papers sent for it; dislikes count against every feed. Someone without named feeds
has one profile, exactly as before (:func:`bot.usecases.recommend.profile_for`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.errors import BadFeedName, Missing, TooLong, TooMany
from bot.state.context import Context
from bot.usecases.digest_schedule import DEFAULT_TIME
from bot.usecases.interests import MAX_TOPIC_LENGTH, MAX_TOPICS, split_topics
from recommender import Profile

#: The feed ``follow`` adds to, as named in messages and in the store's record of paper feeds.
MAIN = "main"
MAX_FEEDS = 10
MAX_FEED_NAME = 40
#: One or two words of letters, digits and a little punctuation: nothing Slack treats as markup.
_NAME = re.compile(r"\w[\w'+.-]*(?: \w[\w'+.-]*)?")


@dataclass
class FeedResult:
    """What a ``feed add`` changed."""

    feed: str
    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    digest_turned_on: bool = False
    digest_time: str | None = None


@dataclass
class FeedProfile:
    """One feed to rank: its name (:data:`MAIN` for the main feed, None when the person has no named
    feeds) and its profile."""

    feed: str | None
    profile: Profile


def feed_name(text: str) -> str:
    """A feed's name as typed, tidied: one or two words. Raises BadArgument (naming what to type)."""
    name = " ".join(text.split())
    if not name:
        raise Missing("feed_name")
    if len(name) > MAX_FEED_NAME or not _NAME.fullmatch(name):
        raise BadFeedName(name[:40], MAX_FEED_NAME)
    if name.casefold() == MAIN:
        raise BadFeedName(name, MAX_FEED_NAME, main=True)
    return name


def parse_feed_add(text: str) -> tuple[str, list[str]]:
    """``NAME: TOPICS`` as (name, topics). Raises BadArgument (naming what to type)."""
    if ":" not in text:
        raise Missing("feed_colon")
    name, topics = text.split(":", 1)
    name, items = feed_name(name), split_topics(topics)
    if not items:
        raise Missing("feed_topics", name)
    for item in items:
        if len(item) > MAX_TOPIC_LENGTH:
            raise TooLong("topic", MAX_TOPIC_LENGTH)
    return name, items


def _stored_name(feeds: dict[str, list[str]], name: str) -> str | None:
    return next((f for f in feeds if f.casefold() == name.casefold()), None)


def add_feed(ctx: Context, user_id: str, text: str) -> FeedResult:
    """``feed add NAME: TOPICS``: a new named feed, or more topics for one. A person's first interest
    turns daily digests on at 09:00, as ``follow`` does. Raises BadArgument, writing nothing."""
    name, topics = parse_feed_add(text)
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)  # the counts below and the adds: one step per person
        feeds = store.get_feeds(user_id)
        stored = _stored_name(feeds, name)
        if stored is None and len(feeds) >= MAX_FEEDS:
            raise TooMany("feeds", MAX_FEEDS)
        have = feeds.get(stored, []) if stored else []
        known = {t.casefold() for t in have}
        new = [t for t in topics if t.casefold() not in known]
        if len(have) + len(new) > MAX_TOPICS:
            raise TooMany("feed_topics", MAX_TOPICS)
        person = store.get_person(user_id) or store.ensure_person(user_id)
        result = FeedResult(stored or name)
        result.added = store.add_feed_topics(user_id, result.feed, new)
        result.already = [t for t in topics if t not in result.added]
        if person.digest_time is None and result.added:
            store.set_digest_schedule(user_id, DEFAULT_TIME, True)
            result.digest_turned_on, result.digest_time = True, DEFAULT_TIME
    return result


def remove_feed(ctx: Context, user_id: str, text: str) -> str | None:
    """``feed remove NAME``: the feed's name as it was stored, or None when there is no such feed.
    Raises BadArgument for a name that can't be a feed's."""
    name = feed_name(text)
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)
        stored = _stored_name(store.get_feeds(user_id), name)
        if stored is None:
            return None
        store.remove_feed(user_id, stored)
    return stored


def feed_profiles(ctx: Context, user_id: str, base: Profile) -> list[FeedProfile]:
    """The profiles to rank a person's papers by, from ``base`` (their whole profile: main topics and
    all feedback, :func:`bot.usecases.recommend.profile_for`). Without named feeds: ``base`` alone, as
    before (feed None). With them: the main feed's (if it has topics or likes) and each named feed's,
    in the order :meth:`storage.Store.get_feeds` gives; a like trains the feed its paper was sent for
    (the main feed when it was sent for none), a dislike every feed."""
    named = ctx.store.get_feeds(user_id)
    if not named:
        return [FeedProfile(None, base)]
    sent_for = ctx.store.paper_feeds(user_id)
    out = []
    for feed, topics in [(MAIN, base.topics), *named.items()]:
        ages = base.liked_age_days or [0.0] * len(base.liked)
        mine = [(pid, age) for pid, age in zip(base.liked, ages, strict=True)
                if _feed_of(sent_for.get(pid), named) == feed]
        profile = Profile(topics=list(topics), liked=[pid for pid, _ in mine], disliked=list(base.disliked),
                          liked_age_days=[age for _, age in mine],
                          disliked_age_days=list(base.disliked_age_days or []) or None,
                          saved=base.saved)
        if profile.topics or profile.liked:
            out.append(FeedProfile(feed, profile))
    return out


def _feed_of(feed: str | None, named: dict[str, list[str]]) -> str:
    """The feed a paper counts for: the one it was sent for while it exists, else the main feed."""
    return feed if feed in named else MAIN


def shares(n: int, k: int) -> list[int]:
    """``n`` split fairly among ``k`` (the first get one more when it does not divide)."""
    return [n // k + (1 if i < n % k else 0) for i in range(k)] if k else []


def remember_feeds(ctx: Context, user_id: str, picked: dict[str, str]) -> None:
    """Record the feed each picked paper (id -> feed) was picked for, so feedback on it trains that feed."""
    if picked:
        with ctx.store.transaction():
            ctx.store.set_paper_feeds(user_id, picked)


def label(ctx: Context, user_id: str, recs: list) -> list:
    """Name on each recommendation (``feed``) the feed it was picked for, for someone with named feeds
    (a digest resumed from its record, whose papers were chosen earlier)."""
    if recs and ctx.store.get_feeds(user_id):
        sent_for = ctx.store.paper_feeds(user_id)
        for rec in recs:
            rec.feed = sent_for.get(rec.paper.id) or MAIN
    return recs


def sections(recs: list) -> list[tuple[str, int]]:
    """(feed, how many papers) of a digest's recommendations in the order they come; empty for someone
    without named feeds (their recommendations name no feed)."""
    counts: dict[str, int] = {}
    for rec in recs:
        if rec.feed is not None:
            counts[rec.feed] = counts.get(rec.feed, 0) + 1
    return list(counts.items())
