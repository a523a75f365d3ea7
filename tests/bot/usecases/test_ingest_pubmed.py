"""``pubmed:`` sources through the ingest use case (issue 42), on both backends: a first read takes the last
two days, a later one only what entered PubMed since (the last day read again), a missed day is caught up,
``--since`` back-fills, a failed fetch leaves the cursor, and a PubMed record of a bioRxiv preprint (same
DOI) or of an arXiv paper (same title, an author in common) is one paper. Against stand_ins/pubmed.py."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from bot.usecases.ingest import ingest
from stand_ins.biorxiv import Biorxiv, record
from stand_ins.pubmed import Pubmed, article, day_of_records, entry
from storage.models import Paper

SOURCE = 'pubmed:"crispr screen"'
NAME = "pubmed:crispr screen"
DAY = date(2026, 12, 7)


@pytest.fixture
def api():
    with Pubmed() as stand_in:
        yield stand_in


def run(app, api, day: date, sources=(SOURCE,), **options):
    now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=9)
    reports = ingest(app, list(sources), fetcher=api.fetcher(), clock=lambda: now, **options)
    return {r.source: r for r in reports}


def add(api, day: date, n: int) -> None:
    api.add(day_of_records(day, n, "crispr screen"))


def searched(api) -> list[tuple[str, str]]:
    asked = [parse_qs(urlsplit(p).query) for p in api.requests if p.startswith("/esearch")]
    return [(q["mindate"][0], q["maxdate"][0]) for q in asked]


def test_a_first_read_takes_two_days_and_the_next_only_what_is_new(app, api):
    for back in range(4):
        add(api, DAY - timedelta(days=back), 5)
    papers = app.store.count_papers()

    report = run(app, api, DAY)[NAME]

    assert (report.error, report.rejected, report.announced, report.added) == (None, [], 10, 10)
    assert report.interval == "2026-12-06/2026-12-07"
    assert app.store.count_papers() == papers + 10
    assert app.store.source_cursor(NAME) == "2026-12-07"
    [pmid] = [p for p in api.entries if api.entries[p].entered == DAY][:1]
    held = app.store.get_paper(f"pmid:{pmid}")
    assert held.doi == f"10.5555/pm.{pmid}" and held.venue == "Nature biotechnology"

    add(api, DAY + timedelta(days=1), 3)
    api.requests.clear()
    report = run(app, api, DAY + timedelta(days=1))[NAME]
    assert searched(api) == [("2026/12/07", "2026/12/08")]  # the last day read, again
    assert (report.added, report.unchanged) == (3, 5)


def test_a_missed_day_is_caught_up_and_since_back_fills(app, api):
    for back in range(6):
        add(api, DAY - timedelta(days=back), 2)
    app.store.set_source_cursor(NAME, (DAY - timedelta(days=3)).isoformat(), "2026-12-04T09:00:00+00:00")

    assert run(app, api, DAY)[NAME].added == 8  # the 4th to the 7th

    api.requests.clear()
    report = run(app, api, DAY, arxiv_since=DAY - timedelta(days=5))[NAME]
    assert searched(api) == [("2026/12/02", "2026/12/07")]
    assert (report.interval, report.added, report.unchanged) == ("2026-12-02/2026-12-07", 4, 8)


def test_a_failed_fetch_leaves_the_cursor_and_an_empty_query_is_one_report(app, api):
    add(api, DAY, 250)
    api.broken = {2: b"<html><body>502 Bad Gateway</body></html>"}

    report = run(app, api, DAY)[NAME]

    assert [r.reason for r in report.rejected] == ["the answer was HTML"]
    assert report.added == 50 and report.error is None
    assert app.store.source_cursor(NAME) is None  # read again next time

    [report] = ingest(app, ["pubmed:  "], fetcher=api.fetcher())
    assert report.source == "pubmed:  " and report.error.startswith("pubmed: needs a query")


def test_an_empty_day_is_a_report_of_nothing_and_moves_the_cursor(app, api):
    report = run(app, api, DAY)[NAME]
    assert (report.error, report.announced, report.added) == (None, 0, 0)
    assert app.store.source_cursor(NAME) == "2026-12-07"


def test_a_pubmed_record_of_a_biorxiv_preprint_or_an_arxiv_paper_is_one_paper(app, api):
    with Biorxiv() as biorxiv:
        biorxiv.post([record("biorxiv", "10.1101/2026.12.05.500001", DAY, "genomics",
                             title="Enhancer screens in T cells by crispr screen", authors="Surname, A.")])
        ingest(app, ["biorxiv:genomics"], fetcher=biorxiv.fetcher(),
               clock=lambda: datetime(2026, 12, 7, 9, tzinfo=UTC))
    app.store.upsert_papers([Paper(id="arxiv:2612.00001", abstract="A method for pooled screens.",
                                   title="Deep models of crispr screen outcomes", authors=["Bea Other"])])
    papers = app.store.count_papers()

    # PubMed indexes the preprint under its own DOI, and the arXiv paper's journal version by its title.
    same_doi = article("39700001", title="Enhancer screens in T cells by crispr screen",
                       abstract="BACKGROUND: Enhancers. RESULTS: Screens.", doi="10.1101/2026.12.05.500001",
                       journal="bioRxiv : the preprint server for biology", authors=("Ada|Surname",))
    same_title = article("39700002", title="Deep models of crispr screen outcomes.",
                         abstract="A method for pooled screens, published.", doi="10.1038/s41592-026-0002-x",
                         journal="Nature methods", authors=("Bea|Other",))
    api.add([entry("39700001", DAY, same_doi), entry("39700002", DAY, same_title)])

    report = run(app, api, DAY)[NAME]

    assert report.added + report.updated == 2 and report.error is None
    assert app.store.count_papers() == papers  # both merged into papers already known
    merged = app.store.get_paper("arxiv:2612.00001")
    assert merged.venue == "Nature methods" and merged.doi == "10.1038/s41592-026-0002-x"
    preprint = app.store.get_paper("doi:10.1101/2026.12.05.500001")
    # PubMed's catalogue title of the server is the server: still a preprint, not a journal version.
    assert preprint.doi == "10.1101/2026.12.05.500001" and preprint.venue == "bioRxiv"
