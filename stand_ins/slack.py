"""A stand-in for the Slack Web API and for slash-command ``response_url``s, on 127.0.0.1.

It records every call (method, parameters or JSON body, headers, status) and answers the way Slack does
for the methods paperbot uses. Faults can be scripted: HTTP 429 with Retry-After, 500, or a delay, for
the next N calls of a method (optionally after letting some through); and a call that is carried out
(a post lands in ``history``) but answered late, or never (the connection is dropped).

    with SlackStandIn() as slack:
        slack.fail("chat.postMessage", status=429, times=1, retry_after=1)
        ...  # point SLACK_API_URL at slack.base_url
        slack.wait_for(lambda: len(slack.calls("chat.postMessage")) >= 3)

It also stands in for installing an app through OAuth: :meth:`SlackStandIn.add_workspace` scripts a
workspace (or an Enterprise Grid org) that can install; the authorize page (``GET /oauth/v2/authorize``)
sends the browser back to the app's redirect URL with a single-use ``code``; ``oauth.v2.access`` trades
that code for the workspace's own bot token; ``auth.test`` answers per token, and a revoked token answers
``token_revoked``. Any other ``xox`` token (the one-workspace tests' SLACK_BOT_TOKEN) gets the answers it
always got, as workspace T0STANDIN. Every Web API answer carries the ``x-oauth-scopes`` header Slack sends:
the manifest's scopes, or ``granted_scopes`` (per token, ``token_scopes``) when a test sets them.

Files go up as Slack's current upload does (``files_upload_v2``): ``files.getUploadURLExternal`` hands out
a URL on the stand-in, the bytes POSTed there are kept (:meth:`SlackStandIn.uploaded`), and
``files.completeUploadExternal`` shares them into a channel. Files people share with the bot
(:meth:`SlackStandIn.share_file`) are described by ``files.info`` and downloaded from its
``url_private_download`` on the stand-in, with the bot token as a bearer token (another gets 403).
``chat.update`` replaces a posted message.
``conversations.members`` lists a channel's :attr:`SlackStandIn.members`.
``conversations.info`` says whether the bot is in a channel: in every one but those in ``not_member``,
where ``chat.postMessage`` answers ``not_in_channel``. A posted message keeps its blocks and thread
(:meth:`SlackStandIn.message`, :meth:`SlackStandIn.replies`) and ``chat.getPermalink`` links to it.
"""

from __future__ import annotations

import base64
import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

from bot.slack.manifest import SCOPES
from stand_ins.serving import Serving
from stand_ins.waiting import wait_until

BOT_USER_ID = "UPAPERBOT"
RESPONSE_URL = "response_url"  # the method name recorded for posts to a response_url
AUTHORIZE = "oauth.authorize"  # the method name recorded for visits to the authorize page
AUTHORIZE_PATH = "/oauth/v2/authorize"
MINTED_PREFIX = "xoxb-standin-"  # the bot tokens oauth.v2.access hands out
UPLOAD = "file.upload"  # the method name recorded for uploads to a URL files.getUploadURLExternal gave
UPLOAD_PATH = "/upload/"
DOWNLOAD = "file.download"  # the method name recorded for downloads of a shared file (url_private_download)
DOWNLOAD_PATH = "/download/"


