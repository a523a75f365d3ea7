"""End to end: arxiv.org links unfurled into cards (fetched from the arXiv API when not held), clicks on a
card, the Save paper shortcut, `follow arXiv:ID` fetching, and commands typed in paperbot's DM, through
signed requests against the real bot, the Slack stand-in and an arXiv API stand-in, on both backends."""

from __future__ import annotations

import itertools
import json
import time

import pytest
from slack_sdk.models.blocks import Block

import bot.config
from bot.slack.manifest import SAVE_SHORTCUT
from bot.slack.views.messages import LIKE_ACTION, MORE_ACTION, SAVE_ACTION, WHO_ACTION
from bot.slack.views.unfurl_card import UNFURL_ACTIONS, VALUE_PREFIX
from bot.usecases.lookup import default_lookup, use_arxiv_api
from stand_ins.waiting import wait_until
from tests.arxiv_standin import ArxivStandIn
from tests.e2e.harness import (
    SLACK_ENVIRONMENT,
    TEAM_ID,
    RunningBot,
    bot_environment,
    posts_to,
    user_ids,
)

new_user = user_ids("UUNF")
_ids = itertools.count(1)
CHANNEL = "C0GENERAL"

#: Papers paperbot holds from the start: one from arXiv, one known by its DOI only.
HELD = [
    {"id": "2402.00011", "title": "Coral reef bleaching under heat waves",
     "abstract": "Coral reef bleaching heat waves ocean temperature measured across reefs.",
     "authors": ["Rae Coral", "Tom Sea"], "categories": ["q-bio.PE"]},
    {"id": "doi:10.1000/kelp.3", "title": "Kelp forest recovery", "doi": "10.1000/kelp.3",
     "abstract": "Kelp forests recover after urchin removal, we measured kelp canopy.",
     "authors": ["Kai Kelp"]},
]


@pytest.fixture(scope="module")
def extra_papers():
    return HELD


def fresh_id() -> str:
    """A new-style arXiv id no other test uses (a miss is remembered per id)."""
    return f"2505.{next(_ids):05d}"


@pytest.fixture(scope="module")
def arxiv(backend):
    with ArxivStandIn() as standin:
        yield standin


@pytest.fixture(scope="module")
def running(standin, db_path, arxiv):
    """The bot, with PAPERBOT_ARXIV_API_URL pointing at the arXiv stand-in."""
    with pytest.MonkeyPatch.context() as mp:
        for name in SLACK_ENVIRONMENT:
            mp.delenv(name, raising=False)
        running = RunningBot({**bot_environment(standin, db_path), "PAPERBOT_ARXIV_API_URL": arxiv.url})
        try:
            yield running
        finally:
            running.stop()
            use_arxiv_api(bot.config.DEFAULT_ARXIV_API_URL)  # back to the session's stand-in


@pytest.fixture(autouse=True)
def quiet_arxiv(arxiv):
    arxiv.reset()
    yield
    arxiv.reset()


def test_the_bot_asks_the_arxiv_api_of_its_setting(running, arxiv):
    assert running.settings.arxiv_api_url == arxiv.url == default_lookup().fetcher.api_url


# -- helpers -------------------------------------------------------------------------------------------

def link_shared(slack, urls: list[str], user: str = "UPOSTER", channel: str = CHANNEL,
                event_id: str | None = None, retry_num: int | None = None) -> tuple[str, str]:
    """Slack's link_shared for a message with these links; returns (event id, message ts)."""
    ts = f"{time.time():.6f}"
    event_id = event_id or f"EvLink{next(_ids):06d}"
    event = {"type": "link_shared", "channel": channel, "is_bot_user_member": True, "user": user,
             "message_ts": ts, "unfurl_id": f"U{event_id}", "source": "conversations_history",
             "links": [{"domain": "arxiv.org", "url": url} for url in urls], "event_ts": ts}
    status, _, _ = slack.event(event, event_id=event_id, retry_num=retry_num)
    assert status == 200
    return event_id, ts


def unfurls_at(standin, ts: str) -> list:
    return [c for c in standin.calls("chat.unfurl", ts=ts) if c.status == 200]


