"""The App Home tab: a person's topics, feedback and digest schedule, and how to use paperbot."""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.context import Context
from bot.slack.commands import HELP, reply_interests
from bot.slack.messages import header_block
from bot.slack.runtime import Runtime


def home_view(ctx: Context, user_id: str) -> dict:
    """The Home tab for this person (a handful of blocks, far below the limit of 100)."""
    return {
        "type": "home",
        "blocks": [
            header_block("Your paperbot"),
            {"type": "section", "text": {"type": "mrkdwn", "text": reply_interests(ctx, user_id)["text"]}},
            {"type": "divider"},
            {"type": "section", "text": {"type": "mrkdwn", "text": HELP}},
        ],
    }


def register(app: App, runtime: Runtime) -> None:
    """Publish the Home tab whenever someone opens it."""

    @app.event("app_home_opened")
    def on_home_opened(event: dict, body: dict, client: WebClient, context) -> None:
        if event.get("tab") != "home" or not event.get("user"):
            return
        user = event["user"]
        rt = runtime.for_request(context)
        rt.background.submit(lambda: client.views_publish(user_id=user, view=home_view(rt.ctx, user)), body)
