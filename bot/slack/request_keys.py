"""What identifies a Slack request, and whom and what it is about: read of its parsed body alone."""

from __future__ import annotations

from storage.models import InboxKind


def once_key(body: dict) -> str | None:
    """What makes this request the same request when it comes again: an event's id (Slack's
    redeliveries) or a slash command's or click's trigger id (a replayed signed request)."""
    if body.get("type") == "event_callback":
        event_id = body.get("event_id")
        return f"event:{event_id}" if isinstance(event_id, str) and event_id else None
    trigger_id = body.get("trigger_id")
    return f"trigger:{trigger_id}" if isinstance(trigger_id, str) and trigger_id else None


def actor(body: dict) -> str | None:
    """Who a request is from (a slash command's caller, a clicker, an event's user), if anyone."""
    event = body.get("event") or {}
    # ``file_shared`` names its user ``user_id``: its work then queues behind the same share's message.
    user = body.get("user_id") or body.get("user") or event.get("user") or event.get("user_id")
    if isinstance(user, dict):
        user = user.get("id")
    return user if isinstance(user, str) and user else None


def where_clicked(body: dict) -> tuple[str, str, str]:
    """(user, channel, message ts) of a click on a message's button."""
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    message_ts = container.get("message_ts") or (body.get("message") or {}).get("ts")
    return body["user"]["id"], channel, message_ts


def kind_of(body: dict) -> InboxKind:
    """What a request is, as the inbox records it."""
    if body.get("type") == "event_callback":
        return "event"
    return "command" if body.get("command") else "action"


def log_fields(body: dict) -> dict[str, str]:
    """What a log line about this request names (:mod:`bot.logs`' JSON fields): its key, its workspace
    (a team id, or an org's enterprise id) and who it is from, those known."""
    team = body.get("team_id") or body.get("team") or body.get("enterprise_id") or body.get("enterprise")
    if isinstance(team, dict):
        team = team.get("id")
    found = {"request": once_key(body), "workspace": team if isinstance(team, str) else None,
             "user": actor(body)}
    return {name: value for name, value in found.items() if value}


#: Interactivity payloads' types, by the kind a metric counts them as.
_INTERACTIVE = {"block_actions": "action", "interactive_message": "action", "shortcut": "shortcut",
                "message_action": "shortcut", "view_submission": "view", "view_closed": "view",
                "block_suggestion": "options"}


def request_kind(body: dict) -> str:
    """What a request is, more finely than :func:`kind_of` and from a small fixed set (a metric's label):
    command, event, action, shortcut, view, options or other."""
    if body.get("command"):
        return "command"
    kind = body.get("type")
    if kind == "event_callback":
        return "event"
    return _INTERACTIVE.get(kind, "other") if isinstance(kind, str) else "other"
