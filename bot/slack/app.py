"""Building the Bolt app: the Web API client, the one error handler, and every listener module's
``register(app, runtime)``.

The listeners share a :class:`~bot.slack.runtime.Runtime` (what they need to do their work after the
ack); they import it from :mod:`bot.slack.runtime`, never from here, so nothing imports this module
but those who run the app (``bot.slack.server``, the tests).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.error import BoltError
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot import metrics
from bot.config import Settings
from bot.errors import ConfigError
from bot.slack.client import build_client, unreachable
from bot.slack.error_handler import BUSY, SORRY, UNSAVED, report_error
from bot.slack.keepalive import KeepAliveWebClient, kept_alive
from bot.slack.listeners import (
    commands,
    conference_buttons,
    dm_commands,
    file_shares,
    home,
    people,
    poll_votes,
    reactions,
    saved_buttons,
    shortcuts,
    unfurl_clicks,
    unfurls,
    uninstall,
    watch_form,
    who,
)
from bot.slack.oauth.flow import oauth_setup
from bot.slack.oauth.installations import PaperbotInstallationStore
from bot.slack.replay import replayer
from bot.slack.request_keys import request_kind
from bot.slack.runtime import REPLAYING, Background, Runtime
from bot.slack.workspace import NOT_INSTALLED, Workspace, only_installed
from bot.state.context import Context
from bot.usecases.lookup import (
    use_acl_url,
    use_arxiv_api,
    use_biorxiv_api,
    use_openreview_api,
    use_pubmed_api,
)
from bot.usecases.workspaces import settle_workspace

#: Importable from here as before (the e2e and fault suites use them).
__all__ = ["BOLT_LOGGER", "BUSY", "SORRY", "UNSAVED", "Background", "Runtime", "SlackBot", "create_app",
           "report_error"]

log = logging.getLogger(__name__)

LISTENER_THREADS = 4  # Bolt's own threads (lazy listeners; paperbot's listeners run before the answer)
#: Each registers its own listeners (``register(app, runtime)``), as Bolt's starter template does.
#: ``file_shares`` before ``dm_commands``: Bolt gives a DM's message to the first listener that matches.
LISTENER_MODULES = (commands, reactions, saved_buttons, home, people, unfurls, unfurl_clicks, shortcuts,
                    file_shares, dm_commands, poll_votes, who, conference_buttons, watch_form)


@dataclass
class SlackBot:
    """The Bolt app and what it owns; :meth:`close` lets work under way finish, then closes the database."""

    app: App
    runtime: Runtime
    listener_executor: ThreadPoolExecutor
    signing_secret: str = ""  # for the HTTP server's gate (bot.slack.gate)
    workspace: Workspace | None = None  # the one workspace of SLACK_BOT_TOKEN
    installations: PaperbotInstallationStore | None = None  # with OAuth: every workspace's installation

    @property
    def ctx(self) -> Context:
        return self.runtime.ctx

    def close(self, grace: float | None = None) -> None:
        """Stop: with ``grace`` (SIGTERM), let the work under way run that many seconds and leave the
        rest in the inbox for the next process; without, finish everything queued first."""
        self.listener_executor.shutdown(wait=True)  # lazy listeners under way
        if grace is None:
            self.runtime.background.shutdown()
        else:
            self.runtime.background.stop(grace)
        self.runtime.ctx.close()


class _QuietBolt(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself and warns that the client's token wins; it is the same token."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


BOLT_LOGGER = logging.getLogger("bot.slack.bolt")
BOLT_LOGGER.addFilter(_QuietBolt())


class _CountedApp(App):
    """Bolt's app, each request it answers counted and its answer timed (:mod:`bot.metrics`), over HTTP and
    Socket Mode alike: listeners answer once their work is written down (``process_before_response``), so
    ``dispatch`` ends with the ack. A request the inbox replays is not Slack's: not counted."""

    def dispatch(self, req: BoltRequest) -> BoltResponse:
        if req.context.get(REPLAYING) is not None:
            return super().dispatch(req)
        with metrics.acking(request_kind(req.body)):
            return super().dispatch(req)


