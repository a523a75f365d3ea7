"""The one workspace a bot token serves, and a Bolt middleware refusing requests from any other.

The same app (and so the same signing secret) can be installed in several workspaces, but with
SLACK_BOT_TOKEN paperbot serves one: a correctly signed request from another workspace must not store
a topic or change anyone's timezone. A middleware, so Socket Mode gets the same check as HTTP.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from slack_bolt import BoltResponse
from slack_sdk import WebClient

from bot.slack.team import workspace_key

NOT_INSTALLED = "paperbot isn't installed in your workspace, so it can't do anything here."


@dataclass(frozen=True)
class Workspace:
    """Where the token is installed: a workspace (``team_id``), or a whole Enterprise Grid org
    (``org_install``: every workspace of ``enterprise_id``)."""

    team_id: str | None
    enterprise_id: str | None = None
    org_install: bool = False

    @classmethod
    def of(cls, client: WebClient) -> Workspace:
        """The installation of ``client``'s token, from ``auth.test``."""
        auth = client.auth_test()
        return cls(auth.get("team_id"), auth.get("enterprise_id"), auth.get("is_enterprise_install") is True)

    @property
    def key(self) -> str:
        """The workspace key its people's rows are stored under (see :func:`bot.slack.team.workspace_key`)."""
        return workspace_key(team_id=self.team_id, enterprise_id=self.enterprise_id,
                             is_enterprise_install=self.org_install)

    def admits(self, team_id: object, enterprise_id: object) -> bool:
        """Whether a request naming this team (and org) is for this installation."""
        if self.org_install:
            return bool(self.enterprise_id) and enterprise_id == self.enterprise_id
        return bool(self.team_id) and team_id == self.team_id

    def __str__(self) -> str:
        return f"org {self.enterprise_id}" if self.org_install else f"workspace {self.team_id}"


def only_installed(workspace: Workspace) -> Callable:
    """A Bolt middleware: requests for another workspace are answered at once and go no further
    (a slash command with a short explanation, anything else with an empty 200 so Slack doesn't retry)."""

    def only_installed_workspace(body: dict, context, next, logger: logging.Logger):  # names Bolt passes
        if workspace.admits(context.team_id, context.enterprise_id):
            return next()
        logger.warning("refused a request from workspace %s (org %s): paperbot is installed in %s only",
                       _id(context.team_id), _id(context.enterprise_id), workspace)
        if body.get("command"):
            return BoltResponse(status=200, body={"response_type": "ephemeral", "text": NOT_INSTALLED})
        return BoltResponse(status=200, body="")

    return only_installed_workspace


def _id(value: object) -> str:
    """An id for the log; anything else (it may be a forged request's text) as its type only."""
    if isinstance(value, str) and value.isalnum() and value.isascii() and len(value) <= 32:
        return value
    return "none" if value is None else f"<{type(value).__name__}>"
