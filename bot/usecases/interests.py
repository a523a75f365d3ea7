"""Following and unfollowing topics and authors, and reading back what a person follows."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from bot.errors import Missing, TooLong, TooMany
from bot.sources.arxiv_ids import arxiv_id_of_url
from bot.sources.normalize import parse_arxiv_id
from bot.state.context import Context
from bot.usecases.authors import DEFAULT_AUTHOR_PICKS, add_author, author_picks, check_name, remove_author
from bot.usecases.digest_schedule import DEFAULT_TIME
from bot.usecases.lookup import LookupFailed, papers_by_arxiv_id
from storage import Paper

log = logging.getLogger(__name__)

MAX_TOPIC_LENGTH = 100
MAX_TOPICS = 50


@dataclass
class FollowResult:
    """What a ``follow`` changed."""

    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    seeds: list[Paper] = field(default_factory=list)  # papers liked as seeds
    unknown_seeds: list[str] = field(default_factory=list)  # ids/URLs we hold no paper for
    digest_turned_on: bool = False
    digest_time: str | None = None
    authors: list[str] = field(default_factory=list)  # authors newly followed
    authors_already: list[str] = field(default_factory=list)


@dataclass
class Interests:
    """A person's topics (the main feed's), named feeds, followed authors, muted words, feedback counts
    (likes and dislikes, and saves apart: a save is no like), and schedule (``digest_weekday``: a weekly
    digest's day, 0 = Monday; None for daily; ``author_picks``: followed authors' new papers a digest
    holds at most)."""

    topics: list[str]
    liked: int
    disliked: int
    digest_time: str | None
    digest_enabled: bool
    tz: str | None
    feeds: dict[str, list[str]] = field(default_factory=dict)
    authors: list[str] = field(default_factory=list)
    muted: list[str] = field(default_factory=list)
    digest_weekday: int | None = None
    saved: int = 0  # papers saved
    author_picks: int = DEFAULT_AUTHOR_PICKS  # followed authors' new papers a digest holds at most
    digest_compact: bool = False  # the digest as one message
    digest_quiet: bool = False  # no note on a day nothing new matched
    suggest: bool = False  # colleagues may suggest them papers ("Who should read this?")
    followups: bool = True  # told what became of papers they saved or liked (issue 42)
    alerts: list[str] = field(default_factory=list)  # alert phrases, as typed, oldest first


#: What starts an item of ``follow`` / ``unfollow`` that names an author.
AUTHOR_PREFIX = "author:"


def author_name(item: str) -> str | None:
    """The name in an ``author: NAME`` item (tidied, checked), or None for any other item."""
    if not item.casefold().startswith(AUTHOR_PREFIX):
        return None
    return check_name(item[len(AUTHOR_PREFIX):])


def split_topics(text: str) -> list[str]:
    """Comma-separated topics, trimmed, empty ones dropped, duplicates (ignoring case) once."""
    seen, topics = set(), []
    for raw in text.split(","):
        topic = " ".join(raw.split())
        if topic and topic.casefold() not in seen:
            seen.add(topic.casefold())
            topics.append(topic)
    return topics


def follow(ctx: Context, user_id: str, text: str) -> FollowResult:
    """Add topics; an arXiv id or a paper URL among them is liked as a seed paper instead (an arXiv
    paper not held yet is fetched from the arXiv API first).

    An item ``author: NAME`` follows that author; a text that starts with one is a single name (commas
    and all: "author: Bajcsy, Andrea"). A person's first follow turns daily digests on at 09:00, unless
    they already chose a schedule.
    """
    whole = author_name(" ".join(text.split()))
    if whole:
        names, items = [whole], []
    else:
        items = split_topics(text)
        names = [name for item in items if (name := author_name(item))]
        items = [item for item in items if author_name(item) is None]
    if not items and not names:
        raise Missing("follow")
    for item in items:
        if len(item) > MAX_TOPIC_LENGTH:
            raise TooLong("topic", MAX_TOPIC_LENGTH)
    store = ctx.store
    result = FollowResult()
    topics = []
    fetched = _fetch_seeds(ctx, [item for item in items if parse_arxiv_id(item) or arxiv_id_of_url(item)])
    for item in items:
        if parse_arxiv_id(item) or item.startswith(("http://", "https://")):
            paper = fetched.get(item) or _find_seed(ctx, item)
            if paper is None:
                result.unknown_seeds.append(item)
            else:
                result.seeds.append(paper)
        else:
            topics.append(item)
    with store.transaction():
        store.lock_person(user_id)  # the count below, the adds and the schedule: one step per person
        person = store.get_person(user_id) or store.ensure_person(user_id)
        existing = store.get_topics(user_id)
        if len(existing) + len(topics) > MAX_TOPICS:
            raise TooMany("topics", MAX_TOPICS)
        result.added = store.add_topics(user_id, topics)
        result.already = [t for t in topics if t not in result.added]
        for name in dict.fromkeys(names):
            (result.authors if add_author(ctx, user_id, name) else result.authors_already).append(name)
        for paper in result.seeds:
            store.set_feedback(user_id, paper.id, +1)
        if person.digest_time is None and (result.added or result.seeds or result.authors):
            store.set_digest_schedule(user_id, DEFAULT_TIME, True)
            result.digest_turned_on, result.digest_time = True, DEFAULT_TIME
    return result


def _fetch_seeds(ctx: Context, items: list[str]) -> dict[str, Paper]:
    """The papers of arXiv ids and links among ``items``, by item: held, or fetched from the arXiv API
    (an API that can't be reached leaves those out, reported as papers not held)."""
    by_id = {item: arxiv_id_of_url(item) or item for item in items}
    try:
        found = papers_by_arxiv_id(ctx, by_id.values())
    except LookupFailed as exc:
        log.warning("%s", exc)
        return {}
    return {item: found[i] for item, i in by_id.items() if i in found}


def _find_seed(ctx: Context, item: str) -> Paper | None:
    parsed = parse_arxiv_id(item)
    if parsed:
        return ctx.store.find_paper_by_arxiv_id(parsed[0])
    return ctx.store.find_paper_by_url(item)


def unfollow(ctx: Context, user_id: str, text: str) -> list[str]:
    """Remove one topic, one author (``author: NAME``, matched as names are), or every topic with
    ``all``; returns the topics (or authors' names) removed (possibly none)."""
    topic = " ".join(text.split())
    if not topic:
        raise Missing("unfollow")
    name = author_name(topic)
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # what is reported removed is what was removed
        if name is not None:
            return remove_author(ctx, user_id, name)
        if topic.casefold() == "all":
            removed = ctx.store.get_topics(user_id)
            ctx.store.remove_all_topics(user_id)
            return removed
        return ctx.store.remove_topic(user_id, topic)


def interests(ctx: Context, user_id: str) -> Interests:
    """What a person follows, how many papers they liked, disliked and saved, and their digest
    schedule."""
    store = ctx.store
    person = store.get_person(user_id)
    feedback = store.get_feedback(user_id)
    return Interests(
        topics=store.get_topics(user_id),
        liked=sum(1 for f in feedback if f.value > 0),
        disliked=sum(1 for f in feedback if f.value < 0),
        digest_time=person.digest_time if person else None,
        digest_enabled=bool(person and person.digest_enabled),
        tz=person.tz if person else None,
        feeds=store.get_feeds(user_id),
        authors=[name for _, name in store.get_followed_authors(user_id)],
        muted=store.get_mutes(user_id),
        digest_weekday=person.digest_weekday if person else None,
        saved=len(store.saved_paper_ids(user_id)),
        author_picks=author_picks(ctx, user_id),
        digest_compact=bool(person and person.digest_compact),
        digest_quiet=bool(person and person.digest_quiet),
        suggest=bool(person and person.suggest),
        followups=not (person and person.followups_off),
        alerts=[phrase for _, phrase in store.get_alerts(user_id)],
    )
