"""The gate in front of Bolt in HTTP mode: is a request Slack's, and has it the shape paperbot relies on?

Bolt parses a body before it checks the signature, and trusts the shape of what it parsed: ``[]``, an
``event`` that is a string or a ``user`` that is a number fail deep inside it (HTTP 500 and a traceback
per request). Here nothing reaches Bolt unless it is signed with the signing secret, fresh, and of a
shape Slack sends. Everything is decided by pure functions of (headers, raw body), so it is
unit-testable without a server:

- 401: not signed, signed with another secret, or a timestamp that is malformed or 5 minutes off;
- 400: signed, but not a body Slack sends (not UTF-8, not JSON or a form, a field of the wrong type);
- 200 with an empty body: a kind of request paperbot has no listener for (an event it doesn't subscribe
  to, a modal or shortcut), so Slack doesn't retry or show an error and nothing is done;
- otherwise the parsed payload, for Bolt.

A new kind of listener (a shortcut, a modal) needs its shape rule in :data:`INTERACTIONS` (or a new
event in the manifest's ``BOT_EVENTS`` and :data:`EVENT_RULES`). The uninstall events (the manifest's
``UNINSTALL_EVENTS``) are admitted too; without OAuth no listener takes them, and they get an empty 200.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

from slack_sdk.signature import Clock, SignatureVerifier

from bot.slack.manifest import COMMAND, EVENT_TYPES, SHORTCUTS, UNINSTALL_EVENTS
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION, MORE_ACTION, SAVE_ACTION

log = logging.getLogger(__name__)

FRESH_SECONDS = 5 * 60  # Slack's own window for a request's timestamp
MAX_DEPTH = 64  # JSON nesting; Slack's deepest payloads (rich text blocks) are around 10
ALARM_SECONDS = 60  # at most one warning a minute about refused signatures

_TIMESTAMP = re.compile(r"[0-9]{1,12}")  # int() would also take "+1", " 1", "1_0" and other digits
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
_USER_ID = re.compile(r"[UW][A-Z0-9]{1,30}")
_TEAM_ID = re.compile(r"[TE][A-Z0-9]{1,30}")

#: Buttons paperbot puts on messages: their listeners answer through the click's response_url.
MESSAGE_BUTTONS = frozenset({LIKE_ACTION, DISLIKE_ACTION, SAVE_ACTION, MORE_ACTION})

#: Interactivity payloads Slack sends that paperbot has no listener for: answered 200, nothing done.
IGNORED_INTERACTIONS = frozenset({
    "view_closed", "shortcut", "block_suggestion", "interactive_message",
    "dialog_submission", "dialog_cancellation", "dialog_suggestion", "workflow_step_edit",
})


@dataclass(frozen=True)
class Verdict:
    """What to do with one request: hand ``payload`` to Bolt, or answer ``status`` at once.

    ``kind`` names the outcome ("ok", "unsigned", "stale", "forged", "malformed", "ignored"); ``reason``
    is one short line for the log, made of field names and types only, never the request's own text.
    """

    kind: str
    status: int
    reason: str = ""
    payload: dict | None = None

    @property
    def admitted(self) -> bool:
        return self.kind == "ok"


class Malformed(ValueError):
    """A body or field that is not what Slack sends; the message says which."""


@dataclass(frozen=True)
class Body:
    """A parsed body: ``transport`` is "json" (events), "form" (slash commands) or "interactive" (a
    form whose ``payload`` field is JSON: buttons, modals, shortcuts)."""

    payload: dict
    transport: str


def judge(headers: Mapping[str, str], raw: bytes, secret: str, now: float | None = None) -> Verdict:
    """The verdict on one POST to the events URL: the signature first, then the body's shape."""
    first: dict[str, str] = {}
    for name, value in headers.items():
        first.setdefault(name.lower(), value)  # a repeated header: the first, as Bolt reads it
    headers = first
    refused = check_signature(headers, raw, secret, now)
    if refused is not None:
        return refused
    try:
        return check_shape(parse(headers.get("content-type", ""), raw.decode("utf-8")))
    except Malformed as exc:
        return Verdict("malformed", 400, str(exc))


def check_signature(headers: Mapping[str, str], raw: bytes, secret: str,
                    now: float | None = None) -> Verdict | None:
    """None when ``raw`` is signed with ``secret`` (``v0=`` HMAC of ``v0:{timestamp}:{body}``) at a
    timestamp within 5 minutes of ``now``; otherwise the 401 (headers: lower-case names)."""
    timestamp = headers.get("x-slack-request-timestamp")
    signature = headers.get("x-slack-signature")
    if timestamp is None or signature is None:
        return Verdict("unsigned", 401, "no Slack signature")
    if not _TIMESTAMP.fullmatch(timestamp) or not _SIGNATURE.fullmatch(signature):
        return Verdict("unsigned", 401, "a malformed signature or timestamp header")
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > FRESH_SECONDS:
        return Verdict("stale", 401, "a timestamp more than 5 minutes off")
    if not secret or not secret.strip():
        return Verdict("forged", 401, "no signing secret to check the signature with")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # Slack signs UTF-8 text; the verifier can't even hash other bytes
        return Verdict("forged", 401, "a body that is not UTF-8, so not signed by Slack")
    if not SignatureVerifier(secret, _At(now)).is_valid(text, timestamp, signature):
        return Verdict("forged", 401, "a bad signature")
    return None


