"""Library exports shared in paperbot's DM become the person's seed (issue 27, "Bring your library").

Slack sends two events for one share: a ``message`` of subtype ``file_share`` in the DM (``message.im``)
and ``file_shared`` (``channel_id``, ``file_id``, ``user_id``). Either starts the import, after the ack;
the database lets one of them read the file (:mod:`bot.slack.shared_files`). Files paperbot shares itself
(`/papers export`) and files shared in other channels are left alone.

Registered before :mod:`bot.slack.listeners.dm_commands`: Bolt hands a message to the first listener
that matches, and a file share in the DM is no typed command.
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.runtime import Runtime
from bot.slack.shared_files import import_shared_file

#: Files read from one message at most (Slack lets a message carry ten).
MAX_FILES = 10


def _is_dm(channel: object) -> bool:
    return isinstance(channel, str) and channel.startswith("D")


def _person(user: object, context) -> str | None:
    """``user`` when it is a person (not paperbot itself, whose exports are files in the DM too)."""
    if not isinstance(user, str) or not user or user == context.get("bot_user_id"):
        return None
    return user


def register(app: App, runtime: Runtime) -> None:
    """Register the listeners of files shared in the DM."""

    @app.event({"type": "message", "subtype": "file_share"})
    def on_file_message(event: dict, body: dict, client: WebClient, context) -> None:
        user, channel = _person(event.get("user"), context), event.get("channel")
        files = event.get("files")
        if (user is None or event.get("bot_id") or event.get("channel_type") != "im" or not _is_dm(channel)
                or not isinstance(files, list)):
            return
        ids = [f["id"] for f in files[:MAX_FILES] if isinstance(f, dict) and isinstance(f.get("id"), str)]

        def work(rt: Runtime) -> None:
            for file_id in ids:
                import_shared_file(rt, client, user, channel, file_id)

        if ids:
            runtime.after_ack(context, body, work)

    @app.event("file_shared")
    def on_file_shared(event: dict, body: dict, client: WebClient, context) -> None:
        user, channel, file_id = _person(event.get("user_id"), context), event.get("channel_id"), \
            event.get("file_id")
        if user is None or not _is_dm(channel) or not isinstance(file_id, str) or not file_id:
            return
        runtime.after_ack(context, body, lambda rt: import_shared_file(rt, client, user, channel, file_id))
