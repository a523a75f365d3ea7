"""Scoop watch (issue 43): the form `/papers watch` opens, submitted, and an alert's two buttons, Close:
keep me posted and Not close: be stricter. Each acks at once (a form's text checked in the ack, a wrong one
shown under its field); the work runs after, in the workspace of the request. A form's owner (a person, or
the channel it was opened in) travels in its private metadata, which only paperbot writes."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from slack_bolt import App
from slack_sdk import WebClient

from bot.errors import BadArgument, NotFound
from bot.slack.request_keys import where_clicked
from bot.slack.runtime import Runtime
from bot.slack.views import watch as view
from bot.usecases import watches as usecase
from bot.usecases.subjects import is_channel

log = logging.getLogger(__name__)


def register(app: App, runtime: Runtime) -> None:
    """Register the watch form's submission and the alert buttons."""

    @app.view(view.FORM_CALLBACK)
    def on_submit(ack, body: dict, client: WebClient, context) -> None:
        submitted = body.get("view") or {}
        owner, title, text = view.submitted(submitted)
        user = body["user"]["id"]
        try:
            usecase.check_watch(title, text)
        except usecase.WatchTooLong as exc:
            block = view.TITLE_BLOCK if exc.what == "title" else view.TEXT_BLOCK
            ack(response_action="errors", errors={block: view.refusal(exc)[:300]})
            return
        except BadArgument as exc:
            ack(response_action="errors", errors={view.TEXT_BLOCK: view.refusal(exc)[:300]})
            return
        if owner != user and not is_channel(owner):  # only paperbot writes it: someone else's form
            ack(response_action="errors",
                errors={view.TEXT_BLOCK: "This form is out of date; open it again."})
            return
        ack()

        def work(rt: Runtime) -> None:
            try:
                said = view.added(usecase.add_watch(rt.ctx, owner, title, text, datetime.now(UTC)))
            except (BadArgument, NotFound) as exc:
                said = view.refusal(exc)
            if is_channel(owner):  # seen by the one who set it up
                client.chat_postEphemeral(channel=owner, user=user, text=said)
            else:
                dm = client.conversations_open(users=user)["channel"]["id"]
                client.chat_postMessage(channel=dm, text=said)

        runtime.after_ack(context, body, work)

    def on_verdict(ack, body: dict, action: dict, respond, context) -> None:
        ack()
        user, channel, _ = where_clicked(body)
        owner = channel if is_channel(channel) else user  # a channel's alert is the channel's
        watch_id, _, paper_id = str(action.get("value") or "").partition(":")

        def work(rt: Runtime) -> None:
            try:
                if action["action_id"] == view.CLOSE_ACTION:
                    usecase.keep_posted(rt.ctx, owner, watch_id, paper_id)
                    said = view.kept_posted()
                else:
                    said = view.made_stricter(usecase.be_stricter(rt.ctx, owner, watch_id, paper_id))
            except (BadArgument, NotFound) as exc:
                said = view.refusal(exc)
            respond(text=said, response_type="ephemeral", replace_original=False)

        runtime.after_ack(context, body, work, respond)

    app.action(view.CLOSE_ACTION)(on_verdict)
    app.action(view.STRICTER_ACTION)(on_verdict)