def parse(content_type: str, text: str) -> Body:
    """The payload of a body as Slack sends them: JSON (events), a form (slash commands), or a form
    whose ``payload`` field is JSON (interactivity). Raises Malformed."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json":
        what = "the body"
        payload, transport = _json(text, what), "json"
    elif media == "application/x-www-form-urlencoded":
        form = dict(parse_qsl(text, keep_blank_values=True))
        if "payload" not in form:
            return Body(form, "form")
        what = "the payload field"
        payload, transport = _json(form["payload"], what), "interactive"
    else:
        raise Malformed(f"a content type Slack doesn't send ({_short(media) or 'none'})")
    if not isinstance(payload, dict):
        raise Malformed(f"{what} is {_type(payload)}, not a JSON object")
    return Body(payload, transport)


def check_shape(body: Body) -> Verdict:
    """Whether Bolt and paperbot's listeners can take ``body`` (from :func:`parse`) as it is."""
    payload = body.payload
    try:
        _depth(payload)
        if body.transport == "form":
            if "command" in payload:
                return _slash_command(payload)
            if "ssl_check" in payload:
                return Verdict("ignored", 200, "Slack's SSL check")
            raise Malformed("a form that is neither a slash command nor an interactivity payload")
        if "command" in payload:  # Bolt takes any body with a "command" key for a slash command
            raise Malformed("a command field in a payload that is not a slash command")
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise Malformed(f"type is {_type(kind)}, not a string")
        if body.transport == "interactive":
            return _interaction(kind, payload)
        return _json_request(kind, payload)
    except Malformed as exc:
        return Verdict("malformed", 400, str(exc))


# -- the kinds of request ----------------------------------------------------------------------------

def _slash_command(payload: dict) -> Verdict:
    for name in ("command", "user_id", "team_id"):
        if not payload.get(name):
            raise Malformed(f"a slash command without {name}")
    if not _USER_ID.fullmatch(payload["user_id"]):
        raise Malformed("a slash command whose user_id is not a Slack user id")
    if not _TEAM_ID.fullmatch(payload["team_id"]):
        raise Malformed("a slash command whose team_id is not a Slack team id")
    if payload["command"] != COMMAND:
        return Verdict("ignored", 200, "a slash command paperbot doesn't have")
    return _admit(payload)


_SHORTCUT_IDS = frozenset(shortcut["callback_id"] for shortcut in SHORTCUTS)


def _interaction(kind: str, payload: dict) -> Verdict:
    if kind in IGNORED_INTERACTIONS:
        return Verdict("ignored", 200, f"a {kind} payload, which paperbot has no listener for")
    rule = INTERACTIONS.get(kind)
    if rule is None:
        raise Malformed("an interactivity payload of an unknown type")
    if kind == "message_action" and _field(payload, "callback_id", str) not in _SHORTCUT_IDS:
        return Verdict("ignored", 200, "a message shortcut paperbot doesn't have")
    rule(payload)
    return _admit(payload)


def _json_request(kind: str, payload: dict) -> Verdict:
    if kind == "url_verification":
        _field(payload, "challenge", str, required=True)
        return _admit(payload)
    if kind == "app_rate_limited":
        return Verdict("ignored", 200, "Slack's notice that events were rate-limited")
    if kind != "event_callback":
        raise Malformed("a JSON body of an unknown type")
    _field(payload, "event_id", str, required=True, nonempty=True)
    _field(payload, "team_id", str, required=True, nonempty=True)
    _field(payload, "authorizations", list)
    event = _field(payload, "event", dict, required=True)
    event_type = _field(event, "type", str, required=True, nonempty=True, where="event")
    if event_type not in EVENT_TYPES and event_type not in UNINSTALL_EVENTS:
        return Verdict("ignored", 200, "an event paperbot doesn't subscribe to")
    EVENT_RULES.get(event_type, _no_rule)(event)
    return _admit(payload)


