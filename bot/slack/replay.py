"""Handing a request the inbox kept back to the Bolt app (:attr:`bot.slack.background.Background.replay`).

The request was checked when it arrived (its signature, its workspace), and is handed over again as
Bolt takes a Socket Mode request (no signature to check: the inbox is paperbot's own), carrying its claimed
item in the context (:data:`bot.slack.runtime.REPLAYING`): authorization and the workspace guard run
again, then the listener, whose ``after_ack`` carries the work out under that claim. What the listener
answers goes nowhere: Slack had its answer when the request arrived.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from slack_bolt import App, BoltRequest

from bot.slack.runtime import REPLAYING
from storage.models import InboxItem


def replayer(app: App) -> Callable[[InboxItem], int]:
    """What replays an inbox item through ``app``: returns the status Bolt answered."""

    def replay(item: InboxItem) -> int:
        body = json.loads(item.entry.payload)
        return app.dispatch(BoltRequest(body=body, mode="socket_mode", context={REPLAYING: item})).status

    return replay

