"""The `/papers` slash command: each subcommand as declared once in
:data:`bot.slack.subcommands.personal.REGISTRY`.

Only what needs no database is answered inside the ack: help, a command that can't be parsed (the
error handler answers its BadArgument), and one run where it can't be (`channel …` outside a
channel). Every other subcommand acks at once with nothing and answers through ``respond`` when done,
then publishes Home again when its declaration says Home changed and the person has opened Home once
(:func:`bot.slack.views.home_tab.refresh_opened_home`).

`forget`'s answer carries the Forget me and Cancel buttons; pressing one replaces that answer with one
line. Forget me deletes only with a ticket of the presser's own, fresh and never used
(:func:`bot.usecases.forget.forget_with_ticket`); a replayed request is dropped before (the runtime).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Refused, Request
from bot.slack.subcommands.personal import REGISTRY
from bot.slack.views.forget import CANCEL_ACTION, CANCELLED, EXPIRED, FORGET_ACTION, FORGOTTEN, NOT_YOURS
from bot.slack.views.home_tab import refresh_home, refresh_opened_home
from bot.usecases.forget import forget_with_ticket
from storage import StorageError

log = logging.getLogger(__name__)


def register(app: App, runtime: Runtime) -> None:
    """Register the `/papers` listener."""

    @app.command(COMMAND)
    def papers(ack, body: dict, respond, client: WebClient, context) -> None:
        user, channel = body["user_id"], body.get("channel_id") or ""
        parsed = REGISTRY.parse(body.get("text", ""), channel)  # a BadArgument: answered in the ack
        if isinstance(parsed, Refused):
            ack(response_type="ephemeral", text=parsed.text)
            return
        if parsed.subcommand.in_ack:
            ack(response_type="ephemeral", **parsed.answer(Request(user, channel)))
            return
        ack()

        def work(rt: Runtime) -> None:
            reply = parsed.answer(Request(user, channel, rt, client, body.get("trigger_id") or ""))
            respond(response_type="ephemeral", replace_original=False, **reply)
            if parsed.changes_home:
                refresh_opened_home(rt.ctx, client, user)

        runtime.after_ack(context, body, work, respond)

    @app.action(FORGET_ACTION)
    def on_forget(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        user, ticket = body["user"]["id"], action.get("value") or ""
        if ticket.split(":", 1)[0] != user:  # someone else's answer (in a shared view): leave it be
            respond(text=NOT_YOURS, response_type="ephemeral", replace_original=False)
            return

        def work(rt: Runtime) -> None:
            with rt.locks.hold(user):  # after any delivery or reaction under way for this person
                deleted = forget_with_ticket(rt.ctx, user, ticket, datetime.now(UTC))
            if deleted is None:
                respond(text=EXPIRED, replace_original=True)
                return
            log.info("forgot %s (%d rows)", user, deleted)
            if rt.forgotten is not None:
                try:
                    rt.forgotten(rt.ctx.workspace, user)
                except StorageError as exc:  # their rows are gone; their id stays sealed in that installation
                    log.warning("forgot %s, but could not seal their installation again: %s", user, exc)
            respond(text=FORGOTTEN, replace_original=True)
            refresh_home(rt.ctx, client, user)  # whether they opened it went with the rest: publish anyway

        runtime.after_ack(context, body, work, respond)

    @app.action(CANCEL_ACTION)
    def on_cancel(ack, respond) -> None:
        ack()
        respond(text=CANCELLED, replace_original=True)
