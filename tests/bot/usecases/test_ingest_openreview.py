"""``openreview:`` sources through the ingest use case, on both backends: a venue read whole is not asked
again the same UTC day (``read_on``) but is the next (its papers unchanged), ``--since`` reads it again at
once, a failed page leaves the cursor, an empty venue is a report of nothing, a bad id one report; and an
arXiv paper and its OpenReview version, in either order, are one paper with the venue set. Against
stand_ins/openreview.py."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.usecases.ingest import ingest
from stand_ins.openreview import OpenReview, note, venue_of_notes
from storage.models import Paper

VENUE = "ICML.cc/2025/Conference"
SOURCE = f"openreview:{VENUE}"
DAY = date(2026, 12, 7)


@pytest.fixture
def api():
    with OpenReview() as stand_in:
        yield stand_in


def run(app, api, day: date = DAY, sources=(SOURCE,), hour=9, **options):
    now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=hour)
    reports = ingest(app, list(sources), fetcher=api.fetcher(), clock=lambda: now, **options)
    return {r.source: r for r in reports}


def test_a_venue_is_read_whole_once_a_day(app, api):
    api.add(venue_of_notes(VENUE, 1200) + [note("OralPaper1", VENUE, venue="ICML 2025 oral")])
    papers = app.store.count_papers()

    report = run(app, api)[SOURCE]

    assert (report.error, report.rejected, report.announced, report.added) == (None, [], 1201, 1201)
    assert report.kinds == {"ICML 2025 poster": 1200, "ICML 2025 oral": 1}
    assert app.store.count_papers() == papers + 1201
    assert app.store.source_cursor(SOURCE) == DAY.isoformat()
    held = app.store.get_paper("openreview:OralPaper1")
    assert held.venue == "ICML 2025 oral" and held.url == "https://openreview.net/forum?id=OralPaper1"
    assert len(api.requests) == 2

    later = run(app, api, hour=18)[SOURCE]  # the same UTC day: not asked again
    assert (later.read_on, later.announced, later.added, later.error, later.empty) == (
        DAY.isoformat(), None, 0, None, False)
    assert len(api.requests) == 2

    api.add([note("LateAccept", VENUE)])
    tomorrow = run(app, api, DAY + timedelta(days=1))[SOURCE]
    assert (tomorrow.read_on, tomorrow.added, tomorrow.unchanged) == (None, 1, 1201)
    assert app.store.source_cursor(SOURCE) == (DAY + timedelta(days=1)).isoformat()


def test_since_reads_a_venue_again_the_same_day(app, api):
    api.add(venue_of_notes(VENUE, 3))
    run(app, api)
    report = run(app, api, arxiv_since=DAY - timedelta(days=30))[SOURCE]
    assert (report.read_on, report.unchanged, len(api.requests)) == (None, 3, 2)


def test_a_failed_page_leaves_the_cursor_and_the_venue_is_read_again(app, api, monkeypatch):
    monkeypatch.setattr("bot.sources.openreview.PAGE", 100)
    api.add(venue_of_notes(VENUE, 250))
    api.broken = {2: b"<html><body>502 Bad Gateway</body></html>"}

    report = run(app, api)[SOURCE]

    assert [(r.where, r.reason) for r in report.rejected] == [("notes 101-200", "the answer was HTML")]
    assert (report.added, report.error) == (150, None)
    assert app.store.source_cursor(SOURCE) is None
    again = run(app, api, hour=10)[SOURCE]  # not read whole: read again at once
    assert (again.added, again.unchanged, again.rejected) == (100, 150, [])
    assert app.store.source_cursor(SOURCE) == DAY.isoformat()


def test_a_first_page_that_fails_is_the_report_s_error(app, api):
    api.busy = {1: "3600"}
    report = run(app, api)[SOURCE]
    assert report.error.startswith(f"OpenReview venue {VENUE}: couldn't fetch") and "HTTP 429" in report.error
    assert app.store.source_cursor(SOURCE) is None


def test_an_empty_venue_is_a_report_of_nothing_and_a_bad_id_one_report(app, api):
    empty = "openreview:ICML.cc/2031/Conference"
    report = run(app, api, sources=(empty,))[empty]
    assert (report.error, report.announced, report.added, report.empty) == (None, 0, 0, False)

    [bad] = ingest(app, ["openreview:ICML 2025"], fetcher=api.fetcher())
    assert bad.source == "openreview:ICML 2025"
    assert "the venue id as on openreview.net, e.g. openreview:ICML.cc/2025/Conference" in bad.error


@pytest.mark.parametrize("arxiv_first", [True, False])
def test_an_arxiv_paper_and_its_openreview_version_are_one_paper_with_the_venue_set(app, api, arxiv_first):
    preprint = Paper(id="arxiv:2502.01234", title="Sharp Regret Bounds for Linear Bandits",
                     abstract="We bound the regret of linear bandits.", authors=["Ada Lovelace", "Bo Kim"],
                     url="https://arxiv.org/abs/2502.01234", arxiv_id="2502.01234", arxiv_version=1,
                     venue="arXiv", categories=["cs.LG"])
    accepted = note("SharpRgrt1", VENUE, title="Sharp regret bounds for linear bandits",
                    abstract="We bound the regret of linear bandits, tightly, with matching lower bounds.",
                    authors=["Ada Lovelace", "Chen Wu"], keywords=["bandits"])
    api.add([accepted])
    papers = app.store.count_papers()

    if arxiv_first:
        app.store.upsert_papers([preprint])
        report = run(app, api)[SOURCE]
        assert (report.added, report.updated) == (0, 1)
    else:
        run(app, api)
        app.store.upsert_papers([preprint])

    assert app.store.count_papers() == papers + 1
    merged = app.store.get_paper("arxiv:2502.01234")
    assert merged.id == app.store.get_paper("openreview:SharpRgrt1").id  # either id finds the one paper
    assert merged.venue == "ICML 2025 poster" and merged.arxiv_id == "2502.01234"
    assert merged.abstract == accepted["content"]["abstract"]["value"]  # the fuller text
    assert set(merged.categories) == {"cs.LG", "bandits"}
    assert "Chen Wu" in merged.authors and "Bo Kim" in merged.authors