def unfurled(standin, ts: str) -> dict:
    """The one chat.unfurl for the message at ``ts``: its ``unfurls``."""
    [call] = standin.wait_for(lambda: unfurls_at(standin, ts), what="chat.unfurl")
    unfurls = call.params["unfurls"]
    return json.loads(unfurls) if isinstance(unfurls, str) else unfurls


def nothing_said_since(standin, since: int) -> None:
    """No message, ephemeral or reply reached anyone since the stand-in's ``since``-th call."""
    said = [c.method for c in standin.calls()[since:]
            if c.method in ("chat.postMessage", "chat.postEphemeral", "response_url")]
    assert said == []


def settled(arxiv, running, n: int = 1) -> None:
    """Wait for ``n`` requests to the arXiv API, then for what the bot does after."""
    wait_until(lambda: len(arxiv.asked) >= n, 15, "the bot to ask the arXiv API")
    running.settle()


def buttons_of(card: dict) -> list[dict]:
    [actions] = [b for b in card["blocks"] if b["type"] == "actions"]
    return actions["elements"]


def message_event(slack, user: str, text: str, event_id: str | None = None, **extra) -> str:
    ts = f"{time.time():.6f}"
    event = {"type": "message", "channel": "D" + user, "user": user, "text": text, "ts": ts,
             "event_ts": ts, "channel_type": "im", **extra}
    event_id = event_id or f"EvDm{next(_ids):06d}"
    status, _, _ = slack.event(event, event_id=event_id)
    assert status == 200
    return event_id


def dm_answers(standin, user: str) -> list[str]:
    return [c.params.get("text") or "" for c in posts_to(standin, "D" + user)]


def shortcut(slack, user: str, message: dict, channel: str = CHANNEL,
             callback_id: str = SAVE_SHORTCUT) -> str:
    """Use the message shortcut ``callback_id`` on ``message`` as ``user``, as Slack sends it."""
    key = f"sc{next(_ids)}"
    payload = {
        "type": "message_action", "callback_id": callback_id, "trigger_id": f"{key}.trigger",
        "response_url": slack.standin.response_url(key), "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "name": user.lower(), "team_id": TEAM_ID},
        "channel": {"id": channel, "name": "general"}, "token": "legacy-verification-token",
        "message_ts": message.get("ts", "1.1"), "action_ts": f"{time.time():.6f}",
        "message": {"type": "message", "user": "UOTHER", "ts": "1700000000.000100", **message},
    }
    status, _, _ = slack.interaction(payload)
    assert status == 200
    return key


def ephemerals_to(standin, user: str) -> list[str]:
    return [c.params.get("text") or "" for c in standin.calls("chat.postEphemeral", user=user)
            if c.status == 200]


def click_card(slack, user: str, card: dict, url: str, action: str, ts: str) -> str:
    """Click a button of an unfurl's card as Slack sends it: no ``message``, an ``app_unfurl``."""
    [button] = [b for b in buttons_of(card) if b["action_id"] == action]
    payload, key = slack.click_payload(user, action, CHANNEL, ts)
    del payload["message"]
    payload["container"] = {"type": "message_attachment", "message_ts": ts, "attachment_id": 1,
                            "channel_id": CHANNEL, "is_ephemeral": False, "is_app_unfurl": True,
                            "app_unfurl_url": url}
    payload["app_unfurl"] = {"id": 1, "blocks": card["blocks"], "app_unfurl_url": url, "is_app_unfurl": True}
    payload["actions"] = [{"action_id": action, "block_id": UNFURL_ACTIONS, "type": "button",
                           "value": button["value"], "action_ts": f"{time.time():.6f}"}]
    status, _, _ = slack.interaction(payload)
    assert status == 200
    call = slack.standin.wait_for(lambda: slack.standin.responses(key), what=f"the answer to {action}")[0]
    return call.params["text"]


# -- unfurls -------------------------------------------------------------------------------------------

