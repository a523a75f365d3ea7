import http.client
import json
import logging
import threading
import time

import pytest
from slack_bolt import BoltResponse

from bot.errors import BadArgument, NoInterests
from bot.slack.error_handler import KEPT_FOR_LATER, SORRY, report_error
from bot.slack.runtime import Background
from bot.slack.server import MAX_BODY, HttpServer
from stand_ins.waiting import wait_until
from storage import StoreBusy, StoreUnavailable
from tests.bot.slack.conftest import command_request, event_request

log = logging.getLogger("test")


class Respond:
    def __init__(self):
        self.sent = []

    def __call__(self, **kwargs):
        self.sent.append(kwargs)


def test_a_paperbot_error_before_the_ack_is_the_commands_answer():
    response = report_error(BadArgument("No <b> & such"), {"command": "/papers"}, None, log,
                            BoltResponse(status=500))
    body = json.loads(response.body)
    assert response.status == 200 and body["response_type"] == "ephemeral"
    assert body["text"] == "No &lt;b&gt; &amp; such. See `/papers help`."


def test_a_bad_argument_s_answer_ends_its_sentence_before_pointing_to_help():
    texts = [report_error(BadArgument(said), {"command": "/papers"}, None, log, BoltResponse(status=500)).body
             for said in ("Try `/papers mute x`", "Too long.", "Really?")]
    assert [json.loads(t)["text"] for t in texts] == ["Try `/papers mute x`. See `/papers help`.",
                                                      "Too long. See `/papers help`.",
                                                      "Really? See `/papers help`."]


def test_after_the_ack_errors_go_through_respond_and_never_show_a_traceback(caplog):
    respond = Respond()
    assert report_error(NoInterests(), {"command": "/papers"}, respond, log) is None
    assert respond.sent == [{"text": "You don't follow anything yet: try `/papers follow diffusion models, "
                                     "robotics`", "response_type": "ephemeral", "replace_original": False}]
    with caplog.at_level(logging.ERROR):
        report_error(ZeroDivisionError("secret internals"), {"command": "/papers"}, respond, log)
    assert respond.sent[-1]["text"] == SORRY and "secret" not in SORRY
    assert "ZeroDivisionError" in caplog.text  # the traceback is in the log, server-side


def test_event_errors_are_only_logged(caplog):
    respond = Respond()
    with caplog.at_level(logging.ERROR):
        assert report_error(KeyError("x"), {"type": "event_callback"}, respond, log) is None
    assert respond.sent == [] and "KeyError" in caplog.text


def test_background_work_failures_reach_the_same_handler():
    respond, background = Respond(), Background(workers=1)
    background.submit(lambda: (_ for _ in ()).throw(BadArgument("bad")), {"command": "/papers"}, respond)
    background.submit(lambda: 1 / 0, {"command": "/papers"}, respond)
    background.shutdown()
    assert [s["text"] for s in respond.sent] == ["bad. See `/papers help`.", SORRY]


def test_a_bad_subcommand_is_answered_in_the_ack(slack_bot):
    response = slack_bot.app.dispatch(command_request("frobnicate <!channel>"))
    body = json.loads(response.body)
    assert response.status == 200 and "“frobnicate”" in body["text"] and "/papers help" in body["text"]


def test_only_help_is_answered_in_the_ack(slack_bot):
    response = slack_bot.app.dispatch(command_request("help"))
    assert "/papers follow" in json.loads(response.body)["text"]
    response = slack_bot.app.dispatch(command_request("interests"))  # needs the database: after the ack
    assert response.status == 200 and response.body == ""


def test_redelivered_events_are_handled_once(slack_bot):
    store = slack_bot.ctx.store
    event = {"type": "reaction_added", "user": "U1", "reaction": "+1",
             "item": {"type": "message", "channel": "D1", "ts": "1.1"}}
    assert slack_bot.app.dispatch(event_request(event, "EvSAME")).status == 200
    assert slack_bot.app.dispatch(event_request(event, "EvSAME")).status == 200
    slack_bot.listener_executor.shutdown(wait=True)
    slack_bot.runtime.background.shutdown()
    rows = store.db.execute("select status from inbox where key = 'event:EvSAME'").fetchall()
    assert rows == [("done",)]  # written down once, carried out once


def test_background_work_runs_once_per_request_key(store):
    background, runs = Background(store, workers=2), []
    for _ in range(3):
        background.submit(lambda: runs.append("cmd"), {"command": "/papers", "trigger_id": "T.1"})
        background.submit(lambda: runs.append("event"), {"type": "event_callback", "event_id": "Ev1"})
    background.submit(lambda: runs.append("other"), {"command": "/papers", "trigger_id": "T.2"})
    background.shutdown()
    assert sorted(runs) == ["cmd", "event", "other"]


def test_an_event_is_tried_again_while_the_database_stays_busy(store, caplog):
    background, tries = Background(store, workers=1, retry_pause=0.01), []

    def work():
        tries.append(1)
        if len(tries) < 3:
            raise StoreBusy("x.db is busy")

    background.submit(work, {"type": "event_callback", "event_id": "EvBUSY"})
    background.shutdown()
    assert len(tries) == 3


@pytest.mark.parametrize("away", [StoreBusy("x.db is busy"), StoreUnavailable("can't open x.db")])
def test_a_command_the_database_is_away_for_is_kept_and_tried_again_and_the_person_told_so(store, away):
    respond, background = Respond(), Background(store, workers=1)
    command = {"command": "/papers", "trigger_id": "T.9"}
    background.submit(lambda: (_ for _ in ()).throw(away), command, respond)
    background.shutdown()
    assert [sent["text"] for sent in respond.sent] == [KEPT_FOR_LATER]
    rows = store.db.execute("select status, error from inbox where key = 'trigger:T.9'").fetchall()
    assert rows == [("waiting", str(away))]  # to be claimed again after its pause, not given up


def test_http_server_serves_slack_events_and_health_and_refuses_what_is_not_slack(slack_bot):
    server = HttpServer(slack_bot, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 10, "the HTTP server to start", pause=0.01)

    def call(method, path, body=b"", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    try:
        assert call("GET", "/healthz") == (200, b"ok")
        form = {"content-type": "application/x-www-form-urlencoded"}
        assert call("POST", "/slack/events", b"token=x&command=%2Fpapers", form)[0] == 401  # unsigned
        # Unsigned, so refused before the body is even parsed (bot.slack.gate)
        assert call("POST", "/slack/events", b"payload=x", form)[0] == 401
        assert call("POST", "/slack/events", b"\xff\xfe", form)[0] == 401
        assert call("GET", "/slack/events")[0] == 405
        assert call("POST", "/elsewhere")[0] == 404
        assert call("POST", "/slack/events", b"x" * (MAX_BODY + 1))[0] == 413
        request = command_request("help")
        status, body = call("POST", "/slack/events", request.raw_body.encode(),
                            {k: v[0] for k, v in request.headers.items()})
        assert status == 200 and "/papers follow" in json.loads(body)["text"]
    finally:
        server.stop()
        thread.join(timeout=10)


def test_one_persons_work_runs_in_the_order_it_came(store):
    background, done = Background(store, workers=4), []
    for i in range(6):
        # the first is slow work: were the order not kept, the others would overtake it
        background.submit(lambda i=i: (time.sleep(0.05 if i == 0 else 0), done.append(i)),
                          {"command": "/papers", "user_id": "U1", "trigger_id": f"T.order.{i}"})
    background.shutdown()
    assert done == list(range(6))
