"""Delivering recommendations one message at a time, counting a paper as shown only once it arrived.

:func:`send_papers` is the one way papers reach a person outside the daily digest's claim
(``/papers recommend``, an extra digest): a header, then :func:`deliver` (or, for an extra digest of
someone who asked for compact digests, :func:`send_compact`: one message), through the same
:class:`~bot.usecases.digest_vocabulary.Courier` as the daily digest (:mod:`bot.usecases.digests.send`).

Slack-free: the caller passes ``post(rec) -> (channel, message_ts)``, which raises when a message could
not be delivered. A failed message is logged and skipped; the rest still go out, and the failed paper
is not marked shown, so it can come again.

A post that failed with an :class:`~bot.errors.Outage` that may have landed anyway (it timed out) is
not known to have failed: ``find()`` looks at what the DM holds. Found: it is shown. Not found: it may
come again. The look failed too: it is counted as shown (never sent twice) and reported as unconfirmed.
After an outage the rest are posted only if Slack answered that look; otherwise they wait.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bot.errors import Outage, Unreachable
from bot.state.context import Context
from bot.usecases.digest_vocabulary import Clock, Courier, Posted, utc_now
from bot.usecases.recommend import Recommendation, remember_shown
from bot.usecases.social import as_shown_to

log = logging.getLogger(__name__)

Post = Callable[[Recommendation], tuple[str, str]]
Find = Callable[[], Posted]


@dataclass
class Delivery:
    """What reached the person, what did not, and what may have (``unconfirmed``: Slack never said,
    and looking failed; counted as shown so it is not sent twice). ``outage``: why the rest stopped."""

    delivered: list[Recommendation] = field(default_factory=list)
    failed: list[Recommendation] = field(default_factory=list)
    unconfirmed: list[Recommendation] = field(default_factory=list)
    outage: str | None = None


def send_compact(ctx: Context, user_id: str, recs: list[Recommendation], courier: Courier,
                 header: str) -> Delivery:
    """Open the person's DM and post ``header`` and every paper as one message (a compact digest; the
    courier must offer ``post_compact``). Once Slack has it, all of its papers are shown, with its ts,
    in one step. A post that may have landed (it timed out) counts them as shown, unconfirmed."""
    assert courier.post_compact is not None  # the caller asked wants_compact
    recs = as_shown_to(ctx, user_id, recs)
    try:
        posted = courier.post_compact(courier.open(user_id), header, recs)
    except Outage as exc:
        log.warning("Slack unavailable for the compact digest of %s: %s", user_id, exc)
        if not exc.maybe_delivered:
            return Delivery(failed=recs, outage=str(exc))
        with ctx.store.transaction():
            for rec in recs:
                remember_shown(ctx, user_id, rec)
        return Delivery(unconfirmed=recs, outage=str(exc))
    except Unreachable:
        raise
    except Exception:  # that message failed: its papers may come again
        log.exception("could not post the compact digest of %s", user_id)
        return Delivery(failed=recs)
    with ctx.store.transaction():
        for rec in recs:
            remember_shown(ctx, user_id, rec, *posted)
    return Delivery(delivered=recs)


def deliver(ctx: Context, user_id: str, recommendations: Iterable[Recommendation], post: Post,
            find: Find | None = None) -> Delivery:
    """Post each recommendation; each one confirmed by the post (or found by ``find`` after a post that
    timed out) is remembered as shown at once."""
    result = Delivery()
    recs = as_shown_to(ctx, user_id, list(recommendations))
    for i, rec in enumerate(recs):
        try:
            channel, message_ts = post(rec)
        except Outage as exc:
            log.warning("Slack unavailable while posting paper %s to %s: %s", rec.paper.id, user_id, exc)
            answered = _after_outage(ctx, user_id, rec, exc, find, result)
            if not answered:  # Slack is down: don't hammer it; the rest can come another time
                result.failed.extend(recs[i + 1:])
                result.outage = str(exc)
                break
            continue
        except Exception:  # one failed message must not lose the rest: log it and go on
            log.exception("could not deliver paper %s to %s", rec.paper.id, user_id)
            result.failed.append(rec)
            continue
        with ctx.store.transaction():
            remember_shown(ctx, user_id, rec, channel, message_ts)
        result.delivered.append(rec)
    return result


def send_papers(ctx: Context, user_id: str, recommendations: Iterable[Recommendation], courier: Courier,
                header: str, clock: Clock = utc_now) -> Delivery:
    """Open the person's DM, post ``header`` (mrkdwn, already escaped), then each paper (:func:`deliver`).

    When Slack is down (an :class:`~bot.errors.Outage` opening the DM, or posting a header that cannot
    have landed) nothing is posted and every paper is failed, with the outage said. A header that got
    no answer, or was refused, does not hold the papers back. A DM that refuses the header as
    unreachable is opened once more. Raises :class:`~bot.errors.Unreachable` (nobody to post to) and
    any other failure to open the DM.
    """
    recs = list(recommendations)
    for reopened in (False, True):
        try:
            channel = courier.open(user_id)
        except Outage as exc:
            log.warning("Slack unavailable opening the DM of %s: %s", user_id, exc)
            return Delivery(failed=recs, outage=str(exc))
        since = clock()
        try:
            courier.post_text(channel, header)
        except Unreachable as exc:
            if reopened:
                raise
            # The courier keeps DM channels and drops one Slack refuses: opening again asks Slack
            # afresh, so a kept channel gone stale costs one call, not the answer.
            log.info("the DM channel kept for %s was refused (%s); opening it again", user_id, exc)
            continue
        except Outage as exc:
            if not exc.maybe_delivered:  # Slack is down: posting the papers now would only fail too
                log.warning("Slack unavailable for the header to %s: %s", user_id, exc)
                return Delivery(failed=recs, outage=str(exc))
            log.warning("the header to %s got no answer (%s); posting the papers anyway", user_id, exc)
        except Exception:  # the papers matter more than their header
            log.exception("could not post the header for %s; posting the papers anyway", user_id)
        break
    find = (lambda: courier.find_posted(channel, since)) if courier.find_posted else None
    return deliver(ctx, user_id, recs, lambda rec: courier.post_paper(channel, rec), find)


def _after_outage(ctx: Context, user_id: str, rec: Recommendation, exc: Outage, find: Find | None,
                  result: Delivery) -> bool:
    """Settle a post that failed with an outage; True when Slack answered a look at the DM since."""
    if not exc.maybe_delivered:
        result.failed.append(rec)
        return False
    try:
        if find is None:
            raise LookupError("no way to look at the DM")
        posted = find()
    except Exception as lookup:  # can't tell whether it landed: never risk sending it twice
        log.warning("could not check whether paper %s reached %s (%s); counting it as shown",
                    rec.paper.id, user_id, lookup)
        with ctx.store.transaction():
            remember_shown(ctx, user_id, rec)
        result.unconfirmed.append(rec)
        return False
    where = posted.papers.get(rec.paper.id)
    if where is None:
        result.failed.append(rec)
    else:
        log.info("paper %s reached %s although Slack's answer did not", rec.paper.id, user_id)
        with ctx.store.transaction():
            remember_shown(ctx, user_id, rec, *where)
        result.delivered.append(rec)
    return True
