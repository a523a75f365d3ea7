"""Block Kit of a compact digest: one message holding a header line, then each paper as a section (its
linked title, the feed it was picked for and why) with its own buttons. The buttons carry the paper's
id (a message holding several papers can't name one by itself), and each paper's two blocks carry its
place in the message, so a click rewrites that paper's section (its marks) and keeps the rest."""

from __future__ import annotations

import http.client
import logging
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.presentation.paper_view import title_url
from bot.slack.views.marks import SAVE_LABEL, SAVED_LABEL, mark_line, posted_paper
from bot.slack.views.messages import (
    DISLIKE_ACTION,
    FALLBACK_LIMIT,
    LIKE_ACTION,
    MESSAGE_BLOCKS,
    MORE_ACTION,
    SAVE_ACTION,
    TITLE_LIMIT,
    fit,
    link,
    quoted,
    title_of,
    who_button,
    why_line,
)
from bot.state.context import Context
from bot.usecases.reactions import Named, PostedAs
from bot.usecases.recommend import Recommendation
from bot.usecases.saved import Marks, paper_message

log = logging.getLogger(__name__)

PAPER_BLOCK = "compact_paper_"  # + the paper's place: its section
ACTIONS_BLOCK = "compact_actions_"  # + the paper's place: its buttons
HEADER_BLOCK = "compact_header"
BLOCKS_A_PAPER = 2
#: Papers one compact message holds: its header, then two blocks a paper, within Slack's 50 blocks.
MOST_PAPERS = (MESSAGE_BLOCKS - 1) // BLOCKS_A_PAPER
VALUE_LIMIT = 2000  # characters of a button's value


def paper_section(rec: Recommendation, place: int, marks: Marks | None = None) -> list[dict]:
    """One paper of a compact digest, the ``place``-th: its section and its buttons (valued with its id),
    with the person's feedback on it (``marks``) as the section's last line."""
    paper = rec.paper
    lines = [f"*{link(title_url(paper), fit(title_of(paper), TITLE_LIMIT))}*"]
    why = why_line(rec)
    if why:
        lines.append(why)
    said = quoted(rec)
    if said:
        lines.append(said)
    line = mark_line(marks) if marks else None
    if line:
        lines.append(line)
    saved = bool(marks and marks.saved)
    value = paper.id[:VALUE_LIMIT]
    return [
        {"type": "section", "block_id": f"{PAPER_BLOCK}{place}",
         "text": {"type": "mrkdwn", "text": "\n".join(lines)}},
        {"type": "actions", "block_id": f"{ACTIONS_BLOCK}{place}", "elements": [
            _button(SAVE_ACTION, SAVED_LABEL if saved else SAVE_LABEL, value),
            _button(LIKE_ACTION, "👍", value),
            _button(DISLIKE_ACTION, "👎 Not for me", value),
            _button(MORE_ACTION, "More like this", value),
            *who_button(value),
        ]},
    ]


def _button(action_id: str, label: str, value: str) -> dict:
    return {"type": "button", "action_id": action_id, "value": value,
            "text": {"type": "plain_text", "text": label, "emoji": True}}


def compact_blocks(header: str, recs: list[Recommendation]) -> list[dict]:
    """The whole message: ``header`` (mrkdwn, the digest's first line) and each paper, at most
    :data:`MOST_PAPERS` of them (a digest holds at most twice the daily size, far fewer)."""
    blocks: list[dict] = [{"type": "section", "block_id": HEADER_BLOCK,
                           "text": {"type": "mrkdwn", "text": header}}]
    for place, rec in enumerate(recs[:MOST_PAPERS]):
        blocks.extend(paper_section(rec, place))
    return blocks


def compact_text(header: str, recs: list[Recommendation]) -> str:
    """The message's plain `text` (notifications, screen readers): the header, then the titles."""
    titles = "\n".join(f"• {fit(title_of(r.paper), 200)}" for r in recs[:MOST_PAPERS])
    return fit(f"{header}\n{titles}", FALLBACK_LIMIT)


def clicked_place(block_id: str | None) -> int | None:
    """The place of the paper whose buttons ``block_id`` names (a compact digest's), else None."""
    if not block_id or not block_id.startswith(ACTIONS_BLOCK):
        return None
    place = block_id[len(ACTIONS_BLOCK):]
    return int(place) if place.isascii() and place.isdigit() and len(place) <= 3 else None


def remarked(blocks: list[dict], place: int, rec: Recommendation, marks: Marks) -> list[dict] | None:
    """``blocks`` of a compact message with the ``place``-th paper's section and buttons made again
    (its marks now); every other block as it was. None when the message has no such paper."""
    ids = {f"{PAPER_BLOCK}{place}", f"{ACTIONS_BLOCK}{place}"}
    if not ids <= {b.get("block_id") for b in blocks}:
        return None
    fresh = iter(paper_section(rec, place, marks))
    return [next(fresh) if b.get("block_id") in ids else b for b in blocks]


@dataclass(frozen=True)
class CompactClick:
    """A click on a button of one paper of a compact digest: the paper's place in the message, its id
    (the button's value) and the message as the click's payload carries it (blocks, text)."""

    place: int
    paper_id: str
    blocks: list[dict]
    text: str

    @property
    def posted_as(self) -> Named:
        """What names the paper to the use cases (:class:`bot.usecases.reactions.Named`)."""
        return Named(self.paper_id)


def compact_click(body: dict, action: dict) -> CompactClick | None:
    """The click as a :class:`CompactClick` when it is on a compact digest's paper, else None."""
    place = clicked_place(action.get("block_id"))
    paper_id = action.get("value")
    if place is None or not isinstance(paper_id, str) or not paper_id:
        return None
    message = body.get("message") or {}
    blocks = message.get("blocks")
    return CompactClick(place, paper_id, blocks if isinstance(blocks, list) else [],
                        message.get("text") if isinstance(message.get("text"), str) else "")


def clicked_paper(client: WebClient, body: dict, action: dict, channel: str,
                  message_ts: str) -> tuple[CompactClick | None, PostedAs]:
    """What a click on a paper button names: on a compact digest, the click and its button's paper;
    else None and the paper the message's metadata carries (asked of Slack only if needed)."""
    compact = compact_click(body, action)
    if compact is not None:
        return compact, compact.posted_as
    return None, posted_paper(client, channel, message_ts, body.get("message"))


def show_compact_feedback(ctx: Context, client: WebClient, user_id: str, channel: str, message_ts: str,
                          click: CompactClick) -> bool:
    """Update the compact digest to show the person's feedback on the clicked paper now, in its own
    section only; False (logged) when it is no paper of theirs there, or Slack would not update it."""
    found = paper_message(ctx, user_id, channel, message_ts, click.posted_as)
    blocks = remarked(click.blocks, click.place, found.rec, found.marks) if found else None
    if blocks is None:
        log.warning("could not place the paper clicked on %s/%s", channel, message_ts)
        return False
    try:
        client.chat_update(channel=channel, ts=message_ts, text=click.text or found.rec.paper.title,
                           blocks=blocks)
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        log.warning("could not show the feedback on %s/%s: %s", channel, message_ts, exc)
        return False
    return True
