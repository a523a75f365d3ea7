"""A channel's weekly post made exactly once: the one rule the weekly trending post
(:mod:`bot.usecases.trending`) and the weekly recap (:mod:`bot.usecases.recap`) share.

Each channel's post for a week is a lease (a kind of :mod:`storage.leases`, keyed by the channel and
the week): taken by one compare-and-set, so of every process sharing the database exactly one posts it,
once. How each ending is decided:

* posted (or "empty": nothing to show, and a short post said so): done for the week;
* the bot is not in the channel, or the channel is gone (:class:`~bot.errors.Unreachable`): "failed"
  for the week, logged;
* Slack down (:class:`~bot.errors.Outage`): given back, tried again after :data:`RETRY_AFTER`, never
  doubled (a post Slack took is recorded before the lease ends);
* any other failure: given back and counted; after :data:`MAX_ATTEMPTS`, "failed" for the week.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal, Protocol, TypeVar

from bot.errors import Outage, Unreachable
from bot.state.context import Context
from bot.usecases.digest_vocabulary import Alive, Clock, Note, error_note
from storage.models import LeaseKindName
from storage.moments import iso_utc

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=5)  # longer than one post can take, 429 retries included
RETRY_AFTER = timedelta(minutes=2)
MAX_ATTEMPTS = 3

#: What became of one channel's weekly post: "posted", "empty", "failed", or "incomplete" (given back
#: to be tried again, or someone else's meanwhile).
WeeklyStatus = Literal["posted", "empty", "failed", "incomplete"]


@dataclass(frozen=True)
class Ended:
    """What became of one weekly post, and why (as a digest's is told)."""

    status: WeeklyStatus
    note: Note | None = None


@dataclass(frozen=True)
class WeeklyLease:
    """One channel's post for one week: the lease kind and its key (channel, week), who holds it now
    (``holder()``: the lease row's owner, None before anyone took it), and how the message a post went
    out as is remembered (``record(owner, ts)``)."""

    kind: LeaseKindName
    key: tuple[str, str]
    holder: Callable[[], str | None]
    record: Callable[[str, str], object]


#: Posts the week's message: ``send() -> (message ts, whether it had nothing to show)``. Raises
#: Unreachable (not in the channel), Outage (Slack down), or any other exception for a failed post.
Send = Callable[[], tuple[str, bool]]


def post_once(ctx: Context, lease: WeeklyLease, now: datetime, send: Send, owner: str, clock: Clock,
              alive: Alive, what: str) -> Ended | None:
    """Post one channel's weekly message once (see the module); None when someone else holds it or it
    ended. ``what`` names the post in the log ("trending", "recap")."""
    store, (channel, _) = ctx.store, lease.key
    holder = lease.holder()
    dead = {holder} if holder and alive(holder) is False else set()
    at = iso_utc(now)
    if not store.take_lease(lease.kind, lease.key, owner, iso_utc(now + LEASE), at, dead=dead,
                            fresh={"started_at": at}):
        return None
    try:
        ts, empty = send()
    except Unreachable as exc:
        log.warning("can't post the %s in %s (%s): skipped this week; invite the bot there", what, channel,
                    exc)
        return _finish(ctx, lease, owner, "failed", clock, Note("unreachable", detail=str(exc)))
    except Outage as exc:  # Slack's trouble: try again soon, counted against nothing
        note = Note("slack_unavailable", detail=str(exc))
        store.release_lease(lease.kind, lease.key, owner, iso_utc(clock() + RETRY_AFTER), error=note.stored())
        return Ended("incomplete", note)
    except Exception as exc:
        note = Note("crashed", detail=error_note(exc))
        log.exception("posting the %s in %s failed", what, channel)
        attempts = store.release_lease(lease.kind, lease.key, owner, iso_utc(clock() + RETRY_AFTER),
                                       count="attempts", error=note.stored()) or 0
        if attempts >= MAX_ATTEMPTS:
            return _finish(ctx, lease, owner, "failed", clock, Note("gave_up", attempts, cause=note))
        return Ended("incomplete", note)
    lease.record(owner, ts)
    return _finish(ctx, lease, owner, "empty" if empty else "posted", clock)


class Outcome(Protocol):
    """What a kind of weekly post tells of one channel's post (its own dataclass)."""

    @property
    def status(self) -> WeeklyStatus: ...

    @property
    def note(self) -> Note | None: ...


Told = TypeVar("Told", bound=Outcome)


def each_channel(what: str, due: Iterable[tuple[str, date]], post: Callable[[str, date], Told | None],
                 crashed: Callable[[str, date, Note], Told]) -> list[Told]:
    """``post`` each ``(channel, week)`` that is ``due`` in turn; the outcomes there were (None: nothing
    to do there). One channel's failure never stops another, nor the digests: it is logged and becomes
    ``crashed``'s outcome. ``what`` names the kind of post in the log ("recap", "trending post")."""
    outcomes = []
    for channel, week in due:
        try:
            outcome = post(channel, week)
        except Exception as exc:
            log.exception("the %s of %s failed", what, channel)
            outcome = crashed(channel, week, Note("crashed", detail=error_note(exc)))
        if outcome is not None:
            log.info("%s %s for %s: %s%s", what, week, channel, outcome.status,
                     f": {outcome.note.stored()}" if outcome.note else "")
            outcomes.append(outcome)
    return outcomes


def _finish(ctx: Context, lease: WeeklyLease, owner: str, status: Literal["posted", "empty", "failed"],
            clock: Clock, note: Note | None = None) -> Ended:
    stored = note.stored() if note else None
    mine = ctx.store.finish_lease(lease.kind, lease.key, owner, status, iso_utc(clock()), stored)
    return Ended(status if mine else "incomplete", note)
