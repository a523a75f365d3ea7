""""Who should read this?": the button on every paper message (and unfurled card), the message shortcut
of that name, and the Send buttons of its answer (see :mod:`bot.usecases.suggestions`).

The answer is private to the asker: through the click's ``response_url`` (ephemeral), or for the
shortcut a ``chat.postEphemeral`` in that channel (paperbot's DM where it can't post one). Send DMs the
colleague the paper as a paper message naming the asker, once (the database decides), and rewrites
the asker's answer to say what it did.
"""

from __future__ import annotations

import http.client
import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.errors import NoPapers, PaperbotError
from bot.slack.client import classified
from bot.slack.manifest import WHO_SHORTCUT
from bot.slack.runtime import Runtime
from bot.slack.shortcut_messages import message_text, tell_privately
from bot.slack.views.messages import WHO_ACTION, fit, paper_text, title_of
from bot.slack.views.metadata import PAPER_EVENT
from bot.slack.views.unfurl_card import unfurled_paper
from bot.slack.views.who import (
    SEND_ACTION,
    answer_blocks,
    answer_text,
    read_send_value,
    status_text,
    suggested_blocks,
)
from bot.usecases.channels import known_dm_channel, remember_dm_channel
from bot.usecases.lookup import paper_by_id
from bot.usecases.recommend import Recommendation
from bot.usecases.save_named import find_named_papers
from bot.usecases.suggestions import SentSuggestion, send_suggestion, who_should_read

log = logging.getLogger(__name__)

GONE = "I no longer have that paper, so I can't suggest anyone for it."
NO_PAPER = ("I found no arXiv link, arXiv id or DOI in that message, so I can't tell who should read it. "
            "Use *Who should read this?* on a message that links to a paper.")
NOT_FOUND = "I couldn't find the paper that message names ({names}){why}, so I can't suggest anyone for it."
SEVERAL = ("That message names {n} papers; here is the first, “{title}”. The button on a paper message "
           "asks about any other.")
NOT_RANKED = "There are no papers ranked yet, so I can't suggest anyone. Try again later."
UNREACHABLE = " (arXiv isn't answering right now; try again in a few minutes)"
SLACK_FAILURES = (SlackApiError, SlackClientError, OSError, http.client.HTTPException, KeyError, TypeError)


def register(app: App, runtime: Runtime) -> None:
    """Register the button, the shortcut and the Send buttons."""

    @app.action(WHO_ACTION)
    def on_who(ack, body: dict, action: dict, respond, context) -> None:
        ack()
        user = body["user"]["id"]
        paper_id = unfurled_paper(body) or action.get("value")

        def work(rt: Runtime) -> None:
            paper = paper_by_id(rt.ctx, paper_id) if isinstance(paper_id, str) and paper_id else None
            if paper is None:
                respond(text=GONE, response_type="ephemeral", replace_original=False)
                return
            try:
                answer = who_should_read(rt.ctx, user, paper)
            except NoPapers:
                respond(text=NOT_RANKED, response_type="ephemeral", replace_original=False)
                return
            respond(text=answer_text(answer), blocks=answer_blocks(answer), response_type="ephemeral",
                    replace_original=False)

        runtime.after_ack(context, body, work, respond)

    @app.shortcut(WHO_SHORTCUT)
    def on_who_shortcut(ack, body: dict, respond, client: WebClient, context) -> None:
        ack()
        user = body["user"]["id"]
        channel = (body.get("channel") or {}).get("id")
        text = message_text(body.get("message") or {})

        def work(rt: Runtime) -> None:
            named = find_named_papers(rt.ctx, text)  # the arXiv API, when asked
            if not named.named:
                tell_privately(client, channel, user, NO_PAPER)
                return
            if not named.found:
                names = ", ".join(f"`{fit(name, 100)}`" for name in named.missing[:5])
                why = UNREACHABLE if named.unreachable else ""
                tell_privately(client, channel, user, NOT_FOUND.format(names=names, why=why))
                return
            paper = named.found[0]
            try:
                answer = who_should_read(rt.ctx, user, paper)
            except NoPapers:
                tell_privately(client, channel, user, NOT_RANKED)
                return
            blocks = answer_blocks(answer)
            papers = {p.id for p in named.found}
            if len(papers) > 1:
                note = SEVERAL.format(n=len(papers), title=fit(title_of(paper), 120))
                blocks = [{"type": "context", "elements": [{"type": "mrkdwn", "text": note}]}, *blocks]
            tell_privately(client, channel, user, answer_text(answer), blocks)

        runtime.after_ack(context, body, work, respond)  # by the trigger id: a replayed request answers once

    @app.action(SEND_ACTION)
    def on_send(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        asker = body["user"]["id"]
        found = read_send_value(action.get("value"))

        def work(rt: Runtime) -> None:
            paper = paper_by_id(rt.ctx, found[0]) if found else None
            if found is None or paper is None:
                respond(text=GONE, response_type="ephemeral", replace_original=False)
                return
            _, colleague, reason = found
            with rt.locks.hold(colleague):  # no digest of theirs picks the paper meanwhile
                try:
                    done = send_suggestion(rt.ctx, asker, colleague, paper, reason,
                                           _poster(rt, client, colleague, asker))
                except (*SLACK_FAILURES, PaperbotError) as exc:  # nothing kept: a later Send may try again
                    log.warning("could not send a suggestion to %s: %s", colleague, exc)
                    done = SentSuggestion("failed", paper, colleague)
            try:
                answer = who_should_read(rt.ctx, asker, paper)
            except NoPapers:
                answer = None
            blocks = answer_blocks(answer, done) if answer is not None else None
            respond(text=status_text(done), blocks=blocks, response_type="ephemeral", replace_original=True)

        runtime.after_ack(context, body, work, respond)


def _poster(rt: Runtime, client: WebClient, colleague: str, asker: str):
    """``post(rec) -> (channel, ts)``: the paper message in the colleague's DM, opened by the asker's
    line, carrying the paper id as its metadata (as every paper message does); Slack's failures raise
    (:data:`SLACK_FAILURES`)."""

    def post(rec: Recommendation) -> tuple[str, str]:
        channel = known_dm_channel(rt.ctx, colleague)
        if not channel:
            channel = client.conversations_open(users=colleague)["channel"]["id"]
            remember_dm_channel(rt.ctx, colleague, channel)
        try:
            response = client.chat_postMessage(
                channel=channel, text=paper_text(rec.paper), blocks=suggested_blocks(rec, asker),
                metadata={"event_type": PAPER_EVENT, "event_payload": {"paper_id": rec.paper.id}},
                unfurl_links=False, unfurl_media=False)
        except (SlackApiError, SlackClientError, OSError, http.client.HTTPException) as exc:
            raise classified(exc) from exc  # an Outage says whether the post may have landed
        return response["channel"], response["ts"]

    return post
