"""``biorxiv:``/``medrxiv:`` sources through the ingest use case (issue 42), on both backends: a first read
takes the last two days, a later one only what was posted since (the last day read again), a missed day
is caught up, ``--since`` back-fills, each category has its report and its cursor, and a page that fails
leaves the cursors where they were. Against stand_ins/biorxiv.py."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.usecases.ingest import ingest
from stand_ins.biorxiv import Biorxiv, day_of_posts
from storage.models import Paper

SOURCE = "biorxiv:neuroscience,Genomics"
NAMES = ["biorxiv:neuroscience", "biorxiv:genomics"]
DAY = date(2026, 12, 7)


@pytest.fixture
def api():
    with Biorxiv() as stand_in:
        yield stand_in


def run(app, api, day: date, **options):
    now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=9)
    return {r.source: r for r in ingest(app, [SOURCE], fetcher=api.fetcher(), clock=lambda: now, **options)}


def post(api, day: date, n: int = 10) -> None:
    # Half in each category asked for, and a third category never asked for.
    api.post(day_of_posts("biorxiv", day, n, ("neuroscience", "genomics", "zoology", "neuroscience",
                                              "genomics", "zoology")))


def test_a_first_read_takes_two_days_and_the_next_only_what_is_new(app, api):
    for back in range(4):
        post(api, DAY - timedelta(days=back), 12)  # 4 neuroscience, 4 genomics a day
    papers = app.store.count_papers()

    reports = run(app, api, DAY)

    assert list(reports) == NAMES
    assert all(r.error is None and not r.rejected for r in reports.values())
    assert [(r.announced, r.added) for r in reports.values()] == [(8, 8), (8, 8)]
    assert reports["biorxiv:neuroscience"].interval == "2026-12-06/2026-12-07"
    assert app.store.count_papers() == papers + 16
    assert app.store.source_cursor("biorxiv:neuroscience") == app.store.source_cursor("biorxiv:genomics") == (
        "2026-12-07")
    held = app.store.get_paper("doi:10.1101/2026.12.07.500000")
    assert held.venue == "bioRxiv" and held.doi == "10.1101/2026.12.07.500000"

    post(api, DAY + timedelta(days=1), 6)
    api.requests.clear()
    reports = run(app, api, DAY + timedelta(days=1))
    assert api.requests == ["/details/biorxiv/2026-12-07/2026-12-08/0"]  # the last day read, again
    assert [(r.added, r.unchanged) for r in reports.values()] == [(2, 4), (2, 4)]


def test_a_missed_day_is_caught_up_and_since_back_fills(app, api):
    for back in range(6):
        post(api, DAY - timedelta(days=back), 6)
    for name in NAMES:
        app.store.set_source_cursor(name, (DAY - timedelta(days=3)).isoformat(), "2026-12-04T09:00:00+00:00")

    reports = run(app, api, DAY)
    assert [r.added for r in reports.values()] == [8, 8]  # the 4th to the 7th, 2 a day each

    api.requests.clear()
    reports = run(app, api, DAY, arxiv_since=DAY - timedelta(days=5))
    # Three days a series of requests at most: a long interval answers slowly.
    assert api.requests == ["/details/biorxiv/2026-12-02/2026-12-04/0",
                            "/details/biorxiv/2026-12-05/2026-12-07/0"]
    assert reports["biorxiv:genomics"].interval == "2026-12-02/2026-12-07"
    assert [(r.added, r.unchanged) for r in reports.values()] == [(4, 8), (4, 8)]
    assert app.store.source_cursor("biorxiv:genomics") == "2026-12-07"


def test_a_failed_page_leaves_the_cursors_and_an_unknown_category_is_one_report(app, api):
    post(api, DAY, 40)
    api.broken = {2: b"<html><body>502 Bad Gateway</body></html>"}

    reports = run(app, api, DAY)

    assert reports["biorxiv:neuroscience"].rejected[0].reason == "the answer was HTML"
    assert reports["biorxiv:neuroscience"].added > 0
    assert app.store.source_cursor("biorxiv:neuroscience") is None  # read again next time

    [report] = ingest(app, ["medrxiv:neuroscience"], fetcher=api.fetcher())
    assert report.source == "medrxiv:neuroscience" and "not a medRxiv category" in report.error


def test_the_journal_version_merges_in_and_its_venue_wins_over_the_preprint_server(app, api):
    post(api, DAY, 6)
    run(app, api, DAY)
    preprint = app.store.get_paper("doi:10.1101/2026.12.07.500000")
    papers = app.store.count_papers()

    app.store.upsert_papers([Paper(id="elife-1", abstract=preprint.abstract, title=preprint.title,
                                   authors=["A. Surname"], venue="eLife", doi="10.7554/eLife.00001")])

    assert app.store.count_papers() == papers
    merged = app.store.get_paper("doi:10.1101/2026.12.07.500000")
    assert merged.venue == "eLife"
