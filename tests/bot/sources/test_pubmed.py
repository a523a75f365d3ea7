"""``pubmed:QUERY`` sources (bot/sources/pubmed.py, issue 42): esearch by Entrez date paged by ``retstart``,
efetch in batches of 200, structured abstracts joined with their labels, DOI and PMID kept, and a bad
record, page or body one skipped line. Against stand_ins/pubmed.py, which answers in the documented
formats (stand_ins/pubmed_esearch.json, stand_ins/pubmed_efetch.xml)."""

from __future__ import annotations

from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest

import bot.config
from bot.config import Settings
from bot.errors import ConfigError
from bot.sources import read_source, source_kind
from bot.sources.http import RateLimiter
from bot.sources.pubmed import (
    FETCH_BATCH,
    Found,
    parse_source,
    read_pubmed,
    read_records,
    searched_on,
)
from bot.sources.records import Rejected, SourceError
from stand_ins.pubmed import _HEAD, Pubmed, article, day_of_records, entry
from storage.models import Paper
from tests.fakes import Clock

DAY = date(2026, 12, 7)


@pytest.fixture
def api():
    with Pubmed() as stand_in:
        yield stand_in


def read(api: Pubmed, query="crispr", start=DAY, end=DAY, **fetcher_options):
    found = Found()
    items = list(read_pubmed(query, start, end, fetcher=api.fetcher(**fetcher_options), found=found))
    return ([i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, Rejected)], found)


def asked(path: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(path).query).items()}


def test_the_whole_text_after_pubmed_is_the_query_quotes_stripped_and_an_empty_one_refused():
    assert parse_source('pubmed:"crispr screen"') == "crispr screen"
    assert parse_source("pubmed:crispr  screen ") == "crispr screen"
    assert parse_source("PubMed:'T cell' AND exhaustion") == "'T cell' AND exhaustion"  # not one quoted whole
    assert parse_source('pubmed:"T cell" AND "exhaustion"') == 'T cell" AND "exhaustion'  # first and last
    assert source_kind('pubmed:"crispr"') == "pubmed"
    for empty in ("pubmed:", 'pubmed:""', "pubmed:   "):
        with pytest.raises(SourceError, match=r'^pubmed: needs a query.*pubmed:"crispr screen"$'):
            read_source(empty)


def test_a_day_is_searched_by_entrez_date_and_fetched_two_hundred_ids_a_request(api):
    api.add(day_of_records(DAY, 450, "crispr") + day_of_records(DAY, 30, "malaria", first_pmid=41_000_000))
    api.add(day_of_records(date(2026, 12, 5), 20, "crispr", first_pmid=42_000_000))  # another day

    papers, rejected, found = read(api, '"crispr"'.strip('"'), ncbi_email="lab@example.org")

    assert (len(papers), rejected, found.count, found.complete) == (450, [], 450, True)
    search, *fetches = api.requests
    assert asked(search) == {"db": "pubmed", "term": "crispr", "datetype": "edat", "mindate": "2026/12/07",
                             "maxdate": "2026/12/07", "retmode": "json", "retmax": "1000", "retstart": "0",
                             "tool": "paperbot", "email": "lab@example.org"}
    assert [len(asked(f)["id"].split(",")) for f in fetches] == [FETCH_BATCH, FETCH_BATCH, 50]
    assert all(asked(f)["retmode"] == "xml" and asked(f)["tool"] == "paperbot" for f in fetches)
    assert "api_key" not in asked(search)


def test_the_search_pages_by_retstart_to_the_count_it_reports(api, monkeypatch):
    monkeypatch.setattr("bot.sources.pubmed.SEARCH_PAGE", 100)
    api.add(day_of_records(DAY, 250))
    papers, _, found = read(api, ncbi_key="abc123")
    assert len(papers) == 250 and found.complete
    searches = [asked(p) for p in api.requests if p.startswith("/esearch")]
    assert [(s["retstart"], s["retmax"]) for s in searches] == [("0", "100"), ("100", "100"), ("200", "100")]
    assert all(asked(p)["api_key"] == "abc123" for p in api.requests)


