"""End to end: `/papers alert PHRASE`, `alert remove PHRASE` and `alerts` through signed requests against the
real bot and the Slack stand-in, and the alert's new paper arriving first in a `paperbot digest --force`,
its reason naming the alert; bad input answered in a sentence, the phrase echoed escaped. Both backends."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.slack.views.home_view import ALERTS_ACTION, ALERTS_BLOCK, ALERTS_VIEW
from tests.e2e.harness import bot_environment, posts_to, process_environment, user_ids
from tests.e2e.test_home import click_home, field, homes, next_home, open_home, submit, text

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
    for typed, says in answers.items():
        reply = slack.ask(user, typed).text
        assert says in reply, (typed, reply)
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


# -- Home -------------------------------------------------------------------------------------------

def test_home_shows_the_alerts_and_its_form_edits_them(slack, standin, store):
    user = new_user()
    open_home(slack, standin, user)  # published again after each alert from then on
    slack.ask(user, "alert graph transformers")
    slack.ask(user, "alert <b>zebra</b> crossings")
    before = len(standin.wait_for(lambda: homes(standin, user)[2:] and homes(standin, user), what="3 Homes"))
    slack.event({"type": "app_home_opened", "user": user, "tab": "home", "channel": dm(user)})
    shown = json.dumps(next_home(standin, user, before), ensure_ascii=False)
    assert "*Alerts:* graph transformers, &lt;b&gt;zebra&lt;/b&gt; crossings" in shown and "<b>" not in shown
    form = click_home(slack, standin, user, ALERTS_ACTION, "edit")
    initial = field(form, ALERTS_BLOCK)["element"]["initial_value"]
    assert initial == "graph transformers\n<b>zebra</b> crossings"
    before = len(homes(standin, user))
    typed = "GRAPH  Transformers\n\nlane keeping\n"
    assert submit(slack, user, ALERTS_VIEW, {ALERTS_BLOCK: text(typed)}) is None
    shown = json.dumps(next_home(standin, user, before), ensure_ascii=False)
    # The alert already had keeps its spelling; the one left out went.
    assert store.get_alerts(user) == [("graph transformers", "graph transformers"),
                                      ("lane keeping", "lane keeping")]
    assert "zebra" not in shown
    for bad in ("?!", "x" * 101, "\n".join(f"alert {i}" for i in range(21))):
        ack = submit(slack, user, ALERTS_VIEW, {ALERTS_BLOCK: text(bad)})
        assert ack is not None and list(ack["errors"]) == [ALERTS_BLOCK], ack
    assert len(store.get_alerts(user)) == 2
