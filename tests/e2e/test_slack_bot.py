"""End to end: the real Bolt app behind the real HTTP server, driven by signed requests, talking to a
local Slack Web API stand-in. Nothing here reaches slack.com or reads the developer's environment."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import time

import pytest

from bot.slack.manifest import METHOD_SCOPES, SCOPES
from bot.slack.views.messages import DISLIKE_ACTION, LIKE_ACTION, MORE_ACTION, SAVE_ACTION, WHO_ACTION
from storage import PERSONAL_TABLES
from tests.e2e.forgetting import forget_me
from tests.e2e.harness import (
    FakeSlack,
    bot_environment,
    listening_url,
    opened,
    posts_to,
    process_environment,
    query,
    table_columns,
    user_ids,
)

HOSTILE_TITLE = "Volcanic <!channel> eruptions <@U123> & <https://evil.example|click here>"
HOSTILE = {
    "id": "hostile-1", "title": HOSTILE_TITLE,
    "abstract": "Volcano magma eruptions lava <!here> craters & ash plumes <#C123> studied with <@U999>.",
    "authors": ["Ann <!everyone> Smith", "Bob & Co"], "venue": "VolcanoConf <b>", "url": "https://example.org/v?a=1&b=2",
}
MORE_VOLCANOES = [{"id": f"volcano-{i}", "title": f"Magma chambers and lava flows ({i})",
                   "abstract": f"Volcano magma eruptions lava craters number {i} and ash plumes."}
                  for i in range(3)]

new_user = user_ids("UE2E")


@pytest.fixture(scope="module")
def extra_papers():
    return [HOSTILE, *MORE_VOLCANOES]


def dm(user: str) -> str:
    return "D" + user


def paper_posts(standin, user):
    """The paper messages (not the header) posted into the person's DM."""
    return [c for c in posts_to(standin, dm(user)) if c.params.get("blocks")]


def recommend(slack, standin, user, n):
    before = len(paper_posts(standin, user))
    reply = slack.ask(user, f"recommend {n}")
    posts = paper_posts(standin, user)[before:]
    return reply, posts


def shown_messages(store, user) -> dict[str, tuple[str, str]]:
    return {r["paper_id"]: (r["channel"], r["message_ts"])
            for r in query(store, "select * from shown where user_id = ?", [user])}


# -- every subcommand -------------------------------------------------------------------------------

def test_help_and_empty_text_answer_in_the_ack_only_to_the_caller(slack):
    for text in ("", "help", "  HELP  "):
        answer = slack.command(new_user(), text)
        assert answer.status == 200 and answer.seconds < 1
        assert answer.ack["response_type"] == "ephemeral"
        for sub in ("follow", "unfollow", "interests", "recommend", "search", "digest", "forget", "saved",
                    "export"):
            assert f"/papers {sub}" in answer.ack["text"] or f"`{sub}" in answer.ack["text"]
        assert "/papers help TOPIC" in answer.ack["text"]


def test_follow_reads_the_timezone_once_and_turns_digests_on(slack, standin, store):
    user = new_user()
    standin.timezones[user] = "Asia/Kolkata"
    reply = slack.ask(user, "follow feline cats, quantum qubits")
    assert reply.via == "respond" and reply.response_type == "ephemeral"
    assert "Now following “feline cats”, “quantum qubits”" in reply.text
    assert "09:00 (Asia/Kolkata time)" in reply.text
    assert store.get_person(user).tz == "Asia/Kolkata"
    again = slack.ask(user, "follow robots, feline cats")
    assert "Now following “robots”" in again.text and "Already following “feline cats”" in again.text
    assert len(standin.calls("users.info", user=user)) == 1  # cached: asked at most daily
    interests = slack.ask(user, "interests")
    assert interests.via == "respond"  # it reads the database: never before the ack
    assert "feline cats, quantum qubits, robots" in interests.text
    assert "0 liked, 0 disliked" in interests.text and "daily at 09:00 (Asia/Kolkata time)" in interests.text