def test_an_interval_of_more_than_esearch_pages_through_is_searched_a_day_at_a_time(api, monkeypatch):
    monkeypatch.setattr("bot.sources.pubmed.SEARCH_LIMIT", 100)
    monkeypatch.setattr("bot.sources.pubmed.SEARCH_PAGE", 50)
    api.add(day_of_records(date(2026, 12, 5), 80) + day_of_records(date(2026, 12, 6), 80)
            + day_of_records(DAY, 150))

    papers, [capped], found = read(api, start=date(2026, 12, 5))

    assert len(papers) == 80 + 80 + 100 and found.complete and found.count == 310
    assert capped == Rejected("search of 2026-12-07", "150 records entered that day: PubMed pages through "
                                                      "the first 100 only; narrow the query")
    searches = [(asked(p)["mindate"], asked(p)["maxdate"], asked(p)["retstart"]) for p in api.requests
                if p.startswith("/esearch")]
    assert searches == [("2026/12/05", "2026/12/07", "0"),
                        ("2026/12/05", "2026/12/05", "0"), ("2026/12/05", "2026/12/05", "50"),
                        ("2026/12/06", "2026/12/06", "0"), ("2026/12/06", "2026/12/06", "50"),
                        ("2026/12/07", "2026/12/07", "0"), ("2026/12/07", "2026/12/07", "50")]


def test_a_record_keeps_pmid_doi_journal_authors_date_and_its_labelled_sections(api):
    xml = article("39600001", title="Pooled screens", abstract={
        "BACKGROUND": "Enhancers matter.", "METHODS": "We screened guides.", "RESULTS": "Twelve hits."},
        doi="10.1038/S41587-026-00001-X", journal="Nature biotechnology",
        authors=("Ada B|Surname", "Example Screening Consortium"))
    api.add([entry("39600001", DAY, xml.replace(b"Pooled ", b"Pooled <i>CRISPR</i> "), text="crispr")])

    [paper], [], _ = read(api)

    assert paper.id == "pmid:39600001" and paper.doi == "10.1038/s41587-026-00001-x"
    assert paper.url == "https://pubmed.ncbi.nlm.nih.gov/39600001/"
    assert paper.abstract == ("BACKGROUND: Enhancers matter. METHODS: We screened guides. "
                              "RESULTS: Twelve hits.")
    assert paper.title == "Pooled CRISPR screens"  # the markup inside a title is its text
    assert paper.authors == ["Ada B Surname", "Example Screening Consortium"]
    assert (paper.venue, paper.published) == ("Nature biotechnology", "2026-12-05")


def test_an_unlabelled_abstract_is_kept_as_it_is_and_an_issue_date_tolerated(api):
    xml = article("39600002", title="Malaria in crispr", abstract="One paragraph.", published=("", "", ""))
    # No ArticleDate: the issue's MedlineDate, "2024 Jan-Feb", then the day it entered PubMed wins.
    medline = xml.replace(b"<Year>2026</Year>\n                        <Month>Dec</Month>",
                          b"<MedlineDate>2024 Jan-Feb</MedlineDate>")
    assert medline != xml
    api.add([entry("39600002", DAY, medline)])
    [paper], [], _ = read(api)
    assert paper.abstract == "One paragraph." and paper.published == "2026-12-06"  # the "pubmed" date
    no_history = medline.replace(b'PubStatus="pubmed"', b'PubStatus="medline"')
    [paper] = [p for p in read_records(_HEAD + no_history + b"</PubmedArticleSet>", "x", Found())
               if isinstance(p, Paper)]
    assert paper.published == "2024-01-01"
    assert not paper.doi


def test_a_malformed_or_huge_record_is_one_skipped_line_and_the_rest_goes_on(api):
    good = day_of_records(DAY, 3)
    no_abstract = article("39600010", title="crispr without abstract", abstract="")
    huge = article("39600011", title="crispr", abstract="crispr " * 800_000)  # about 5.6 MB
    no_pmid = article("", title="crispr", abstract="No PMID here.")
    api.add(good + [entry("39600010", DAY, no_abstract), entry("39600011", DAY, huge, text="crispr"),
                    entry("39600012", DAY, no_pmid, text="crispr")])

    papers, rejected, found = read(api)

    assert len(papers) == 3 and found.complete and found.records == 6
    # Newest PMID first, as PubMed answers: the one without a PMID is named by its place in the batch.
    assert {(r.where, r.reason.split(" characters")[0]) for r in rejected} == {
        ("PMID 39600010", "no abstract"), ("PMID 39600011", "5,600,005"), ("record 4", "no PMID")}


@pytest.mark.parametrize(("body", "reason"), [
    (b"<!DOCTYPE html><html><body>Service unavailable</body></html>", "the answer was HTML"),
    (b"Internal error", "the answer was not XML"),
])
def test_a_fetch_that_is_no_xml_is_one_line_and_the_read_is_not_complete(api, body, reason):
    api.add(day_of_records(DAY, 250))
    api.broken = {2: body}
    papers, rejected, found = read(api)
    assert len(papers) == 50 and not found.complete
    assert [(r.where, r.reason[:len(reason)]) for r in rejected] == [("records 1-200", reason)]


