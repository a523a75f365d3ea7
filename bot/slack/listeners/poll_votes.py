"""The Vote buttons of a reading-group poll (see :mod:`bot.usecases.polls`): a click records the
clicker's vote (replacing theirs) and updates the poll's message with the counts the database has; the
clicker alone hears what happened. A vote on a closed poll stores nothing."""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.delivery.poll_posts import show_poll
from bot.slack.request_keys import where_clicked
from bot.slack.runtime import Runtime
from bot.slack.views.messages import fit, title_of
from bot.slack.views.poll_message import VOTE_ACTION, voted_for
from bot.usecases.polls import Voted, vote

CLOSED = "This poll is closed, so votes no longer count. The winner is posted in the channel."
UNKNOWN = "I can't find that poll any more."


def vote_reply(voted: Voted) -> str:
    """What the voter is told, privately."""
    if voted.status == "closed":
        return CLOSED
    choice = voted.poll.choice(voted.paper_id) if voted.poll else None
    if voted.status == "unknown" or choice is None:
        return UNKNOWN
    title = fit(title_of(choice.rec.paper), 120)
    if voted.before == voted.paper_id:
        return f"You've voted for “{title}” already. Click another paper's *Vote* to change it."
    moved = " (moved from your earlier choice)" if voted.before else ""
    return f":ballot_box_with_ballot: Your vote: “{title}”{moved}. Click another paper's *Vote* to change it."


def register(app: App, runtime: Runtime) -> None:
    """Register the Vote button."""

    @app.action(VOTE_ACTION)
    def on_vote(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        ack()
        user, channel, message_ts = where_clicked(body)
        named = voted_for(action.get("value") or "")

        def work(rt: Runtime) -> None:
            voted = Voted("unknown")
            if named is not None:
                poll_id, paper_id = named
                voted = vote(rt.ctx, channel or "", poll_id, user, paper_id, message_ts=message_ts)
            if voted.status == "voted" and voted.poll is not None:
                show_poll(rt.ctx, client, voted.poll.poll_id)  # before the answer: it then shows their vote
            respond(text=vote_reply(voted), response_type="ephemeral", replace_original=False)

        runtime.after_ack(context, body, work, respond)
