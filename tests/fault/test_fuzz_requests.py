"""Fuzzing the real bot over HTTP: slash-command text, and the shapes of events, buttons and modals.

Hypothesis drives `paperbot run`'s own pieces (tests.e2e.harness.RunningBot) against the Slack stand-in,
on SQLite and on PostgreSQL in turn.
Each property counts the examples it tried and the ones that held, for the fault suite's closing table.
``PAPERBOT_FUZZ_EXAMPLES`` (default 150 times PAPERBOT_PROBE_SCALE) sets the examples per property, for
a bigger probe by hand: ``PAPERBOT_FUZZ_EXAMPLES=1500 pytest tests/fault``.
"""

from __future__ import annotations

import copy
import json
import os
import time
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.slack.app import SORRY
from bot.slack.subcommands.personal import SUBCOMMANDS
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION
from tests.e2e.harness import TEAM_ID, FakeSlack, LogCapture, opened, query, user_ids
from tests.fakes import Tally
from tests.fault.probe import scaled

EXAMPLES = int(os.environ.get("PAPERBOT_FUZZ_EXAMPLES") or scaled(150))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
HELP_POINTER = "See `/papers help`"
RAW_MENTIONS = ("<@", "<!", "<#")
HUGE = 12_000  # characters: far more than anyone types, well below the server's 1 MB limit on a body

fresh_user = user_ids("UFZ", 6)


@pytest.fixture(scope="module")
def slack(running, standin):
    """One for the whole file (hypothesis calls a test many times): the stand-in is never emptied here."""
    return FakeSlack(running.url, standin)


@pytest.fixture(scope="module")
def module_logs():
    """Everything logged while this file runs, so work finishing after an example is checked too."""
    with LogCapture() as capture:
        yield capture


@pytest.fixture(scope="module")
def store(db_path):
    with opened(db_path) as s:
        yield s


@pytest.fixture(scope="module")
def regulars(slack):
    """People who follow something, so recommend, digest and search have work to do."""
    users = [fresh_user() for _ in range(3)]
    interests = ("quantum circuits qubits", "robot grasping", "diffusion models")
    for user, topics in zip(users, interests, strict=True):
        assert "Now following" in slack.ask(user, f"follow {topics}").text
    return users


# -- slash-command text ----------------------------------------------------------------------------

MENTIONS = st.sampled_from(["<@U123>", "<!channel>", "<!here>", "<!everyone>", "<#C123|general>",
                            "<@U123|bob>", "<!subteam^S1|@team>", "&lt;@U1&gt;", "<https://evil.example|click>",
                            "&amp;lt;!channel&amp;gt;", "<", ">", "&"])
DIGITS = st.sampled_from(["²", "³", "¹", "⁵", "²⁰", "1²", "①", "⑤", "⓪", "٣", "５", "𝟓", "Ⅻ",
                          "٠٨:٣٠", "０８:３０", "²:³⁰", "08:30", "8:30", "23:59", "24:00", "7", "20", "21",
                          "0", "-1", "1e3", "0x10", "9" * 30, "9" * 5000, "1.5"])
KEYWORDS = st.sampled_from([*SUBCOMMANDS, "off", "now", "all", "digest off", "digest now", "unfollow all",
                            "payload", "payload=x", "command=/x", "&user_id=", "%00"])
