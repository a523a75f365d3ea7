"""End to end: "Who should read this?" (the button on a paper message, the message shortcut, Send) and
`/papers suggest on|off`, through signed requests against the real bot and the Slack stand-in, on both
backends."""

from __future__ import annotations

import json

import pytest

from bot.slack.manifest import WHO_SHORTCUT
from bot.slack.views.home_view import SUGGEST_ACTION
from bot.slack.views.messages import LIKE_ACTION, WHO_ACTION
from bot.slack.views.who import SEND_ACTION, SUGGESTED_BLOCK
from tests.e2e.forgetting import forget_me
from tests.e2e.harness import posts_to, query, table_columns, user_ids
from tests.e2e.test_unfurls import shortcut

new_user = user_ids("UWHO")
CHANNEL = "C0GENERAL"

#: Tide pool papers (from arXiv), and one on glaciers nobody here follows.
TIDEPOOLS = [
    *[{"id": f"2403.0010{i}", "title": f"Tide pool anemones and hermit crabs ({i})",
       "abstract": f"Tide pool anemones hermit crabs intertidal barnacles studied at site {i}.",
       "authors": ["Ida Tide"], "categories": ["q-bio.PE"]} for i in range(6)],
    {"id": "2403.00200", "title": "Glacier calving fronts", "categories": ["physics.geo-ph"],
     "abstract": "Glacier calving fronts retreat; icebergs calve from tidewater glaciers measured."},
]
TOPIC = "tide pool anemones hermit crabs"


@pytest.fixture(scope="module")
def extra_papers():
    return TIDEPOOLS


def dm(user: str) -> str:
    return "D" + user


def blocks_of(params: dict) -> list[dict]:
    blocks = params.get("blocks") or []
    return json.loads(blocks) if isinstance(blocks, str) else blocks


def buttons(blocks: list[dict], action_id: str) -> list[dict]:
    """Every button ``action_id`` of ``blocks`` (in actions blocks and as section accessories)."""
    found = [e for b in blocks if b.get("type") == "actions" for e in b["elements"]]
    found += [b["accessory"] for b in blocks if b.get("accessory")]
    return [e for e in found if e.get("action_id") == action_id]


def a_paper_message(slack, standin, user: str) -> dict:
    """A paper message paperbot sent ``user`` (by `/papers recommend 1` on :data:`TOPIC`)."""
    slack.ask(user, f"follow {TOPIC}")
    before = len(posts_to(standin, dm(user)))
    assert "I sent you" in slack.ask(user, "recommend 1").text
    [posted] = [p for p in posts_to(standin, dm(user))[before:] if p.params.get("blocks")]
    return posted


def click(slack, user: str, action_id: str, value: str, ephemeral: bool = False,
          payload: dict | None = None) -> tuple[str, dict]:
    """Click a button whose value is ``value``; (the response_url key, the payload sent)."""
    if payload is None:
        channel = CHANNEL if ephemeral else dm(user)
        payload, key = slack.click_payload(user, action_id, channel, "1.000001")
        payload["actions"][0]["value"] = value
        if ephemeral:  # a click on an ephemeral message: Slack sends no message with it
            payload["container"]["is_ephemeral"] = True
            del payload["message"]
    else:
        key = payload["response_url"].rsplit("/", 1)[-1]
    status, _, _ = slack.interaction(payload)
    assert status == 200
    return key, payload


def answer(standin, key: str, n: int = 1) -> dict:
    return standin.wait_for(lambda: standin.responses(key)[n - 1:], what="the answer")[n - 1].params


def updated(standin, message) -> list:
    return [c for c in standin.calls("chat.update", ts=message.response["ts"]) if c.status == 200]


def opted_in(slack, user: str, topics: str) -> None:
    slack.ask(user, f"follow {topics}")
    assert slack.ask(user, "suggest on").text.startswith("Suggestions are on")