@dataclass
class Call:
    """One request the stand-in received."""

    method: str  # "chat.postMessage", …, or RESPONSE_URL
    path: str
    params: dict  # query + form fields, or the JSON body
    headers: dict  # lower-case names
    status: int = 200
    response: dict | None = None  # what the stand-in answered
    at: float = field(default_factory=time.monotonic)

    @property
    def key(self) -> str:
        """For a response_url post: the key the URL was made with."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def token(self) -> str | None:
        """The token the call came with (``Authorization: Bearer …``), if any."""
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else None


@dataclass
class Workspace:
    """A workspace (or, with ``org``, a whole Enterprise Grid org) that can install the app."""

    team_id: str | None  # None for an org-wide install
    enterprise_id: str | None
    org: bool
    installer: str  # the user who clicks Allow
    token: str  # its bot token, handed out by oauth.v2.access
    name: str

    @property
    def key(self) -> str:
        """The org's id for an org-wide install, else the team's."""
        return (self.enterprise_id if self.org else self.team_id) or ""


@dataclass
class _Fault:
    status: int | None  # None: no error, only a delay
    times: int
    after: int
    retry_after: int | None
    delay: float
    landed: str | None = None  # "late": carried out at once, answered after ``delay``; "dropped": never
    token: str | None = None  # only calls made with this token (None: every call)
    gate: threading.Event | None = None  # held until set (see :meth:`SlackStandIn.hold`)


class SlackStandIn:
    """A threaded HTTP server that answers like Slack's Web API. Use as a context manager."""

    def __init__(self, default_tz: str = "Europe/Berlin"):
        self.default_tz = default_tz
        self.timezones: dict[str, str | None] = {}  # per user; default_tz otherwise
        self.unreachable: dict[str, str] = {}  # user -> the error conversations.open answers for them
        self.members: dict[str, list[str]] = {}  # channel -> who conversations.members says is in it
        #: Channels the bot is not a member of: chat.postMessage answers not_in_channel there, and
        #: conversations.info says is_member false.
        self.not_member: set[str] = set()
        self.reactions: dict[tuple[str, str], list[dict]] = {}  # (channel, ts) -> reactions.get answer
        self.history: dict[str, list[dict]] = {}  # channel -> messages posted there, oldest first
        self.not_in_channel: set[str] = set()  # channels where chat.postEphemeral answers not_in_channel
        self.socket_mode_url: str | None = None  # what apps.connections.open answers (Socket Mode)
        self.client_id: str | None = None  # when set, oauth.v2.access checks the app's credentials
        self.client_secret: str | None = None
        self.redirect_url: str | None = None  # the app's redirect URL (its manifest's redirect_urls)
        self.workspaces: dict[str, Workspace] = {}  # by key
        self.files: dict[str, dict] = {}  # file id -> its upload: filename, length, content, title, channel
        self.shared: dict[str, dict] = {}  # file id -> a file a person shared (share_file)
        #: The tokens a shared file's download accepts; None: the bot tokens ``auth.test`` has answered
        #: for and those ``oauth.v2.access`` handed out (any other gets 403).
        self.download_tokens: set[str] | None = None
        self._bot_tokens: set[str] = set()
        self.views: dict[str, dict] = {}  # view id -> the modal views.open / views.update last gave it
        #: The scopes every Web API answer says a token was granted (its ``x-oauth-scopes`` header, as
        #: Slack sends it): the manifest's by default, per token in ``token_scopes``; None sends no header.
        self.granted_scopes: tuple[str, ...] | None = SCOPES
        self.token_scopes: dict[str, tuple[str, ...]] = {}
        self._codes: dict[str, Workspace] = {}  # unused codes the authorize page handed out
        self._revoked: set[str] = set()
        self._calls: list[Call] = []
        self._faults: dict[str, list[_Fault]] = {}
        self._lock = threading.Lock()
        self._ts = itertools.count(1)
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._serving = Serving(self._server, "slack-standin")

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> SlackStandIn:
        self._serving.start()
        return self

    def __exit__(self, *exc) -> None:
        self._serving.stop()

    @property
    def connections(self) -> int:
        """How many connections clients have opened to the stand-in so far."""
        return self._server.connections

    @property
    def root(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """What SLACK_API_URL should be."""
        return self.root + "/api/"

    def response_url(self, key: str) -> str:
        """A response_url for a slash command or action; posts to it are recorded under ``key``."""
        return f"{self.root}/respond/{key}"

    # -- scripting -------------------------------------------------------------------------------

    def fail(self, method: str, status: int = 500, times: int = 1, after: int = 0,
             retry_after: int | None = None, token: str | None = None) -> Callable[[], None]:
        """Answer the next ``times`` calls of ``method`` (after letting ``after`` through) with ``status``;
        with ``token``, only calls made with that token (one workspace's). The returned function ends the
        failures early: a test that needs Slack to refuse only until something else has happened says so,
        instead of guessing how many refusals that takes."""
        return self._script(method, _Fault(status, times, after, retry_after, 0.0, token=token))

    def delay(self, method: str, seconds: float, times: int = 1_000_000) -> None:
        """Answer calls of ``method`` only after ``seconds``."""
        self._script(method, _Fault(None, times, 0, None, seconds))

    def land_late(self, method: str, seconds: float, times: int = 1, after: int = 0,
                  drop: bool = False) -> None:
        """Carry out the next ``times`` calls of ``method`` at once (a post lands in ``history``) but
        answer only after ``seconds``, or with ``drop`` close the connection without an answer."""
        self._script(method, _Fault(None, times, after, None, seconds, "dropped" if drop else "late"))

    def hold(self, method: str, after: int = 0) -> Callable[[], None]:
        """Hold every call of ``method`` after the first ``after`` unanswered until the returned function
        is called (from then on they pass as before): work that certainly is not done until the test
        says so, however fast the machine."""
        return self._script(method, _Fault(None, 1_000_000_000, after, None, 0.0, gate=threading.Event()))

    def _script(self, method: str, fault: _Fault) -> Callable[[], None]:
        """Add ``fault`` to the calls of ``method``; the returned function ends it (and opens its gate)."""
        with self._lock:
            self._faults.setdefault(method, []).append(fault)

        def release() -> None:
            with self._lock:
                fault.times = 0
            if fault.gate is not None:
                fault.gate.set()

        return release

    def add_workspace(self, team_id: str | None, enterprise_id: str | None = None, org: bool = False,
                      installer: str = "UINSTALLER") -> Workspace:
        """Script a workspace ``team_id`` (in org ``enterprise_id``), or with ``org`` an org-wide install of
        ``enterprise_id``, that installs the app when the authorize page is visited for it."""
        if org and not enterprise_id:
            raise ValueError("an org-wide install needs an enterprise_id")
        key = (enterprise_id if org else team_id) or ""
        workspace = Workspace(None if org else team_id, enterprise_id, org, installer,
                              f"{MINTED_PREFIX}{key}-{secrets.token_hex(8)}", f"Workspace {key}")
        with self._lock:
            self.workspaces[key] = workspace
        return workspace

    def revoke(self, token: str) -> None:
        """From now on ``token`` answers ``token_revoked`` (an uninstall, a revoked token)."""
        with self._lock:
            self._revoked.add(token)

    def _authorize(self, params: dict) -> tuple[int, str]:
        """The authorize page: the person allows at once; the answer is (status, Location or error)."""
        redirect = params.get("redirect_uri") or self.redirect_url
        if not redirect:
            return 400, "no redirect_uri, and no redirect URL configured"
        if self.client_id is not None and params.get("client_id") != self.client_id:
            return 400, "invalid_client_id"
        with self._lock:
            workspace = self.workspaces.get(params.get("team") or "") or (
                list(self.workspaces.values())[-1] if self.workspaces else None)
            if workspace is None:
                return 400, "no workspace to install into"
            code = secrets.token_hex(12)
            self._codes[code] = workspace
        query = {"code": code, **({"state": params["state"]} if "state" in params else {})}
        return 302, redirect + ("&" if "?" in redirect else "?") + urlencode(query)

    def _oauth_access(self, params: dict, headers: dict) -> dict:
        client_id, client_secret = params.get("client_id"), params.get("client_secret")
        auth = headers.get("authorization", "")
        if auth.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(auth[len("Basic "):]).decode().partition(":")
        if self.client_id is not None and (client_id, client_secret) != (self.client_id, self.client_secret):
            return {"ok": False, "error": "invalid_client_id" if client_id != self.client_id
                    else "bad_client_secret"}
        with self._lock:
            workspace = self._codes.pop(str(params.get("code") or ""), None)  # a code works once
        if workspace is None:
            return {"ok": False, "error": "invalid_code"}
        return {
            "ok": True, "app_id": "A0PAPERBOT", "authed_user": {"id": workspace.installer},
            "scope": str(params.get("scope") or "commands,chat:write"), "token_type": "bot",
            "access_token": workspace.token, "bot_user_id": BOT_USER_ID,
            "team": None if workspace.org else {"id": workspace.team_id, "name": workspace.name},
            "enterprise": {"id": workspace.enterprise_id, "name": "Org"} if workspace.enterprise_id else None,
            "is_enterprise_install": workspace.org,
        }

    def _token_problem(self, token: str) -> str | None:
        """The error a call with ``token`` gets before anything else, if any."""
        with self._lock:
            if token in self._revoked:
                return "token_revoked"
            minted = {w.token for w in self.workspaces.values()}
            if token.startswith(MINTED_PREFIX) and token not in minted:
                return "invalid_auth"
        return None

    def _auth_test(self, token: str) -> dict:
        with self._lock:
            self._bot_tokens.add(token)
            workspace = next((w for w in self.workspaces.values() if w.token == token), None)
        if workspace is None:  # the one-workspace tests' token
            return {"ok": True, "url": "https://standin.slack.com/", "team": "Stand-in", "user": "paperbot",
                    "team_id": "T0STANDIN", "user_id": BOT_USER_ID, "bot_id": "B0PAPERBOT",
                    "is_enterprise_install": False}
        answer = {"ok": True, "url": f"https://{workspace.key.lower()}.slack.com/", "team": workspace.name,
                  "user": "paperbot", "user_id": BOT_USER_ID, "bot_id": f"B{workspace.key}",
                  "is_enterprise_install": workspace.org}
        if workspace.team_id:
            answer["team_id"] = workspace.team_id
        if workspace.enterprise_id:
            answer["enterprise_id"] = workspace.enterprise_id
        return answer

    def scopes_header(self, token: str | None) -> dict[str, str]:
        """The ``x-oauth-scopes`` header of an answer to a call made with ``token`` (none without one)."""
        with self._lock:
            scopes = self.token_scopes.get(token or "", self.granted_scopes)
        return {} if token is None or scopes is None else {"x-oauth-scopes": ",".join(scopes)}

    def reset(self) -> None:
        """Forget scripted faults, delays and reactions (recorded calls stay)."""
        with self._lock:
            self._faults.clear()
            self.reactions.clear()
            self.unreachable.clear()
            self.not_in_channel.clear()
            self.not_member.clear()

    # -- inspecting ------------------------------------------------------------------------------

    def calls(self, method: str | None = None, **params) -> list[Call]:
        """Recorded calls, optionally of one method and with these parameter values."""
        with self._lock:
            calls = list(self._calls)
        return [c for c in calls if (method is None or c.method == method)
                and all(c.params.get(k) == v for k, v in params.items())]

    def uploaded(self, channel: str | None = None) -> list[dict]:
        """The files completed (shared), oldest first, optionally only those shared into ``channel``:
        each with its filename, title, channel and ``content`` (the bytes uploaded)."""
        with self._lock:
            files = [dict(f) for f in self.files.values()]
        return [f for f in files if f["channel"] and (channel is None or f["channel"] == channel)]

    def responses(self, key: str) -> list[Call]:
        """What was posted to :meth:`response_url` ``key``."""
        return [c for c in self.calls(RESPONSE_URL) if c.key == key]

    def wait_for(self, condition: Callable[[], object], timeout: float = 15.0, what: str = "condition"):
        """Poll ``condition`` until it returns something truthy; return that, or fail after ``timeout``."""
        return wait_until(condition, timeout, what, pause=0.02)

    # -- answering -------------------------------------------------------------------------------

    def _fault_for(self, method: str, token: str | None = None) -> _Fault | None:
        with self._lock:
            for fault in self._faults.get(method, []):
                if fault.token is not None and fault.token != token:
                    continue
                if fault.after > 0:
                    fault.after -= 1
                    return None
                if fault.times > 0:
                    fault.times -= 1
                    return fault
        return None

    def _record(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)

    def _new_ts(self) -> str:
        """A message timestamp as Slack makes them: the current time, unique and increasing."""
        n = next(self._ts)
        return f"{int(time.time())}.{n:06d}"

    def _view(self, method: str, params: dict) -> dict:
        """views.open (needs a trigger id) and views.update (a view it opened, by id): each view as it
        is now is kept in ``views`` by its id."""
        view = params.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not isinstance(view, dict) or view.get("type") != "modal":
            return {"ok": False, "error": "invalid_arguments"}
        with self._lock:
            if method == "views.open":
                if not params.get("trigger_id"):
                    return {"ok": False, "error": "invalid_trigger_id"}
                view_id = f"V{next(self._ts):08d}"
            else:
                view_id = str(params.get("view_id") or "")
                if view_id not in self.views:
                    return {"ok": False, "error": "not_found"}
            self.views[view_id] = view
        return {"ok": True, "view": {**view, "id": view_id, "hash": f"h{next(self._ts)}"}}

    def _answer(self, method: str, params: dict, token: str = "") -> dict:
        """Slack's answer to Web API ``method`` called with ``params`` and ``token`` (:data:`_METHODS`)."""
        problem = self._token_problem(token)
        if problem:
            return {"ok": False, "error": problem}
        if method == "auth.test":
            return self._auth_test(token)
        answer = self._METHODS.get(method)
        return answer(self, params) if answer else {"ok": False, "error": "unknown_method"}

    # -- the Web API's methods, one each --------------------------------------------------------

    def _apps_connections_open(self, params: dict) -> dict:
        if not self.socket_mode_url:
            return {"ok": False, "error": "not_allowed_token_type"}
        return {"ok": True, "url": self.socket_mode_url}

    def _conversations_open(self, params: dict) -> dict:
        users = str(params.get("users") or "")
        if not users or "," in users:
            return {"ok": False, "error": "invalid_arguments"}
        if users in self.unreachable:
            return {"ok": False, "error": self.unreachable[users]}
        return {"ok": True, "channel": {"id": "D" + users}}

    def _users_info(self, params: dict) -> dict:
        user = params.get("user")
        if not user:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "user": {"id": user, "name": user.lower(),
                                     "tz": self.timezones.get(user, self.default_tz)}}

    def _chat_post_message(self, params: dict) -> dict:
        channel = params.get("channel")
        if not channel or not (params.get("text") or params.get("blocks")):
            return {"ok": False, "error": "no_text" if channel else "channel_not_found"}
        if channel in self.not_member:
            return {"ok": False, "error": "not_in_channel"}
        ts = self._new_ts()
        message = {"type": "message", "user": BOT_USER_ID, "bot_id": "B0PAPERBOT", "ts": ts,
                   "text": params.get("text")}
        if isinstance(params.get("metadata"), dict):
            message["metadata"] = params["metadata"]
        message.update(_kept_fields(params))
        with self._lock:
            self.history.setdefault(channel, []).append(message)
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _conversations_info(self, params: dict) -> dict:
        channel = str(params.get("channel") or "")
        if not channel.startswith(("C", "G", "D")):
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, "is_channel": channel.startswith("C"),
                                        "is_im": channel.startswith("D"),
                                        "is_member": channel not in self.not_member}}

    def _conversations_members(self, params: dict) -> dict:
        # Slack's answer: the member ids, one page (the stand-in's channels are small), no next cursor.
        channel = str(params.get("channel") or "")
        if not channel.startswith(("C", "G")):
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "members": list(self.members.get(channel, [])),
                "response_metadata": {"next_cursor": ""}}

    def _conversations_history(self, params: dict) -> dict:
        channel = str(params.get("channel") or "")
        if channel not in self.history and not channel.startswith("D"):
            return {"ok": False, "error": "channel_not_found"}
        oldest = float(params.get("oldest") or 0)
        # As Slack: ``latest`` is exclusive unless ``inclusive`` (``oldest`` is taken inclusively here).
        latest = float(params.get("latest") or "inf")
        inclusive = str(params.get("inclusive")).lower() in ("1", "true")
        with self._lock:
            found = [m for m in self.history.get(channel, []) if float(m["ts"]) >= oldest
                     and (float(m["ts"]) <= latest if inclusive else float(m["ts"]) < latest)]
        keep_metadata = str(params.get("include_all_metadata")).lower() in ("1", "true")
        messages = [m if keep_metadata else {k: v for k, v in m.items() if k != "metadata"}
                    for m in reversed(found)][: int(params.get("limit") or 100)]
        return {"ok": True, "messages": messages, "has_more": False}

    def _chat_update(self, params: dict) -> dict:
        channel, ts = params.get("channel"), params.get("ts")
        if not channel or not ts:
            return {"ok": False, "error": "invalid_arguments"}
        if not (params.get("text") or params.get("blocks")):
            return {"ok": False, "error": "no_text"}
        with self._lock:
            for message in self.history.get(channel, []):
                if message["ts"] == ts:
                    message["text"] = params.get("text")
                    message.update(_kept_fields(params, "blocks"))
        return {"ok": True, "channel": channel, "ts": ts, "text": params.get("text")}

    def _files_get_upload_url_external(self, params: dict) -> dict:
        filename, length = params.get("filename"), str(params.get("length") or "")
        if not filename or not length.isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{next(self._ts):08d}"
        with self._lock:
            self.files[file_id] = {"filename": filename, "length": int(length), "content": None,
                                   "title": None, "channel": None}
        return {"ok": True, "file_id": file_id, "upload_url": f"{self.root}{UPLOAD_PATH}{file_id}"}

    def _files_complete_upload_external(self, params: dict) -> dict:
        try:
            listed = json.loads(params.get("files") or "[]")
        except ValueError:
            return {"ok": False, "error": "invalid_arguments"}
        done = []
        with self._lock:
            for item in listed if isinstance(listed, list) else []:
                upload = self.files.get(str(item.get("id")))
                if upload is None or upload["content"] is None:
                    return {"ok": False, "error": "file_not_found"}
                upload.update(title=item.get("title"), channel=params.get("channel_id"))
                done.append({"id": item["id"], "name": upload["filename"], "title": item.get("title")})
        if not done:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "files": done}

    def _chat_post_ephemeral(self, params: dict) -> dict:
        if not params.get("channel") or not params.get("user"):
            return {"ok": False, "error": "invalid_arguments"}
        if str(params["channel"]) in self.not_in_channel:
            return {"ok": False, "error": "not_in_channel"}
        return {"ok": True, "message_ts": self._new_ts()}

    def _chat_unfurl(self, params: dict) -> dict:
        unfurls = params.get("unfurls")
        if isinstance(unfurls, str):
            unfurls = json.loads(unfurls)
        where = (params.get("channel") and params.get("ts")) or (params.get("unfurl_id")
                                                                 and params.get("source"))
        if not where or not isinstance(unfurls, dict) or not unfurls:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def _views_publish(self, params: dict) -> dict:
        return {"ok": True, "view": {"id": f"V{next(self._ts):08d}", "type": "home"}}

    def _views_open(self, params: dict) -> dict:
        return self._view("views.open", params)

    def _views_update(self, params: dict) -> dict:
        return self._view("views.update", params)

    def _reactions_get(self, params: dict) -> dict:
        key = (params.get("channel"), params.get("timestamp"))
        return {"ok": True, "type": "message", "channel": key[0],
                "message": {"type": "message", "ts": key[1], "reactions": self.reactions.get(key, [])}}

    #: Every Web API method it answers (besides auth.test, which goes by the token), and how.
    _METHODS: dict[str, Callable[[SlackStandIn, dict], dict]] = {
        "apps.connections.open": _apps_connections_open,
        "conversations.open": _conversations_open,
        "users.info": _users_info,
        "chat.postMessage": _chat_post_message,
        "conversations.info": _conversations_info,
        "conversations.history": _conversations_history,
        "conversations.members": _conversations_members,
        "chat.update": _chat_update,
        "files.getUploadURLExternal": _files_get_upload_url_external,
        "files.completeUploadExternal": _files_complete_upload_external,
        "chat.postEphemeral": _chat_post_ephemeral,
        "chat.unfurl": _chat_unfurl,
        "views.publish": _views_publish,
        "views.open": _views_open,
        "views.update": _views_update,
        "reactions.get": _reactions_get,
    }

    # -- files people share with the bot (files.info, url_private_download) ------------------------

    def share_file(self, user: str, name: str, content: bytes, filetype: str | None = None,
                   size: int | None = None) -> dict:
        """A file ``user`` shares: what ``files.info`` says of it (``size`` may lie, as a test wants), its
        bytes downloadable from its ``url_private_download``."""
        file_id = f"F{next(self._ts):08d}"
        kind = filetype or (name.rsplit(".", 1)[-1].lower() if "." in name else "binary")
        info = {"id": file_id, "name": name, "title": name, "filetype": kind, "user": user,
                "size": len(content) if size is None else size, "mimetype": "application/octet-stream",
                "url_private_download": f"{self.root}{DOWNLOAD_PATH}{file_id}/{name}"}
        with self._lock:
            self.shared[file_id] = {"info": info, "content": content}
        return dict(info)

    def _files_info(self, params: dict) -> dict:
        with self._lock:
            found = self.shared.get(str(params.get("file") or ""))
        if found is None:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": dict(found["info"])}

    def _download(self, path: str, headers: dict) -> tuple[int, bytes]:
        """A shared file's bytes for a bot token (403 for any other, 404 for an unknown file)."""
        token = _bearer(headers) or ""
        with self._lock:
            found = self.shared.get(path[len(DOWNLOAD_PATH):].split("/", 1)[0])
            allowed = self.download_tokens
            if allowed is None:
                allowed = self._bot_tokens | {w.token for w in self.workspaces.values()}
        if found is None:
            return 404, b"not found"
        if token not in allowed or self._token_problem(token):
            return 403, b"forbidden"
        return 200, found["content"]

    _METHODS["files.info"] = _files_info

    # -- reading-group polls (issue 27): a message as it is now, and its link --------------------

    def message(self, channel: str, ts: str) -> dict | None:
        """The message posted in ``channel`` as ``ts`` as it is now (after every ``chat.update``), with
        its ``blocks`` and ``thread_ts`` when it had them; None when none was posted so."""
        with self._lock:
            return next((dict(m) for m in self.history.get(channel, []) if m["ts"] == ts), None)

    def replies(self, channel: str, thread_ts: str) -> list[dict]:
        """The messages posted in the thread under ``thread_ts`` in ``channel``, oldest first."""
        with self._lock:
            return [dict(m) for m in self.history.get(channel, []) if m.get("thread_ts") == thread_ts]

    def _chat_get_permalink(self, params: dict) -> dict:
        channel, ts = str(params.get("channel") or ""), str(params.get("message_ts") or "")
        if self.message(channel, ts) is None:
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": channel,
                "permalink": f"https://standin.invalid/archives/{channel}/p{ts.replace('.', '')}"}

    _METHODS["chat.getPermalink"] = _chat_get_permalink


