"""Settings edited whole (the App Home's forms, and ``/papers digest authors N``): a feed's topics, the
followed authors, the muted words, the digest schedule and how many followed authors' papers a digest
holds, each given as its complete new value.

Each edit comes in two steps. ``check_*`` reads nothing and writes nothing: it parses the form's text
and raises :class:`BadArgument` for what can be told wrong without the database (so a form can show
the error at once, in Slack's three seconds). ``save_*`` then makes the stored value equal to the new
one in one transaction, through the same use cases the slash commands use (removals first, then the
additions), and raises BadArgument (writing nothing) for what only the database can tell, like one
feed too many.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import (
    AuthorAmongTopics,
    BadAuthorPicks,
    BadTime,
    FeedGone,
    Missing,
    NoWords,
    TooLong,
    TooMany,
    Unchosen,
)
from bot.state.context import Context
from bot.usecases.authors import (
    DEFAULT_AUTHOR_PICKS,
    MAX_AUTHOR_PICKS,
    MAX_AUTHORS,
    add_author,
    check_name,
    name_key,
    remove_author,
)
from bot.usecases.digest_due import parse_hhmm
from bot.usecases.digest_schedule import DEFAULT_TIME, set_daily, set_weekly, stop_digests
from bot.usecases.feeds import MAIN, add_feed, feed_name
from bot.usecases.interests import (
    AUTHOR_PREFIX,
    MAX_TOPIC_LENGTH,
    MAX_TOPICS,
    follow,
    split_topics,
    unfollow,
)
from bot.usecases.mutes import MAX_MUTE_LENGTH, MAX_MUTES, mute, split_words, unmute

SCHEDULES = ("daily", "weekly", "off")


@dataclass(frozen=True)
class Schedule:
    """A digest schedule as a form gives it: ``kind`` daily, weekly or off; ``weekday`` 0 = Monday."""

    kind: str
    time: str
    weekday: int = 0


# -- checking (no database) ----------------------------------------------------------------------


def check_topics(text: str, required: bool) -> list[str]:
    """Comma-separated topics of one feed; ``required`` for a named feed (it can't be left empty).
    Raises BadArgument saying what to type."""
    topics = split_topics(text or "")
    if required and not topics:
        raise Missing("form_topics")
    for topic in topics:
        if topic.casefold().startswith(AUTHOR_PREFIX):
            raise AuthorAmongTopics()
        if len(topic) > MAX_TOPIC_LENGTH:
            raise TooLong("topic", MAX_TOPIC_LENGTH, topic[:30], len(topic))
    if len(topics) > MAX_TOPICS:
        raise TooMany("feed_topics", MAX_TOPICS, len(topics))
    return topics


def check_feed_name(text: str) -> str:
    """A new feed's name (one or two words). Raises BadArgument."""
    return feed_name(text or "")


def check_authors(text: str) -> list[str]:
    """Authors' names, one a line (a name may have a comma: "Bajcsy, Andrea"), each once."""
    names, keys = [], set()
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        line = line.strip()
        name = check_name(line[len(AUTHOR_PREFIX):] if line.casefold().startswith(AUTHOR_PREFIX) else line)
        if name_key(name) not in keys:
            keys.add(name_key(name))
            names.append(name)
    if len(names) > MAX_AUTHORS:
        raise TooMany("authors", MAX_AUTHORS, len(names))
    return names


def check_mutes(text: str) -> list[str]:
    """Comma-separated words or phrases to mute (folded, each once)."""
    words = split_words(text or "")
    for word in words:
        if len(word) > MAX_MUTE_LENGTH:
            raise TooLong("mute", MAX_MUTE_LENGTH, word[:30], len(word))
        if not any(ch.isalnum() for ch in word):
            raise NoWords("mute", word[:40], form=True)
    if len(words) > MAX_MUTES:
        raise TooMany("mutes", MAX_MUTES, len(words))
    return words


def check_time(text: str | None) -> str:
    """A time of day from 00:00 to 23:59. Raises BadTime (with at most 20 characters of a form's text)."""
    try:
        return parse_hhmm(text or "")
    except BadTime:
        raise BadTime((text or '')[:20]) from None


def check_author_picks(text: str | None) -> int:
    """How many followed authors' new papers a digest may hold: a whole number from 0 (none) to
    :data:`MAX_AUTHOR_PICKS`. Raises BadArgument."""
    word = (text or "").strip()
    # ASCII digits only: str.isdigit() takes "²", which int() refuses.
    if not (word.isascii() and word.isdigit() and len(word) <= 2) or int(word) > MAX_AUTHOR_PICKS:
        raise BadAuthorPicks(word[:20], MAX_AUTHOR_PICKS, DEFAULT_AUTHOR_PICKS)
    return int(word)


def check_schedule(kind: str | None, time: str | None, weekday: str | None) -> Schedule:
    """A schedule from a form's choices (the weekday as "0" … "6"). Raises BadArgument."""
    if kind not in SCHEDULES:
        raise Unchosen("schedule")
    hhmm = check_time(time) if kind != "off" or time else DEFAULT_TIME
    day = 0
    if kind == "weekly":
        if weekday is None or weekday not in {str(d) for d in range(7)}:
            raise Unchosen("weekday")
        day = int(weekday)
    return Schedule(kind, hhmm, day)


# -- saving --------------------------------------------------------------------------------------


def save_topics(ctx: Context, user_id: str, feed: str | None, topics: list[str]) -> None:
    """Make ``feed``'s topics (None or :data:`MAIN`: the main feed) exactly ``topics`` (checked with
    :func:`check_topics`). The papers picked for a named feed stay its own. Raises BadArgument when
    the named feed does not exist (any more)."""
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)
        if feed is None or feed == MAIN:
            have = store.get_topics(user_id)
            wanted = {t.casefold() for t in topics}
            for topic in have:
                if topic.casefold() not in wanted:
                    unfollow(ctx, user_id, topic)
            known = {t.casefold() for t in have}
            added = [t for t in topics if t.casefold() not in known]
            if added:
                follow(ctx, user_id, ", ".join(added))
            return
        feeds = store.get_feeds(user_id)
        stored = next((f for f in feeds if f.casefold() == feed.casefold()), None)
        if stored is None:
            raise FeedGone(feed[:40])
        wanted = {t.casefold() for t in topics}
        store.remove_feed_topics(user_id, stored, [t for t in feeds[stored] if t.casefold() not in wanted])
        known = {t.casefold() for t in feeds[stored]}
        added = [t for t in topics if t.casefold() not in known]
        if added:
            add_feed(ctx, user_id, f"{stored}: {', '.join(added)}")


