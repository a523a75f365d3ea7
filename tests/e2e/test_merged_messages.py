"""End to end: feedback on the message of a paper copy that was merged into another since it was sent
(the person saw both copies, the store keeps one record) lands on the merged paper, found through the
message's metadata and the dropped copy's alias; on both backends."""

from __future__ import annotations

import pytest

from bot.slack.views.messages import LIKE_ACTION, SAVE_ACTION
from storage import Paper
from tests.e2e.harness import posts_to, query, user_ids

new_user = user_ids("UMRG")

#: Per test, two copies of one paper that nothing ties together yet: the arXiv preprint and the
#: journal version under another title, with a DOI (each test its own topic, so each its own pair).
TOPICS = {"glacier": "glacier ice crevasses calving moraine", "coral": "coral reef bleaching polyps algae",
          "dune": "desert dune sand erosion wind"}


def copies(n: int, name: str, words: str) -> list[dict]:
    return [
        {"id": f"2402.0007{n}", "title": f"{words.title()}, a preprint", "published": "2024-02-01",
         "abstract": f"We measure {words} in the field.", "authors": ["Ana Frost"]},
        {"id": f"journal:{name}-9", "title": f"Measured {name}s", "doi": f"10.5555/{name}.9",
         "venue": "Journal of Earth Things", "url": f"https://example.org/{name}/9",
         "published": "2024-06-01",
         "abstract": f"We measure {words} in depth.", "authors": ["Ana Frost"]},
    ]


@pytest.fixture(scope="module")
def extra_papers():
    return [record for n, (name, words) in enumerate(TOPICS.items()) for record in copies(n, name, words)]


def both_copies_shown(slack, standin, store, user, name):
    """``user`` follows glaciers and is sent both copies; then a record ties them into one paper.
    Returns (kept id, the message still on record, the message of the copy merged away)."""
    n, words = list(TOPICS).index(name), TOPICS[name]
    arxiv_id, journal = f"2402.0007{n}", f"journal:{name}-9"
    slack.ask(user, f"follow {words}")
    assert "I sent you" in slack.ask(user, "recommend 2").text
    shown = {r["paper_id"]: r["message_ts"] for r in query(store, "select * from shown where user_id = ?",
                                                           [user])}
    assert set(shown) == {f"arxiv:{arxiv_id}", journal}, shown
    posted = [p for p in posts_to(standin, "D" + user) if p.params.get("blocks")]
    assert all(p.params.get("metadata") for p in posted)  # each paper message names its paper
    bridge = Paper(id=f"feed:{name}", abstract="short", arxiv_id=arxiv_id, doi=f"10.5555/{name.upper()}.9",
                   title="Something else", authors=["A. Frost"])
    assert store.upsert_papers([bridge]).updated == 1
    kept = store.get_paper(journal).id
    assert kept == store.get_paper(f"arxiv:{arxiv_id}").id
    on_record = {r["message_ts"] for r in query(store, "select * from shown where user_id = ?", [user])}
    assert len(on_record) == 1
    dropped_ts = next(ts for ts in shown.values() if ts not in on_record)
    return kept, on_record.pop(), dropped_ts


def feedback(store, user):
    rows = query(store, "select * from feedback where user_id = ?", [user])
    return [(r["paper_id"], r["value"]) for r in rows]


def test_a_reaction_on_a_merged_away_copy_s_message_likes_the_merged_paper(slack, standin, store):
    user = new_user()
    kept, _, dropped_ts = both_copies_shown(slack, standin, store, user, "glacier")
    assert slack.reaction(user, "+1", "D" + user, dropped_ts) == 200
    assert standin.wait_for(lambda: feedback(store, user), what="the like") == [(kept, 1)]
    # The message shows it, as any paper message does.
    standin.wait_for(lambda: [c for c in standin.calls("chat.update", ts=dropped_ts) if c.status == 200],
                     what="the message updated")
    assert slack.reaction(user, "+1", "D" + user, dropped_ts, added=False) == 200
    standin.wait_for(lambda: feedback(store, user) == [], what="the like taken back")


def test_a_button_on_a_merged_away_copy_s_message_rates_and_saves_the_merged_paper(slack, standin, store):
    user = new_user()
    kept, _, dropped_ts = both_copies_shown(slack, standin, store, user, "coral")
    status, key = slack.click(user, LIKE_ACTION, "D" + user, dropped_ts)
    assert status == 200
    answer = standin.wait_for(lambda: standin.responses(key), what="the answer")[0].params["text"]
    assert answer.startswith(":+1: Noted") and feedback(store, user) == [(kept, 1)]
    status, key = slack.click(user, SAVE_ACTION, "D" + user, dropped_ts)
    answer = standin.wait_for(lambda: standin.responses(key), what="the answer")[0].params["text"]
    assert answer.startswith(":bookmark: Saved")
    assert [r["paper_id"] for r in query(store, "select * from saved where user_id = ?", [user])] == [kept]


def test_a_message_of_a_paper_never_shown_to_the_person_stays_ignored(slack, standin, store):
    user, other = new_user(), new_user()
    _, _, dropped_ts = both_copies_shown(slack, standin, store, user, "dune")
    # Someone else reacting on it (not their paper) records nothing.
    assert slack.reaction(other, "+1", "D" + user, dropped_ts) == 200
    status, key = slack.click(other, LIKE_ACTION, "D" + user, dropped_ts)
    answer = standin.wait_for(lambda: standin.responses(key), what="the answer")[0].params["text"]
    assert "no longer have a record" in answer and feedback(store, other) == []


def test_a_reaction_on_someone_else_s_message_asks_slack_nothing(slack, standin):
    user = new_user()
    event = {"type": "reaction_added", "user": user, "reaction": "+1", "item_user": "UHUMAN",
             "item": {"type": "message", "channel": "C0GENERAL", "ts": "1700000000.000100"},
             "event_ts": "1700000001.000000"}
    assert slack.event(event)[0] == 200
    assert slack.reaction(user, "+1", "C0GENERAL", "1700000000.000200") == 200  # paperbot's own: it asks
    looks = lambda: [c.params.get("latest") for c in standin.calls("conversations.history")  # noqa: E731
                     if c.params.get("channel") == "C0GENERAL"]
    standin.wait_for(looks, what="the look at paperbot's message")
    assert looks() == ["1700000000.000200"]