def _kept_fields(params: dict, *clearing: str) -> dict:
    """What a message keeps of ``chat.postMessage`` / ``chat.update``'s parameters beside its text: its
    blocks (JSON, as the SDK may send them as a string) and the thread it is in. ``clearing``: fields an
    update without them empties (an update's text alone leaves no blocks)."""
    kept: dict = {name: None for name in clearing}
    blocks = params.get("blocks")
    if blocks:
        kept["blocks"] = json.loads(blocks) if isinstance(blocks, str) else blocks
    if params.get("thread_ts"):
        kept["thread_ts"] = str(params["thread_ts"])
    return kept


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # http.server's backlog of 5 can overflow with many concurrent senders
    connections = 0  # accepted so far

    def process_request(self, request, client_address) -> None:
        self.connections += 1  # only serve_forever's thread accepts
        super().process_request(request, client_address)


def _params(query: str, raw: bytes, headers: dict) -> dict:
    """A request's parameters: its query, then its body's (a JSON object, or form fields)."""
    params = dict(parse_qsl(query))
    if raw:
        if headers.get("content-type", "").startswith("application/json"):
            params.update(json.loads(raw))
        else:
            params.update(parse_qsl(raw.decode()))
    return params


def _bearer(headers: dict) -> str | None:
    """The token of ``Authorization: Bearer …``, if any."""
    auth = headers.get("authorization", "")
    return auth[len("Bearer "):] if auth.startswith("Bearer ") else None


