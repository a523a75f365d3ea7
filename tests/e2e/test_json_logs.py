"""PAPERBOT_LOG_FORMAT=json on a real `paperbot run`: every line on its stdout is one JSON object with
time, level, logger and message, the request's key, workspace and user where one is being handled, an
error as one field; no token anywhere. Its own lines (listening, stopping) stay on stderr."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from datetime import datetime

from stand_ins.slack import SlackStandIn
from tests.e2e.harness import (
    BOT_TOKEN,
    SIGNING_SECRET,
    TEAM_ID,
    FakeSlack,
    bot_environment,
    listening_url,
    process_environment,
    seed_papers,
)

STOP_SECONDS = 60.0


def drained(stream, into: list[str]) -> threading.Thread:
    thread = threading.Thread(target=lambda: into.extend(line.rstrip("\n") for line in stream), daemon=True)
    thread.start()
    return thread


def test_every_stdout_line_of_paperbot_run_is_a_json_object_without_a_token(tmp_path):
    db = tmp_path / "paperbot.db"
    seed_papers(db)
    with SlackStandIn() as standin:
        settings = {**bot_environment(standin, db), "PAPERBOT_LOG_FORMAT": "json"}
        environ = process_environment(tmp_path, settings)
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "-v", "run", "--port", "0"],
                                   cwd=tmp_path, env=environ, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out: list[str] = []
        err: list[str] = []
        threads = [drained(process.stdout, out)]
        try:
            slack = FakeSlack(listening_url(process), standin)
            threads.append(drained(process.stderr, err))
            user = "UJSONLOG1"
            assert "graph" in slack.ask(user, "follow graph neural networks").text.lower()
            standin.fail("chat.postMessage", status=500, times=10)  # a failure logged with its request
            slack.ask(user, "recommend")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=STOP_SECONDS)
            for thread in threads:
                thread.join(timeout=STOP_SECONDS)
    assert out, "no log lines at all on stdout"
    records = [json.loads(line) for line in out]  # every line parses
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys(), record
        assert datetime.fromisoformat(record["time"]).utcoffset().total_seconds() == 0
        assert "\n" not in record["message"] and "Traceback" not in json.dumps(record)
    handled = [r for r in records if r.get("workspace") == TEAM_ID and r.get("user") == user]
    assert handled and all(r.get("request") for r in handled), out
    everything = "\n".join(out + err)
    assert BOT_TOKEN not in everything and SIGNING_SECRET not in everything
    assert any("stopped" in line for line in err)  # the run's own lines: stderr, not stdout
