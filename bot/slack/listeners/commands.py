"""The `/papers` slash command: each subcommand as declared once in
:data:`bot.slack.subcommands.personal.REGISTRY`.

Only what needs no database is answered inside the ack: help, a command that can't be parsed (the
error handler answers its BadArgument), and one run where it can't be (`channel …` outside a
channel). Every other subcommand acks at once with nothing and answers through ``respond`` when done,
then publishes Home again when its declaration says Home changed.
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Refused, Request
from bot.slack.subcommands.personal import REGISTRY
from bot.slack.views.home_tab import refresh_home


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
            reply = parsed.answer(Request(user, channel, rt, client))
            respond(response_type="ephemeral", replace_original=False, **reply)
            if parsed.changes_home:
                refresh_home(rt.ctx, client, user)

        runtime.after_ack(context, body, work, respond)
