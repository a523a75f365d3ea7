"""Reactions and the 👍/👎 buttons on paper messages, as feedback (see :mod:`bot.usecases.reactions`);
the ``bookmark`` reaction saves the paper (:mod:`bot.usecases.saved`). After each, the message shows the
feedback (:mod:`bot.slack.views.marks`). On a compact digest the buttons name their paper and only its
section is rewritten (:mod:`bot.slack.views.compact`); a reaction there is ignored when the message
holds several papers (it can't say which one), and counts as usual when it holds one."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.request_keys import where_clicked
from bot.slack.runtime import Runtime
from bot.slack.views.compact import clicked_paper, show_compact_feedback
from bot.slack.views.marks import posted_paper, show_feedback
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION, fit, title_of
from bot.slack.views.unfurl_card import not_on_card
from bot.usecases.feedback import DISLIKE, LIKE
from bot.usecases.reactions import rate_message, reaction_added, reaction_removed, reaction_value
from bot.usecases.saved import is_save_reaction, saved_on_message

log = logging.getLogger(__name__)


def reactions_left(client: WebClient, channel: str, message_ts: str) -> list[dict] | None:
    """The reactions still on a message (``reactions.get``: each with its name and users); None when
    Slack can't say."""
    try:
        message = client.reactions_get(channel=channel, timestamp=message_ts, full=True).get("message") or {}
    except (SlackClientError, OSError) as exc:
        log.warning("could not read the reactions left on %s/%s: %s", channel, message_ts, exc)
        return None
    return list(message.get("reactions") or [])


def _by(reactions: list[dict], user_id: str) -> list[str]:
    return [r["name"] for r in reactions if user_id in (r.get("users") or [])]


def _everyone(reactions: list[dict]) -> list[str]:
    """Each reaction's name once per person who still has it on (a name's ``count`` when Slack lists
    no users)."""
    return [r["name"] for r in reactions for _ in (r.get("users") or range(int(r.get("count") or 0)))]


def register(app: App, runtime: Runtime) -> None:
    """Register the reaction events and the feedback buttons."""

    def on_reaction(event: dict, body: dict, client: WebClient, context) -> None:
        item = event.get("item") or {}
        user, reaction = event.get("user"), event.get("reaction") or ""
        saving = is_save_reaction(reaction)
        channel, message_ts = item.get("channel"), item.get("ts")
        if (item.get("type") != "message" or not user or not channel or not message_ts
                or (reaction_value(reaction) is None and not saving)):
            return  # not feedback: any other reaction, a reaction on a file, or no message to place it on
        added = event.get("type") == "reaction_added"
        # Slack is asked what a message carries only for one of paperbot's own that the store can't place.
        author, bot = event.get("item_user"), context.get("bot_user_id")
        ours = not author or not bot or author == bot
        posted_as = posted_paper(client, channel, message_ts) if ours else None

        def work(rt: Runtime) -> None:
            ctx = rt.ctx
            with rt.locks.hold(user):
                if saving:
                    paper = saved_on_message(ctx, user, channel, message_ts, added, posted_as)
                elif added:
                    paper = reaction_added(ctx, user, channel, message_ts, reaction, posted_as)
                else:  # what still holds: the person's reactions, and (a channel's paper) anyone's
                    left = reactions_left(client, channel, message_ts)
                    paper = reaction_removed(ctx, user, channel, message_ts, reaction, _by(left or [], user),
                                             everyone=None if left is None else _everyone(left),
                                             posted_as=posted_as)
            if paper:
                log.info("%s %s %s on %s", user, "added" if added else "removed", reaction, paper)
                show_feedback(ctx, client, user, channel, message_ts, posted_as)

        runtime.after_ack(context, body, work)

    app.event("reaction_added")(on_reaction)
    app.event("reaction_removed")(on_reaction)

    def on_button(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        value = LIKE if action.get("action_id") == LIKE_ACTION else DISLIKE
        user, channel, message_ts = where_clicked(body)
        # one paper of a compact digest: the button names it
        compact, posted_as = clicked_paper(client, body, action, channel, message_ts)

        def work(rt: Runtime) -> None:
            ctx = rt.ctx
            with rt.locks.hold(user):
                paper = rate_message(ctx, user, channel, message_ts, value, posted_as)
            if paper is None:
                text = "I no longer have a record of that paper for you."
            else:
                title = fit(title_of(paper), 120)
                text = (f":+1: Noted: more like “{title}”." if value == LIKE
                        else f":-1: Noted: fewer like “{title}”.")
                if compact:
                    show_compact_feedback(ctx, client, user, channel, message_ts, compact)
                else:
                    show_feedback(ctx, client, user, channel, message_ts, posted_as)
            respond(text=text, response_type="ephemeral", replace_original=False)

        runtime.after_ack(context, body, work, respond)

    app.action(LIKE_ACTION, matchers=[not_on_card])(on_button)  # a card's: unfurl_clicks
    app.action(DISLIKE_ACTION, matchers=[not_on_card])(on_button)
