"""`/papers forget`: what paperbot would delete about the person, and the Forget me button that deletes
it (:mod:`bot.usecases.forget`, :mod:`bot.slack.views.forget`)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import HelpTopic, Reply, Subcommand, nothing_after
from bot.slack.views.forget import NOTHING as FORGET_NOTHING
from bot.slack.views.forget import confirm_blocks, confirm_text
from bot.usecases.forget import forget_ticket, stored_about


def reply_forget(rt: Runtime, user_id: str) -> Reply:
    """What forgetting would delete, and the Forget me button that does it (nothing goes before)."""
    stored = stored_about(rt.ctx, user_id)
    if stored.nothing:
        return {"text": FORGET_NOTHING}
    ticket = forget_ticket(user_id, datetime.now(UTC))
    return {"text": confirm_text(stored), "blocks": confirm_blocks(stored, ticket)}


FORGET = Subcommand(
    "forget", f"• `{COMMAND} forget`: delete everything paperbot stores about you, from every table; "
              "it shows what would go, and deletes it only once you press *Forget me*",
    nothing_after("forget"), lambda req, cmd: reply_forget(req.rt, req.user))
SUBCOMMANDS = (FORGET,)
TOPIC = HelpTopic("forget", f"`{COMMAND} forget`: delete everything paperbot stores about you (asks first)",
                  SUBCOMMANDS)
