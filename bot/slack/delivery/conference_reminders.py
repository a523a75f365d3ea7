"""The DM 15 minutes before the session of each paper a person marked Going in a conference plan
(:func:`bot.usecases.conference.send_reminders`), looked for at each tick of the digest scheduler inside
``paperbot run`` (:mod:`bot.slack.delivery.digests`); each sent once, the database deciding."""

from __future__ import annotations

import logging

from bot.slack.views.conference_plans import reminder_text
from bot.state.context import Context
from bot.usecases.conference import Reminder, send_reminders
from bot.usecases.digest_vocabulary import Clock, Courier

log = logging.getLogger(__name__)


def send_conference_reminders(ctx: Context, courier: Courier, clock: Clock) -> int:
    """The reminders due now in one workspace, each in its person's DM; a post that fails is logged, and the
    reminder tried again at the next tick until its session starts. How many were sent. A failure of the
    whole (the database away) is the caller's (:func:`bot.slack.delivery.digests.serve_workspaces`)."""

    def post(reminder: Reminder) -> bool:
        text = reminder_text(reminder)
        try:
            courier.post_text(courier.open(reminder.user_id), text)
        except Exception as exc:  # one person's failure never stops another's reminder
            log.warning("the reminder of %s for paper %s failed, tried again at the next run: %s",
                        reminder.user_id, reminder.paper.id, exc)
            return False
        return True

    return send_reminders(ctx, clock(), post)
