"""When a workspace uninstalls paperbot, or revokes its tokens: forget the workspace.

``app_uninstalled``, and ``tokens_revoked`` naming the bot, delete the installation and every row of
that workspace (people, topics, feedback, digests, ...). ``tokens_revoked`` naming only people's user
tokens deletes only their installation rows. Bolt delivers both events without an ``auth.test`` (the
token is already dead), and the work runs after the ack like every listener's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_bolt import App

from bot.slack.oauth.installations import PaperbotInstallationStore
from bot.slack.runtime import Runtime
from bot.slack.team import workspace_key
from bot.usecases.workspaces import remove_workspace

log = logging.getLogger(__name__)


def register(app: App, runtime: Runtime, installations: PaperbotInstallationStore) -> None:
    """Listen to ``app_uninstalled`` and ``tokens_revoked``."""
    def workspace(context) -> str:
        # The installation's own key when one serves this team (an org-wide install serves its
        # workspaces); otherwise the key the event names, so leftovers of a lost install go too.
        ids = (context.enterprise_id, context.team_id, context.is_enterprise_install)
        return installations.workspace_of(*ids) or workspace_key(
            team_id=context.team_id, enterprise_id=context.enterprise_id,
            is_enterprise_install=context.is_enterprise_install)

    def forget(ws: str, why: str) -> Callable[[Runtime], None]:
        # The root runtime's context, whatever the request's workspace: the whole workspace goes.
        return lambda rt: log.info("%s: deleted workspace %s (%d rows)", why, ws,
                                   remove_workspace(runtime.ctx, ws))

    @app.event("app_uninstalled")
    def uninstalled(ack, body: dict, context) -> None:
        ack()
        ws = workspace(context)
        if ws:
            runtime.after_ack(context, body, forget(ws, "app_uninstalled"))

    @app.event("tokens_revoked")
    def revoked(ack, body: dict, event: dict, context) -> None:
        ack()
        ws = workspace(context)
        tokens = event.get("tokens") or {}
        if not ws:
            return
        if tokens.get("bot"):
            runtime.after_ack(context, body, forget(ws, "tokens_revoked"))
            return
        users = [u for u in tokens.get("oauth") or [] if isinstance(u, str) and u]

        def forget_user_tokens(rt: Runtime) -> None:
            for user in users:
                installations.delete_user(ws, user)

        if users:
            runtime.after_ack(context, body, forget_user_tokens)
