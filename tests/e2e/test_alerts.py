"""End to end: `/papers alert PHRASE`, `alert remove PHRASE` and `alerts` through signed requests against the
real bot and the Slack stand-in, and the alert's new paper arriving first in a `paperbot digest --force`,
its reason naming the alert; bad input answered in a sentence, the phrase echoed escaped. Both backends."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.e2e.harness import bot_environment, posts_to, process_environment, user_ids

new_user = user_ids("UALR")

#: A paper nobody's topics would rank (no word of the corpus), saying the phrase; and one that only has
#: it among its authors' names.
ZEBRAS = [
    {"id": "zebra-1", "title": "Zebra Crossings in Lagos", "abstract": "Road safety where cities grow fast.",
     "authors": ["Ana Duarte"]},
    {"id": "zebra-2", "title": "Pedestrian flows", "abstract": "Road safety where cities grow fast.",
     "authors": ["Zebra Crossings"]},
]


@pytest.fixture(scope="module")
def extra_papers():
    return ZEBRAS


def dm(user: str) -> str:
    return "D" + user


def digest(standin, db_path, user: str) -> subprocess.CompletedProcess:
    """`paperbot digest --user USER --force` as its own process, as cron would run it."""
    environ = process_environment(db_path.parent, bot_environment(standin, db_path, 3))
    return subprocess.run([sys.executable, "-m", "bot.cli", "digest", "--user", user, "--force"],
                          cwd=db_path.parent, env=environ, capture_output=True, text=True, timeout=60)


def test_an_alerts_new_paper_comes_first_in_the_digest_with_its_reason(slack, standin, db_path):
    user = new_user()
    slack.ask(user, "follow feline cats whiskers")
    reply = slack.ask(user, "alert   Zebra CROSSINGS").text
    assert "Alert set" in reply and "“Zebra CROSSINGS”" in reply
    assert "already have the alert “Zebra CROSSINGS”" in slack.ask(user, "alert zebra crossings").text
    done = digest(standin, db_path, user)
    assert done.returncode == 0, done.stderr
    posted = [c for c in posts_to(standin, dm(user)) if c.params.get("blocks")]
    assert len(posted) == 3
    assert posted[0].params["text"].startswith("Zebra Crossings in Lagos")
    blocks = json.dumps(posted[0].params["blocks"], ensure_ascii=False)
    assert "Matches your alert “Zebra CROSSINGS”" in blocks
    others = " ".join(c.params["text"] for c in posted[1:])
    assert "Pedestrian" not in others and "Zebra" not in others  # the authors' names are no alert's


def test_alerts_lists_them_and_alert_remove_removes_one(slack):
    user = new_user()
    assert "You have no alerts" in slack.ask(user, "alerts").text
    slack.ask(user, "alert graph transformers")
    slack.ask(user, "alert <b>bold</b> & co")
    listed = slack.ask(user, "alerts").text
    assert "(2 of 20)" in listed and "“graph transformers”" in listed and "/papers alert remove" in listed
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in listed and "<b>" not in listed
    removed = slack.ask(user, "alert remove Graph  Transformers").text
    assert "Removed the alert “graph transformers”" in removed
    again = slack.ask(user, "alert remove graph transformers").text
    assert "You have no alert “graph transformers”" in again
    assert "graph transformers" not in slack.ask(user, "alerts").text
    assert "*Alerts:*" in slack.ask(user, "interests").text


def test_a_21st_alert_is_refused(slack):
    user = new_user()
    for i in range(20):
        assert "Alert set" in slack.ask(user, f"alert topic number {i}").text
    refused = slack.ask(user, "alert one too many").text
    assert "You have 20 alerts, the most there can be" in refused
    assert "(20 of 20)" in slack.ask(user, "alerts").text


def test_bad_input_is_answered_saying_what_was_wrong(slack):
    user = new_user()
    answers = {
        "alert": "Say what to watch for",
        "alert   ": "Say what to watch for",
        "alert ?!…": "has no letters or digits",
        "alert " + "x" * 101: "at most 100 characters",
        "alert remove": "Say which alert to remove",
        "alerts please": "takes nothing after it",
    }
    for text, says in answers.items():
        reply = slack.ask(user, text).text
        assert says in reply, (text, reply)
        assert "Traceback" not in reply
    assert "You have no alerts" in slack.ask(user, "alerts").text
    echoed = slack.ask(user, "alert remove <@U123> & *this*").text
    assert "&lt;@U123&gt; &amp;" in echoed and "<@U123>" not in echoed


def test_forget_counts_the_alerts_and_deletes_them(slack, store):
    user = new_user()
    slack.ask(user, "alert graph transformers")
    slack.ask(user, "alert zebra crossings")
    assert store.rows_about(user)["alerts"] == 2
    assert "2 alerts" in slack.ask(user, "forget").text
    store.forget_person(user)
    assert "You have no alerts" in slack.ask(user, "alerts").text
