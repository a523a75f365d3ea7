"""What became of the papers a person saved or liked (issue 42, docs/followups.md): a new version whose
abstract changed, a venue or journal, a DOI, a code link, a withdrawal, as the ingest found them
(``bot/text/paper_events.py``, stored with the merge that found them). Each is told once per person and
event: claimed in the database (``followups_told``) for the message that carries it, before that message is
posted, so a retry of the same message tells the same ones and no other message repeats them.

Returned as data (:class:`Followup`); the Slack views word them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.state.context import Context
from bot.text.paper_events import KINDS
from bot.usecases.digest_due import zone
from bot.usecases.subjects import is_channel
from storage import Paper, PaperEvent, Person
from storage.moments import iso_utc

log = logging.getLogger(__name__)

#: Events found longer ago than this are not told (someone who turns follow-ups back on hears of the
#: recent ones, not of a year's).
HORIZON = timedelta(days=14)
#: At most this many events a message; the rest wait for the next.
MOST_EVENTS = 6  # so every paper of a message is listed by name (see bot/slack/views/followup_texts.py)
#: A follow-up message of its own (on a day without a digest) is claimed under this prefix and the
#: person's local day: at most one a day.
DM_VIA = "dm:"
#: A follow-up message of its own comes no earlier than this local time (or the person's digest time).
QUIET_UNTIL = "09:00"
#: How long a day's claim of a follow-up message is kept (past any local day's end).
DAY_CLAIM_KEPT = timedelta(days=2)


class Unread:
    """A person's settings not read yet by the caller."""


UNREAD = Unread()


@dataclass(frozen=True)
class Followup:
    """One paper a person saved or liked, and what became of it: ``events`` as (kind, detail), in
    :data:`bot.text.paper_events.KINDS` order."""

    paper: Paper
    events: tuple[tuple[str, str], ...]


def people_with_news(ctx: Context, now: datetime) -> set[str]:
    """Who in this workspace has follow-ups not told yet (and did not turn them off), channels included."""
    return set(ctx.store.people_with_followups(iso_utc(now - HORIZON)))


def claim_followups(ctx: Context, user_id: str, via: str, now: datetime,
                    person: Person | None | Unread = UNREAD) -> tuple[Followup, ...]:
    """Claim for one message (``via``: a digest's local day, or :data:`DM_VIA` and a local day) the
    follow-ups not told ``user_id`` yet, and return every one claimed for it (an earlier attempt's too),
    a paper each; none for someone who turned them off. ``person``: their settings, when the caller
    has read them. The claim is one statement: atomic alone."""
    if isinstance(person, Unread):
        person = ctx.store.get_person(user_id)
    if person is not None and person.followups_off:
        return ()
    events = ctx.store.claim_followups(user_id, via, iso_utc(now), iso_utc(now - HORIZON), MOST_EVENTS)
    return grouped(ctx, events)


def give_back(ctx: Context, user_id: str, via: str) -> None:
    """The message claimed for ``via`` never went out: its follow-ups are told another time."""
    with ctx.store.transaction():
        ctx.store.release_followups(user_id, via)


def grouped(ctx: Context, events: list[PaperEvent]) -> tuple[Followup, ...]:
    """``events`` a paper each, in the order their papers first appear; papers no longer stored left out."""
    if not events:
        return ()
    by_paper: dict[str, list[tuple[str, str]]] = {}
    for event in events:
        by_paper.setdefault(event.paper_id, []).append((event.kind, event.detail))
    papers = ctx.store.get_papers(list(by_paper))
    order = {kind: i for i, kind in enumerate(KINDS)}
    def ordered(found: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(found, key=lambda e: (order.get(e[0], len(order)), e[1])))

    return tuple(Followup(papers[pid], ordered(found))
                 for pid, found in by_paper.items() if pid in papers)


# -- a follow-up message of its own, on a day without a digest -----------------------------------------

#: How a follow-up message is posted: (person, their follow-ups); raises when it could not be.
FollowupPoster = Callable[[str, Sequence[Followup]], None]


def send_followup_messages(ctx: Context, now: datetime, post: FollowupPoster) -> int:
    """Tell each person of this workspace with untold follow-ups, on a local day their digest says nothing
    (no digest that day, or one that went out without a header), in one message of its own: at most one a
    person and local day, whichever process gets there first (a once-key). Channels hear of theirs in
    their digests only. A message that fails gives its follow-ups back, to be told another time; one
    lost with its process (after the day's claim) is not sent again that day. Returns how many went out."""
    sent = 0
    for user_id in ctx.store.people_with_followups(iso_utc(now - HORIZON)):
        if is_channel(user_id):
            continue
        person = ctx.store.get_person(user_id)
        day = now.astimezone(zone(person.tz if person else None)).date().isoformat()
        if not _a_day_without_digest(ctx, user_id, person, day, now):
            continue
        if not ctx.store.claim_once(f"followups:{user_id}:{day}", DAY_CLAIM_KEPT):
            continue  # told today already (or being told), by this process or another
        via = DM_VIA + day
        followups = claim_followups(ctx, user_id, via, now)
        if not followups:
            continue
        try:
            post(user_id, followups)
        except Exception as exc:  # a courtesy, not a digest: told another time
            log.warning("could not send %s their follow-ups: %s", user_id, exc)
            give_back(ctx, user_id, via)
            continue
        sent += 1
    return sent


def _a_day_without_digest(ctx: Context, user_id: str, person: Person | None, day: str, now: datetime) -> bool:
    """Whether ``user_id``'s local ``day`` has come far enough (their digest time, else
    :data:`QUIET_UNTIL`) with no digest to tell them: none is due that day, or that day's went out
    without its header (nothing matched)."""
    local = now.astimezone(zone(person.tz if person else None))
    if local.strftime("%H:%M") < ((person.digest_time if person else None) or QUIET_UNTIL):
        return False
    record = ctx.store.get_digest(user_id, day)
    if record is None:
        due_today = bool(person and person.digest_enabled
                         and (person.digest_weekday is None or person.digest_weekday == local.weekday()))
        return not due_today  # a digest still to come today tells them
    return record.status != "sending" and record.header_ts is None
