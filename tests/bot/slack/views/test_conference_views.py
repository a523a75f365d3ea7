"""Conference plans in Block Kit: each paper with Going and Skip (the chosen one marked), its reason and
session in the person's time, within Slack's 50 blocks; the reminder; a channel's paper with how many,
never who unless given."""

from __future__ import annotations

import json

from bot.slack.views.conference_plans import (
    GOING_ACTION,
    SKIP_ACTION,
    choice_value,
    chosen_in,
    plan_message,
    reminder_text,
    wanted_message,
    when_text,
)
from bot.usecases.conference import Plan, PlanEntry, Reminder, Venue, Wanted
from storage import Paper
from storage.models import PaperSession

VENUE = Venue("icml 2025", ("ICML 2025 poster", "ICML 2025 oral"))


def _paper(i: int) -> Paper:
    return Paper(id=f"p{i}", title=f"Paper <{i}> & more", abstract="A.", url=f"https://openreview.net/forum?id={i}",
                 venue="ICML 2025 poster")


def test_a_plan_of_15_has_going_and_skip_on_each_paper_within_50_blocks():
    session = PaperSession("Poster 1", "2025-07-15T18:00:00+00:00", "East Hall #E-101")
    entries = [PlanEntry(_paper(i), f"Matches your interest in topic {i}", "going" if i == 2 else None,
                         session if i < 3 else None) for i in range(15)]
    message = plan_message(Plan(VENUE, entries, timed=True, tz="America/Vancouver"))
    blocks = message["blocks"]
    assert len(blocks) <= 50
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert [b["action_id"] for b in buttons[:2]] == [GOING_ACTION, SKIP_ACTION] and len(buttons) == 30
    assert chosen_in(buttons[4]["value"]) == ("icml 2025", "p2") and buttons[4].get("style") == "primary"
    assert "style" not in buttons[0] and "style" not in buttons[5]
    text = json.dumps(blocks, ensure_ascii=False)
    assert "Paper &lt;0&gt; &amp; more" in text and "<0>" not in text  # escaped
    assert "Tue 15 Jul 11:00 (America/Vancouver)" in text and "East Hall #E-101" in text
    assert "✅ Going" in text and "remind you 15 minutes before" in text
    assert message["text"] == "Your plan for icml 2025: 15 papers, 1 marked Going"


def test_button_values_are_read_back_and_anything_else_is_none():
    assert chosen_in(choice_value("neurips", "arxiv:2401.1")) == ("neurips", "arxiv:2401.1")
    assert chosen_in("not json") is None and chosen_in('{"v": 1, "p": "x"}') is None
    assert chosen_in("[]") is None


def test_a_start_is_said_in_utc_without_a_timezone_and_nothing_without_a_start():
    assert when_text("2025-07-15T18:00:00+00:00", None) == "Tue 15 Jul 18:00 (UTC)"
    assert when_text("2025-07-15T18:00:00+00:00", "Not/AZone") == "Tue 15 Jul 18:00 (UTC)"
    assert when_text(None, "Europe/Berlin") == ""


def test_the_reminder_names_the_paper_session_and_place():
    text = reminder_text(Reminder("U1", _paper(1), PaperSession("Poster 4", "2025-07-15T18:00:00+00:00",
                                                                "Hall A"), "Europe/Berlin"))
    assert text.startswith(":alarm_clock: Starting in 15 minutes:") and "Paper &lt;1&gt;" in text
    assert "Poster 4 · Tue 15 Jul 20:00 (Europe/Berlin) · 📍 Hall A" in text


def test_a_channel_s_paper_says_how_many_and_who_only_when_given():
    anonymous = json.dumps(wanted_message(Wanted(_paper(1), 3)), ensure_ascii=False)
    assert "3 people here would want this" in anonymous and "<@" not in anonymous
    named = json.dumps(wanted_message(Wanted(_paper(1), 2, ["U1", "U2"])))
    assert "<@U1>, <@U2>" in named