def test_a_link_to_a_held_paper_unfurls_into_its_card_without_asking_arxiv(slack, standin, arxiv):
    url = "https://arxiv.org/abs/2402.00011v2"
    since = len(standin.calls())
    _, ts = link_shared(slack, [url, "https://arxiv.org/list/cs.LG/new"])
    unfurls = unfurled(standin, ts)
    assert list(unfurls) == [url]  # the listing page is no paper
    card = unfurls[url]
    for block in card["blocks"]:
        Block.parse(block).validate_json()
    head = card["blocks"][0]["text"]["text"]
    assert "Coral reef bleaching under heat waves" in head and "Rae Coral" in head
    assert "Coral reef bleaching heat waves" in json.dumps(card)  # the start of the abstract
    assert [b["action_id"] for b in buttons_of(card)] == [SAVE_ACTION, LIKE_ACTION, MORE_ACTION, WHO_ACTION]
    assert arxiv.asked == []
    [call] = unfurls_at(standin, ts)
    assert call.params["channel"] == CHANNEL
    nothing_said_since(standin, since)


def test_a_link_to_an_unknown_paper_is_fetched_stored_unfurled_and_then_searchable(slack, standin, store,
                                                                                   arxiv):
    base = fresh_id()
    arxiv.add(base, "Axolotl limb regeneration atlas", "Axolotl salamanders regrow limbs; a blastema atlas.",
              ["Ada Axo"], version=3)
    user = new_user()
    assert "No paper matches" in slack.ask(user, "search axolotl blastema").text
    url = f"https://arxiv.org/pdf/{base}v1.pdf"
    _, ts = link_shared(slack, [url])
    card = unfurled(standin, ts)[url]
    assert "Axolotl limb regeneration atlas" in card["blocks"][0]["text"]["text"]
    assert arxiv.asked == [[base]]
    paper = store.find_paper_by_arxiv_id(base)
    assert paper is not None and paper.arxiv_version == 3 and paper.authors == ["Ada Axo"]
    assert {b["value"] for b in buttons_of(card)} == {VALUE_PREFIX + paper.id}
    found = slack.ask(user, "search axolotl blastema")
    assert "Axolotl limb regeneration atlas" in json.dumps(found.blocks)


def test_a_redelivered_link_shared_unfurls_once(slack, standin, running):
    url = "https://arxiv.org/abs/2402.00011"
    event_id, ts = link_shared(slack, [url])
    unfurled(standin, ts)
    ts2 = ts  # Slack redelivers the very same event
    event = {"type": "link_shared", "channel": CHANNEL, "user": "UPOSTER", "message_ts": ts2,
             "unfurl_id": f"U{event_id}", "source": "conversations_history",
             "links": [{"domain": "arxiv.org", "url": url}], "event_ts": ts2}
    assert slack.event(event, event_id=event_id, retry_num=1)[0] == 200
    running.settle()  # the redelivery, were it carried out, has been
    assert len(unfurls_at(standin, ts)) == 1


def test_paper_links_a_person_posts_count_as_their_interest_once_and_not_after_signals_shares_off(
        slack, standin, store, running):
    user = new_user()
    links = ["https://arxiv.org/abs/2402.00011v1", "https://doi.org/10.1000/KELP.3", "https://example.org/x"]
    since = len(standin.calls())
    event_id, _ = link_shared(slack, links, user=user)
    running.settle()
    assert [s.paper_id for s in store.shared_papers(user)] == ["doi:10.1000/kelp.3", "arxiv:2402.00011"]
    link_shared(slack, links, user=user, event_id=event_id, retry_num=1)  # Slack's redelivery
    link_shared(slack, links[:1], user=user)  # the same paper posted again
    running.settle()
    assert len(store.shared_papers(user)) == 2
    said = [c for c in standin.calls()[since:] if c.method in ("chat.postMessage", "chat.postEphemeral")]
    assert said == []  # counted quietly
    assert "2402.00011" not in json.dumps(slack.ask(user, "recommend").blocks)  # they know it: never offered

    other = new_user()
    assert "no longer count" in slack.ask(other, "signals shares off").text
    link_shared(slack, links[:1], user=other)
    running.settle()
    assert store.shared_papers(other) == []
    assert "2 paper links you shared" in slack.ask(user, "forget").text


@pytest.mark.parametrize("failure", ["http 500", "timeout"])
def test_a_failed_lookup_unfurls_nothing_and_tells_nobody(slack, standin, store, arxiv, failure, monkeypatch,
                                                          running):
    base = fresh_id()
    arxiv.add(base, "Mantis shrimp vision", "Mantis shrimp see polarised light.")
    if failure == "http 500":
        arxiv.status = 500
    else:
        monkeypatch.setattr(default_lookup().fetcher, "timeout", 0.3)
        arxiv.hang = 1.5
    since = len(standin.calls())
    _, ts = link_shared(slack, [f"https://arxiv.org/abs/{base}"])
    settled(arxiv, running)  # on a timeout, the bot has given up: the stand-in's late answer reaches nobody
    assert unfurls_at(standin, ts) == [] and store.find_paper_by_arxiv_id(base) is None
    nothing_said_since(standin, since)