WORD = st.one_of(st.text(min_size=1, max_size=20), MENTIONS, DIGITS, KEYWORDS,
                 st.text(st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Zs"]), min_size=1, max_size=5))
ARGS = st.lists(WORD, max_size=6).map(" ".join)
TEXT = st.one_of(
    st.text(max_size=300),  # anything at all, control characters included
    st.tuples(st.sampled_from(SUBCOMMANDS), ARGS).map(" ".join),  # each subcommand, random arguments
    st.tuples(st.sampled_from(["recommend", "digest"]), DIGITS).map(" ".join),  # numbers and times
    st.tuples(st.sampled_from(SUBCOMMANDS), st.one_of(MENTIONS, KEYWORDS)).map(" ".join),
    st.tuples(st.sampled_from(SUBCOMMANDS), MENTIONS, DIGITS).map(" ".join),
    st.tuples(st.sampled_from(["follow", "search", "unfollow", "digest", "recommend", "frob"]), WORD,
              st.integers(200, 2000)).map(lambda t: (t[0] + " " + (t[1] + " ") * t[2])[:HUGE]),
)

SLASH = Tally("fuzz: slash command text")


def replies_to(slack: FakeSlack, answer) -> list[dict]:
    """The ack's answer, or (for slow commands) what was posted to the response_url."""
    if answer.ack and (answer.ack.get("text") or answer.ack.get("blocks")):
        return [answer.ack]
    calls = slack.standin.wait_for(lambda: slack.standin.responses(answer.key), 20,
                                   "an answer via response_url")
    return [c.params for c in calls]


@FUZZ
@given(text=TEXT, regular=st.integers(-3, 2))
def test_any_slash_command_text_gets_a_clear_answer(slack, store, regulars, module_logs, text, regular):
    SLASH.tried()
    user = regulars[regular] if regular >= 0 else fresh_user()
    before = store.rows_about(user)
    with LogCapture() as logs:
        answer = slack.command(user, text)
        assert answer.status == 200, (answer, text[:80])
        replies = replies_to(slack, answer)
    assert "Traceback" not in logs.text, logs.text[-2000:]
    shown = json.dumps(replies, ensure_ascii=False)
    assert SORRY not in shown, (text[:80], shown[:300])
    assert not any(m in shown for m in RAW_MENTIONS), (text[:80], shown[:300])
    assert all(r.get("text") or r.get("blocks") for r in replies)
    if HELP_POINTER in shown:  # a bad argument: nothing may have been written
        assert store.rows_about(user) == before, text[:80]
    SLASH.held()


def test_slash_command_summary(module_logs):
    """Runs after the property (file order): the figures of this run."""
    print(SLASH.line())
    assert SLASH.tries == 0 or SLASH.holds == SLASH.tries
    assert "Traceback" not in module_logs.text


# -- the shapes of events, buttons and modals --------------------------------------------------------

JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["", "U1", TEAM_ID, "TFOREIGN", "reaction_added", "event_callback", "block_actions",
                       "+1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def templates(slack: FakeSlack, user: str, event_id: str) -> dict[str, tuple[str, dict]]:
    """What Slack sends, per kind: (transport, payload)."""
    def event(inner: dict) -> dict:
        return {"token": "t", "team_id": TEAM_ID, "api_app_id": "A0PAPERBOT", "type": "event_callback",
                "event": inner, "event_id": event_id, "event_time": int(time.time()),
                "authorizations": [{"team_id": TEAM_ID, "user_id": "UPAPERBOT", "is_bot": True}]}

    click, _ = slack.click_payload(user, LIKE_ACTION, "D" + user, "1.000001")
    return {
        "reaction": ("json", event({"type": "reaction_added", "user": user, "reaction": "+1",
                                    "item_user": "UPAPERBOT", "event_ts": "1.1",
                                    "item": {"type": "message", "channel": "D" + user, "ts": "1.000001"}})),
        "unreaction": ("json", event({"type": "reaction_removed", "user": user, "reaction": "-1",
                                      "item": {"type": "message", "channel": "D" + user, "ts": "1.000002"}})),
        "user_change": ("json", event({"type": "user_change", "user": {"id": user, "tz": "Asia/Tokyo"}})),
        "home": ("json", event({"type": "app_home_opened", "user": user, "tab": "home",
                                "channel": "D" + user})),
        "url_verification": ("json", {"token": "t", "challenge": "abc", "type": "url_verification"}),
        "like": ("interactive", click),
        "dislike": ("interactive", {**click,
                                    "actions": [{**click["actions"][0], "action_id": DISLIKE_ACTION}]}),
        "view": ("interactive", {"type": "view_submission", "team": {"id": TEAM_ID}, "user": {"id": user},
                                 "trigger_id": f"{event_id}.trigger",
                                 "view": {"id": "V1", "type": "modal", "callback_id": "home_topics",
                                          "private_metadata": '{"feed": "main"}', "state": {"values": {
                                              "topics": {"value": {"type": "plain_text_input",
                                                                   "value": "fuzzy topics"}}}}}}),
        "shortcut": ("interactive", {"type": "message_action", "callback_id": "save_paper",
                                     "user": {"id": user}, "team": {"id": TEAM_ID},
                                     "message": {"ts": "1.0", "text": "x"}}),
    }


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every key path into nested dicts and lists of ``value``."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found.append((*prefix, key))
        found.extend(paths(child, (*prefix, key)))
    return found


def mutate(payload: dict, data) -> object:
    """``payload`` with a few fields replaced by random JSON values, removed, or added; or replaced whole."""
    how = data.draw(st.sampled_from(["fields", "fields", "fields", "whole", "deep", "none"]), "how")
    if how == "whole":
        return data.draw(JSON_VALUE, "whole payload")
    if how == "deep":  # as text: too deep for json.dumps itself
        depth = data.draw(st.integers(30, 100_000), "depth")
        return Raw(json.dumps(payload)[:-1] + ', "extra": ' + "[" * depth + "]" * depth + "}")
    if how == "none":
        return payload
    payload = copy.deepcopy(payload)
    for path in data.draw(st.lists(st.sampled_from(paths(payload)), min_size=1, max_size=3), "paths"):
        parent = payload
        try:
            for key in path[:-1]:
                parent = parent[key]
            if data.draw(st.booleans(), "remove?"):
                del parent[path[-1]]
            else:
                parent[path[-1]] = data.draw(JSON_VALUE, f"value at {path}")
        except (KeyError, IndexError, TypeError):  # an earlier change removed or replaced that path
            continue
    if data.draw(st.booleans(), "add a field?"):
        payload[data.draw(st.text(max_size=10), "new key")] = data.draw(JSON_VALUE, "new value")
    return payload


class Raw(str):
    """A payload's JSON text, made by hand."""


def body_of(transport: str, payload: object, data) -> tuple[str, str]:
    text = payload if isinstance(payload, Raw) else json.dumps(payload)
    if data.draw(st.integers(0, 9), "transport mix-up") == 0:
        transport = "interactive" if transport == "json" else "json"
    if transport == "json":
        return text, "application/json"
    return urlencode({"payload": text}), "application/x-www-form-urlencoded"


SHAPES = Tally("fuzz: payload shapes (signed and not)")


@FUZZ
@given(kind=st.sampled_from(["reaction", "unreaction", "user_change", "home", "url_verification", "like",
                             "dislike", "view", "shortcut"]),
       signing=st.sampled_from(["signed", "signed", "signed", "unsigned", "forged", "stale"]), data=st.data())
def test_any_payload_shape_is_200_400_or_401_never_a_5xx_or_a_traceback(slack, store, module_logs, kind,
                                                                         signing, data):
    user, event_id = fresh_user(), f"EvFuzz{time.time_ns()}"
    transport, template = templates(slack, user, event_id)[kind]
    payload = mutate(template, data)
    body, content_type = body_of(transport, payload, data)
    SHAPES.tried()  # only now: Hypothesis may abandon an example while drawing
    with LogCapture() as logs:
        if signing == "signed":
            status, data_back, _ = slack.post(body, content_type)
        elif signing == "stale":
            status, data_back, _ = slack.post(body, content_type, timestamp=int(time.time()) - 600)
        elif signing == "forged":
            status, data_back, _ = slack.post(body, content_type, signature="v0=" + "ab" * 32)
        else:
            status, data_back, _ = slack.post(body, content_type, headers={"X-Slack-Signature": ""})
    assert status in (200, 400, 401), (status, kind, body[:200])
    assert signing == "signed" or status == 401, (status, signing)
    assert "Traceback" not in logs.text and "ERROR" not in logs.text, logs.text[-2000:]
    if status != 200:
        assert not any(store.rows_about(user).values()), (kind, body[:200])
        assert query(store, "select count(*) as n from once_keys where key = ?",
                     [f"event:{event_id}"])[0]["n"] == 0
    SHAPES.held()


def test_payload_shape_summary(running, module_logs):
    """Runs after the property: the figures, and no traceback from work that finished after it."""
    running.bot.runtime.background.shutdown()  # wait for the work the admitted payloads started
    print(SHAPES.line())
    tried, held = SHAPES.tries, SHAPES.holds
    SHAPES.reset()  # it runs once per backend: the next run's figures are its own
    assert tried == 0 or held == tried
    assert "Traceback" not in module_logs.text and "ERROR" not in module_logs.text, module_logs.text[-3000:]