def test_a_timezone_changed_in_slack_moves_the_digest_at_once(slack, standin, store):
    user = new_user()
    standin.timezones[user] = "Asia/Kolkata"
    slack.ask(user, "follow feline cats")
    status, _, _ = slack.event({"type": "user_change", "user": {"id": user, "tz": "America/Chicago"}})
    assert status == 200
    standin.wait_for(lambda: store.get_person(user).tz == "America/Chicago", what="the new timezone")
    assert "09:00 (America/Chicago time)" in slack.ask(user, "interests").text
    assert len(standin.calls("users.info", user=user)) == 1  # the event said it all


def test_setting_a_digest_time_reads_the_timezone_of_now(slack, standin, store):
    user = new_user()
    standin.timezones[user] = "Asia/Kolkata"
    slack.ask(user, "follow feline cats")
    standin.timezones[user] = "America/New_York"  # moved since, and Slack sent no event
    assert "at 07:15 (America/New_York time)" in slack.ask(user, "digest 07:15").text
    assert store.get_person(user).tz == "America/New_York"


def test_unfollow_one_and_all(slack):
    user = new_user()
    slack.ask(user, "follow cats, graphs, robots")
    assert "Stopped following “graphs”" in slack.ask(user, "unfollow GRAPHS").text
    assert "weren't following “graphs”" in slack.ask(user, "unfollow graphs").text
    assert "Stopped following “cats”, “robots”" in slack.ask(user, "unfollow all").text
    assert "none yet" in slack.ask(user, "interests").text


def test_recommend_posts_a_header_then_one_message_per_paper_into_the_dm(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    reply, posts = recommend(slack, standin, user, 3)
    assert reply.text == "I sent you 3 papers in our direct messages."
    all_posts = posts_to(standin, dm(user))
    assert len(all_posts) == 4 and not all_posts[0].params.get("blocks")  # the header first
    assert len(standin.calls("conversations.open", users=user)) == 1
    for post in posts:
        blocks = post.params["blocks"]
        title = blocks[0]["text"]["text"]
        assert "cats" in title.lower() or "feline" in title.lower()
        assert post.params["text"] and post.params["text"] in title  # the plain text carries the title
        assert any(b["type"] == "context" and "Why:" in b["elements"][0]["text"] for b in blocks)
        assert {e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]} == {
            LIKE_ACTION, DISLIKE_ACTION, SAVE_ACTION, MORE_ACTION, WHO_ACTION}
    # Each paper is remembered with the message that carries it, and never recommended again.
    shown = shown_messages(store, user)
    assert sorted(shown.values()) == sorted((p.response["channel"], p.response["ts"]) for p in posts)
    _, second = recommend(slack, standin, user, 3)
    assert len(second) == 3
    assert not {p.params["text"] for p in second} & {p.params["text"] for p in posts}


def test_each_paper_quotes_what_it_does_from_its_abstract_until_the_person_hides_it(slack, standin):
    user = new_user()
    slack.ask(user, "follow quantum qubits entanglement")

    def bodies(posts):
        return [[b["text"]["text"] for b in p.params["blocks"] if b["type"] == "section"][1:] for p in posts]

    _, posts = recommend(slack, standin, user, 2)
    for body in bodies(posts):
        label, what, result = body[0].split("\n")
        assert label == "_Quoted from the abstract:_" and what.startswith("> We study")
        assert result.startswith("> Our ")
    said = slack.ask(user, "digest highlights off").text
    assert said.startswith("Each paper now shows the start of its abstract")
    _, posts = recommend(slack, standin, user, 2)
    for body in bodies(posts):
        assert body[0].startswith("We study") and "Quoted from the abstract" not in body[0]


def test_a_listeners_calls_reuse_kept_alive_connections(slack, standin):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    before, calls = standin.connections, len(standin.calls())
    recommend(slack, standin, user, 3)
    made = len(standin.calls()) - calls
    assert made >= 5  # the DM opened, a header and 3 papers, the reply to the command
    # Bolt's own client would open one connection a call (6 here); the reply goes to its response_url
    # through Bolt's webhook client, on one of its own; work of the bot's own meanwhile may add one.
    assert standin.connections - before <= 3, f"{standin.connections - before} connections for {made} calls"