def test_a_failed_chat_unfurl_is_only_logged(slack, standin, running):
    standin.fail("chat.unfurl", status=500, times=5)
    since = len(standin.calls())
    _, ts = link_shared(slack, ["https://arxiv.org/abs/2402.00011"])
    standin.wait_for(lambda: standin.calls("chat.unfurl", ts=ts), what="the chat.unfurl attempt")
    running.settle()
    nothing_said_since(standin, since)


# -- clicks on a card ------------------------------------------------------------------------------------

def test_save_and_like_on_a_card_work_without_editing_the_posters_message(slack, standin, store):
    url = "https://arxiv.org/abs/2402.00011"
    _, ts = link_shared(slack, [url])
    card = unfurled(standin, ts)[url]
    user = new_user()
    answer = click_card(slack, user, card, url, SAVE_ACTION, ts)
    assert answer.startswith(":bookmark: Saved “Coral reef bleaching under heat waves”")
    paper = store.find_paper_by_arxiv_id("2402.00011")
    assert [s.paper_id for s in store.saved_papers(user)] == [paper.id]
    assert store.get_feedback(user) == []  # a save is no like
    assert "already in your saved papers" in click_card(slack, user, card, url, SAVE_ACTION, ts)
    assert len(store.saved_papers(user)) == 1
    other = new_user()
    assert click_card(slack, other, card, url, LIKE_ACTION, ts).startswith(":+1: Noted: more like")
    assert {f.paper_id: f.value for f in store.get_feedback(other)} == {paper.id: 1}
    assert standin.calls("chat.update") == []  # the poster's message is not paperbot's to edit


def test_more_like_this_on_a_card_sends_similar_papers_to_the_clickers_dm(slack, standin):
    url = "https://arxiv.org/abs/2402.00011"
    _, ts = link_shared(slack, [url])
    card = unfurled(standin, ts)[url]
    user = new_user()
    answer = click_card(slack, user, card, url, MORE_ACTION, ts)
    assert answer.startswith("I sent you ") and "like “Coral reef bleaching under heat waves”" in answer
    header, *papers = posts_to(standin, "D" + user)
    assert "Papers like “Coral reef bleaching under heat waves”" in header.params["text"]
    assert "Kelp forest recovery" in [p.params["text"] for p in papers]  # the paper closest to it
    assert not [c for c in standin.calls("chat.postMessage") if c.params.get("channel") == CHANNEL]


# -- the Save paper shortcut ----------------------------------------------------------------------------

def test_the_shortcut_saves_the_papers_a_message_names_and_says_so_privately(slack, standin, store, arxiv):
    base = fresh_id()
    arxiv.add(base, "Tardigrade desiccation survival", "Tardigrades survive drying by vitrification.")
    user = new_user()
    text = f"Two good ones: <https://arxiv.org/abs/{base}v2|tardigrades> and doi:10.1000/KELP.3 :tada:"
    shortcut(slack, user, {"text": text})
    [answer] = standin.wait_for(lambda: ephemerals_to(standin, user), what="the shortcut's answer")
    assert answer.startswith(":bookmark: Saved 2 papers: “Tardigrade desiccation survival”, "
                             "“Kelp forest recovery”") and "`/papers saved`" in answer
    [call] = standin.calls("chat.postEphemeral", user=user)
    assert call.params["channel"] == CHANNEL
    saved = {s.paper_id for s in store.saved_papers(user)}
    assert saved == {store.find_paper_by_arxiv_id(base).id, store.find_paper_by_doi("10.1000/kelp.3").id}
    assert arxiv.asked == [[base]]


