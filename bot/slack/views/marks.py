"""A paper message showing the feedback given on it: after a click or a reaction its blocks are posted
again (``chat.update``) with a line saying "You liked this" or "Saved", or without it once taken back.
A failed update is logged, never shown: the feedback itself was recorded."""

from __future__ import annotations

import functools
import http.client
import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.slack.views.messages import ACTIONS_BLOCK, SAVE_ACTION, paper_blocks, paper_text
from bot.slack.views.metadata import PAPER_EVENT
from bot.slack.views.who import suggested_line
from bot.state.context import Context
from bot.usecases.reactions import PostedAs
from bot.usecases.saved import Marks, paper_message

log = logging.getLogger(__name__)

MARK_BLOCK = "paper_marks"
SAVE_LABEL, SAVED_LABEL = "🔖 Save", "🔖 Saved (click to unsave)"


def mark_line(marks: Marks) -> str | None:
    """The line a paper message carries for the person's feedback, or None for none."""
    if marks.saved:
        return ":bookmark: Saved: `/papers saved` lists your saved papers"
    if marks.liked:
        return ":+1: You liked this"
    if marks.disliked:
        return ":-1: You'd rather see fewer like this"
    return None


def marked(blocks: list[dict], marks: Marks) -> list[dict]:
    """``blocks`` of a paper message with the feedback line (a context block just above the buttons)
    and the Save button saying whether it is saved."""
    out = [b for b in blocks if b.get("block_id") != MARK_BLOCK]
    line = mark_line(marks)
    at = next((i for i, b in enumerate(out) if b.get("block_id") == ACTIONS_BLOCK), len(out))
    for block in out[at:at + 1]:
        for element in block.get("elements", []):
            if element.get("action_id") == SAVE_ACTION:
                element["text"] = {**element["text"], "text": SAVED_LABEL if marks.saved else SAVE_LABEL}
    if line:
        out.insert(at, {"type": "context", "block_id": MARK_BLOCK,
                        "elements": [{"type": "mrkdwn", "text": line}]})
    return out


def show_feedback(ctx: Context, client: WebClient, user_id: str, channel: str, message_ts: str,
                  posted_as: PostedAs | None = None) -> bool:
    """Update the paper message to show the person's feedback on it now; False (logged) when it is no
    paper message of theirs, or Slack would not update it."""
    found = paper_message(ctx, user_id, channel, message_ts, posted_as)
    if found is None:
        return False
    blocks = marked(paper_blocks(found.rec), found.marks)
    if found.suggested_by:  # as it was posted: opened by who thought of them
        blocks = [suggested_line(found.suggested_by), *blocks]
    try:
        client.chat_update(channel=channel, ts=message_ts, text=paper_text(found.rec.paper), blocks=blocks)
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        log.warning("could not show the feedback on %s/%s: %s", channel, message_ts, exc)
        return False
    return True


def posted_paper(client: WebClient, channel: str, message_ts: str, message: dict | None = None) -> PostedAs:
    """``posted_as`` of a paper message (:func:`bot.usecases.reactions.paper_on_message`): the paper id
    its metadata carries, from ``message`` when the payload holds its metadata, else asked of Slack
    (``conversations.history``), once, and only when the use case asks. None when Slack can't say."""

    @functools.cache
    def read() -> str | None:
        metadata = (message or {}).get("metadata")
        if metadata is None:
            if not channel or not message_ts:  # a malformed payload: nothing to ask Slack about
                return None
            try:
                found = client.conversations_history(channel=channel, latest=message_ts, oldest=message_ts,
                                                     inclusive=True, limit=1, include_all_metadata=True)
            except (SlackClientError, OSError, http.client.HTTPException) as exc:
                log.warning("could not read the metadata of %s/%s: %s", channel, message_ts, exc)
                return None
            same = [m for m in found.get("messages") or [] if m.get("ts") == message_ts]
            metadata = (same[0].get("metadata") if same else None) or {}
        paper_id = (metadata.get("event_payload") or {}).get("paper_id")
        return str(paper_id) if metadata.get("event_type") == PAPER_EVENT and paper_id else None

    return read
