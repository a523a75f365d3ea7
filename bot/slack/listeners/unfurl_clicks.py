"""Clicks on the buttons of an unfurled link's card (:mod:`bot.slack.views.unfurl_card`).

They carry the action ids of a paper message's buttons; a Bolt matcher (:func:`on_card`) sends them
here, and the paper messages' listeners take only the others. The card sits in someone else's message, which
paperbot can't edit, so no mark is shown on it: the clicker is answered privately instead. Save on a
card only saves (a second click says it is saved already), since the card can't show the state.
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.errors import NotFound
from bot.slack.dm import send_papers
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION, MORE_ACTION, SAVE_ACTION, fit, title_of
from bot.slack.views.unfurl_card import on_card, unfurled_paper
from bot.usecases.feedback import DISLIKE, LIKE, record_feedback
from bot.usecases.lookup import paper_by_id
from bot.usecases.saved import save
from bot.usecases.similar import similar_papers

GONE = "I no longer have that paper."


def register(app: App, runtime: Runtime) -> None:
    """Register the clicks on an unfurled card's buttons (each answered after the ack, once per click)."""

    def on_card_click(ack, body: dict, respond, client: WebClient, context) -> None:
        ack()
        paper_id = unfurled_paper(body)
        user = body["user"]["id"]
        action = next((a.get("action_id") for a in body.get("actions") or [] if isinstance(a, dict)), None)

        def work(rt: Runtime) -> None:
            try:
                text = _answer(rt, client, user, paper_id, action)
            except NotFound:
                text = GONE
            respond(text=text, response_type="ephemeral", replace_original=False)

        runtime.after_ack(context, body, work, respond)

    for action_id in (SAVE_ACTION, LIKE_ACTION, DISLIKE_ACTION, MORE_ACTION):
        app.action(action_id, matchers=[on_card])(on_card_click)


def _answer(rt: Runtime, client: WebClient, user: str, paper_id: str, action: str | None) -> str:
    ctx = rt.ctx
    paper = paper_by_id(ctx, paper_id)
    if paper is None:
        return GONE
    title = fit(title_of(paper), 120)
    if action == SAVE_ACTION:
        with rt.locks.hold(user):
            added = save(ctx, user, paper.id)
        if not added:
            return f"“{title}” is already in your saved papers: `{COMMAND} saved` lists them."
        return f":bookmark: Saved “{title}”. `{COMMAND} saved` lists your saved papers."
    if action in (LIKE_ACTION, DISLIKE_ACTION):
        value = LIKE if action == LIKE_ACTION else DISLIKE
        with rt.locks.hold(user):
            record_feedback(ctx, user, paper.id, value)
        return f":+1: Noted: more like “{title}”." if value == LIKE else f":-1: Noted: fewer like “{title}”."
    if action == MORE_ACTION:
        return _more(rt, client, user, paper.id, title)
    return GONE


def _more(rt: Runtime, client: WebClient, user: str, paper_id: str, title: str) -> str:
    """Similar papers new to the clicker, in their DM (a channel's thread would show everyone)."""
    with rt.locks.hold(user):  # never the same paper twice, with a digest or recommend under way
        recs = similar_papers(rt.ctx, user, paper_id)
        if not recs:
            return (f"Nothing new like “{title}” yet: you have seen every paper close to it. "
                    f"`{COMMAND} recommend` looks wider.")
        delivery = send_papers(rt.ctx, client, user, recs, f":mag: Papers like “{title}”, as you asked:")
    n = len(delivery.delivered)
    if not n:
        return "Sorry, Slack didn't take the papers, so nothing was sent. Please try again in a minute."
    return f"I sent you {n} {'paper' if n == 1 else 'papers'} like “{title}” in our direct messages."
