"""Conference plans as plain use cases, on both backends: a venue matched by any part of its name, an
unknown one refused with a few held venues; a person's best 15 of the venue only, by the one pipeline;
the plan kept with its choices and in the order sessions start; each Going paper's reminder once, 15
minutes before; and a channel's papers several opted-in members would want, with how many, never who
unless the workspace shows who."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import Missing, NoInterests, UnknownVenue
from bot.usecases.conference import (
    PLAN_SIZE,
    Reminder,
    channel_plan,
    choose,
    find_venue,
    plan_for,
    send_reminders,
)
from bot.usecases.export import data_export
from bot.usecases.forget import forget
from bot.usecases.interests import follow
from bot.usecases.settings import set_suggest
from bot.usecases.social import set_social_counts
from stand_ins.corpus import make_corpus
from storage.models import PaperSession
from tests.bot.usecases.conftest import refused, workspace_context

NOON = datetime(2025, 7, 15, 12, 0, tzinfo=UTC)


def _venue(paper):
    topic, number = paper.id.split("-")
    if topic == "cats":
        return "ICML 2025 poster" if int(number) < 5 else "ICML 2025 Oral"
    return "TestConf" if topic != "quantum" else "QuantumCon"


@pytest.fixture
def conf(any_store):
    papers = [replace(p, venue=_venue(p)) for p in make_corpus(per_topic=20)]
    ctx = workspace_context(any_store, papers)
    follow(ctx, "UCAT", "feline cats whiskers")
    return ctx


def test_a_venue_is_matched_by_any_part_of_its_name_and_an_unknown_one_names_a_few(conf):
    venue = find_venue(conf, "  icml   2025 ")
    assert venue.key == "icml 2025" and set(venue.names) == {"ICML 2025 poster", "ICML 2025 Oral"}
    assert find_venue(conf, "Oral").names == ("ICML 2025 Oral",)
    with refused(UnknownVenue, "no papers of “NeurIPS 2031”; I hold papers of TestConf, QuantumCon, ICML"):
        find_venue(conf, "NeurIPS  2031")
    with pytest.raises(Missing):
        find_venue(conf, "  ")


def test_a_plan_is_the_person_s_best_15_of_the_venue_only_with_reasons_and_kept(conf):
    plan = plan_for(conf, "UCAT", "ICML 2025")
    ids = [e.paper.id for e in plan.entries]
    assert len(ids) == PLAN_SIZE and all(i.startswith("cats-") for i in ids)
    assert all(e.reason and e.choice is None for e in plan.entries) and not plan.timed
    assert conf.store.shown_paper_ids("UCAT") == set()  # a plan is no digest: nothing counts as shown
    assert plan_for(conf, "UCAT", "testconf").entries == []  # nothing of that venue fits them
    follow(conf, "UGRAPH", "graph neural networks")
    other = plan_for(conf, "UGRAPH", "testconf")
    assert len(other.entries) == PLAN_SIZE and all(e.paper.id.startswith("graphs-") for e in other.entries)
    assert choose(conf, "UCAT", "icml 2025", ids[3], "going").entries[3].choice == "going"
    again = plan_for(conf, "UCAT", "icml 2025")  # the same plan, with what they chose
    assert [e.paper.id for e in again.entries] == ids and again.entries[3].choice == "going"
    assert choose(conf, "UCAT", "icml 2025", "graphs-1", "going") is None  # not in their plan
    with refused(NoInterests, "follow"):
        plan_for(conf, "UNEW", "ICML 2025")


def test_a_plan_whose_papers_have_sessions_comes_in_the_order_they_start(conf):
    first = plan_for(conf, "UCAT", "ICML 2025")
    ids = [e.paper.id for e in first.entries]
    conf.store.set_paper_sessions([
        (ids[0], PaperSession("Poster 3", "2025-07-17T09:00:00+00:00", "Hall C")),
        (ids[5], PaperSession("Poster 1", "2025-07-15T09:00:00+00:00", "Hall A")),
        (ids[9], PaperSession("Poster 2", "2025-07-16T09:00:00+00:00", "Hall B")),
    ])
    plan = plan_for(conf, "UCAT", "ICML 2025")
    assert plan.timed
    assert [e.paper.id for e in plan.entries][:4] == [ids[5], ids[9], ids[0], ids[1]]
    assert plan.entries[0].session == PaperSession("Poster 1", "2025-07-15T09:00:00+00:00", "Hall A")


def test_a_going_paper_is_reminded_once_fifteen_minutes_before_its_session(conf):
    ids = [e.paper.id for e in plan_for(conf, "UCAT", "ICML 2025").entries]
    starts = NOON + timedelta(minutes=30)
    conf.store.set_paper_sessions([(pid, PaperSession("Poster 1", starts.isoformat(), f"Board {i}"))
                                   for i, pid in enumerate(ids[:2])])
    choose(conf, "UCAT", "icml 2025", ids[0], "going")
    choose(conf, "UCAT", "icml 2025", ids[1], "skip")
    sent: list[Reminder] = []
    refused: list[Reminder] = []

    def post(reminder: Reminder) -> bool:
        sent.append(reminder)
        return True

    def slack_down(reminder: Reminder) -> bool:
        refused.append(reminder)
        return False

    assert send_reminders(conf, NOON, post) == 0  # 30 minutes before: not yet
    assert send_reminders(conf, NOON + timedelta(minutes=15), slack_down) == 0  # given back, not lost
    assert send_reminders(conf, NOON + timedelta(minutes=16), post) == 1
    assert send_reminders(conf, NOON + timedelta(minutes=20), post) == 0  # once
    assert len(refused) == 1
    assert [(r.user_id, r.paper.id, r.session.location) for r in sent] == [("UCAT", ids[0], "Board 0")]
    assert send_reminders(conf, NOON + timedelta(minutes=45), post) == 0  # started: none late


def test_a_channel_gets_the_papers_several_opted_in_members_want_with_how_many_never_who(conf):
    follow(conf, "UCAT2", "feline cats whiskers purring")
    follow(conf, "UGRAPH", "graph neural networks")
    follow(conf, "UOUT", "feline cats whiskers")  # not opted in: not counted
    for user in ("UCAT", "UCAT2", "UGRAPH"):
        set_suggest(conf, user, True)
    set_suggest(conf, "UELSEWHERE", True)
    follow(conf, "UELSEWHERE", "feline cats")  # opted in, but not a member of the channel
    set_social_counts(conf, False)
    members = ["UCAT", "UCAT2", "UGRAPH", "UOUT"]
    got = channel_plan(conf, "ICML 2025", members)
    assert got.asked == 3 and got.papers
    assert all(w.count == 2 and w.who is None and w.paper.id.startswith("cats-") for w in got.papers)
    set_social_counts(conf, True)
    shown = channel_plan(conf, "ICML 2025", members)
    assert all(w.who == ["UCAT", "UCAT2"] for w in shown.papers)
    assert channel_plan(conf, "QuantumCon", members).papers == []  # one member at most wants each


def test_a_person_s_plan_is_in_their_data_export_and_forgetting_them_deletes_it(conf):
    ids = [e.paper.id for e in plan_for(conf, "UCAT", "ICML 2025").entries]
    choose(conf, "UCAT", "icml 2025", ids[0], "going")
    exported = json.loads(data_export(conf, "UCAT").content)
    planned = exported["tables"]["conference_plans"]
    first = next(r for r in planned if r["paper_id"] == ids[0])
    assert len(planned) == PLAN_SIZE and (first["venue"], first["choice"]) == ("icml 2025", "going")
    assert ids[0] in exported["papers"]
    forget(conf, "UCAT")
    assert conf.store.plan("UCAT", "icml 2025") == []
