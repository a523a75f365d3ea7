"""The card of an unfurled arxiv.org link: the paper as a paper message shows it, with Save, 👍, More
like this and Who should read this?. Their action ids are the paper messages' own; the paper id rides
in each button's value (:func:`unfurled_paper`), since the message is the poster's, not one paperbot
recorded. A click on a card is told from one on a paper message by :func:`on_card` (a Bolt listener
matcher); Who should read this? is answered alike on both (bot.slack.listeners.who)."""

from __future__ import annotations

from bot.slack.views.messages import LIKE_ACTION, MORE_ACTION, SAVE_ACTION, paper_blocks, who_button
from bot.usecases.recommend import Recommendation
from storage import Paper

UNFURL_ACTIONS = "paper_unfurl_actions"  # the block of an unfurl's buttons
VALUE_PREFIX = "paper:"  # a button value naming its paper (a paper message's buttons name none)
VALUE_LIMIT = 2000  # characters of a button's value
BUTTONS = ((SAVE_ACTION, "🔖 Save"), (LIKE_ACTION, "👍"), (MORE_ACTION, "More like this"))


def unfurl_blocks(paper: Paper) -> list[dict]:
    """The card of an unfurled link: the paper as a paper message shows it (no reason: nobody was
    recommended it), and Save, 👍, More like this and Who should read this? naming the paper."""
    blocks = paper_blocks(Recommendation(paper, 0.0, ""), buttons=False)
    value = VALUE_PREFIX + paper.id
    if len(value) <= VALUE_LIMIT:
        blocks.append({"type": "actions", "block_id": UNFURL_ACTIONS, "elements": [
            *({"type": "button", "action_id": action, "value": value,
               "text": {"type": "plain_text", "text": label, "emoji": True}} for action, label in BUTTONS),
            *who_button(paper.id, value)]})
    return blocks


def unfurled_paper(body: dict) -> str | None:
    """The paper id a click names when it is on an unfurl's button, else None (a paper message's
    button: its paper is the one recorded as shown in that message)."""
    container = body.get("container") or {}
    if container.get("type") != "message_attachment" and not container.get("is_app_unfurl"):
        return None
    for action in body.get("actions") or []:
        value = action.get("value") if isinstance(action, dict) else None
        if isinstance(value, str) and value.startswith(VALUE_PREFIX) and len(value) > len(VALUE_PREFIX):
            return value[len(VALUE_PREFIX):]
    return None


def on_card(body: dict) -> bool:
    """Whether a button click is on an unfurled link's card (a Bolt listener matcher)."""
    return unfurled_paper(body) is not None


def not_on_card(body: dict) -> bool:
    """Whether a button click is on anything but an unfurled link's card (a paper message's)."""
    return unfurled_paper(body) is None
