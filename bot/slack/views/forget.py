"""Block Kit of `/papers forget`'s second thought: what would be deleted, a Forget me button (with
Slack's own confirmation dialog) and Cancel, and the one-line answers once either is pressed."""

from __future__ import annotations

from bot.slack.manifest import COMMAND
from bot.usecases.forget import TICKET_LIFETIME, Stored

FORGET_ACTION = "forget_confirm"
CANCEL_ACTION = "forget_cancel"

FORGOTTEN = ("Done: I deleted everything I had stored about you (topics, feedback, schedule, papers "
             "shown). Your past messages from me stay in Slack until you delete them.")
EXPIRED = f"That button no longer works, so nothing was deleted: run `{COMMAND} forget` again."
NOT_YOURS = f"That button is someone else's, so nothing was deleted: run `{COMMAND} forget` yourself."
CANCELLED = "Cancelled: nothing was deleted."
NOTHING = "I store nothing about you, so there is nothing to forget."


def _count(n: int, one: str, many: str | None = None) -> str | None:
    return None if not n else f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


def what_goes(stored: Stored) -> str:
    """What :func:`bot.usecases.forget.forget` would delete, in words ("3 topics, 12 liked papers, …")."""
    parts = [
        _count(stored.watches, "project watch", "project watches"),
        _count(stored.topics, "topic"), _count(stored.feeds, "feed"),
        _count(stored.authors, "followed author"),
        _count(stored.muted, "muted word"), _count(stored.alerts, "alert"),
        _count(stored.liked, "liked paper"),
        _count(stored.disliked, "disliked paper"), _count(stored.saved, "saved paper"),
        _count(stored.shared, "paper link you shared", "paper links you shared"),
        _count(stored.shown, "paper shown", "papers shown"), _count(stored.digests, "digest day"),
        _count(stored.suggestions, "paper suggested by or to you", "papers suggested by or to you"),
        _count(stored.followups, "follow-up told you", "follow-ups told you"),
        # An installation or a channel's settings stay (they are the workspace's); only the name goes.
        _count(stored.named, "mention of you as who installed me or set up a channel",
               "mentions of you as who installed me or set up a channel"),
    ]
    listed = [p for p in parts if p]
    return ", ".join(listed) + ", and your settings" if listed else "your settings"


def confirm_blocks(stored: Stored, ticket: str) -> list[dict]:
    """The question: what goes, then Forget me (danger, confirmed in a dialog) and Cancel. ``ticket``
    rides on Forget me (:func:`bot.usecases.forget.forget_ticket`)."""
    minutes = int(TICKET_LIFETIME.total_seconds() // 60)
    text = (f":warning: *Forget me?* This deletes everything I store about you: {what_goes(stored)}. "
            f"It can't be undone. Nothing is deleted until you press *Forget me* (within {minutes} minutes).")
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": text}},
        {"type": "actions", "block_id": "forget_actions", "elements": [
            {"type": "button", "action_id": FORGET_ACTION, "style": "danger", "value": ticket,
             "text": {"type": "plain_text", "text": "Forget me", "emoji": True},
             "confirm": {
                 "title": {"type": "plain_text", "text": "Delete everything?"},
                 "text": {"type": "mrkdwn", "text": "Your topics, feeds, feedback, saved papers and "
                                                    "schedule go for good."},
                 "confirm": {"type": "plain_text", "text": "Forget me"},
                 "deny": {"type": "plain_text", "text": "Keep it"},
                 "style": "danger"}},
            {"type": "button", "action_id": CANCEL_ACTION, "value": "cancel",
             "text": {"type": "plain_text", "text": "Cancel", "emoji": True}},
        ]},
    ]


def confirm_text(stored: Stored) -> str:
    """The question's plain text (notifications, screen readers)."""
    return f"Forget me? This deletes everything I store about you: {what_goes(stored)}."
