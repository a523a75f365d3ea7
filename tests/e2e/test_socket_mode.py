"""End to end in Socket Mode: `paperbot run` with SLACK_APP_TOKEN, as its own process, holding a real
WebSocket to a local stand-in of Slack's Socket Mode endpoint; commands and events arrive as envelopes
and are acked over that socket. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from stand_ins.slack import SlackStandIn
from tests.e2e.harness import (
    BOT_TOKEN,
    TEAM_ID,
    new_database,
    opened,
    posts_to,
    process_environment,
    query,
    seed_papers,
)
from tests.e2e.socket_mode_standin import SocketModeStandIn

USER = "USOCKET01"
APP_TOKEN = "xapp-1-standin"
_TRIGGERS = itertools.count(1)


def environment(standin: SlackStandIn, db: Path) -> dict[str, str]:
    """`paperbot run`'s whole environment: Socket Mode (an app-level token), Slack on localhost."""
    return process_environment(db.parent, {
        "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN, "SLACK_API_URL": standin.base_url,
        "PAPERBOT_DB": str(db), "PAPERBOT_DIGEST_SIZE": "3"})


@pytest.fixture
def db(tmp_path, backend):
    """A seeded database on each backend in turn (tests/e2e/harness.py)."""
    with new_database(tmp_path, backend) as path:
        seed_papers(path)
        yield path


def command(text: str, response_url: str) -> dict:
    """A slash command's payload as Socket Mode delivers it (the same fields as over HTTP), each with a
    trigger id of its own, as from Slack."""
    return {"token": "legacy", "team_id": TEAM_ID, "team_domain": "standin", "channel_id": "C0GENERAL",
            "channel_name": "general", "user_id": USER, "user_name": "socket", "command": "/papers",
            "text": text, "api_app_id": "A0PAPERBOT", "is_enterprise_install": "false",
            "response_url": response_url, "trigger_id": f"t.{next(_TRIGGERS)}"}


def reaction(name: str, channel: str, ts: str) -> dict:
    return {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0PAPERBOT", "type": "event_callback",
            "event_id": "EvSOCKET0001", "event_time": 1,
            "event": {"type": "reaction_added", "user": USER, "reaction": name, "item_user": "UPAPERBOT",
                      "item": {"type": "message", "channel": channel, "ts": ts}, "event_ts": "1.0"},
            "authorizations": [{"team_id": TEAM_ID, "user_id": "UPAPERBOT", "is_bot": True}]}


class Stderr:
    """`paperbot run`'s stderr (started with ``stderr=PIPE, text=True``), read until it says it is connecting
    to Slack in Socket Mode, then drained on a thread (the pipe never fills). Its start-up takes what it
    takes on a loaded machine (it ends, failing the read, if it can't start): only the connection is timed."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        while not self.lines or "connecting to Slack in Socket Mode" not in self.lines[-1]:
            self.lines.append(process.stderr.readline())
            assert self.lines[-1], "".join(self.lines) + process.stderr.read()
        self._reader = threading.Thread(target=lambda: self.lines.extend(process.stderr), daemon=True)
        self._reader.start()

    def text(self) -> str:
        """All of it, once the process has ended."""
        self._reader.join(timeout=60)
        return "".join(self.lines)


def test_paperbot_run_in_socket_mode_answers_over_the_websocket_and_stops_on_sigterm(tmp_path, db):
    with SlackStandIn() as standin, SocketModeStandIn() as socket_mode:
        standin.socket_mode_url = socket_mode.url
        env = environment(standin, db)
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run"], env=env, cwd=tmp_path,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            stderr = Stderr(process)
            standin.wait_for(socket_mode.connected, timeout=30, what="the Socket Mode connection")
            assert standin.calls("apps.connections.open")[0].headers["authorization"] == f"Bearer {APP_TOKEN}"

            # `help` is answered in the ack itself, over the socket.
            ack = socket_mode.wait_for_ack(socket_mode.send("slash_commands", command("help", "")))
            assert "/papers follow" in ack["payload"]["text"]

            # `follow` is acked at once, then answered through its response_url.
            envelope = socket_mode.send("slash_commands", command("follow feline cats",
                                                                  standin.response_url("follow")))
            socket_mode.wait_for_ack(envelope)
            reply = standin.wait_for(lambda: standin.responses("follow"), what="the follow reply")[0]
            assert "Now following “feline cats”" in reply.params["text"]

            # `recommend` posts into the DM; a 👍 on a paper, sent as an events_api envelope, is a like.
            socket_mode.wait_for_ack(socket_mode.send("slash_commands", command("recommend 2",
                                                                                standin.response_url("rec"))))
            standin.wait_for(lambda: len(posts_to(standin, "D" + USER)) >= 3, what="header and papers")
            paper = next(c for c in posts_to(standin, "D" + USER) if c.params.get("blocks"))
            channel, ts = paper.response["channel"], paper.response["ts"]
            socket_mode.wait_for_ack(socket_mode.send("events_api", reaction("+1", channel, ts)))
            with opened(db) as store:
                liked = standin.wait_for(
                    lambda: [f for f in store.get_feedback(USER) if f.value > 0], what="the like")
                assert len(liked) == 1 and liked[0].paper_id in {r["paper_id"] for r in query(
                    store, "select paper_id from shown where user_id = ? and message_ts = ?", [USER, ts])}
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        out, err = process.stdout.read(), stderr.text()
        assert process.returncode == 0, err
        assert "Socket Mode" in err and "paperbot stopped" in err and "Traceback" not in err + out


def test_an_app_token_slack_refuses_is_one_clear_line(tmp_path):
    db = tmp_path / "paperbot.db"  # about Slack's answer, not the database: SQLite is enough
    seed_papers(db)
    with SlackStandIn() as standin:  # no Socket Mode endpoint: apps.connections.open says no
        env = environment(standin, db)
        done = subprocess.run([sys.executable, "-m", "bot.cli", "run"], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Slack did not accept SLACK_APP_TOKEN (not_allowed_token_type)" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
