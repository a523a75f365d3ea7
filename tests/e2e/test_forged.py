"""End to end: unsigned, forged, malformed and foreign requests against the real bot over HTTP.

Each is refused (401/400, or an empty 200 where Slack must not retry) before it can write anything, with
one short log line and never a traceback.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import subprocess
import sys
import time
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from bot.slack.app import SORRY
from bot.slack.views.messages import LIKE_ACTION
from bot.slack.workspace import NOT_INSTALLED
from stand_ins.slack import SlackStandIn
from storage import SqliteStore
from tests.e2e.harness import (
    FakeSlack,
    LogCapture,
    bot_environment,
    listening_url,
    opened,
    posts_to,
    process_environment,
    seed_papers,
    serving,
    table_counts,
    user_ids,
)
from tests.e2e.socket_mode_standin import SocketModeStandIn
from tests.e2e.test_socket_mode import APP_TOKEN, Stderr
from tests.e2e.test_socket_mode import command as socket_command
from tests.e2e.test_socket_mode import environment as socket_environment

FOREIGN = "TFOREIGN"
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"

new_user = user_ids("UFORGE")


@pytest.fixture
def logs():
    with LogCapture() as capture:
        yield capture


def raw_post(slack: FakeSlack, body: bytes, headers: dict) -> tuple[int, bytes]:
    """A POST with exactly these headers (FakeSlack.post always signs)."""
    conn = http.client.HTTPConnection(slack.host, slack.port, timeout=30)
    try:
        conn.request("POST", slack.path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def assert_one_line_each(logs: LogCapture, requests: int, pattern: str) -> None:
    assert "Traceback" not in logs.text, logs.text
    lines = [line for line in logs.lines if re.search(pattern, line)]
    assert len(lines) == requests, logs.text
    assert all("\n" not in line and len(line) < 200 for line in logs.lines), logs.text


def event_body(event: object, **fields) -> str:
    payload = {"type": "event_callback", "team_id": "T0STANDIN", "api_app_id": "A0PAPERBOT", "event": event,
               "event_id": f"EvForged{time.time_ns()}", "event_time": int(time.time()),
               "authorizations": [{"team_id": "T0STANDIN", "user_id": "UPAPERBOT", "is_bot": True}]}
    payload.update(fields)
    return json.dumps(payload)


# -- unsigned and forged ---------------------------------------------------------------------------

UNSIGNED = [(b"[]", JSON), (b'"x"', JSON), (b"null", JSON), (b"{", JSON), (b"[" * 50_000, JSON),
            (b"payload=x", FORM), (b"payload=%5B%5D", FORM), (b"command=%2Fpapers&user_id=", FORM),
            (b"\xff\xfe", FORM), (b"", JSON)]


def test_unsigned_bodies_of_any_shape_are_401_with_one_line_and_no_traceback(slack, db_path, logs):
    before = table_counts(db_path)
    for body, content_type in UNSIGNED:
        assert raw_post(slack, body, {"Content-Type": content_type}) == (401, b"invalid signature"), body[:20]
        forged = {"Content-Type": content_type, "X-Slack-Request-Timestamp": str(int(time.time())),
                  "X-Slack-Signature": "v0=" + "0" * 64}
        assert raw_post(slack, body, forged)[0] == 401, body[:20]
    assert_one_line_each(logs, 2 * len(UNSIGNED), r"refused a request \(401\)")
    assert table_counts(db_path) == before


@pytest.mark.parametrize("timestamp", ["abc", "", "1.5", "+" + str(int(time.time())), "1e9", "0x10"],
                         ids=["abc", "empty", "1.5", "plus-now", "1e9", "0x10"])
def test_a_malformed_timestamp_is_401(slack, timestamp, logs):
    user = new_user()
    body, key = slack.command_body(user, "follow cats")
    signature = slack.verifier.generate_signature(timestamp=timestamp, body=body)
    headers = {"Content-Type": FORM, "X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature}
    assert raw_post(slack, body.encode(), headers)[0] == 401
    assert_one_line_each(logs, 1, r"refused a request \(401\)")
    assert "none yet" in slack.ask(user, "interests").text


# -- signed, but not what Slack sends ------------------------------------------------------------------

def signed_malformed(slack: FakeSlack) -> list[tuple[str, str]]:
    user = new_user()
    reaction = {"type": "reaction_added", "user": user, "reaction": "+1", "item_user": "UPAPERBOT",
                "item": {"type": "message", "channel": "D" + user, "ts": "1.000001"}}
    click, _ = slack.click_payload(user, LIKE_ACTION, "D" + user, "1.000001")
    deep = "[" * 100_000 + "]" * 100_000
    return [
        ("[]", JSON), ('"x"', JSON), ("123", JSON), ("null", JSON), (deep, JSON),
        (event_body(None), JSON), (event_body("reaction_added"), JSON), (event_body([reaction]), JSON),
        (event_body(reaction, event_id={"id": "EvDict"}), JSON),
        (event_body(reaction, authorizations="x"), JSON),
        (event_body({**reaction, "user": 12345}), JSON), (event_body({**reaction, "item": "x"}), JSON),
        (event_body({"type": "user_change", "user": {"id": user, "tz": 5}}), JSON),
        (urlencode_payload({**click, "actions": []}), FORM),
        (urlencode_payload({**click, "actions": {"action_id": LIKE_ACTION}}), FORM),
        (urlencode_payload({**click, "user": user}), FORM),
        (urlencode_payload({"type": "view_submission", "view": {"callback_id": "nothing_of_ours"}}), FORM),
        (urlencode_payload({"type": "shortcut", "callback_id": "nothing_of_ours"}), FORM),
        (urlencode_payload([]), FORM), (urlencode_payload(deep), FORM), ("payload=%7B", FORM),
        (json.dumps({"type": "event_callback", "command": "/papers", "user_id": user, "text": "follow cats"}),
         JSON),
    ]


def urlencode_payload(payload: object) -> str:
    return urlencode({"payload": payload if isinstance(payload, str) else json.dumps(payload)})


def test_signed_malformed_payloads_are_200_or_400_write_nothing_and_log_one_line(slack, db_path, logs):
    bodies = signed_malformed(slack)
    before = table_counts(db_path)
    for body, content_type in bodies:
        status, data, _ = slack.post(body, content_type)
        assert status in (200, 400), (status, body[:80])
        assert status == 400 or data == b"", (data, body[:80])
    assert_one_line_each(logs, len(bodies), r"(refused|ignored) a request \((400|200)\)")
    assert table_counts(db_path) == before


def test_url_verification_still_answers_its_challenge(slack):
    status, data, _ = slack.post(json.dumps({"token": "t", "challenge": "c-123", "type": "url_verification"}),
                                 JSON)
    assert status == 200 and json.loads(data) == {"challenge": "c-123"}


def test_a_button_paperbot_does_not_have_is_an_empty_200_and_one_short_line(slack, logs):
    payload, _ = slack.click_payload(new_user(), "no_such_button", "D1", "1.000001")
    status, data, _ = slack.interaction(payload)
    assert (status, data) == (200, b"")
    assert_one_line_each(logs, 1, r"Unhandled request")
    assert "Suggestion" not in logs.text


def test_a_command_with_an_empty_or_missing_user_id_is_400_and_stores_nothing(slack, db_path, logs):
    before = table_counts(db_path)
    body, key = slack.command_body("", "follow cats")
    assert slack.post(body, FORM)[0] == 400
    body = body.replace("user_id=&", "")
    assert "user_id" not in body and slack.post(body, FORM)[0] == 400
    body, key = slack.command_body("not-a-slack-id", "follow cats")
    assert slack.post(body, FORM)[0] == 400
    assert_one_line_each(logs, 3, r"refused a request \(400\)")
    assert table_counts(db_path) == before and not slack.standin.responses(key)


def test_search_for_the_word_payload_is_answered(slack):
    """Bolt reads a form with "payload" anywhere in it as interactivity: this reached it empty (404)."""
    reply = slack.ask(new_user(), "search payload of quantum circuits")
    assert "matching" in reply.text


def test_recommend_with_a_unicode_digit_gets_the_bad_argument_reply(slack):
    user = new_user()
    slack.ask(user, "follow quantum circuits")
    for text in ("recommend ²", "recommend ٣", "recommend " + "9" * 5000, "digest ٠٨:٣٠"):
        reply = slack.ask(user, text)
        assert reply.text != SORRY and "/papers help" in reply.text, (text, reply.text)


# -- foreign workspaces ----------------------------------------------------------------------------

def test_a_foreign_workspaces_requests_are_refused_and_write_nothing(slack, standin, db_path, logs, running):
    local = new_user()
    assert slack.event({"type": "app_home_opened", "user": local, "tab": "home"})[0] == 200
    standin.wait_for(lambda: standin.calls("views.publish", user_id=local), what="Home opened")
    slack.ask(local, "follow robot grasping")
    with opened(db_path) as store:
        assert store.get_person(local).tz == "Europe/Berlin"
    recs = slack.ask(local, "recommend 1")
    assert "I sent you 1 paper" in recs.text
    paper = [c for c in posts_to(standin, "D" + local) if c.params.get("blocks")][-1]
    channel, ts = paper.params["channel"], paper.response["ts"]
    before = table_counts(db_path)
    # Home is published after `follow` (opened before); nothing the foreign workspace sends may publish it
    # again.
    homes = len(standin.wait_for(lambda: standin.calls("views.publish", user_id=local)[1:]
                                 and standin.calls("views.publish", user_id=local), what="Home"))
    logs.clear()

    answer = slack.command(new_user(), "follow cats", team_id=FOREIGN)
    assert answer.status == 200 and answer.ack == {"response_type": "ephemeral", "text": NOT_INSTALLED}
    foreign_local = slack.command(local, "forget", team_id=FOREIGN)
    assert foreign_local.ack["text"] == NOT_INSTALLED
    status, data, _ = slack.event({"type": "user_change", "user": {"id": local, "tz": "Asia/Tokyo"}},
                                  event_id="EvForeignChange", team_id=FOREIGN)
    assert (status, data) == (200, b"")
    reaction = {"type": "reaction_added", "user": local, "reaction": "-1", "item_user": "UPAPERBOT",
                "item": {"type": "message", "channel": channel, "ts": ts}}
    assert slack.event(reaction, event_id="EvForeignReaction", team_id=FOREIGN)[:2] == (200, b"")
    assert slack.click(local, LIKE_ACTION, channel, ts, team_id=FOREIGN)[0] == 200
    assert slack.event({"type": "app_home_opened", "user": local, "tab": "home"}, team_id=FOREIGN)[0] == 200

    assert_one_line_each(logs, 6, r"refused a request from workspace TFOREIGN")
    running.settle()  # a write that slipped through would be background work: it has had its chance
    assert table_counts(db_path) == before
    with opened(db_path) as store:
        assert store.get_person(local).tz == "Europe/Berlin"
        assert store.claim_once("event:EvForeignChange", timedelta(minutes=1))
        assert store.claim_once("event:EvForeignReaction", timedelta(minutes=1))
    assert not standin.responses(answer.key) and len(standin.calls("views.publish", user_id=local)) == homes
    assert "Your topics:* robot grasping" in slack.ask(local, "interests").text


# -- the log ---------------------------------------------------------------------------------------

def test_a_wrong_signing_secret_is_one_warning_not_silence(standin, db_path):
    with serving(standin, db_path) as bot:  # its own gate, so no other test's refusals are in its count
        wrong = FakeSlack(bot.url, standin, secret="a-secret-slack-never-had")
        with LogCapture() as logs:
            for _ in range(5):
                assert wrong.command(new_user(), "help").status == 401
        warnings = [line for line in logs.lines if line.startswith("WARNING")]
        assert warnings == ["WARNING bot.slack.gate 1 request with a bad signature in the last minute: "
                            "check SLACK_SIGNING_SECRET"], logs.text


def test_paperbot_run_logs_user_text_escaped_and_refusals_in_one_line(standin, db_path, tmp_path):
    env = process_environment(tmp_path, bot_environment(standin, db_path))
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "-v", "run", "--port", "0"], cwd=tmp_path,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        slack = FakeSlack(listening_url(process), standin)
        reply = slack.ask(new_user(), "\x1b[2Jfrob\u202eevil\x07")
        assert "I don't know the subcommand" in reply.text
        assert raw_post(slack, b"[]", {"Content-Type": JSON})[0] == 401
        assert slack.post("[]", JSON)[0] == 400
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err, err
    # Control characters are dropped from a command; what else can't be shown is escaped in the log.
    assert "[2Jfrob\\u202eevil" in err, err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err, err
    assert "INFO refused a request (401): no Slack signature" in err.splitlines()
    assert "INFO refused a request (400): the body is a list, not a JSON object" in err.splitlines()


def test_socket_mode_refuses_a_foreign_workspace_too(tmp_path):
    db = tmp_path / "paperbot.db"
    seed_papers(db)
    with SlackStandIn() as standin, SocketModeStandIn() as socket_mode:
        standin.socket_mode_url = socket_mode.url
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run"],
                                   env=socket_environment(standin, db), cwd=tmp_path,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            stderr = Stderr(process)
            standin.wait_for(socket_mode.connected, timeout=30, what="the Socket Mode connection")
            assert standin.calls("apps.connections.open")[0].headers["authorization"] == f"Bearer {APP_TOKEN}"
            foreign = {**socket_command("follow feline cats", standin.response_url("foreign")),
                       "team_id": FOREIGN}
            ack = socket_mode.wait_for_ack(socket_mode.send("slash_commands", foreign))
            assert ack["payload"]["text"] == NOT_INSTALLED
            ours = socket_command("follow robot grasping", standin.response_url("ours"))
            socket_mode.wait_for_ack(socket_mode.send("slash_commands", ours))
            standin.wait_for(lambda: standin.responses("ours"), what="the reply in the installed workspace")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        err = stderr.text()
        assert process.returncode == 0, err
        assert not standin.responses("foreign") and "Traceback" not in err
        assert "refused a request from workspace TFOREIGN" in err
    store = SqliteStore(db)
    try:
        assert [row["topic"] for row in store.db["topics"].rows] == ["robot grasping"]
    finally:
        store.close()
