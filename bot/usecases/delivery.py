"""Delivering recommendations one message at a time, counting a paper as shown only once it arrived.

Slack-free: the caller passes ``post(rec) -> (channel, message_ts)``, which raises when a message could
not be delivered. A failed message is logged and skipped; the rest still go out, and the failed paper
is not marked shown, so it can come again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bot.context import Context
from bot.usecases.recommend import Recommendation, remember_shown

log = logging.getLogger(__name__)

Post = Callable[[Recommendation], tuple[str, str]]


@dataclass
class Delivery:
    """What reached the person and what did not."""

    delivered: list[Recommendation] = field(default_factory=list)
    failed: list[Recommendation] = field(default_factory=list)


def deliver(ctx: Context, user_id: str, recommendations: Iterable[Recommendation], post: Post) -> Delivery:
    """Post each recommendation; each one confirmed by the post is remembered as shown at once."""
    result = Delivery()
    for rec in recommendations:
        try:
            channel, message_ts = post(rec)
        except Exception:  # one failed message must not lose the rest: log it and go on
            log.exception("could not deliver paper %s to %s", rec.paper.id, user_id)
            result.failed.append(rec)
            continue
        with ctx.store.transaction():
            remember_shown(ctx, user_id, rec, channel, message_ts)
        result.delivered.append(rec)
    return result
