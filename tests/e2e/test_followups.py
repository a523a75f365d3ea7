"""Follow-ups end to end (issue 42), on both backends: a person saves an arXiv paper (the Save paper shortcut,
a signed request to the real bot), a later `paperbot ingest` brings its v2 with a GitHub link and a venue,
the next digest says so in one block under its header, and the next digest run says it no more."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from bot.slack.manifest import SAVE_SHORTCUT
from bot.text.paper_events import events
from storage import Paper
from tests.e2e.harness import TEAM_ID, posts_to, process_environment, query, user_ids

new_user = user_ids("UFUP")
CHANNEL = "C0GENERAL"
V1 = Paper(id="arxiv:2401.00077", arxiv_id="2401.00077", arxiv_version=1,
           title="Lava tube collapse in basalt", authors=["Ann Smith"],
           abstract="Volcano lava tubes collapse as basaltic flows cool.", url="https://arxiv.org/abs/2401.00077")
V2 = {"id": "2401.00077v2", "title": "Lava tube collapse in basalt", "authors": ["Ann Smith"],
      "abstract": "Volcano lava tubes collapse as basaltic flows cool and crack. "
                  "Code: https://github.com/volc/tubes.", "venue": "ICML 2025"}


@pytest.fixture(scope="module")
def db_path(tmp_path_factory, backend, seeded_copy):
    """A copy of the seeded database (no seeding of its own: the paper comes in the test)."""
    with seeded_copy(tmp_path_factory.mktemp(f"followups-{backend}"), backend) as path:
        yield path


def save_by_shortcut(slack, user: str, text: str) -> None:
    """The Save paper message shortcut on a message saying ``text``, as Slack sends it."""
    payload = {
        "type": "message_action", "callback_id": SAVE_SHORTCUT, "trigger_id": "fup.trigger",
        "response_url": slack.standin.response_url("fup"), "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "name": user.lower(), "team_id": TEAM_ID},
        "channel": {"id": CHANNEL, "name": "general"}, "token": "legacy-verification-token",
        "message_ts": "1.1", "action_ts": f"{time.time():.6f}",
        "message": {"type": "message", "user": "UOTHER", "ts": "1700000000.000100", "text": text},
    }
    assert slack.interaction(payload)[0] == 200


def headers_since(standin, user: str, before: int) -> list[str]:
    """The texts of the digest headers posted into ``user``'s DM after the first ``before`` posts."""
    return [p.params["text"] for p in posts_to(standin, "D" + user)[before:] if not p.params.get("blocks")]


def test_a_saved_paper_s_new_version_venue_and_code_are_told_once_in_the_next_digest(
        slack, standin, store, db_path, tmp_path):
    user = new_user()
    store.upsert_papers([V1])  # on arXiv, v1
    assert "Now following" in slack.ask(user, "follow feline cats whiskers").text
    save_by_shortcut(slack, user, "worth a read: https://arxiv.org/abs/2401.00077")
    standin.wait_for(lambda: [s.paper_id for s in store.saved_papers(user)] == [V1.id], what="the save")

    feed = tmp_path / "v2.jsonl"
    feed.write_text(json.dumps(V2) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "ingest", str(feed)], cwd=tmp_path, timeout=120,
                          env=process_environment(tmp_path, {"PAPERBOT_DB": str(db_path)}),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    found = {(e.kind, e.detail) for e in store.paper_events([V1.id])}
    assert found == {("version", "v2"), ("accepted", "ICML 2025"), ("code", "https://github.com/volc/tubes")}

    before = len(posts_to(standin, "D" + user))
    assert "I sent you 3 papers" in slack.ask(user, "digest now").text
    [header] = headers_since(standin, user, before)
    assert "*1 paper you saved moved on:*" in header
    assert ("• <https://arxiv.org/abs/2401.00077|Lava tube collapse in basalt>: accepted at ICML 2025; "
            "new version (v2): the abstract changed; code: <https://github.com/volc/tubes|github.com/volc/tubes>"
            in header)
    told = query(store, "select kind, via from followups_told where user_id = ?", [user])
    assert len(told) == 3 and len({r["via"] for r in told}) == 1  # one message told them: today's digest

    # The next digest run (an extra one, today's having gone out) tells nothing again.
    again = len(posts_to(standin, "D" + user))
    assert "I sent you" in slack.ask(user, "digest now").text
    assert all("moved on" not in text for text in headers_since(standin, user, again))
    assert len(query(store, "select kind from followups_told where user_id = ?", [user])) == 3


def test_on_a_day_without_a_digest_paperbot_digest_sends_one_message_of_its_own(standin, store, db_path):
    from tests.e2e.digests_support import cli
    from tests.e2e.harness import add_people

    user = new_user()
    add_people(db_path, [user], "UTC", "00:00")
    store.set_digest_schedule(user, "00:00", False)  # digests off: no digest tells them
    paper = Paper(id="doi:10.1000/fup.1", doi="10.1000/fup.1", title="Basalt columns cooling slowly",
                  abstract="Basalt columns form as lava cools.", authors=["Ann Smith"], venue="bioRxiv")
    store.upsert_papers([paper])
    store.save_paper(user, paper.id)
    store.upsert_papers([Paper(id="pmid:77", doi="10.1000/fup.1", title=paper.title, venue="Geology",
                               abstract=paper.abstract, authors=["Ann Smith"])], events=events)
    for _ in range(2):  # the second run (or the bot's own scheduler meanwhile) sends nothing more
        code, out, err = cli(standin, db_path)
        assert code == 0, out + err
    told = [p.params["text"] for p in posts_to(standin, "D" + user) if "moved on" in p.params.get("text", "")]
    assert len(told) == 1
    assert "*1 paper you saved moved on:*" in told[0] and "accepted at Geology" in told[0]
    assert told[0].endswith("`/papers followups off` stops these._")


def test_home_s_switch_and_the_command_turn_follow_ups_off_and_on(slack, standin, store):
    from bot.slack.views.home_view import FOLLOWUPS_ACTION

    user = new_user()
    for value, stored in (("off", 1), ("on", 0)):
        before = len(standin.calls("views.publish", user_id=user))
        payload, _ = slack.click_payload(user, FOLLOWUPS_ACTION, "D" + user, "1.000001")
        payload["actions"][0]["value"] = value
        assert slack.interaction(payload)[0] == 200
        [home] = standin.wait_for(lambda n=before: standin.calls("views.publish", user_id=user)[n:],
                                  what="Home published again")
        view = home.params["view"]
        assert f"Follow-ups:* {value}" in (view if isinstance(view, str) else json.dumps(view))
        assert query(store, "select followups_off from people where user_id = ?", [user]) == [
            {"followups_off": stored}]
    assert slack.ask(user, "followups off").text.startswith("Follow-ups are off")
    assert "*Follow-ups:* off" in slack.ask(user, "interests").text
