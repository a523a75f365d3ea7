"""Driving the real bot over HTTP like Slack does: signed slash commands, events and button clicks; the
environment a paperbot process gets, and the databases it is handed (seeded with the five-topic corpus).

Shared by the end-to-end suite (through tests/e2e/harness.py), the benchmarks and the image's CI check.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from bot.state.context import Context
from bot.usecases import follow, ingest
from stand_ins.corpus import make_corpus
from stand_ins.slack import SlackStandIn
from storage import SqliteStore, Store, open_store

ROOT = Path(__file__).resolve().parents[1]
SIGNING_SECRET = "e2e-signing-secret"
BOT_TOKEN = "xoxb-e2e-bot-token"
TEAM_ID = "T0STANDIN"

#: Every variable that paperbot or Bolt reads; the tests set the ones they need and clear the rest.
SLACK_ENVIRONMENT = (
    "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET", "SLACK_SCOPES", "SLACK_USER_SCOPES", "SLACK_INSTALLATION_FILE_BASE_DIR",
    "SLACK_STATE_FILE_BASE_DIR", "SLACK_REDIRECT_URI", "SLACK_VERIFICATION_TOKEN", "PAPERBOT_DB", "PORT",
    "PAPERBOT_DIGEST_SIZE", "PAPERBOT_FEEDS", "PAPERBOT_SECRET_KEY",
)


def bot_environment(standin: SlackStandIn, db_path: Path | str, digest_size: int = 3) -> dict[str, str]:
    """The environment `paperbot run` gets in these tests, and nothing else."""
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": standin.base_url,
        "PAPERBOT_DB": str(db_path),
        "PAPERBOT_DIGEST_SIZE": str(digest_size),
    }


def process_environment(folder: Path, settings: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a paperbot subprocess: ``settings`` and none of the developer's own
    variables, ``folder`` as HOME, this checkout importable, lines wide enough not to wrap."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder), "PYTHONPATH": str(ROOT),
            "COLUMNS": "200", **(settings or {})}


def seed_papers(db_path: Path | str, extra: list[dict] | None = None) -> None:
    """Ingest the five-topic synthetic corpus (plus ``extra`` records) through the ingest use case."""
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract, "authors": p.authors, "venue": p.venue}
               for p in make_corpus()] + list(extra or [])
    source = _scratch(db_path) / "paperbot.seed.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ctx = Context.open(str(db_path))
    try:
        reports = ingest(ctx, [str(source)])
        assert not reports[0].error and not reports[0].rejected, reports
    finally:
        ctx.close()


class PostgresTarget(str):
    """A PostgreSQL URL that stands where the tests pass a database file: ``parent`` is a scratch folder
    (a subprocess's HOME and cwd, seed files), as a file's folder is."""

    parent: Path

    def __new__(cls, url: str, parent: Path) -> PostgresTarget:
        target = super().__new__(cls, url)
        target.parent = parent
        return target


def _scratch(db_path: Path | str) -> Path:
    return db_path.parent if isinstance(db_path, PostgresTarget) else Path(db_path).parent


@contextlib.contextmanager
def opened(db_path: Path | str, ws: str = TEAM_ID) -> Iterator[Store]:
    """The store at ``db_path`` (either backend) as workspace ``ws`` sees it (default: the stand-in's
    one workspace, which the bot serves), closed (its pool disposed) on the way out."""
    store = open_store(str(db_path))
    try:
        yield store.for_workspace(ws)
    finally:
        getattr(store, "dispose", store.close)()


def query(store, sql: str, args: list | None = None) -> list[dict]:
    """Rows of a test's own SQL (written with ``?`` placeholders, in the dialect both backends share)."""
    if isinstance(store, SqliteStore):
        return list(store.db.query(sql, args or []))
    return store._rows(sql.replace("?", "%s"), args or [])


DIGEST_TOPICS = ["feline cats whiskers", "graph neural networks", "diffusion models denoising",
                 "robot grasping", "quantum qubits entanglement"]


def add_people(db: Path, users: list[str], tz: str = "Asia/Kolkata", hhmm: str = "00:00",
               since: str = "2020-01-01T00:00:00+00:00") -> None:
    """People who follow a topic each (of DIGEST_TOPICS, in turn), with a digest at ``hhmm`` in ``tz`` set
    at ``since`` (by default: due all day today; Kolkata, far from UTC, shows a time-zone slip)."""
    opened_ctx = Context.open(str(db))
    ctx = opened_ctx.for_workspace(TEAM_ID)  # the stand-in's workspace, which the bot serves
    try:
        for i, user in enumerate(users):
            follow(ctx, user, DIGEST_TOPICS[i % len(DIGEST_TOPICS)])
            with ctx.store.transaction():
                ctx.store.set_timezone(user, tz)
                ctx.store.set_digest_schedule(user, hhmm, True, since=since)
    finally:
        opened_ctx.close()


@dataclass
class Answer:
    """A slash command's outcome: the HTTP status, the ack's JSON (if any) and its response_url key."""

    status: int
    ack: dict | None
    key: str
    seconds: float


@dataclass
class Reply:
    """What the caller saw: ``via`` is "ack" or "respond"."""

    text: str
    blocks: list
    response_type: str | None
    via: str
    raw: dict


class FakeSlack:
    """Sends requests to the bot the way Slack's servers do, signed with the signing secret."""

    _counter = itertools.count(1)

    def __init__(self, url: str, standin: SlackStandIn, secret: str = SIGNING_SECRET):
        self.url = url
        self.standin = standin
        self.verifier = SignatureVerifier(secret)
        host_port = url.split("//", 1)[1].split("/", 1)[0]
        self.host, port = host_port.split(":")
        self.port = int(port)
        self.path = "/" + url.split("//", 1)[1].split("/", 1)[1]

    # -- raw requests ----------------------------------------------------------------------------

    def post(self, body: str, content_type: str, timestamp: int | None = None, signature: str | None = None,
             headers: dict | None = None) -> tuple[int, bytes, float]:
        """POST ``body`` signed (or with the given ``signature``); returns status, body, seconds taken."""
        ts = str(int(time.time()) if timestamp is None else timestamp)
        sig = signature or self.verifier.generate_signature(timestamp=ts, body=body)
        all_headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
                       "X-Slack-Signature": sig, "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
                       **(headers or {})}
        start = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request("POST", self.path, body=body.encode(), headers=all_headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        return response.status, data, time.perf_counter() - start

    # -- what Slack sends ------------------------------------------------------------------------

    def command_body(self, user: str, text: str, channel: str = "C0GENERAL",
                     team_id: str = TEAM_ID) -> tuple[str, str]:
        key = f"cmd{next(self._counter)}"
        body = urlencode({
            "token": "legacy-verification-token", "team_id": team_id, "team_domain": "standin",
            "channel_id": channel, "channel_name": "general", "user_id": user, "user_name": user.lower(),
            "command": "/papers", "text": text, "api_app_id": "A0PAPERBOT", "is_enterprise_install": "false",
            "response_url": self.standin.response_url(key), "trigger_id": f"{key}.trigger",
        })
        return body, key

    def command(self, user: str, text: str, team_id: str = TEAM_ID, **kwargs) -> Answer:
        """Send `/papers TEXT` as ``user`` (of workspace ``team_id``)."""
        body, key = self.command_body(user, text, team_id=team_id)
        status, data, seconds = self.post(body, "application/x-www-form-urlencoded", **kwargs)
        ack = json.loads(data) if data.startswith(b"{") else None
        return Answer(status, ack, key, seconds)

    def ask(self, user: str, text: str, timeout: float = 15.0) -> Reply:
        """Send `/papers TEXT` and return the reply the caller sees (from the ack, or via response_url)."""
        answer = self.command(user, text)
        assert answer.status == 200, answer
        if answer.ack and (answer.ack.get("text") or answer.ack.get("blocks")):
            return reply_of(answer.ack, "ack")
        call = self.standin.wait_for(lambda: self.standin.responses(answer.key), timeout,
                                     f"a reply to /papers {text[:40]!r}")[0]
        return reply_of(call.params, "respond")

    def event(self, event: dict, event_id: str | None = None, retry_num: int | None = None,
              team_id: str = TEAM_ID, **kwargs) -> tuple[int, bytes, float]:
        """Deliver an Events API callback (``retry_num`` adds Slack's redelivery headers)."""
        payload = {
            "token": "legacy-verification-token", "team_id": team_id, "api_app_id": "A0PAPERBOT",
            "event": event, "type": "event_callback",
            "event_id": event_id or f"Ev{next(self._counter):010d}", "event_time": int(time.time()),
            "authorizations": [{"team_id": team_id, "user_id": "UPAPERBOT", "is_bot": True}],
        }
        headers = dict(kwargs.pop("headers", {}) or {})
        if retry_num is not None:
            headers.update({"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"})
        return self.post(json.dumps(payload), "application/json", headers=headers, **kwargs)

    def reaction(self, user: str, name: str, channel: str, ts: str, added: bool = True,
                 event_id: str | None = None, retry_num: int | None = None) -> int:
        event = {"type": "reaction_added" if added else "reaction_removed", "user": user, "reaction": name,
                 "item_user": "UPAPERBOT", "item": {"type": "message", "channel": channel, "ts": ts},
                 "event_ts": f"{time.time():.6f}"}
        return self.event(event, event_id=event_id, retry_num=retry_num)[0]

    def click_payload(self, user: str, action_id: str, channel: str, ts: str,
                      team_id: str = TEAM_ID) -> tuple[dict, str]:
        """A button click's payload as Slack sends it, and its response_url key."""
        key = f"act{next(self._counter)}"
        payload = {
            "type": "block_actions", "team": {"id": team_id, "domain": "standin"},
            "user": {"id": user, "username": user.lower(), "team_id": team_id}, "api_app_id": "A0PAPERBOT",
            "token": "legacy-verification-token", "trigger_id": f"{key}.trigger",
            "container": {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False},
            "channel": {"id": channel, "name": "directmessage"},
            "message": {"type": "message", "ts": ts, "user": "UPAPERBOT", "text": "a paper"},
            "response_url": self.standin.response_url(key),
            "actions": [{"action_id": action_id, "block_id": "b1", "type": "button", "value": "x",
                         "action_ts": f"{time.time():.6f}"}],
        }
        return payload, key

    def interaction(self, payload: object, **kwargs) -> tuple[int, bytes, float]:
        """POST an interactivity payload the way Slack does: a form with one JSON ``payload`` field."""
        return self.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded",
                         **kwargs)

    def click(self, user: str, action_id: str, channel: str, ts: str,
              team_id: str = TEAM_ID) -> tuple[int, str]:
        """Click a button on a message; returns the status and the response_url key."""
        payload, key = self.click_payload(user, action_id, channel, ts, team_id)
        return self.interaction(payload)[0], key


def reply_of(payload: dict, via: str) -> Reply:
    """What the caller sees of a reply's ``payload``, that came ``via`` "ack" or "respond"."""
    return Reply(payload.get("text") or "", payload.get("blocks") or [], payload.get("response_type"), via,
                 payload)

