"""The Save and More like this buttons on paper messages (see :mod:`bot.usecases.saved` and
:mod:`bot.usecases.similar`). Each acks at once; the work runs after, in the clicker's workspace."""

from __future__ import annotations

import http.client
import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.slack.client import classified
from bot.slack.manifest import COMMAND
from bot.slack.request_keys import where_clicked
from bot.slack.runtime import Runtime
from bot.slack.views.compact import clicked_paper, show_compact_feedback
from bot.slack.views.home_tab import refresh_opened_home
from bot.slack.views.marks import show_feedback
from bot.slack.views.messages import MORE_ACTION, SAVE_ACTION, fit, paper_blocks, paper_text, title_of
from bot.slack.views.unfurl_card import not_on_card
from bot.usecases.channel_subjects import is_channel
from bot.usecases.recommend import Recommendation
from bot.usecases.saved import toggle_saved_on_message
from bot.usecases.similar import MoreLikeThis, more_like_this

log = logging.getLogger(__name__)

NO_RECORD = "I no longer have a record of that paper for you."



def thread_poster(client: WebClient, channel: str, thread_ts: str):
    """``post(rec) -> (channel, ts)`` posting a paper message into the thread under ``thread_ts``;
    failures raise as :func:`bot.slack.client.classified` says (an outage stops the rest)."""

    def post(rec: Recommendation) -> tuple[str, str]:
        try:
            response = client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=paper_text(rec.paper), blocks=paper_blocks(rec),
                unfurl_links=False, unfurl_media=False)
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc
        return response["channel"], response["ts"]

    return post


def more_reply(result: MoreLikeThis | None) -> str:
    """What the clicker is told after More like this."""
    if result is None:
        return NO_RECORD
    title = fit(title_of(result.paper), 120)
    delivered, failed = result.delivery.delivered, result.delivery.failed
    if not delivered and not failed and result.for_channel:
        return f"Nothing new like “{title}” yet: this channel has seen every paper close to it."
    if not delivered and not failed:
        return (f"Nothing new like “{title}” yet: you have seen every paper close to it. "
                f"I'll keep it in mind; `{COMMAND} recommend` looks wider.")
    if not delivered:
        return "Sorry, Slack didn't take the papers, so nothing was posted. Please try again in a minute."
    n = len(delivered)
    text = f"{n} {'paper' if n == 1 else 'papers'} like “{title}” are in the thread under it."
    if failed:
        text += f" {len(failed)} couldn't be posted; they may come again later."
    return text


def register(app: App, runtime: Runtime) -> None:
    """Register the Save and More like this buttons."""

    @app.action(SAVE_ACTION, matchers=[not_on_card])  # a card's: unfurl_clicks
    def on_save(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        user, channel, message_ts = where_clicked(body)
        # one paper of a compact digest: the button names it
        compact, posted_as = clicked_paper(client, body, action, channel, message_ts)

        def work(rt: Runtime) -> None:
            with rt.locks.hold(user):
                toggled = toggle_saved_on_message(rt.ctx, user, channel, message_ts, posted_as)
            if toggled is None:
                respond(text=NO_RECORD, response_type="ephemeral", replace_original=False)
                return
            if compact:
                show_compact_feedback(rt.ctx, client, user, channel, message_ts, compact)
            else:
                show_feedback(rt.ctx, client, user, channel, message_ts, posted_as)
            title = fit(title_of(toggled.paper), 120)
            text = (f":bookmark: Saved “{title}”. `{COMMAND} saved` lists your saved papers." if toggled.saved
                    else f"Removed “{title}” from your saved papers.")
            respond(text=text, response_type="ephemeral", replace_original=False)
            refresh_opened_home(rt.ctx, client, user)  # its latest saved papers

        runtime.after_ack(context, body, work, respond)

    @app.action(MORE_ACTION, matchers=[not_on_card])
    def on_more(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        user, channel, message_ts = where_clicked(body)
        # on a compact digest the button names its paper; the papers go in the thread under the message
        _, posted_as = clicked_paper(client, body, action, channel, message_ts)

        # Never the same paper twice, with a digest or recommend under way: the lock of whose papers
        # these are (a channel's paper message is in the channel; a person's is in their DM).
        subject = channel if is_channel(channel) else user

        def work(rt: Runtime) -> None:
            with rt.locks.hold(subject):
                result = more_like_this(rt.ctx, user, channel, message_ts,
                                        thread_poster(client, channel, message_ts), posted_as)
            respond(text=more_reply(result), response_type="ephemeral", replace_original=False)

        runtime.after_ack(context, body, work, respond)
