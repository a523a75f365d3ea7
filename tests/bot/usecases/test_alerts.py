"""Alerts (bot/usecases/alerts.py) and their place in the picking pipeline: an alert's new papers come
first in the next digest whatever their rank, at most 3 a local day, never one left out for the person
(shown, liked, disliked, saved, muted), never twice, each with a reason naming the alert. A phrase is
whole words in order, any case, in the title or the abstract (never the authors alone). Both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import BadArgument, NoInterests
from bot.usecases import follow, recommend, record_feedback
from bot.usecases.alerts import (
    MAX_ALERTS,
    add_alert,
    alerts,
    check_alerts,
    check_phrase,
    remove_alert,
    save_alerts,
)
from bot.usecases.digests.choose import build_digest, choose_papers
from bot.usecases.mutes import mute
from bot.usecases.saved import save
from storage import Paper
from tests.bot.usecases.conftest import refused
from tests.bot.usecases.test_picking import add_papers, ids

TODAY = datetime.now(UTC).date()


def zebra(i: int, **fields) -> Paper:
    """A paper about nothing anyone follows, saying "zebra crossings"."""
    values = {"title": f"Zebra Crossings of Lagos ({i})", "abstract": "Road safety in a growing city.",
              "authors": ["Ana Duarte"], **fields}
    return Paper(id=f"zebra-{i}", **values)


# -- the alerts themselves ----------------------------------------------------------------------------

def test_an_alert_is_added_once_whatever_its_case_or_spacing_listed_and_removed(app):
    assert add_alert(app, "U1", "  Graph   Transformers ").added
    again = add_alert(app, "U1", "graph transformers")
    assert not again.added and again.phrase == "Graph Transformers"
    assert not add_alert(app, "U1", "GRAPH-transformers").added  # the same words
    assert add_alert(app, "U1", "diffusion").added
    assert alerts(app, "U1") == ["Graph Transformers", "diffusion"]
    assert remove_alert(app, "U1", "graph  TRANSFORMERS") == "Graph Transformers"
    assert remove_alert(app, "U1", "graph transformers") is None
    assert remove_alert(app, "U1", "?!") is None
    assert alerts(app, "U1") == ["diffusion"]


@pytest.mark.parametrize(("text", "says"), [
    ("", "Say what to watch for"),
    ("   ", "Say what to watch for"),
    ("?!…", "no letters or digits"),
    ("x" * 101, "at most 100 characters"),
])
def test_a_phrase_that_cannot_be_an_alert_is_refused_saying_why(app, text, says):
    with refused(BadArgument, says):
        add_alert(app, "U1", text)
    assert alerts(app, "U1") == []
    assert check_phrase("x" * 100) == "x" * 100


def test_a_21st_alert_is_refused_and_nothing_is_written(app):
    for i in range(MAX_ALERTS):
        add_alert(app, "U1", f"topic {i}")
    with refused(BadArgument, "20 alerts"):
        add_alert(app, "U1", "one more")
    assert len(alerts(app, "U1")) == MAX_ALERTS
    assert not add_alert(app, "U1", "Topic 3").added  # one already had is no 21st


# -- in the digest ------------------------------------------------------------------------------------

def test_an_alerts_new_paper_comes_first_whatever_its_rank_with_a_reason_naming_it(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, zebra(1))
    recs = choose_papers(app, "U1")
    assert ids(recs)[0] == "zebra-1" and len(recs) == app.digest_size
    assert recs[0].reason == "Matches your alert “zebra crossings”"
    assert all(r.paper.id.startswith("cats") for r in recs[1:])


def test_whole_words_in_order_in_the_title_or_abstract_only(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "lane keeping")
    add_papers(app,
               zebra(1, title="Planes keeping", abstract="Lanes keeping apart."),  # inside other words
               zebra(2, title="Keeping lane", abstract="Keeping lane discipline."),  # out of order
               zebra(3, title="Roads", abstract="Nothing here.", authors=["Lane Keeping"]),  # authors only
               zebra(4, title="LANE-keeping assistants", abstract="."),  # any case, any punctuation
               zebra(5, title="Roads", abstract="On lane   Keeping."))
    picked = [r.paper.id for r in choose_papers(app, "U1") if r.reason.startswith("Matches your alert")]
    assert sorted(picked) == ["zebra-4", "zebra-5"]


def test_at_most_three_a_day_even_over_two_digests_then_the_rest_the_next_day(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, *(zebra(i) for i in range(5)))
    app.digest_size = 5
    first = build_digest(app, "U1", today=TODAY).recommendations  # recorded as shown
    alerted = [r.paper.id for r in first if r.reason.startswith("Matches your alert")]
    assert len(alerted) == 3 and ids(first)[:3] == alerted
    assert not [r for r in choose_papers(app, "U1", today=TODAY) if r.paper.id.startswith("zebra")]
    tomorrow = choose_papers(app, "U1", today=TODAY + timedelta(days=1))
    rest = [r.paper.id for r in tomorrow if r.reason.startswith("Matches your alert")]
    assert len(rest) == 2 and not set(rest) & set(alerted)  # never twice


def test_left_out_papers_stay_out_mutes_included(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, *(zebra(i) for i in range(5)),
               zebra(9, abstract="Road safety on a blockchain."))
    record_feedback(app, "U1", "zebra-0", +1)
    record_feedback(app, "U1", "zebra-1", -1)
    save(app, "U1", "zebra-2")
    app.store.mark_shown("U1", "zebra-3", "earlier")
    mute(app, "U1", "blockchain")
    assert [r.paper.id for r in choose_papers(app, "U1") if r.paper.id.startswith("zebra")] == ["zebra-4"]


def test_someone_with_only_an_alert_gets_its_papers(app):
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, zebra(1))
    assert ids(choose_papers(app, "U1")) == ["zebra-1"]


def test_an_old_paper_is_no_alert_paper(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, zebra(1))
    later = TODAY + timedelta(days=3)  # its first digest's window (a day) has passed
    assert not [r for r in choose_papers(app, "U1", today=later) if r.paper.id.startswith("zebra")]


def test_a_weekly_digest_holds_at_most_three_of_the_weeks_alert_papers(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    app.store.set_digest_weekday("U1", 4)
    add_papers(app, *(zebra(i) for i in range(5)))
    later = TODAY + timedelta(days=5)  # within a weekly digest's first window, past a daily one's
    recs = choose_papers(app, "U1", today=later)
    assert [r.reason for r in recs[:3]] == ["Matches your alert “zebra crossings”"] * 3
    assert not [r for r in recs[3:] if r.paper.id.startswith("zebra")]


def test_the_home_form_sets_exactly_its_alerts(app):
    add_alert(app, "U1", "Graph transformers")
    add_alert(app, "U1", "diffusion")
    save_alerts(app, "U1", check_alerts("graph  TRANSFORMERS\n\n lane keeping \ngraph transformers"))
    assert alerts(app, "U1") == ["Graph transformers", "lane keeping"]
    with refused(BadArgument, "at most 20 alerts"):
        check_alerts("\n".join(f"alert {i}" for i in range(21)))
    with refused(BadArgument, "no letters or digits"):
        check_alerts("fine\n?!")
    save_alerts(app, "U1", check_alerts(""))
    assert alerts(app, "U1") == []


def test_alerts_reach_digests_only_someone_with_alerts_alone_is_asked_to_follow_something_first(app):
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, zebra(1))
    with pytest.raises(NoInterests):
        recommend(app, "U1", 3, remember=False)
    follow(app, "U1", "feline cats kittens whiskers")
    assert not [r for r in recommend(app, "U1", 3, remember=False) if r.paper.id.startswith("zebra")]


def test_an_alert_paper_says_how_many_here_saved_it_like_any_other(app):
    follow(app, "U1", "feline cats kittens whiskers")
    add_alert(app, "U1", "zebra crossings")
    add_papers(app, zebra(1))
    for other in ("U2", "U3"):
        save(app, other, "zebra-1")
    first = choose_papers(app, "U1")[0]
    assert (first.paper.id, first.saved_by) == ("zebra-1", 2)