def _block_actions(payload: dict) -> None:
    user = _field(payload, "user", dict, required=True)
    _slack_user(_field(user, "id", str, required=True, where="user"), "user.id")
    _field(user, "team_id", str, where="user")
    team = _field(payload, "team", dict)  # None in org-wide installs
    if team:
        _field(team, "id", str, where="team")
    actions = _field(payload, "actions", list, required=True)
    if not actions:
        raise Malformed("a block_actions payload with no actions")
    for action in actions:
        if not isinstance(action, dict):
            raise Malformed(f"an action that is {_type(action)}, not an object")
        _field(action, "action_id", str, required=True, where="actions[]")
        for name in ("block_id", "value", "action_ts"):
            _field(action, name, str, where="actions[]")
    where_it_was = (("container", ("channel_id", "message_ts")), ("channel", ("id",)), ("message", ("ts",)))
    for name, keys in where_it_was:
        part = _field(payload, name, dict)
        for key in keys:
            if part:
                _field(part, key, str, where=name)
    for name in ("response_url", "trigger_id"):
        _field(payload, name, str)
    container = payload.get("container") or {}
    in_view = container.get("type") == "view" and isinstance(payload.get("view"), dict)
    paper_buttons = any(a["action_id"] in MESSAGE_BUTTONS for a in actions)
    if not payload.get("response_url") and (paper_buttons or not in_view):
        # Slack gives a click on a message a response_url (the listener answers through it); only a
        # click in a view (App Home, a modal) comes without one.
        raise Malformed("a click on a message without a response_url")


def _message_action(payload: dict) -> None:
    """A message shortcut (Save paper): who used it, where, on which message."""
    user = _field(payload, "user", dict, required=True)
    _slack_user(_field(user, "id", str, required=True, where="user"), "user.id")
    _field(payload, "callback_id", str, required=True)
    channel = _field(payload, "channel", dict)
    if channel:
        _field(channel, "id", str, where="channel")
    message = _field(payload, "message", dict, required=True)
    for name in ("text", "ts"):
        _field(message, name, str, where="message")
    for name in ("attachments", "blocks"):
        _field(message, name, list, where="message")
    for name in ("response_url", "trigger_id"):
        _field(payload, name, str)


def _view_submission(payload: dict) -> None:
    """A modal's submission (the App Home's forms): who, and the view with its inputs' state."""
    user = _field(payload, "user", dict, required=True)
    _slack_user(_field(user, "id", str, required=True, where="user"), "user.id")
    team = _field(payload, "team", dict)
    if team:
        _field(team, "id", str, where="team")
    _field(payload, "trigger_id", str)
    view = _field(payload, "view", dict, required=True)
    _field(view, "type", str, required=True, where="view")  # Bolt reads it before any listener
    for name in ("id", "callback_id", "private_metadata"):
        _field(view, name, str, where="view")
    state = _field(view, "state", dict, where="view")
    values = _field(state, "values", dict, where="view.state") if state else None
    for block in (values or {}).values():
        if not isinstance(block, dict) or not all(isinstance(v, dict) for v in block.values()):
            raise Malformed("view.state.values holds something other than objects of objects")


#: Interactivity payload types paperbot listens to, each with the rule its listener relies on.
INTERACTIONS: dict[str, Callable[[dict], None]] = {"block_actions": _block_actions,
                                                   "message_action": _message_action,
                                                   "view_submission": _view_submission}


def _reaction(event: dict) -> None:
    _field(event, "user", str, where="event")
    _field(event, "reaction", str, where="event")
    _field(event, "item_user", str, where="event")
    item = _field(event, "item", dict, where="event")
    for name in ("type", "channel", "ts"):
        if item:
            _field(item, name, str, where="event.item")


def _home_opened(event: dict) -> None:
    for name in ("user", "tab", "channel"):
        _field(event, name, str, where="event")


def _user_change(event: dict) -> None:
    user = _field(event, "user", dict, required=True, where="event")
    _field(user, "id", str, required=True, where="event.user")
    _field(user, "tz", str, where="event.user")


def _tokens_revoked(event: dict) -> None:
    tokens = _field(event, "tokens", dict, required=True, where="event")
    for name in ("oauth", "bot"):
        ids = _field(tokens, name, list, where="event.tokens")
        if ids and not all(isinstance(i, str) for i in ids):
            raise Malformed(f"event.tokens.{name} is not a list of strings")


def _link_shared(event: dict) -> None:
    for name in ("user", "channel", "message_ts", "unfurl_id", "source"):
        _field(event, name, str, where="event")
    links = _field(event, "links", list, required=True, where="event")
    for link in links:
        if not isinstance(link, dict):
            raise Malformed(f"a link that is {_type(link)}, not an object")
        _field(link, "url", str, where="event.links[]")


def _message(event: dict) -> None:
    for name in ("user", "channel", "channel_type", "text", "subtype", "bot_id", "ts"):
        _field(event, name, str, where="event")


def _no_rule(event: dict) -> None:
    for name in ("user", "channel"):  # Bolt reads these of every event
        _field(event, name, str, where="event")


