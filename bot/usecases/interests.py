"""Following and unfollowing topics, and reading back what a person follows."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.context import Context
from bot.errors import BadArgument
from bot.sources.normalize import parse_arxiv_id
from storage import Paper

DEFAULT_DIGEST_TIME = "09:00"
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


@dataclass
class Interests:
    """A person's topics, feedback counts and schedule."""

    topics: list[str]
    liked: int
    disliked: int
    digest_time: str | None
    digest_enabled: bool
    tz: str | None


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
    """Add topics; an arXiv id or a paper URL among them is liked as a seed paper instead.

    A person's first follow turns daily digests on at 09:00, unless they already chose a schedule.
    """
    items = split_topics(text)
    if not items:
        raise BadArgument("Tell me what to follow, e.g. `/papers follow diffusion models, 2401.12345`")
    for item in items:
        if len(item) > MAX_TOPIC_LENGTH:
            raise BadArgument(f"A topic can be at most {MAX_TOPIC_LENGTH} characters long")
    store = ctx.store
    result = FollowResult()
    topics = []
    for item in items:
        if parse_arxiv_id(item) or item.startswith(("http://", "https://")):
            paper = _find_seed(ctx, item)
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
            raise BadArgument(f"You can follow at most {MAX_TOPICS} topics; `/papers unfollow` some first")
        result.added = store.add_topics(user_id, topics)
        result.already = [t for t in topics if t not in result.added]
        for paper in result.seeds:
            store.set_feedback(user_id, paper.id, +1)
        if person.digest_time is None and (result.added or result.seeds):
            store.set_digest_schedule(user_id, DEFAULT_DIGEST_TIME, True)
            result.digest_turned_on, result.digest_time = True, DEFAULT_DIGEST_TIME
    return result


def _find_seed(ctx: Context, item: str) -> Paper | None:
    parsed = parse_arxiv_id(item)
    if parsed:
        return ctx.store.find_paper_by_arxiv_id(parsed[0])
    return ctx.store.find_paper_by_url(item)


def unfollow(ctx: Context, user_id: str, text: str) -> list[str]:
    """Remove one topic, or every topic with ``all``; returns the topics removed (possibly none)."""
    topic = " ".join(text.split())
    if not topic:
        raise BadArgument("Say which topic to unfollow, or `/papers unfollow all`")
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)  # what is reported removed is what was removed
        if topic.casefold() == "all":
            removed = ctx.store.get_topics(user_id)
            ctx.store.remove_all_topics(user_id)
            return removed
        return ctx.store.remove_topic(user_id, topic)


def interests(ctx: Context, user_id: str) -> Interests:
    """What a person follows, how much feedback they gave, and their digest schedule."""
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
    )