def test_the_button_then_send_puts_the_paper_in_the_colleague_s_dm_once(slack, standin, store):
    asker, colleague, elsewhere, shy = new_user(), new_user(), new_user(), new_user()
    opted_in(slack, colleague, TOPIC)
    opted_in(slack, elsewhere, "glacier calving icebergs")  # opted in, but the paper fits them not
    slack.ask(shy, f"follow {TOPIC}")  # fits, but never opted in
    posted = a_paper_message(slack, standin, asker)
    [who] = buttons(blocks_of(posted.params), WHO_ACTION)
    paper_id = who["value"]
    key, _ = click(slack, asker, WHO_ACTION, paper_id)
    reply = answer(standin, key)
    assert reply["response_type"] == "ephemeral"
    blocks = blocks_of(reply)
    sends = buttons(blocks, SEND_ACTION)
    named = {json.loads(s["value"])["u"] for s in sends}
    assert colleague in named and not named & {asker, elsewhere, shy}
    text = json.dumps(blocks)
    assert f"<@{colleague}>" in text and "tide pool" in text.lower()  # why, in their terms
    [send] = [s for s in sends if json.loads(s["value"])["u"] == colleague]

    key, payload = click(slack, asker, SEND_ACTION, send["value"], ephemeral=True)
    done = answer(standin, key)
    assert done["replace_original"] is True and f"Sent to <@{colleague}>" in done["text"]
    [message] = posts_to(standin, dm(colleague))[-1:]
    first = blocks_of(message.params)[0]
    assert first["block_id"] == SUGGESTED_BLOCK
    assert first["elements"][0]["text"] == f"<@{asker}> thought you'd want to see this"
    assert buttons(blocks_of(message.params), WHO_ACTION)  # a normal paper message, its buttons and all
    shown = query(store, "select * from shown where user_id = ? and paper_id = ?", [colleague, paper_id])
    assert len(shown) == 1 and shown[0]["message_ts"] == message.response["ts"]
    assert query(store, "select * from feedback where user_id = ?", [colleague]) == []
    assert query(store, "select * from saved where user_id = ?", [colleague]) == []
    [row] = query(store, "select * from suggestions where user_id = ?", [colleague])
    assert row["by_user"] == asker and row["paper_id"] == paper_id

    status, key = slack.click(colleague, LIKE_ACTION, dm(colleague), message.response["ts"])  # their own 👍
    assert status == 200 and standin.wait_for(lambda: standin.responses(key) or updated(standin, message))
    [update] = standin.wait_for(lambda: updated(standin, message), what="the message redrawn")
    assert blocks_of(update.params)[0] == first  # still says who thought of them
    assert "You liked this" in json.dumps(blocks_of(update.params))

    sent_before = len(posts_to(standin, dm(colleague)))
    click(slack, asker, SEND_ACTION, send["value"], payload=payload)  # the same signed request again
    key, _ = click(slack, asker, SEND_ACTION, send["value"], ephemeral=True)  # a second Send
    again = answer(standin, key)
    assert f"<@{colleague}> has this paper already" in again["text"]
    assert len(posts_to(standin, dm(colleague))) == sent_before


def test_the_shortcut_on_a_message_with_an_arxiv_link_answers_privately(slack, standin, store):
    asker, colleague = new_user(), new_user()
    opted_in(slack, colleague, TOPIC)
    message = {"text": "look: <https://arxiv.org/abs/2403.00104v1|anemones>"}
    shortcut(slack, asker, message, callback_id=WHO_SHORTCUT)
    [call] = standin.wait_for(lambda: ephemerals(standin, asker), what="the shortcut's answer")
    assert call.params["channel"] == CHANNEL
    sends = buttons(blocks_of(call.params), SEND_ACTION)
    assert colleague in {json.loads(s["value"])["u"] for s in sends}
    assert {json.loads(s["value"])["p"] for s in sends} == {store.find_paper_by_arxiv_id("2403.00104").id}


