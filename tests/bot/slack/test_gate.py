"""The gate before Bolt: pure verdicts on (headers, raw body), no server."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from urllib.parse import urlencode

import pytest
from slack_sdk.signature import SignatureVerifier

from bot.slack.gate import SignatureAlarm, Verdict, judge
from tests.fakes import Clock

SECRET = "gate-secret"
NOW = 1_800_000_000.0
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


def headers(body: str | bytes, content_type: str = JSON, ts: str | None = None, secret: str = SECRET) -> dict:
    ts = str(int(NOW)) if ts is None else ts
    raw = body.encode() if isinstance(body, str) else body
    digest = hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": f"v0={digest}"}


def verdict(body: str | bytes, content_type: str = JSON, **kwargs) -> Verdict:
    raw = body.encode() if isinstance(body, str) else body
    return judge(headers(body, content_type, **kwargs), raw, SECRET, now=NOW)


def event(event: object, **fields) -> str:
    payload = {"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event": event,
               "event_id": "Ev1", "event_time": int(NOW),
               "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}]}
    payload.update(fields)
    return json.dumps(payload)


REACTION = {"type": "reaction_added", "user": "U1", "reaction": "+1", "item_user": "UBOT",
            "item": {"type": "message", "channel": "D1", "ts": "1.000001"}, "event_ts": "1.2"}


def command(**fields) -> str:
    form = {"team_id": "T1", "user_id": "U1", "channel_id": "C1", "command": "/papers", "text": "help",
            "api_app_id": "A1", "response_url": "https://hooks.example/1", "trigger_id": "t1"}
    form.update(fields)
    return urlencode({k: v for k, v in form.items() if v is not None})


def click(**fields) -> str:
    payload = {"type": "block_actions", "team": {"id": "T1"}, "user": {"id": "U1", "team_id": "T1"},
               "container": {"type": "message", "channel_id": "D1", "message_ts": "1.000001"},
               "channel": {"id": "D1"}, "message": {"ts": "1.000001"},
               "response_url": "https://hooks.example/2", "trigger_id": "t2",
               "actions": [{"action_id": "paper_like", "block_id": "b1", "type": "button"}]}
    payload.update(fields)
    return urlencode({"payload": json.dumps(payload)})


# -- signature first ---------------------------------------------------------------------------------

def test_what_slack_sends_is_admitted_with_its_payload():
    for body, content_type in ((event(REACTION), JSON), (command(), FORM), (click(), FORM)):
        v = verdict(body, content_type)
        assert v.admitted and v.status == 200 and isinstance(v.payload, dict), v
    assert verdict(command(text="search payload delivery"), FORM).payload["text"] == "search payload delivery"
    v = verdict(json.dumps({"type": "url_verification", "token": "t", "challenge": "abc"}))
    assert v.admitted and v.payload["challenge"] == "abc"


@pytest.mark.parametrize("body", ["[]", '"x"', "123", "null", "{", "payload=x", ""])
def test_an_unsigned_body_is_401_whatever_it_holds(body):
    assert judge({"Content-Type": JSON}, body.encode(), SECRET, now=NOW).status == 401
    bad = {**headers(body), "X-Slack-Signature": "v0=" + "0" * 64}
    v = judge(bad, body.encode(), SECRET, now=NOW)
    assert v.status == 401 and v.kind == "forged"


@pytest.mark.parametrize("ts", ["abc", "", "1.5", " 1800000000", "+1800000000", "1_800_000_000", "١٨٠٠٠٠٠٠٠٠",
                                "1800000000\n", "9" * 40])
def test_a_malformed_timestamp_is_401(ts):
    v = verdict(event(REACTION), ts=ts)
    assert v.status == 401 and v.kind == "unsigned"


def test_a_stale_or_future_timestamp_or_another_secret_is_401():
    assert verdict(event(REACTION), ts=str(int(NOW) - 301)).kind == "stale"
    assert verdict(event(REACTION), ts=str(int(NOW) + 301)).kind == "stale"
    assert verdict(event(REACTION), ts=str(int(NOW) - 299)).admitted
    assert verdict(event(REACTION), secret="another-secret").kind == "forged"
    assert verdict(b"\xff\xfe{}").status == 401  # bytes Slack would never sign
    assert judge(headers(event(REACTION)), event(REACTION).encode(), "", now=NOW).status == 401


def test_the_verdict_agrees_with_slack_sdks_verifier():
    body = event(REACTION)
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=str(int(NOW)), body=body)
    assert headers(body)["X-Slack-Signature"] == signature


# -- then the shape ----------------------------------------------------------------------------------

@pytest.mark.parametrize("body", ["[]", '"x"', "123", "null", "true", "{", "{}", '{"type": 5}',
                                  '{"type": "block_actions"}', '{"type": "something_else"}',
                                  '{"type": "url_verification"}',
                                  '{"type": "event_callback", "command": "/papers"}'])
def test_signed_bodies_that_are_not_slacks_are_400(body):
    v = verdict(body)
    assert v.status == 400 and not v.admitted and v.reason, v


@pytest.mark.parametrize("body", [
    event(None), event("reaction_added"), event([REACTION]), event({}), event({"type": 5}),
    event(REACTION, event_id={"a": 1}), event(REACTION, event_id=None), event(REACTION, event_id=""),
    event(REACTION, authorizations="x"), event(REACTION, authorizations=["x"]), event(REACTION, team_id=None),
    event(REACTION, team_id=7), event({**REACTION, "user": 42}), event({**REACTION, "item": "D1/1.0"}),
    event({**REACTION, "item": {**REACTION["item"], "ts": 1.5}}), event({**REACTION, "reaction": ["+1"]}),
    event({**REACTION, "channel": 3}), event(REACTION, enterprise=5),
    event({"type": "user_change", "user": "U1"}), event({"type": "user_change", "user": {"id": 1}}),
    event({"type": "user_change", "user": {"id": "U1", "tz": 5}}),
    event({"type": "app_home_opened", "user": {"id": "U1"}, "tab": "home"}),
])
def test_signed_events_of_a_shape_the_listeners_cant_take_are_400(body):
    v = verdict(body)
    assert v.status == 400 and v.kind == "malformed", v


def test_events_paperbot_does_not_subscribe_to_are_an_empty_200():
    v = verdict(event({"type": "member_joined_channel", "user": "U1", "channel": "C1"}))
    assert v.status == 200 and v.kind == "ignored" and not v.admitted
    assert verdict(json.dumps({"type": "app_rate_limited", "team_id": "T1", "minute_rate_limited": 1})).kind \
        == "ignored"


@pytest.mark.parametrize("fields", [{"user_id": ""}, {"user_id": None}, {"user_id": "nobody"},
                                    {"user_id": "U1 "}, {"team_id": ""}, {"team_id": None},
                                    {"team_id": "t1"}, {"command": ""}, {"command": None}])
def test_a_slash_command_without_a_proper_user_team_or_command_is_400(fields):
    v = verdict(command(**fields), FORM)
    assert v.status == 400, v


def test_other_slash_commands_and_the_ssl_check_are_an_empty_200():
    assert verdict(command(command="/other"), FORM).kind == "ignored"
    assert verdict(urlencode({"ssl_check": "1", "token": "t"}), FORM).kind == "ignored"
    assert verdict(urlencode({"token": "t", "user_id": "U1"}), FORM).status == 400


@pytest.mark.parametrize("fields", [
    {"actions": []}, {"actions": {"action_id": "paper_like"}}, {"actions": ["paper_like"]},
    {"actions": [{"block_id": "b1"}]}, {"actions": [{"action_id": 5}]}, {"user": None}, {"user": "U1"},
    {"user": {"id": 5}}, {"user": {"id": ""}}, {"container": "D1"}, {"channel": ["D1"]}, {"message": 1},
    {"container": {"channel_id": 1}}, {"response_url": 5}, {"team": "T1", "user": 3}, {"response_url": None},
    {"response_url": "", "container": {"type": "view"}, "view": {"id": "V1"}},
])
def test_a_button_payload_of_the_wrong_shape_is_400(fields):
    assert verdict(click(**fields), FORM).status == 400


def test_a_click_in_a_view_comes_without_a_response_url():
    view = {"response_url": None, "container": {"type": "view", "view_id": "V1"}, "view": {"id": "V1"}}
    actions = [{"action_id": "home_settings"}]
    assert verdict(click(**view, actions=actions), FORM).admitted
    assert verdict(click(**{**view, "view": None}, actions=actions), FORM).status == 400


def test_modals_and_shortcuts_without_a_listener_are_an_empty_200_and_unknown_payloads_400():
    for kind in ("shortcut", "message_action", "view_closed"):
        v = verdict(urlencode({"payload": json.dumps({"type": kind, "user": {"id": "U1"}})}), FORM)
        assert v.status == 200 and v.kind == "ignored", kind
    for payload in ('{"type": "frobnicate"}', "[]", "null", "{", '{"type": "event_callback"}'):
        assert verdict(urlencode({"payload": payload}), FORM).status == 400, payload


def test_a_message_shortcut_whose_callback_id_is_no_string_is_400_not_a_crash():
    # Found by tests/fault/test_fuzz_requests.py only when it happened to draw such a callback_id: a list
    # or an object can't be looked up among the shortcuts' ids (a TypeError, a 500).
    for callback_id in ([], {"a": 1}, 7):
        payload = {"type": "message_action", "callback_id": callback_id, "team": {"id": "T1"},
                   "message": {"ts": "1.0", "text": "x"}}
        v = verdict(urlencode({"payload": json.dumps(payload)}), FORM)
        assert v.status == 400 and "callback_id" in v.reason, callback_id


def test_a_modal_submission_is_admitted_only_in_the_shape_its_listeners_read():
    good = {"type": "view_submission", "user": {"id": "U1"}, "team": {"id": "T1"}, "trigger_id": "t",
            "view": {"id": "V1", "type": "modal", "callback_id": "home_topics", "private_metadata": "",
                     "state": {"values": {"topics": {"value": {"type": "plain_text_input", "value": "x"}}}}}}
    assert verdict(urlencode({"payload": json.dumps(good)}), FORM).admitted
    for bad in ({**good, "user": None}, {**good, "view": None},
                {**good, "view": {**good["view"], "state": []}},
                {**good, "view": {**good["view"], "state": {"values": {"topics": ["x"]}}}},
                {**good, "view": {**good["view"], "private_metadata": 5}},
                {**good, "view": {k: v for k, v in good["view"].items() if k != "type"}}):
        assert verdict(urlencode({"payload": json.dumps(bad)}), FORM).status == 400, bad


def test_deep_json_is_400_not_a_recursion_error():
    assert verdict("[" * 100_000 + "]" * 100_000).status == 400
    deep: dict = {"type": "reaction_added", "user": "U1"}
    for _ in range(100):
        deep = {"x": deep}
    assert verdict(event({**REACTION, "extra": deep})).status == 400
    assert verdict(urlencode({"payload": "[" * 100_000})).status == 400


def test_other_content_types_are_400():
    assert verdict(event(REACTION), "text/plain").status == 400
    assert verdict(event(REACTION), "").status == 400
    assert verdict(event(REACTION), "application/json; charset=utf-8").admitted


# -- the warning about signatures ----------------------------------------------------------------------

def test_refused_signatures_are_a_warning_at_most_once_a_minute_with_the_count(caplog):
    clock = Clock(0.0)
    alarm = SignatureAlarm(logging.getLogger("test.alarm"), clock=clock)
    forged, stale = Verdict("forged", 401), Verdict("stale", 401)
    with caplog.at_level(logging.WARNING, logger="test.alarm"):
        alarm.note(forged)
        assert caplog.messages == [
            "1 request with a bad signature in the last minute: check SLACK_SIGNING_SECRET"]
        for _ in range(4):
            clock.now += 10
            alarm.note(forged)
        alarm.note(Verdict("unsigned", 401))  # a probe without any signature: not a secret gone wrong
        alarm.note(Verdict("malformed", 400))
        assert len(caplog.messages) == 1
        clock.now += 25
        alarm.note(stale)
        assert caplog.messages[1:] == [
            "4 requests with a bad signature in the last minute: check SLACK_SIGNING_SECRET",
            "1 request with a timestamp more than 5 minutes off in the last minute: "
            "check this machine's clock"]
        alarm.note(forged)
        clock.now += 300
        alarm.note(forged)
        assert caplog.messages[3:] == [
            "2 requests with a bad signature in the last 5 minutes: check SLACK_SIGNING_SECRET"]
    assert all(r.levelno == logging.WARNING for r in caplog.records)
