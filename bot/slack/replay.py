"""Handing a request the inbox kept back to the Bolt app (:attr:`bot.slack.background.Background.replay`).

The request was checked when it arrived (its signature, its workspace), and is handed over again as
Bolt takes a Socket Mode request (no signature to check: the inbox is paperbot's own), carrying its claimed
item in the context (:data:`bot.slack.runtime.REPLAYING`): authorization and the workspace guard run
again, then the listener, whose ``after_ack`` carries the work out under that claim. What the listener
answers goes nowhere: Slack had its answer when the request arrived.

A process that sends digests without serving Slack (``paperbot digest``) first carries out, the same way,
what was acknowledged and left for later (:func:`carry_out_acked`), so that every request answered
before it began counts in the digests it sends.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from slack_bolt import App, BoltRequest

from bot.config import Settings
from bot.slack.background import CATCH_UP_SECONDS, HOLD, STOP_SECONDS
from bot.slack.runtime import REPLAYING
from bot.state.context import Context
from bot.state.intake import Intake
from storage.models import InboxItem

log = logging.getLogger(__name__)


def replayer(app: App) -> Callable[[InboxItem], int]:
    """What replays an inbox item through ``app``: returns the status Bolt answered."""

    def replay(item: InboxItem) -> int:
        body = json.loads(item.entry.payload)
        return app.dispatch(BoltRequest(body=body, mode="socket_mode", context={REPLAYING: item})).status

    return replay


def carry_out_acked(settings: Settings, ctx: Context, timeout: float = CATCH_UP_SECONDS) -> int:
    """Carry out every acknowledged request that no living process holds (a stopped or dead bot's, and
    what the journal beside a SQLite file still holds) through the Bolt app of ``settings``, as the bot's
    sweep would, and wait for them (up to ``timeout`` seconds): what ``paperbot digest`` does before it
    chooses. Requests a running bot holds are left to it. How many were carried out; the app is built
    (and Slack asked who the token is) only when there is any."""
    Intake(ctx.store, HOLD).settle(wait=True)
    if not ctx.store.inbox_pending_count():
        return 0
    from bot.slack.app import create_app  # imported here: the app imports this module

    bot = create_app(settings, ctx)
    background = bot.runtime.background
    try:
        return background.catch_up(timeout)
    finally:
        bot.listener_executor.shutdown(wait=True)
        background.stop(STOP_SECONDS)  # what is still under way then is handed back, for the next process
