"""What the Slack app asks for: slash command, bot events, scopes. The one source for both the code
and the manifests in ``deploy/`` (rewrite them with ``python -m bot.slack.manifest deploy``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

COMMAND = "/papers"
COMMAND_DESCRIPTION = "Your personal paper digest: follow topics, get recommendations"
COMMAND_USAGE = ("help | follow TOPICS | recommend [N] | search QUERY | digest HH:MM|off|now | saved"
                 " | export [data] | forget")

#: Events the app subscribes to; ``bot.slack.app`` registers a listener for each. ``link_shared``:
#: arxiv.org links to unfurl, paper links as their poster's interest; ``message.im``: what people type in
#: paperbot's DM; ``file_shared``: a library export shared there (files:read).
BOT_EVENTS = ("app_home_opened", "reaction_added", "reaction_removed", "user_change", "link_shared",
              "message.im", "file_shared")
#: The event types those subscriptions deliver ("message.im" brings ``message`` events from DMs).
EVENT_TYPES = tuple(dict.fromkeys(name.split(".", 1)[0] for name in BOT_EVENTS))
#: Domains whose links Slack sends as ``link_shared`` (bot.slack.listeners.unfurls): arXiv's to unfurl, all
#: of them a sign of interest of who posted them (bot.usecases.shares). Slack takes at most 5, subdomains
#: included (www.biorxiv.org).
UNFURL_DOMAINS = ("arxiv.org", "doi.org", "openreview.net", "biorxiv.org", "medrxiv.org")
#: The message shortcut that saves the papers a message names (bot.slack.listeners.shortcuts).
SAVE_SHORTCUT = "save_paper"
#: The message shortcut that finds colleagues for the paper a message names (bot.slack.listeners.who).
WHO_SHORTCUT = "who_should_read"
SHORTCUTS = ({"name": "Save paper", "type": "message", "callback_id": SAVE_SHORTCUT,
              "description": "Save the arXiv papers and DOIs in this message to your paperbot list"},
             {"name": "Who should read this?", "type": "message", "callback_id": WHO_SHORTCUT,
              "description": "Colleagues this message's paper fits, to send it to (only you see them)"})
#: What a distributed app (OAuth) also subscribes to; ``bot.slack.listeners.uninstall`` listens to them.
UNINSTALL_EVENTS = ("app_uninstalled", "tokens_revoked")

#: Web API methods the app calls, and the bot scope each needs.
METHOD_SCOPES = {
    "auth.test": None,
    "conversations.open": "im:write",
    "conversations.history": "im:history",  # a digest resumed after a crash: what already went out
    "chat.postMessage": "chat:write",
    "users.info": "users:read",
    "reactions.get": "reactions:read",
    "views.publish": None,  # needs no scope beyond the App Home being enabled
    "views.open": None,  # the App Home's forms and round of papers to rate (interactivity)
    "views.update": None,
    "chat.update": "chat:write",  # a paper message showing the feedback given on it
    "files.getUploadURLExternal": "files:write",  # export: files_upload_v2's three steps
    "files.completeUploadExternal": "files:write",
    "chat.unfurl": "links:write",  # an arxiv.org link shown as the paper's card
    "chat.postEphemeral": "chat:write",  # the Save paper and Who should read this? shortcuts' answers
    "conversations.members": "channels:read",  # `/papers channel conference …`: whom to count
    "conversations.info": "channels:read",  # `/papers channel …`: is the bot in this (public) channel?
    "chat.getPermalink": None,  # a link to a channel's open reading-group poll
    "files.info": "files:read",  # a library export shared in the DM (its download needs files:read too)
}
#: Scopes no method call needs: the ``link_shared`` event needs ``links:read``.
EVENT_SCOPES = ("links:read",)

#: Bot scopes: `commands` for the slash command, `reactions:read` also for the reaction events,
#: `im:history` also for ``message.im``, `channels:read` for ``conversations.info``.
SCOPES = ("commands", "chat:write", "channels:read", "files:read", "files:write", "im:history", "im:write",
          "links:read", "links:write", "reactions:read", "users:read")

EVENTS_PATH = "/slack/events"
INSTALL_PATH = "/slack/install"  # with OAuth: the Add to Slack page
REDIRECT_PATH = "/slack/oauth_redirect"  # with OAuth: where Slack sends the installer back

MANIFEST_FILES = {"socket": "slack-manifest.socket.json", "http": "slack-manifest.http.json",
                  "oauth": "slack-manifest.oauth.json"}
EXAMPLE_ROOT = "https://paperbot.example.org"


def manifest(mode: str, request_url: str = EXAMPLE_ROOT + EVENTS_PATH) -> dict:
    """The app manifest for ``mode`` "socket" (Socket Mode), "http" (one workspace, requests to
    ``request_url``) or "oauth" (HTTP too, distributed: installed into many workspaces and orgs through
    the OAuth redirect beside ``request_url``)."""
    if mode not in MANIFEST_FILES:
        raise ValueError(f"mode is 'socket', 'http' or 'oauth', not {mode!r}")
    http = mode in ("http", "oauth")
    distributed = mode == "oauth"
    command = {"command": COMMAND, "description": COMMAND_DESCRIPTION, "usage_hint": COMMAND_USAGE,
               "should_escape": False}
    if http:
        command["url"] = request_url
    events: dict = {"bot_events": list(BOT_EVENTS) + (list(UNINSTALL_EVENTS) if distributed else [])}
    interactivity: dict = {"is_enabled": True}
    if http:
        events["request_url"] = request_url
        interactivity["request_url"] = request_url
    oauth_config: dict = {"scopes": {"bot": list(SCOPES)}}
    if distributed:
        root = request_url[: -len(EVENTS_PATH)] if request_url.endswith(EVENTS_PATH) else request_url
        oauth_config = {"redirect_urls": [root.rstrip("/") + REDIRECT_PATH], **oauth_config}
    return {
        "_metadata": {"major_version": 1, "minor_version": 1},
        "display_information": {
            "name": "paperbot",
            "description": "A personal daily digest of new papers; learns from your reactions.",
            "background_color": "#2c3e50",
        },
        "features": {
            "app_home": {"home_tab_enabled": True, "messages_tab_enabled": True,
                         "messages_tab_read_only_enabled": False},  # so /papers can be typed there
            "bot_user": {"display_name": "paperbot", "always_online": True},
            "slash_commands": [command],
            "shortcuts": [dict(shortcut) for shortcut in SHORTCUTS],
            "unfurl_domains": list(UNFURL_DOMAINS),
        },
        "oauth_config": oauth_config,
        "settings": {
            "event_subscriptions": events,
            "interactivity": interactivity,
            "org_deploy_enabled": distributed,
            "socket_mode_enabled": not http,
            "token_rotation_enabled": False,
        },
    }


def write(folder: Path) -> list[Path]:
    """Write every manifest into ``folder``."""
    paths = []
    for mode, name in MANIFEST_FILES.items():
        path = Path(folder) / name
        path.write_text(json.dumps(manifest(mode), indent=2) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write(Path(sys.argv[1] if len(sys.argv) > 1 else "deploy")):
        print(written)
