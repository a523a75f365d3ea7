"""Block Kit of a reading-group poll (:mod:`bot.usecases.polls`): a heading, then each paper (its linked
title, short byline and why it was picked) with a Vote button and its count; once closed, the counts
without buttons and the winner. The buttons carry the poll's id and the paper's, so a click names both
whatever message it came from. Also the first reply in the winner's thread, which opens the discussion."""

from __future__ import annotations

from bot.presentation.paper_view import title_url
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import (
    FALLBACK_LIMIT,
    REASON_LIMIT,
    SECTION_LIMIT,
    TITLE_LIMIT,
    byline,
    fit,
    header_block,
    link,
    title_of,
)
from bot.usecases.polls import Choice, Closed, Poll

VOTE_ACTION = "poll_vote"
VALUE_LIMIT = 2000  # characters of a button's value
HEADING = "📚 Reading-group poll: what should we read next?"
CLOSED_HEADING = "📚 Reading-group poll (closed)"
CLOSE = f"{COMMAND} channel poll close"
INTRO = (f"Vote for the paper this channel should read next: one vote each, and clicking another paper's "
         f"*Vote* moves yours. `{CLOSE}` ends the poll and posts the winner, with a thread to discuss it.")


def vote_value(poll_id: str, paper_id: str) -> str:
    """A Vote button's value: the poll's id, a space, the paper's id (a poll id holds no space)."""
    return f"{poll_id} {paper_id}"[:VALUE_LIMIT]


def voted_for(value: str) -> tuple[str, str] | None:
    """(poll id, paper id) named by a Vote button's value, or None for one that names no such pair."""
    poll_id, _, paper_id = (value or "").partition(" ")
    return (poll_id, paper_id) if poll_id and paper_id else None


def votes_text(n: int) -> str:
    """"1 vote", "3 votes", "no votes"."""
    return "no votes" if n == 0 else f"{n} vote" + ("" if n == 1 else "s")


def _paper_text(place: int, choice: Choice) -> str:
    paper = choice.rec.paper
    lines = [f"*{place}. {link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"]
    by = byline(paper)  # escaped, and short already: six authors at most, then "et al."
    if by:
        lines.append(by)
    if choice.rec.reason:
        lines.append("*Why:* " + fit(choice.rec.reason, REASON_LIMIT))
    return "\n".join(lines)[:SECTION_LIMIT]


def _count_line(poll: Poll, choice: Choice) -> str:
    won = not poll.is_open and poll.winner == choice.rec.paper.id
    return f":ballot_box_with_ballot: {votes_text(choice.votes)}" + ("  ·  :trophy: *the winner*" if won
                                                                      else "")


def poll_message(poll: Poll) -> dict:
    """The keyword arguments of ``chat.postMessage`` / ``chat.update`` for a poll: ``text`` and
    ``blocks``, with the counts ``poll`` holds; once closed, without buttons."""
    blocks: list[dict] = [header_block(HEADING if poll.is_open else CLOSED_HEADING)]
    if poll.is_open:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": INTRO}})
    lines = []
    for place, choice in enumerate(poll.choices, 1):
        section: dict = {"type": "section", "text": {"type": "mrkdwn", "text": _paper_text(place, choice)}}
        if poll.is_open:
            section["accessory"] = {
                "type": "button", "action_id": VOTE_ACTION, "text": {"type": "plain_text", "text": "Vote"},
                "value": vote_value(poll.poll_id, choice.rec.paper.id)}
        blocks.append(section)
        blocks.append(_context(_count_line(poll, choice)))
        lines.append(f"{place}. {fit(title_of(choice.rec.paper), 150)} ({votes_text(choice.votes)})")
    blocks.append(_context(_footer(poll)))
    text = ("Reading-group poll" + (": vote for what to read next" if poll.is_open else " (closed)") + "\n"
            + "\n".join(lines))
    return {"text": text[:FALLBACK_LIMIT], "blocks": blocks}


def _context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def _footer(poll: Poll) -> str:
    if poll.is_open:
        return f"{votes_text(poll.total).capitalize()} so far."
    winner = poll.choice(poll.winner)
    if winner is None:
        return "Closed."
    title = fit(title_of(winner.rec.paper), 150)
    if poll.total == 0:
        return f"Closed. Nobody voted, so the top-ranked paper, “{title}”, is posted below for discussion."
    return f"Closed with {votes_text(poll.total)}: “{title}” won, and is posted below for discussion."


def discussion_text(closed: Closed) -> str:
    """The first reply in the winner's thread: it opens the discussion and says how the paper won."""
    winner = closed.winner
    if winner is None or closed.nobody_voted:
        return (":speech_balloon: *Discuss it here.* Nobody voted in the reading-group poll, so this is its "
                "top-ranked paper.")
    return (f":speech_balloon: *Discuss it here.* It won the reading-group poll with "
            f"{votes_text(winner.votes)} of {closed.poll.total}.")
