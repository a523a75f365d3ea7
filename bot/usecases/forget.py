"""Forgetting a person entirely, with a second thought: what would go is counted first, and the deletion
waits for a ticket issued with that count (a button's value), good once, for its holder, for a while."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.state.context import Context

#: How long a ticket from `forget` stays good: long enough to read the counts, short enough that an old
#: message's button deletes nothing.
TICKET_LIFETIME = timedelta(minutes=15)
_TICKET_KEY = "forget-ticket:"


@dataclass(frozen=True)
class Stored:
    """What paperbot stores about a person, counted: what :func:`forget` deletes. ``topics`` are the
    main feed's; ``feeds`` the named feeds; ``digests`` the days a digest was recorded; ``named`` the
    workspace's rows that name them (an installation they made, a channel they set up), which stay
    without their name."""

    topics: int = 0
    feeds: int = 0
    authors: int = 0
    muted: int = 0
    liked: int = 0
    disliked: int = 0
    saved: int = 0
    shown: int = 0
    digests: int = 0
    named: int = 0
    suggestions: int = 0  # papers suggested to them by colleagues, or by them to colleagues
    rows: int = 0  # every row about them, in every table (settings included)
    alerts: int = 0
    followups: int = 0  # what became of papers they saved or liked, as they were told it (issue 42)
    shared: int = 0  # papers whose links they posted in channels
    watches: int = 0  # private project descriptions (scoop watch, issue 43): deleted first

    @property
    def nothing(self) -> bool:
        """True when nothing at all is stored about them."""
        return self.rows == 0


def stored_about(ctx: Context, user_id: str) -> Stored:
    """Count what is stored about a person (a count a table, their feedback split by value)."""
    store = ctx.store
    rows = store.rows_about(user_id)
    feedback = [f.value for f in store.get_feedback(user_id)] if rows.get("feedback") else []
    feeds = len(store.get_feeds(user_id)) if rows.get("feed_topics") else 0
    return Stored(topics=rows.get("topics", 0), feeds=feeds,
                  authors=rows.get("followed_authors", 0), muted=rows.get("mutes", 0),
                  liked=sum(1 for v in feedback if v > 0), disliked=sum(1 for v in feedback if v < 0),
                  saved=rows.get("saved", 0), shown=rows.get("shown", 0), digests=rows.get("digests", 0),
                  named=rows.get("installations", 0) + rows.get("channels", 0),
                  suggestions=rows.get("suggestions", 0), rows=sum(rows.values()),
                  alerts=rows.get("alerts", 0), followups=rows.get("followups_told", 0),
                  shared=rows.get("shares", 0), watches=rows.get("watches", 0))


def forget(ctx: Context, user_id: str) -> int:
    """Delete everything stored about a person, from every table, and their name from the rows of the
    workspace's that name them (those rows stay). Returns how many rows went or lost their name."""
    return sum(ctx.store.forget_person(user_id).values())


def forget_ticket(user_id: str, now: datetime) -> str:
    """A ticket letting ``user_id`` forget themselves until :data:`TICKET_LIFETIME` after ``now``, once:
    who, when (epoch seconds) and a nonce. It names what it allows; it is no secret (only its holder's
    own click, signed by Slack, can hand it back)."""
    return f"{user_id}:{int(now.timestamp())}:{secrets.token_hex(8)}"


def forget_with_ticket(ctx: Context, user_id: str, ticket: str, now: datetime) -> int | None:
    """Forget ``user_id`` when ``ticket`` is theirs, not older than :data:`TICKET_LIFETIME` and never
    used before (in any process); returns the rows deleted, or None (nothing deleted) otherwise."""
    parts = ticket.split(":") if isinstance(ticket, str) else []
    if (len(parts) != 3 or parts[0] != user_id or not parts[1].isascii()
            or not parts[1].isdigit() or len(parts[1]) > 12):
        return None
    age = now - datetime.fromtimestamp(int(parts[1]), now.tzinfo)
    if not timedelta(minutes=-1) <= age <= TICKET_LIFETIME:  # a minute's grace for clocks apart
        return None
    if not ctx.store.claim_once(_TICKET_KEY + parts[2], TICKET_LIFETIME * 2):
        return None  # pressed before: a second press deletes nothing, not even what was stored since
    return forget(ctx, user_id)