def save_new_feed(ctx: Context, user_id: str, name: str, topics: list[str]) -> str:
    """A new named feed with these topics (or more topics for one of that name); returns its name as
    stored. Raises BadArgument past the number of feeds allowed, writing nothing."""
    return add_feed(ctx, user_id, f"{name}: {', '.join(topics)}").feed


def save_authors(ctx: Context, user_id: str, names: list[str]) -> None:
    """Follow exactly these authors (checked with :func:`check_authors`)."""
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)
        wanted = {name_key(n) for n in names}
        for key, name in store.get_followed_authors(user_id):
            if key not in wanted:
                remove_author(ctx, user_id, name)
        if names:
            store.ensure_person(user_id)
        for name in names:  # again those a removal took with it ("Bajcsy" went with "A. Bajcsy")
            add_author(ctx, user_id, name)


def save_mutes(ctx: Context, user_id: str, words: list[str]) -> None:
    """Mute exactly these words (checked with :func:`check_mutes`)."""
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)
        for word in store.get_mutes(user_id):
            if word not in words:
                unmute(ctx, user_id, word)
        if words:  # again those an unmute took with it (it unmutes every spelling)
            mute(ctx, user_id, ", ".join(words))


def save_schedule(ctx: Context, user_id: str, schedule: Schedule) -> None:
    """Digests daily or weekly at the schedule's time, or off (keeping the time)."""
    if schedule.kind == "off":
        stop_digests(ctx, user_id)
    elif schedule.kind == "weekly":
        set_weekly(ctx, user_id, schedule.weekday, schedule.time)
    else:
        set_daily(ctx, user_id, schedule.time)


def save_author_picks(ctx: Context, user_id: str, n: int) -> None:
    """At most ``n`` (checked with :func:`check_author_picks`) followed authors' new papers a digest."""
    with ctx.store.transaction():
        ctx.store.set_person_settings(user_id, author_picks=n)


# -- the compact digest ----------------------------------------------------------------------------

def set_compact_digest(ctx: Context, user_id: str, compact: bool) -> bool:
    """Have a person's digests come as one message (``compact``: a header line, then each paper with
    its own buttons) or as a header and one message a paper. Returns whether it changed."""
    return _set_flag(ctx, user_id, "digest_compact", compact)


def set_quiet_days(ctx: Context, user_id: str, quiet: bool) -> bool:
    """Whether a person is left alone on a day their digest had nothing worth sending (``quiet``), or
    told so (the default). Returns whether it changed."""
    return _set_flag(ctx, user_id, "digest_quiet", quiet)


def set_highlights(ctx: Context, user_id: str, on: bool) -> bool:
    """Whether a person's paper messages show the highlights (the default), or the start of the
    abstract instead. Returns whether it changed."""
    return _set_flag(ctx, user_id, "highlights_off", not on)


def _set_flag(ctx: Context, user_id: str, name: str, on: bool) -> bool:
    """Set a person's on/off setting ``name`` (off by default); whether it changed."""
    with ctx.store.transaction():
        person = ctx.store.get_person(user_id)
        if person is not None and getattr(person, name) == on:
            return False
        if person is None and not on:
            return False  # someone unknown already gets the default: nothing is stored
        ctx.store.set_person_settings(user_id, **{name: on})
    return True


def set_suggest(ctx: Context, user_id: str, on: bool) -> bool:
    """Whether colleagues may suggest papers to the person ("Who should read this?", off by default).
    Returns whether it changed."""
    return _set_flag(ctx, user_id, "suggest", on)


def set_followups(ctx: Context, user_id: str, on: bool) -> bool:
    """Whether a person is told what became of the papers they saved or liked (issue 42: the default),
    or not. Returns whether it changed."""
    return _set_flag(ctx, user_id, "followups_off", not on)
