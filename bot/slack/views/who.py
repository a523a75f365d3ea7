"""Block Kit of "Who should read this?": the private answer (up to three colleagues, each with why the
paper fits them and a Send button), and the line a suggested paper's message opens with in the
colleague's DM. Every outside text is escaped (:func:`~bot.slack.views.messages.fit`)."""

from __future__ import annotations

import json
import re

from bot.slack.manifest import COMMAND
from bot.slack.views.messages import BUTTON_VALUE_LIMIT, REASON_LIMIT, fit, paper_blocks, title_of
from bot.usecases.recommend import Recommendation
from bot.usecases.suggestions import SentSuggestion, WhoShouldRead

SEND_ACTION = "paper_who_send"  # a Send button; its value: :func:`send_value`
SUGGESTED_BLOCK = "paper_suggested_by"
_USER_ID = re.compile(r"[UW][A-Z0-9]{1,30}")  # a Slack user id: what a mention may be made of

NOBODY = {
    "nobody_opted_in": ("Nobody here has turned on suggestions yet, so I can't suggest anyone. Colleagues "
                        f"who want papers from you can say `{COMMAND} suggest on`."),
    "all_have_it": ("Everyone here who takes suggestions has this paper already (they were sent it, "
                    "saved it or rated it), or would rather not see its words."),
    "no_fit": ("This paper doesn't fit the interests of anyone here who takes suggestions "
               f"(`{COMMAND} suggest on`)."),
    "not_indexed": "I haven't ranked this paper yet (it just arrived). Try again in a minute.",
}
STATUS = {
    "sent": ":white_check_mark: Sent to <@{user}> in our DM, naming you.",
    "already": "<@{user}> has this paper already: nothing was sent.",
    "closed": "<@{user}> no longer takes suggestions: nothing was sent.",
    "failed": "Slack didn't take the message for <@{user}>: nothing was sent. Try again in a minute.",
    "unconfirmed": ("Slack didn't confirm the message for <@{user}>, so it may have arrived; I won't send it "
                    "again."),
}


def status_text(done: SentSuggestion) -> str:
    """What a Send did, in one line (mentioning the colleague: they opted in to being suggested)."""
    return STATUS[done.status].format(user=done.colleague)


def send_value(paper_id: str, user_id: str, reason: str) -> str:
    """A Send button's value: the paper, the colleague, and why it fits them (as the answer said it;
    shortened until it fits a button)."""
    while True:
        value = json.dumps({"p": paper_id, "u": user_id, "r": reason}, ensure_ascii=False)
        if len(value) <= BUTTON_VALUE_LIMIT or not reason:
            return value
        reason = reason[: len(reason) // 2]


def read_send_value(value: object) -> tuple[str, str, str] | None:
    """(paper id, colleague, reason) of a Send button's value, or None when it is not one."""
    try:
        found = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    paper_id, user_id, reason = found.get("p"), found.get("u"), found.get("r", "")
    if not (isinstance(paper_id, str) and paper_id and isinstance(user_id, str)
            and _USER_ID.fullmatch(user_id) and isinstance(reason, str)):
        return None
    return paper_id, user_id, reason


def answer_text(answer: WhoShouldRead) -> str:
    """The answer's plain text (notifications, screen readers)."""
    title = fit(title_of(answer.paper), 120)
    if not answer.colleagues:
        return f"Who should read “{title}”? " + NOBODY[answer.nobody or "no_fit"]
    names = ", ".join(f"<@{c.user_id}>" for c in answer.colleagues)
    return f"Who should read “{title}”? {names}"


def answer_blocks(answer: WhoShouldRead, done: SentSuggestion | None = None) -> list[dict]:
    """The private answer: the paper's title, each colleague with why it fits them and Send, or why
    there is nobody; after a Send (``done``), what it did first."""
    title = fit(title_of(answer.paper), 200)
    blocks: list[dict] = []
    if done is not None:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": status_text(done)}})
    if not answer.colleagues:
        nobody = ("Nobody else to suggest it to." if done is not None and answer.nobody == "all_have_it"
                  else NOBODY[answer.nobody or "no_fit"])
        blocks.append({"type": "section", "text": {"type": "mrkdwn",
                                                   "text": f"*Who should read “{title}”?*\n{nobody}"}})
        return blocks
    blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": (
        f"*Who should read “{title}”?* Colleagues it fits best, each with the reason I'd give them "
        "(only you see this):")}})
    for colleague in answer.colleagues:
        why = fit(colleague.reason, REASON_LIMIT)
        send = {"type": "button", "action_id": SEND_ACTION, "text": {"type": "plain_text", "text": "Send"},
                "value": send_value(answer.paper.id, colleague.user_id, colleague.reason)}
        line = f"<@{colleague.user_id}>: _{why}_"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": line}, "accessory": send})
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": (
        f"Only colleagues who said `{COMMAND} suggest on` and haven't seen the paper are suggested. "
        "*Send* puts it in their DM, saying it came from you.")}]})
    return blocks


def suggested_line(asker: str) -> dict:
    """The line opening a suggested paper's message: who thought of them."""
    return {"type": "context", "block_id": SUGGESTED_BLOCK,
            "elements": [{"type": "mrkdwn", "text": f"<@{asker}> thought you'd want to see this"}]}


def suggested_blocks(rec: Recommendation, asker: str) -> list[dict]:
    """The colleague's paper message: a normal paper message, opened by who thought of them."""
    return [suggested_line(asker), *paper_blocks(rec)]