#: The fields each subscribed event's listener reads, and their types.
EVENT_RULES: dict[str, Callable[[dict], None]] = {
    "reaction_added": _reaction, "reaction_removed": _reaction, "app_home_opened": _home_opened,
    "user_change": _user_change, "tokens_revoked": _tokens_revoked, "link_shared": _link_shared,
    "message": _message,
}


# -- helpers -----------------------------------------------------------------------------------------

def _admit(payload: dict) -> Verdict:
    _bolt_safe(payload, "")
    return Verdict("ok", 200, payload=payload)


#: Fields Bolt reads to find the team, user and channel: each None, a string or an object.
_BOLT_IDS = ("enterprise", "team", "user", "channel")
#: Objects Bolt looks into for those fields.
_BOLT_NESTED = ("event", "item", "message", "previous_message", "assistant_thread")


def _bolt_safe(obj: dict, where: str) -> None:
    """The fields Bolt reads before any listener (to build its context) have types it can take."""
    for name in _BOLT_IDS:
        value = obj.get(name)
        if value is not None and not isinstance(value, str | dict):
            raise Malformed(f"{where}{name} is {_type(value)}")
    for name in ("authorizations", "response_urls"):
        items = obj.get(name)
        if items is not None and not (isinstance(items, list) and all(isinstance(i, dict) for i in items)):
            raise Malformed(f"{where}{name} is not a list of objects")
    for item in obj.get("authorizations") or []:
        _bolt_safe(item, f"{where}authorizations[].")
    if obj.get("response_url") is not None and not isinstance(obj["response_url"], str):
        raise Malformed(f"{where}response_url is {_type(obj['response_url'])}")
    if "event" in obj and not isinstance(obj["event"], dict):
        raise Malformed(f"{where}event is {_type(obj['event'])}, not an object")
    for name in _BOLT_NESTED:
        if isinstance(obj.get(name), dict):
            _bolt_safe(obj[name], f"{where}{name}.")


def _field(obj: dict, name: str, kind: type, required: bool = False, nonempty: bool = False,
           where: str = ""):
    """``obj[name]`` if absent/None (unless ``required``) or of type ``kind``; else Malformed."""
    value = obj.get(name)
    label = f"{where}.{name}" if where else name
    if value is None:
        if required:
            raise Malformed(f"no {label}")
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise Malformed(f"{label} is {_type(value)}, not {_type(kind())}")
    if nonempty and not value:
        raise Malformed(f"{label} is empty")
    return value


def _slack_user(value: str, label: str) -> None:
    if not _USER_ID.fullmatch(value):
        raise Malformed(f"{label} is not a Slack user id")


def _depth(payload: object) -> None:
    """Malformed past :data:`MAX_DEPTH` levels of nesting (walked without recursion)."""
    stack = [(payload, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Malformed(f"JSON nested more than {MAX_DEPTH} levels deep")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def _json(text: str, what: str) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise Malformed(f"{what} is JSON nested too deep") from None
    except ValueError:
        raise Malformed(f"{what} is not JSON") from None


_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def _type(value: object) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _short(text: str, limit: int = 40) -> str:
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _At(Clock):
    def __init__(self, now: float):
        self._now = now

    def now(self) -> float:
        return self._now


# -- the log -----------------------------------------------------------------------------------------

class SignatureAlarm:
    """A warning, at most once a minute, with how many requests were refused for their signature since
    the last one: a wrong SLACK_SIGNING_SECRET (or a clock far off) refuses every request, and each
    refusal alone is only an INFO line."""

    def __init__(self, logger: logging.Logger = log, interval: float = ALARM_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self._logger, self._interval, self._clock = logger, interval, clock
        self._lock = threading.Lock()
        self._counts = {"forged": 0, "stale": 0}
        self._since: float | None = None
        self._last: float | None = None

    def note(self, verdict: Verdict) -> None:
        """Count a refused request; warn if a minute has passed since the last warning."""
        if verdict.kind not in self._counts:
            return
        with self._lock:
            now = self._clock()
            self._counts[verdict.kind] += 1
            if self._since is None:
                self._since = now
            if self._last is not None and now - self._last < self._interval:
                return
            counts, since = dict(self._counts), self._since
            self._counts = dict.fromkeys(self._counts, 0)
            self._last, self._since = now, None
        minutes = max(1, round((now - since) / 60))
        span = "the last minute" if minutes == 1 else f"the last {minutes} minutes"
        if counts["forged"]:
            self._logger.warning("%s with a bad signature in %s: check SLACK_SIGNING_SECRET",
                                 _requests(counts["forged"]), span)
        if counts["stale"]:
            self._logger.warning("%s with a timestamp more than 5 minutes off in %s: check this "
                                 "machine's clock", _requests(counts["stale"]), span)


def _requests(n: int) -> str:
    return "1 request" if n == 1 else f"{n} requests"
