"""A channel's own profile and digest: the channel is a "subject" like a person, whose id is the
channel id, so following, feedback, what was shown and the digests' exactly-once machinery (claims,
leases, catch-up, retries, no repeats) are the people's, unchanged; only the courier posts into the
channel instead of opening a DM (see :func:`is_channel`).

What a channel has beyond that (who set it up, its weekly trending post) is kept in the store's
channel settings. A channel's digest time is meant in the timezone of whoever set its schedule: each
command that sets or turns on its schedule stores that person's timezone as the channel's.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.state.context import Context
from bot.usecases.digest_schedule import set_daily, set_weekly, stop_digests
from bot.usecases.interests import FollowResult, Interests, follow, interests, unfollow
from bot.usecases.subjects import is_channel  # noqa: F401  (its home is that leaf; imported from here too)
from storage.recaps import RecapSetting


@dataclass
class ChannelProfile:
    """What ``/papers channel`` shows: the channel's interests and schedule (as a person's), and
    whether its weekly trending post is on. ``known``: paperbot keeps settings for the channel."""

    channel_id: str
    interests: Interests
    trending: bool
    known: bool
    recap: RecapSetting | None = None  # its weekly recap (bot.usecases.recap), None when off


def set_up(ctx: Context, channel_id: str, set_by: str, tz: str | None = None) -> None:
    """Keep settings for a channel (who ran the command); with ``tz``, the channel's schedule is meant
    in that timezone from now on."""
    with ctx.store.transaction():
        ctx.store.lock_person(channel_id)
        ctx.store.add_channel(channel_id, set_by)
        ctx.store.ensure_person(channel_id)
        if tz is not None:
            ctx.store.set_timezone(channel_id, tz)


def channel_profile(ctx: Context, channel_id: str) -> ChannelProfile:
    """The channel's topics, feedback counts, schedule and trending state."""
    record = ctx.store.get_channel(channel_id)
    return ChannelProfile(channel_id, interests(ctx, channel_id), bool(record and record.trending),
                          record is not None, ctx.store.get_recap(channel_id))


def follow_in_channel(ctx: Context, channel_id: str, set_by: str, tz: str | None, text: str) -> FollowResult:
    """Add topics (or authors, or seed papers) to the channel's profile. A channel's first follow turns
    its daily digest on at 09:00, as a person's does, in ``tz`` (the timezone of who ran it) unless the
    channel has one already."""
    known = ctx.store.get_person(channel_id)
    set_up(ctx, channel_id, set_by, tz if known is None or known.tz is None else None)
    return follow(ctx, channel_id, text)


def unfollow_in_channel(ctx: Context, channel_id: str, text: str) -> list[str]:
    """Remove a topic (or an author, or ``all``) from the channel's profile; what was removed."""
    if ctx.store.get_channel(channel_id) is None:
        return []
    return unfollow(ctx, channel_id, text)


def channel_daily(ctx: Context, channel_id: str, set_by: str, tz: str | None, hhmm: str | None) -> str:
    """The channel's digest daily at ``hhmm`` (None: the time it had, else 09:00) in ``tz``; the time."""
    set_up(ctx, channel_id, set_by, tz)
    return set_daily(ctx, channel_id, hhmm)


def channel_weekly(ctx: Context, channel_id: str, set_by: str, tz: str | None, weekday: int,
                   hhmm: str) -> None:
    """The channel's digest weekly on ``weekday`` (0 = Monday) at ``hhmm`` in ``tz``."""
    set_up(ctx, channel_id, set_by, tz)
    set_weekly(ctx, channel_id, weekday, hhmm)


def channel_digest_off(ctx: Context, channel_id: str) -> bool:
    """Stop the channel's digests (its time is kept); False for a channel with none."""
    return stop_digests(ctx, channel_id)


def set_trending(ctx: Context, channel_id: str, set_by: str, on: bool) -> None:
    """Turn the channel's weekly trending post on (from next Monday at 09:00 UTC, or this one if that
    is still to come) or off (for a channel paperbot keeps nothing for, nothing is written)."""
    if not on and ctx.store.get_channel(channel_id) is None:
        return
    set_up(ctx, channel_id, set_by)
    with ctx.store.transaction():
        ctx.store.set_trending(channel_id, on)


def channel_timezone(ctx: Context, channel_id: str) -> str | None:
    """The timezone the channel's schedule is meant in (None: UTC)."""
    person = ctx.store.get_person(channel_id)
    return person.tz if person else None


def follows_nothing(ctx: Context, channel_id: str) -> bool:
    """Whether the channel follows no topic and no author (its digests would be empty)."""
    return not ctx.store.get_topics(channel_id) and not ctx.store.get_followed_authors(channel_id)
