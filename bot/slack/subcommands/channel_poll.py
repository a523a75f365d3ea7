"""`/papers channel poll [N]` and `/papers channel poll close`: a channel's reading-group poll (see
:mod:`bot.usecases.polls`), parsed here and answered only to who ran it. Declared in
:mod:`bot.slack.subcommands.channel` with the channel's other actions, which refuses them where the bot
can't post (not in a channel; not invited)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from slack_sdk import WebClient

from bot.errors import BadArgument, NoInterests, Outage
from bot.presentation.reasons import shorten
from bot.slack.delivery.poll_posts import poll_link, poll_poster, post_winner, show_poll
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Reply
from bot.slack.views.messages import fit, link, title_of
from bot.slack.views.poll_message import votes_text
from bot.usecases.polls import (
    DEFAULT_PAPERS,
    MAX_PAPERS,
    MIN_PAPERS,
    Closed,
    Opened,
    close_poll,
    open_poll,
    winner_posted,
)

POLL = f"{COMMAND} channel poll"
HELP_LINE = (f"• `{POLL}` (or `{POLL} 3`, {MIN_PAPERS} to {MAX_PAPERS} papers, default {DEFAULT_PAPERS}): a "
             "reading-group poll of the channel's best papers it hasn't seen, each with a *Vote* button (one "
             f"vote each, changeable); `{POLL} close` ends it and posts the winner with a thread to discuss "
             "it")
NO_TOPICS = (f"This channel follows no topics yet, so there is nothing to vote on: `{COMMAND} channel follow "
             f"TOPICS` gives it papers of its own, then `{POLL}` starts a poll.")
NONE_OPEN = f"No poll is open here. `{POLL}` starts one."
OUTAGE = "Sorry, Slack isn't answering right now, so no poll was posted. Please try again in a few minutes."
_NUMBER = re.compile(r"[+-]?[0-9]{1,6}")


@dataclass(frozen=True)
class PollCommand:
    """A parsed `/papers channel poll …`: open one of ``size`` papers, or close the open one."""

    action: Literal["open", "close"]
    size: int = DEFAULT_PAPERS


def parse_poll(arg: str) -> PollCommand:
    """The words after `/papers channel poll`: nothing, a number of papers, or `close`. Raises
    BadArgument saying what was wrong."""
    word = arg.strip()
    if not word:
        return PollCommand("open")
    if word.casefold() == "close":
        return PollCommand("close")
    if _NUMBER.fullmatch(word):
        n = int(word)
        if MIN_PAPERS <= n <= MAX_PAPERS:
            return PollCommand("open", n)
        raise BadArgument(f"A poll has {MIN_PAPERS} to {MAX_PAPERS} papers, not {n}: `{POLL} 3`, for "
                          f"instance, or `{POLL}` alone for {DEFAULT_PAPERS}.")
    raise BadArgument(f"Say `{POLL}` ({DEFAULT_PAPERS} papers), `{POLL} 3` ({MIN_PAPERS} to {MAX_PAPERS}) or "
                      f"`{POLL} close`, not “{shorten(word, 40)}”.")


def reply_poll_open(rt: Runtime, client: WebClient, channel: str, size: int) -> Reply:
    """Post a poll of the channel's ``size`` best papers it hasn't seen, unless one is open. Raises
    Unreachable when Slack says the bot is not in the channel."""
    try:
        with rt.locks.hold(channel):  # the channel's papers, chosen one at a time, as its digests are
            opened = open_poll(rt.ctx, channel, size, poll_poster(client, channel))
    except NoInterests:
        return {"text": NO_TOPICS}
    except Outage:
        return {"text": OUTAGE}
    return {"text": _opened_text(opened, client)}


def _opened_text(opened: Opened, client: WebClient) -> str:
    if opened.status == "busy":
        there = link(poll_link(client, opened.poll) if opened.poll else None, "vote there")
        return (f"This channel already has an open poll: {there}, or `{POLL} close` ends it and posts the "
                "winner. A channel has one poll at a time.")
    if opened.status == "too-few":
        found = ("no paper" if not opened.found else "only one paper")
        return (f"I have {found} this channel hasn't seen that fits its topics, and a poll needs at least "
                f"{MIN_PAPERS}. Try again when new papers have come in, or widen its topics with "
                f"`{COMMAND} channel follow TOPICS`.")
    n = len(opened.poll.choices) if opened.poll else 0
    return (f"Posted a reading-group poll of {n} papers here. Everyone has one vote (clicking another "
            f"paper's *Vote* moves it); `{POLL} close` ends the poll and posts the winner with a thread to "
            "discuss it.")


def reply_poll_close(rt: Runtime, client: WebClient, channel: str) -> Reply:
    """Close the channel's open poll: its message shows the final counts without buttons, and the
    winner is posted with a thread to discuss it. Raises Unreachable when the bot is not in the
    channel."""
    with rt.locks.hold(channel):
        closed = close_poll(rt.ctx, channel)
        if closed is None:
            return {"text": NONE_OPEN}
        show_poll(rt.ctx, client, closed.poll.poll_id)
        if closed.winner is None:
            return {"text": "Closed the poll. None of its papers is stored any more, so there is no "
                            "winner to post."}
        try:
            ts = post_winner(rt.ctx, client, closed)
        except Outage:
            return {"text": f"Closed the poll: {_result(closed)}. Slack isn't answering right now, so I "
                            "couldn't post the winner here."}
        if ts is not None:
            winner_posted(rt.ctx, closed, ts)
    return {"text": f"Closed the poll: {_result(closed)}. I posted it here with a thread to discuss it."}


def _result(closed: Closed) -> str:
    """How the poll ended, in words (the winner's title escaped)."""
    winner = closed.winner
    assert winner is not None
    title = fit(title_of(winner.rec.paper), 150)
    if closed.nobody_voted:
        return f"nobody voted, so the winner is its top-ranked paper, “{title}”"
    tied = sum(1 for c in closed.poll.choices if c.votes == winner.votes) > 1
    return (f"“{title}” won with {votes_text(winner.votes)} of {closed.poll.total}"
            + (" (tied: the better-ranked paper wins a tie)" if tied else ""))