class _Handler(BaseHTTPRequestHandler):
    """One request to the stand-in (:func:`_handler` makes the class of one stand-in's requests)."""

    standin: SlackStandIn
    protocol_version = "HTTP/1.1"  # connections kept alive between calls, as Slack's are
    disable_nagle_algorithm = True  # headers and body are two writes: don't hold the second for an ACK
    timeout = 60  # an idle kept-alive connection's thread gives up after this

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle(b"")

    def do_POST(self) -> None:
        self._handle(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _handle(self, raw: bytes) -> None:
        url = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        if url.path.startswith(UPLOAD_PATH):  # raw bytes, whatever the content type says
            self._upload(url.path[len(UPLOAD_PATH):], raw, headers)
            return
        if url.path.startswith(DOWNLOAD_PATH):
            self._send_file(url.path, headers)
            return
        params = _params(url.query, raw, headers)
        if url.path == AUTHORIZE_PATH:
            status, where = self.standin._authorize(params)
            self.standin._record(Call(AUTHORIZE, url.path, params, headers, status, {"location": where}))
            self._redirect(status, where)
            return
        if url.path.startswith("/respond/"):
            method = RESPONSE_URL
        elif url.path.startswith("/api/"):
            method = url.path[len("/api/"):]
        else:
            self._send(404, {"ok": False, "error": "not_found"}, "?", params, headers)
            return
        if not self._faulted(method, params, headers):
            self._call(method, params, headers)

    def _faulted(self, method: str, params: dict, headers: dict) -> bool:
        """Play the fault scripted for this call, if any; whether it answered the call itself."""
        fault = self.standin._fault_for(method, _bearer(headers))
        if fault is not None and fault.landed:
            self._land_late(fault, method, params, headers)
            return True
        if fault is not None and fault.gate is not None:
            fault.gate.wait()
        if fault is not None and fault.delay:
            time.sleep(fault.delay)  # the scripted fault: Slack slow to answer
        if fault is not None and fault.status is not None:
            extra = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
            error = "ratelimited" if fault.status == 429 else "internal_error"
            self._send(fault.status, {"ok": False, "error": error}, method, params, headers, extra)
            return True
        return False

    def _call(self, method: str, params: dict, headers: dict) -> None:
        """Answer a call no fault took: a response_url post, the OAuth exchange, or a Web API method."""
        if method == RESPONSE_URL:
            self._send(200, None, method, params, headers)
            return
        if method == "oauth.v2.access":  # the app's own credentials, not a token
            self._send(200, self.standin._oauth_access(params, headers), method, params, headers)
            return
        token = headers.get("authorization", "")
        app_level = method == "apps.connections.open"  # Socket Mode: the app-level token, xapp-
        if not token.startswith("Bearer xapp-" if app_level else "Bearer xox"):
            self._send(200, {"ok": False, "error": "not_authed"}, method, params, headers)
            return
        bearer = token[len("Bearer "):]
        self._send(200, self.standin._answer(method, params, bearer), method, params, headers,
                   self.standin.scopes_header(bearer))

    def _upload(self, file_id: str, raw: bytes, headers: dict) -> None:
        with self.standin._lock:
            upload = self.standin.files.get(file_id)
            if upload is not None and upload["content"] is None:
                upload["content"] = raw
        fine = upload is not None and upload["content"] is raw and len(raw) == upload["length"]
        status = 200 if fine else 400
        self.standin._record(Call(UPLOAD, self.path, {"file_id": file_id, "bytes": len(raw)}, headers,
                                  status))
        data = f"OK - {len(raw)}".encode() if fine else b"bad upload"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_file(self, path: str, headers: dict) -> None:
        status, data = self.standin._download(path, headers)
        self.standin._record(Call(DOWNLOAD, path, {"bytes": len(data)}, headers, status))
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream" if status == 200 else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, status: int, where: str) -> None:
        data = b"" if status == 302 else where.encode()
        self.send_response(status)
        if status == 302:
            self.send_header("Location", where)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _land_late(self, fault: _Fault, method: str, params: dict, headers: dict) -> None:
        token = headers.get("authorization", "")[len("Bearer "):]
        answer = self.standin._answer(method, params, token)  # carried out now, whatever its answer meets
        time.sleep(fault.delay)  # answered late: the caller may have given up meanwhile
        if fault.landed == "dropped":
            self.standin._record(Call(method, urlsplit(self.path).path, params, headers, 0, answer))
            self.close_connection = True
            self.connection.shutdown(2)  # socket.SHUT_RDWR: the client reads no answer at all
            return
        try:
            self._send(200, answer, method, params, headers)
        except OSError:  # the client gave up waiting and hung up: the call still happened
            pass

    def _send(self, status: int, body: dict | None, method: str, params: dict, headers: dict,
              extra: dict | None = None) -> None:
        self.standin._record(Call(method, urlsplit(self.path).path, params, headers, status, body))
        data = b"ok" if body is None else json.dumps(body).encode()
        self.send_response(status)
        content_type = "text/plain" if body is None else "application/json; charset=utf-8"
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)



def _handler(standin: SlackStandIn) -> type[BaseHTTPRequestHandler]:
    """The request handler class of ``standin``'s server."""
    return type("Handler", (_Handler,), {"standin": standin})