def test_the_shortcut_reads_attachments_and_blocks_and_reports_what_it_could_not_find(slack, standin, store):
    user = new_user()
    message = {"text": "have a look", "attachments": [{"from_url": "https://arxiv.org/abs/2402.00011",
                                                       "fallback": "a paper", "is_app_unfurl": True}],
               "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
                   {"type": "text", "text": "and doi:10.1000/nobody.1"}]}]}]}
    shortcut(slack, user, message)
    [answer] = standin.wait_for(lambda: ephemerals_to(standin, user), what="the shortcut's answer")
    assert "Saved 1 paper: “Coral reef bleaching under heat waves”" in answer
    assert "I couldn't find `10.1000/nobody.1`" in answer


def test_the_shortcut_on_a_message_without_papers_saves_nothing(slack, standin, store):
    user = new_user()
    shortcut(slack, user, {"text": "lunch at noon? <https://example.org/menu>"})
    [answer] = standin.wait_for(lambda: ephemerals_to(standin, user), what="the shortcut's answer")
    assert "found no arXiv link, arXiv id or DOI" in answer
    assert store.saved_papers(user) == []


def test_the_shortcut_answers_in_the_dm_where_it_cannot_post_an_ephemeral(slack, standin, store):
    user = new_user()
    standin.not_in_channel.add("C0PRIVATE")
    shortcut(slack, user, {"text": "https://arxiv.org/abs/2402.00011"}, channel="C0PRIVATE")
    [answer] = standin.wait_for(lambda: dm_answers(standin, user), what="the answer in the DM")
    assert answer.startswith(":bookmark: Saved 1 paper")
    assert len(store.saved_papers(user)) == 1


# -- follow arXiv:ID -------------------------------------------------------------------------------------

def test_follow_an_arxiv_id_not_held_fetches_it_and_likes_it(slack, store, arxiv):
    base = fresh_id()
    arxiv.add(base, "Octopus arm neural control", "Octopus arms carry their own neural ganglia.")
    user = new_user()
    reply = slack.ask(user, f"follow arXiv:{base}, https://arxiv.org/abs/{fresh_id()}")
    assert "Noted as papers you like: “Octopus arm neural control”" in reply.text
    assert "I don't have these papers (yet)" in reply.text  # the second id: arXiv has no such paper
    paper = store.find_paper_by_arxiv_id(base)
    assert {f.paper_id: f.value for f in store.get_feedback(user)} == {paper.id: 1}


# -- the DM ----------------------------------------------------------------------------------------------

def test_a_subcommand_typed_in_the_dm_is_answered_there_once(slack, standin, store):
    user = new_user()
    event_id = message_event(slack, user, "follow coral reefs")
    [answer] = standin.wait_for(lambda: dm_answers(standin, user), what="the answer in the DM")
    assert answer.startswith("Now following “coral reefs”")
    assert store.get_topics(user) == ["coral reefs"]
    event = {"type": "message", "channel": "D" + user, "user": user, "text": "follow coral reefs",
             "ts": "1.1", "channel_type": "im"}
    assert slack.event(event, event_id=event_id, retry_num=1)[0] == 200  # Slack redelivers it
    message_event(slack, user, "/papers interests")
    standin.wait_for(lambda: len(dm_answers(standin, user)) == 2, what="the second answer")
    assert dm_answers(standin, user)[1].startswith("*Your topics:* coral reefs")


def test_anything_else_typed_in_the_dm_gets_the_help_and_bad_arguments_say_what_was_wrong(slack, standin):
    user = new_user()
    message_event(slack, user, "hi there!")
    [answer] = standin.wait_for(lambda: dm_answers(standin, user), what="the help")
    assert answer.startswith("I didn't understand that.") and "`/papers recommend`" in answer
    message_event(slack, user, "digest 25:00")
    standin.wait_for(lambda: len(dm_answers(standin, user)) == 2, what="the second answer")
    assert "is not a time" in dm_answers(standin, user)[1]


def test_the_bots_own_messages_edits_and_link_only_messages_are_not_answered(slack, standin, running):
    user = new_user()
    message_event(slack, user, "interests", bot_id="B0PAPERBOT")
    message_event(slack, user, "interests", subtype="message_changed")
    message_event(slack, user, "<https://arxiv.org/abs/2402.00011>")
    message_event(slack, user, "saved")  # answered: everything before it was not
    [answer] = standin.wait_for(lambda: dm_answers(standin, user), what="the answer to `saved`")
    running.settle()  # one person's work runs in order: the earlier messages' too, were they answered
    assert dm_answers(standin, user) == [answer] and "no saved papers yet" in answer