def test_recommend_before_following_says_what_to_do(slack):
    reply = slack.ask(new_user(), "recommend")
    assert "don't follow anything yet" in reply.text and "/papers follow" in reply.text


def test_search_answers_only_the_caller_and_posts_nothing(slack, standin):
    user = new_user()
    reply = slack.ask(user, "search quantum qubits entanglement")
    assert reply.via == "respond" and reply.response_type == "ephemeral"
    assert "matching “quantum qubits entanglement”" in reply.text
    sections = [b["text"]["text"] for b in reply.blocks if b["type"] == "section"]
    assert sum("qubits" in s for s in sections) >= 3
    assert not standin.calls("chat.postMessage", channel=dm(user))


def test_digest_at_a_time_off_and_now(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow graph neural networks")
    assert "Daily digest at 07:05 (Europe/Berlin time)" in slack.ask(user, "digest 7:05").text
    person = store.get_person(user)
    assert (person.digest_time, person.digest_enabled) == ("07:05", True)
    for bad in ("24:00", "12:60", "noon", "7"):
        reply = slack.ask(user, f"digest {bad}")
        assert reply.via == "ack" and "00:00 to 23:59" in reply.text and "/papers help" in reply.text
    assert "off" in slack.ask(user, "digest off").text
    person = store.get_person(user)
    assert (person.digest_time, person.digest_enabled) == ("07:05", False)
    assert "I sent you 3 papers" in slack.ask(user, "digest now").text  # PAPERBOT_DIGEST_SIZE=3
    posts = posts_to(standin, dm(user))
    assert "Your digest" in posts[0].params["text"] and len(posts) == 4
    assert len(shown_messages(store, user)) == 3


# -- feedback ---------------------------------------------------------------------------------------

def test_reactions_change_the_next_recommendations(slack, standin, store):
    user, control = new_user(), new_user()
    for u in (user, control):
        slack.ask(u, "follow feline cats kittens, quantum qubits entanglement")
    _, first = recommend(slack, standin, user, 4)
    _, control_first = recommend(slack, standin, control, 4)
    assert [p.params["text"] for p in first] == [p.params["text"] for p in control_first]
    shown = shown_messages(store, user)
    by_ts = {ts: paper for paper, (_, ts) in shown.items()}
    likes = {"+1", "heart::skin-tone-3", "thumbsup::skin-tone-2", "fire", "star"}
    expected = {}
    for i, (ts, paper) in enumerate(sorted(by_ts.items())):
        name = (sorted(likes)[i] if paper.startswith("quantum") else ("-1" if i % 2 else "thumbsdown"))
        assert slack.reaction(user, name, dm(user), ts) == 200
        expected[paper] = 1 if paper.startswith("quantum") else -1
    assert slack.reaction(user, "eyes", dm(user), sorted(by_ts)[0]) == 200  # not feedback: ignored
    standin.wait_for(lambda: {f.paper_id: f.value for f in store.get_feedback(user)} == expected,
                     what="the reactions to become feedback")
    _, after = recommend(slack, standin, user, 4)
    _, control_after = recommend(slack, standin, control, 4)
    topics = lambda posts: [p.params["text"].split()[1] for p in posts]  # noqa: E731 - "On <word> and …"
    assert all(word in ("circuits", "qubits", "entanglement", "error", "quantum", "correction")
               for word in topics(after)), topics(after)
    assert topics(after) != topics(control_after)  # the one who reacted got something else


def test_removing_a_reaction_takes_back_only_that_feedback(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow robot manipulation grasping")
    recommend(slack, standin, user, 2)
    (paper_a, (ch, ts_a)), (paper_b, (_, ts_b)) = sorted(shown_messages(store, user).items())
    slack.reaction(user, "+1", ch, ts_a)
    slack.reaction(user, "-1", ch, ts_b)
    feedback = lambda: {f.paper_id: f.value for f in store.get_feedback(user)}  # noqa: E731
    standin.wait_for(lambda: feedback() == {paper_a: 1, paper_b: -1}, what="like and dislike")
    slack.reaction(user, "-1", ch, ts_a, added=False)  # not the feedback in force: nothing changes
    slack.reaction(user, "thumbsup", ch, ts_a, added=False)
    standin.wait_for(lambda: feedback() == {paper_b: -1}, what="the like to be taken back")
    standin.reactions[(ch, ts_b)] = [{"name": "thumbsdown", "users": [user], "count": 1}]
    slack.reaction(user, "-1", ch, ts_b, added=False)  # 👎 is still there: the dislike stays
    standin.wait_for(lambda: standin.calls("reactions.get", timestamp=ts_b), what="reactions.get")
    slack.reaction(user, "+1", ch, ts_a)  # a later event, to know the one before was handled
    standin.wait_for(lambda: feedback() == {paper_a: 1, paper_b: -1}, what="dislike kept, like back")


def test_someone_elses_reaction_and_reactions_on_other_messages_are_ignored(slack, standin, store):
    user, other = new_user(), new_user()
    slack.ask(user, "follow diffusion models denoising")
    recommend(slack, standin, user, 1)
    [(paper, (ch, ts))] = shown_messages(store, user).items()
    slack.reaction(other, "+1", ch, ts)
    slack.reaction(user, "+1", ch, "1.000001")  # not a paper message
    slack.reaction(user, "-1", ch, ts)  # the marker that the events before were handled
    standin.wait_for(lambda: [(f.paper_id, f.value) for f in store.get_feedback(user)] == [(paper, -1)])
    assert store.get_feedback(other) == []


def test_buttons_on_a_paper_message_give_the_same_feedback(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow graph neural networks message passing")
    recommend(slack, standin, user, 2)
    (paper_a, (ch, ts_a)), (paper_b, (_, ts_b)) = sorted(shown_messages(store, user).items())
    status, key = slack.click(user, LIKE_ACTION, ch, ts_a)
    assert status == 200
    reply = standin.wait_for(lambda: standin.responses(key))[0]
    assert reply.params["text"].startswith(":+1: Noted") and reply.params["response_type"] == "ephemeral"
    status, key = slack.click(user, DISLIKE_ACTION, ch, ts_b)
    standin.wait_for(lambda: standin.responses(key))
    assert {f.paper_id: f.value for f in store.get_feedback(user)} == {paper_a: 1, paper_b: -1}


# -- security and robustness ------------------------------------------------------------------------

def test_forged_and_stale_signatures_get_401_and_do_nothing(slack, standin):
    user = new_user()
    body, key = slack.command_body(user, "follow cats")
    status, _, _ = slack.post(body, "application/x-www-form-urlencoded", signature="v0=" + "0" * 64)
    assert status == 401
    forged = FakeSlack(slack.url, standin, secret="not-the-signing-secret")
    assert forged.command(user, "follow cats").status == 401
    stale = int(time.time()) - 6 * 60
    assert slack.post(body, "application/x-www-form-urlencoded", timestamp=stale)[0] == 401
    future = int(time.time()) + 6 * 60
    assert slack.post(body, "application/x-www-form-urlencoded", timestamp=future)[0] == 401
    assert slack.event({"type": "app_home_opened", "user": user, "tab": "home"},
                       signature="v0=" + "1" * 64)[0] == 401
    # A fresh, correctly signed request afterwards is served: nothing from the rejected ones happened.
    assert "none yet" in slack.ask(user, "interests").text
    assert not standin.responses(key) and not standin.calls("views.publish", user_id=user)


def test_a_redelivered_event_counts_once(slack, standin, store, running):
    user = new_user()
    slack.ask(user, "follow quantum circuits qubits")
    recommend(slack, standin, user, 2)
    (paper_a, (ch, ts_a)), (paper_b, (_, ts_b)) = sorted(shown_messages(store, user).items())
    assert slack.reaction(user, "+1", ch, ts_a, event_id="EvLIKE0001") == 200
    standin.wait_for(lambda: store.get_feedback(user), what="the like")
    assert slack.reaction(user, "+1", ch, ts_a, added=False, event_id="EvUNDO0001") == 200
    standin.wait_for(lambda: not store.get_feedback(user), what="the like taken back")
    # Slack redelivers the first event (same event_id): it must not bring the like back.
    for retry in (1, 2):
        assert slack.reaction(user, "+1", ch, ts_a, event_id="EvLIKE0001", retry_num=retry) == 200
    assert slack.reaction(user, "-1", ch, ts_b, event_id="EvMARK0001") == 200
    standin.wait_for(lambda: store.get_feedback(user), what="the marker event")
    running.settle()  # the redeliveries, were they carried out, have been
    assert [(f.paper_id, f.value) for f in store.get_feedback(user)] == [(paper_b, -1)]
    # Also for App Home: two deliveries of one event, one publish (none after `follow`: not opened before).
    before = len(standin.calls("views.publish", user_id=user))
    assert before == 0
    slack.event({"type": "app_home_opened", "user": user, "tab": "home"}, event_id="EvHOME0001")
    slack.event({"type": "app_home_opened", "user": user, "tab": "home"}, event_id="EvHOME0001", retry_num=1)
    slack.event({"type": "app_home_opened", "user": user, "tab": "home"}, event_id="EvHOME0002")
    standin.wait_for(lambda: len(standin.calls("views.publish", user_id=user)) >= before + 2)
    running.settle()
    assert len(standin.calls("views.publish", user_id=user)) == before + 2


def test_hostile_text_comes_back_escaped(slack, standin, store):
    user = new_user()
    reply = slack.ask(user, "follow volcano magma eruptions, <!channel>, <@U123>, a & b, <https://evil|click>")
    for raw, escaped in (("<!channel>", "&lt;!channel&gt;"), ("<@U123>", "&lt;@U123&gt;"),
                         (" & b", " &amp; b"), ("<https://evil|click>", "&lt;https://evil|click&gt;")):
        assert escaped in reply.text and raw not in reply.text
    assert "&lt;!channel&gt;" in slack.ask(user, "interests").text
    unknown = slack.ask(user, "<!here> please")
    assert "&lt;!here&gt;" in unknown.text and "<!here>" not in unknown.text
    assert "/papers help" in unknown.text
    search = slack.ask(user, "search <!channel> volcanic eruptions")
    assert "&lt;!channel&gt;" in search.text
    _, posts = recommend(slack, standin, user, 4)
    hostile = [p for p in posts if "Volcanic" in p.params["text"]]
    assert hostile, [p.params["text"] for p in posts]
    body = json.dumps(hostile[0].params["blocks"]) + hostile[0].params["text"]
    for dangerous in ("<!channel>", "<!here>", "<!everyone>", "<@U123>", "<@U999>", "<#C123>", "<https://evil",
                      "<b>"):
        assert dangerous not in body
    assert "&lt;!channel&gt;" in body and "&amp;" in body
    assert "<https://example.org/v?a=1&amp;b=2|" in body  # our own link: the known URL, escaped
    everything = json.dumps([c.params for c in standin.calls() if c.params.get("channel") == dm(user)
                             or c.method == "response_url"])
    assert "<!channel>" not in everything and "<@U123>" not in everything


def test_seven_kilobytes_and_unknown_subcommands_get_a_useful_answer(slack):
    user = new_user()
    big = "word " * 1400  # 7 kB
    cases = {
        "follow " + big: "at most 100 characters",
        "follow " + ", ".join(["topic"] + [f"t{i}" for i in range(1200)]): "at most 50 topics",
        "search " + big: "at most 500 characters",
        "unfollow " + big: "weren't following",
        "digest " + big: "not a time",
        "recommend " + big: "a number from 1 to 20",
        big: "don't know the subcommand “word”",
        "x" * 7000: "don't know the subcommand",
        "interests " + big: "takes nothing after it",
        "frobnicate": "don't know the subcommand “frobnicate”",
    }
    for text, expected in cases.items():
        assert len(text) >= 7000 or text == "frobnicate"
        reply = slack.ask(user, text)
        assert expected in reply.text, (text[:30], reply.text)
        assert len(reply.text) < 1000
        if "don't know" in expected or "not a time" in expected or "number" in expected:
            assert "/papers help" in reply.text


def test_forget_leaves_no_trace_in_any_table(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats, graph neural networks")
    recommend(slack, standin, user, 3)
    [(paper, (ch, ts)), *_] = sorted(shown_messages(store, user).items())
    slack.reaction(user, "+1", ch, ts)
    slack.ask(user, "digest 06:30")
    standin.wait_for(lambda: store.get_feedback(user), what="the like")
    assert sum(store.rows_about(user).values()) >= 1 + 2 + 1 + 3
    assert "deleted everything" in forget_me(slack, user)
    assert not any(store.rows_about(user).values())
    for table, columns in table_columns(store).items():
        if "user_id" in columns:
            assert table in PERSONAL_TABLES
            count = query(store, f"select count(*) as n from {table} where user_id = ?", [user])[0]["n"]
            assert count == 0, table
        for column in columns:  # nor anywhere else, under another name
            if table != "artifacts":
                hits = query(store, f"select count(*) as n from {table} where cast({column} as text) like ?",
                             [f"%{user}%"])[0]["n"]
                assert hits == 0, (table, column)
    assert "none yet" in slack.ask(user, "interests").text


def test_a_rate_limited_post_is_retried_and_every_paper_arrives(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow diffusion models score matching")
    standin.fail("chat.postMessage", status=429, times=1, after=1, retry_after=1)  # the first paper
    reply, posts = recommend(slack, standin, user, 3)
    assert reply.text == "I sent you 3 papers in our direct messages."
    limited = [c for c in standin.calls("chat.postMessage", channel=dm(user)) if c.status == 429]
    assert len(limited) == 1
    assert len(posts) == 3 and len(shown_messages(store, user)) == 3


def test_a_server_error_on_one_message_loses_none_of_the_others(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow robot locomotion control")
    # The header and the first paper go through; the second paper fails all three tries (500).
    standin.fail("chat.postMessage", status=500, times=3, after=2)
    reply, posts = recommend(slack, standin, user, 3)
    assert "I sent you 2 papers" in reply.text and "1 paper couldn't be delivered" in reply.text
    failed = [c for c in standin.calls("chat.postMessage", channel=dm(user)) if c.status == 500]
    assert len(failed) == 3 and len({c.params["text"] for c in failed}) == 1
    shown = shown_messages(store, user)
    assert len(posts) == 2 and len(shown) == 2
    lost_title = failed[0].params["text"]
    assert lost_title not in {p.params["text"] for p in posts}
    # Not marked shown, so it can still come: it is the best one left.
    _, again = recommend(slack, standin, user, 1)
    assert [p.params["text"] for p in again] == [lost_title]


def test_app_home_shows_interests_and_schedule(slack, standin):
    user = new_user()
    slack.ask(user, "follow quantum error correction, <b>bold</b>")
    slack.event({"type": "app_home_opened", "user": user, "tab": "home", "channel": dm(user)})
    call = standin.wait_for(lambda: standin.calls("views.publish", user_id=user))[0]
    view = call.params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    text = json.dumps(view)
    assert view["type"] == "home" and len(view["blocks"]) <= 100
    assert "quantum error correction" in text and "&lt;b&gt;bold&lt;/b&gt;" in text and "<b>" not in text
    assert "daily at 09:00" in text
    slack.event({"type": "app_home_opened", "user": user, "tab": "messages"})  # not the Home tab: nothing


def test_every_web_api_method_called_is_one_the_manifest_has_scopes_for(slack, standin, store):
    user = new_user()
    slack.ask(user, "follow feline cats")
    recommend(slack, standin, user, 1)
    [(_, (ch, ts))] = shown_messages(store, user).items()
    slack.reaction(user, "+1", ch, ts, added=False)
    slack.event({"type": "app_home_opened", "user": user, "tab": "home"})
    standin.wait_for(lambda: standin.calls("reactions.get") and standin.calls("views.publish", user_id=user))
    methods = {c.method for c in standin.calls()} - {"response_url"}
    assert {"auth.test", "users.info", "conversations.open", "chat.postMessage", "reactions.get",
            "views.publish"} <= methods
    for method in methods:
        assert method in METHOD_SCOPES, method
        assert METHOD_SCOPES[method] is None or METHOD_SCOPES[method] in SCOPES
    for call in standin.calls():
        if call.method != "response_url":
            assert call.headers["authorization"] == "Bearer xoxb-e2e-bot-token"


def test_acks_stay_fast_while_slow_work_is_under_way(slack, standin):
    users = [new_user() for _ in range(3)]
    for u in users:
        slack.ask(u, "follow feline cats")
    standin.delay("chat.postMessage", 0.3)  # every post slow: deliveries take seconds
    answers = [slack.command(u, "recommend 5") for u in users for _ in range(4)]
    quick = [slack.command(new_user(), "help") for _ in range(5)]
    assert max(a.seconds for a in answers + quick) < 1.0
    for u in users:
        standin.wait_for(lambda u=u: len(posts_to(standin, dm(u))) >= 6, timeout=30)


# -- Socket Mode and the process -----------------------------------------------------------------------

def test_socket_mode_handler_is_built_on_the_same_app_and_dispatches(running, standin):
    from slack_sdk.socket_mode.request import SocketModeRequest

    from bot.slack.server import SocketModeServer

    server = SocketModeServer(running.bot, "xapp-1-A0PAPERBOT-fake")
    try:
        handler = server.handler
        assert handler.app is running.bot.app
        # SLACK_API_URL is used for apps.connections.open too.
        assert handler.client.web_client.base_url == standin.base_url
        assert handler.handle in handler.client.socket_mode_request_listeners

        sent = []

        class Client:
            logger = logging.getLogger("socket-mode-test")

            def send_socket_mode_response(self, response):
                sent.append(response)

        payload = {"team_id": "T0STANDIN", "user_id": new_user(), "channel_id": "C1", "command": "/papers",
                   "text": "help", "api_app_id": "A0PAPERBOT", "response_url": standin.response_url("sock"),
                   "trigger_id": "t"}
        request = SocketModeRequest(type="slash_commands", envelope_id="env-1", payload=payload)
        handler.handle(Client(), request)
        assert sent and sent[0].envelope_id == "env-1" and "/papers follow" in sent[0].payload["text"]
    finally:
        server.handler.close()


def test_paperbot_run_stops_cleanly_on_sigterm_finishing_work_under_way(standin, db_path, tmp_path):
    standin.reset()
    env = process_environment(tmp_path, bot_environment(standin, db_path))
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--port", "0"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        slack = FakeSlack(listening_url(process), standin)
        user = new_user()
        slack.ask(user, "follow quantum qubits entanglement")
        standin.delay("chat.postMessage", 0.25)
        answer = slack.command(user, "recommend 4")
        assert answer.status == 200
        standin.wait_for(lambda: standin.calls("chat.postMessage", channel=dm(user)),
                         what="delivery to start")
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
    assert len(posts_to(standin, dm(user))) == 5  # header + 4: the work under way was finished
    assert "I sent you 4 papers" in standin.responses(answer.key)[0].params["text"]
    with opened(db_path) as store:
        assert len(shown_messages(store, user)) == 4


def test_commands_from_someone_unknown_write_nothing(slack, store):
    user = new_user()
    for text in ("forget", "digest now", "interests", "recommend", "unfollow all", "digest off"):
        assert slack.ask(user, text).text
    assert store.get_person(user) is None and not any(store.rows_about(user).values())