def create_app(settings: Settings, ctx: Context, client: WebClient | None = None) -> SlackBot:
    """The Bolt app with every listener registered: with SLACK_BOT_TOKEN for its one workspace (checked
    with ``auth.test``), or with OAuth (:attr:`Settings.oauth`) for every workspace that installs it."""
    # papers looked up by id, and the `arxiv:` feeds
    use_arxiv_api(settings.arxiv_api_url, settings.arxiv_rss_url)
    use_biorxiv_api(settings.biorxiv_api_url)
    use_pubmed_api(settings.pubmed_api_url, settings.ncbi_key, settings.ncbi_email)
    use_openreview_api(settings.openreview_api_url)
    use_acl_url(settings.acl_url)
    if settings.oauth:
        return _create_oauth_app(settings, ctx, client)
    settings.require("SLACK_BOT_TOKEN")
    client = client or build_client(settings)
    executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="paperbot-bolt")
    try:
        with _without_bolt_oauth_environment():
            app = _CountedApp(
                client=client,
                signing_secret=settings.signing_secret or "",
                process_before_response=True,  # the answer goes once the work is written down
                listener_executor=executor,
                logger=BOLT_LOGGER,
            )
        workspace = Workspace.of(client)  # the one workspace this token serves
    except BoltError as exc:
        executor.shutdown(wait=False)
        raise ConfigError(f"Slack did not accept SLACK_BOT_TOKEN ({_slack_error(exc)}): copy the Bot User "
                          "OAuth Token (xoxb-…) from the app's OAuth & Permissions page") from None
    except (SlackClientError, OSError) as exc:
        executor.shutdown(wait=False)
        raise ConfigError(f"Can't reach the Slack API at {settings.api_url} ({unreachable(exc)}): "
                          "check SLACK_API_URL and the network") from None
    settle_workspace(ctx, workspace.key)  # rows from before workspaces are the token's
    runtime = Runtime(ctx)
    runtime.background.replay = replayer(app)
    app.middleware(only_installed(workspace))  # a foreign request writes nothing, not even its key
    app.middleware(_in_workspace(lambda context: workspace.key))
    _keep_alive(app, client)
    app.error(report_error)
    for listeners in LISTENER_MODULES:
        listeners.register(app, runtime)
    return SlackBot(app, runtime, executor, settings.signing_secret or "", workspace)


def _create_oauth_app(settings: Settings, ctx: Context, client: WebClient | None) -> SlackBot:
    """The app for many workspaces: Bolt's OAuth flow installs it, and authorizes each request with
    its workspace's token from the installation store. Raises ConfigError (or WrongSecretKey, when no
    installation opens with any key) in one line."""
    client = client or build_client(settings)  # no token: Bolt sets each request's own
    setup = oauth_setup(settings, ctx.store, client, BOLT_LOGGER)
    setup.installations.check_keys()  # re-seals what an old key sealed; names what no key opens
    executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="paperbot-bolt")
    app = _CountedApp(
        client=client,
        signing_secret=settings.signing_secret or "",
        oauth_flow=setup.flow,
        process_before_response=True,  # the answer goes once the work is written down
        listener_executor=executor,
        logger=BOLT_LOGGER,
        user_facing_authorize_error_message=NOT_INSTALLED,  # a workspace without an installation
    )
    runtime = Runtime(ctx, forgotten=setup.installations.forget_installer)
    runtime.background.replay = replayer(app)
    app.middleware(_in_workspace(lambda context: setup.installations.workspace_of(
        context.enterprise_id, context.team_id, context.is_enterprise_install) or ""))
    _keep_alive(app, client)
    app.error(report_error)
    for listeners in LISTENER_MODULES:
        listeners.register(app, runtime)
    uninstall.register(app, runtime, setup.installations)
    return SlackBot(app, runtime, executor, settings.signing_secret or "", installations=setup.installations)


def _keep_alive(app: App, client: WebClient) -> None:
    """Listeners' calls over kept-alive connections, as the app's own client's (not a test's stand-in
    client's: Bolt copies only a plain WebClient's settings)."""
    if isinstance(client, KeepAliveWebClient):
        app.middleware(kept_alive)


def _in_workspace(key_of: Callable) -> Callable:
    """A Bolt middleware: ``context["workspace"]`` is the key of the workspace the request is served as
    (SLACK_BOT_TOKEN's one, or the installation's: its team, or its org for an org-wide install), which
    the listeners' runtime scopes the store with (:meth:`~bot.slack.runtime.Runtime.for_request`)."""

    def paperbot_workspace(context, next):  # names Bolt passes
        context["workspace"] = key_of(context)
        return next()

    return paperbot_workspace


@contextlib.contextmanager
def _without_bolt_oauth_environment() -> Iterator[None]:
    """Bolt builds OAuth settings of its own (with files for stores) whenever SLACK_CLIENT_ID and
    SLACK_CLIENT_SECRET are in the environment; with SLACK_BOT_TOKEN they must not turn it on."""
    hidden = {name: os.environ.pop(name) for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET")
              if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(hidden)


def _slack_error(exc: BoltError) -> str:
    """Slack's error code in Bolt's refusal of a token (it quotes auth.test's answer), else its text."""
    found = re.search(r"'error': '([a-z_]+)'", str(exc))
    return found.group(1) if found else _short(exc)


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."