def test_a_truncated_fetch_keeps_the_records_before_the_break(api):
    api.add(day_of_records(DAY, 10))
    api.requests.clear()
    whole = api.answer("/efetch.fcgi?id=" + ",".join(sorted(api.entries, reverse=True)))[2]
    api.requests.clear()
    api.broken = {2: whole[: len(whole) * 2 // 3]}
    papers, [rejected], found = read(api)
    assert 5 <= len(papers) < 10 and not found.complete
    assert rejected.reason.startswith(f"the answer broke off after record {len(papers)}")


def test_an_empty_day_is_one_request_and_no_error(api):
    papers, rejected, found = read(api)
    assert (papers, rejected, found.count, found.complete) == ([], [], 0, True)
    assert len(api.requests) == 1


def test_a_search_that_fails_or_is_html_raises_one_line(api):
    api.broken = {1: b"<html><body>Bad Gateway</body></html>"}
    says = r"^PubMed search from 2026-12-07 to 2026-12-07: the answer was HTML$"
    with pytest.raises(SourceError, match=says):
        read(api)
    with pytest.raises(SourceError, match="answer was HTML"):
        api.broken = {2: b"<html></html>"}
        searched_on("crispr", DAY, api.fetcher())


def test_a_429_waits_its_retry_after_then_goes_on(api):
    api.add(day_of_records(DAY, 5))
    api.busy = {2: "7"}
    clock = Clock()
    papers, rejected, found = read(api, limiter=RateLimiter(0, clock=clock, sleep=clock.sleep))
    assert len(papers) == 5 and not rejected and found.complete
    assert clock.slept == [7.0]


def test_settings_name_the_api_the_key_and_the_email():
    assert Settings.load({}, dotenv=None).pubmed_api_url == bot.config.DEFAULT_PUBMED_API_URL
    settings = Settings.load({"PAPERBOT_PUBMED_API_URL": "http://127.0.0.1:9/eutils/",
                              "PAPERBOT_NCBI_KEY": "0123abcd", "PAPERBOT_NCBI_EMAIL": "lab@example.org"},
                             dotenv=None)
    assert (settings.pubmed_api_url, settings.ncbi_key, settings.ncbi_email) == (
        "http://127.0.0.1:9/eutils", "0123abcd", "lab@example.org")
    assert "0123abcd" not in repr(settings)
    for name, value in (("PAPERBOT_PUBMED_API_URL", "eutils"), ("PAPERBOT_NCBI_KEY", "a key"),
                        ("PAPERBOT_NCBI_EMAIL", "nobody")):
        with pytest.raises(ConfigError, match=f"^{name} must be"):
            Settings.load({name: value}, dotenv=None)


def test_a_query_with_spaces_is_one_source_of_paperbot_feeds_when_quoted():
    settings = Settings.load({"PAPERBOT_FEEDS": 'arxiv:cs.LG pubmed:"crispr screen" biorxiv:genomics'},
                             dotenv=None)
    assert settings.feeds == ["arxiv:cs.LG", "pubmed:crispr screen", "biorxiv:genomics"]
    with pytest.raises(ConfigError, match=r'^PAPERBOT_FEEDS: no closing quotation: .*"crispr screen"$'):
        Settings.load({"PAPERBOT_FEEDS": 'pubmed:"crispr screen'}, dotenv=None)


def test_read_source_takes_what_entered_pubmed_today_and_yesterday(api):
    from datetime import UTC, datetime, timedelta

    today = datetime.now(UTC).date()
    api.add(day_of_records(today, 3) + day_of_records(today - timedelta(days=1), 2)
            + day_of_records(today - timedelta(days=2), 4))
    items = list(read_source('pubmed:"crispr"', fetcher=api.fetcher()))
    assert len(items) == 5 and all(isinstance(i, Paper) for i in items)


def test_a_failed_request_is_said_without_the_ids_or_the_key(api):
    api.add(day_of_records(DAY, 5))
    api.busy = {2: "9999"}  # asks too long a wait: the fetch fails at once
    papers, [rejected], found = read(api, ncbi_key="secret0key")
    assert papers == [] and not found.complete
    assert rejected.where == "records 1-5"
    assert rejected.reason.startswith(f"couldn't fetch {api.base_url} (efetch of 5 records): HTTP 429")
    api.busy = {len(api.requests) + 1: "9999"}
    with pytest.raises(SourceError) as failed:
        read(api, ncbi_key="secret0key")
    said = str(failed.value)
    assert "secret0key" not in said and "(esearch from 2026-12-07 to 2026-12-07)" in said