def test_the_shortcut_on_a_message_naming_no_paper_says_so(slack, standin):
    asker = new_user()
    shortcut(slack, asker, {"text": "lunch at noon?"}, callback_id=WHO_SHORTCUT)
    [call] = standin.wait_for(lambda: ephemerals(standin, asker), what="the shortcut's answer")
    assert "found no arXiv link, arXiv id or DOI" in call.params["text"]


def test_a_paper_nobody_here_it_fits_gets_a_helpful_sentence(slack, standin, store):
    asker = new_user()
    opted_in(slack, new_user(), "glacier calving icebergs")
    key, _ = click(slack, asker, WHO_ACTION, "quantum-3")  # nobody here follows quantum computing
    reply = answer(standin, key)
    assert reply["text"].startswith("Who should read “") and "doesn't fit the interests" in reply["text"]
    assert "`/papers suggest on`" in reply["text"] and not buttons(blocks_of(reply), SEND_ACTION)
    key, _ = click(slack, asker, WHO_ACTION, "no-such-paper")
    assert "I no longer have that paper" in answer(standin, key)["text"]


def test_suggest_on_and_off_through_papers_shown_in_interests(slack, store):
    user = new_user()
    assert "Suggestions from colleagues:* off" in slack.ask(user, "interests").text
    assert slack.ask(user, "suggest on").text.startswith("Suggestions are on")
    assert slack.ask(user, "suggest ON").text.startswith("Suggestions were already on")
    assert "Suggestions from colleagues:* on" in slack.ask(user, "interests").text
    assert query(store, "select suggest from people where user_id = ?", [user]) == [{"suggest": 1}]
    assert slack.ask(user, "suggest off").text.startswith("Suggestions are off")
    bad = slack.ask(user, "suggest maybe").text
    assert "`/papers suggest on`" in bad and "`/papers help suggest`" in bad
    assert query(store, "select suggest from people where user_id = ?", [user]) == [{"suggest": 0}]


def ephemerals(standin, user: str) -> list:
    return [c for c in standin.calls("chat.postEphemeral", user=user) if c.status == 200]


def test_forgetting_either_side_of_a_suggestion_leaves_no_row_naming_them(slack, standin, store):
    asker, colleague = new_user(), new_user()
    opted_in(slack, colleague, TOPIC)
    posted = a_paper_message(slack, standin, asker)
    [who] = buttons(blocks_of(posted.params), WHO_ACTION)
    key, _ = click(slack, asker, WHO_ACTION, who["value"])
    [send] = [s for s in buttons(blocks_of(answer(standin, key)), SEND_ACTION)
              if json.loads(s["value"])["u"] == colleague]
    key, _ = click(slack, asker, SEND_ACTION, send["value"], ephemeral=True)
    assert "Sent to" in answer(standin, key)["text"]
    assert "deleted everything" in forget_me(slack, asker)
    for table, columns in table_columns(store).items():
        for column in columns:
            if table != "artifacts":
                hits = query(store, f"select count(*) as n from {table} where cast({column} as text) like ?",
                             [f"%{asker}%"])[0]["n"]
                assert hits == 0, (table, column)
    [row] = query(store, "select * from suggestions where user_id = ?", [colleague])
    assert row["by_user"] is None and row["paper_id"] == who["value"]  # the colleague's, nameless now
    assert "deleted everything" in forget_me(slack, colleague)
    assert query(store, "select * from suggestions where user_id = ?", [colleague]) == []


def test_home_s_switch_turns_suggestions_on_and_off(slack, standin, store):
    user = new_user()
    for value, stored in (("on", 1), ("off", 0)):
        before = len(standin.calls("views.publish", user_id=user))
        click(slack, user, SUGGEST_ACTION, value)
        [home] = standin.wait_for(lambda n=before: standin.calls("views.publish", user_id=user)[n:],
                                  what="Home published again")
        view = home.params["view"]
        view = json.loads(view) if isinstance(view, str) else view
        assert f"colleagues:* {value}" in json.dumps(view)
        assert query(store, "select suggest from people where user_id = ?", [user]) == [{"suggest": stored}]
