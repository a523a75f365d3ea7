"""``biorxiv:``/``medrxiv:`` sources (bot/sources/biorxiv.py, issue 42): api.biorxiv.org's details endpoint
paged by the count each answer reports, categories kept client-side, the newest version of a DOI winning,
and a bad record or page one skipped line. Against stand_ins/biorxiv.py, which answers in the recorded
format (stand_ins/biorxiv_format.json)."""

from __future__ import annotations

from datetime import date

import pytest

from bot.config import DEFAULT_BIORXIV_API_URL, Settings
from bot.errors import ConfigError
from bot.sources import read_source, source_kind
from bot.sources.biorxiv import (
    BIORXIV_CATEGORIES,
    MEDRXIV_CATEGORIES,
    Posted,
    category_key,
    details_url,
    parse_source,
    read_posted,
)
from bot.sources.http import RateLimiter
from bot.sources.records import Rejected, SourceError
from stand_ins.biorxiv import FORMAT, Biorxiv, day_of_posts, record
from storage.models import Paper
from tests.fakes import Clock

DAY = date(2026, 12, 7)
NEURO = "neuroscience"


@pytest.fixture
def api():
    with Biorxiv() as stand_in:
        yield stand_in


def read(api: Biorxiv, categories=(NEURO,), server="biorxiv", start=DAY, end=DAY, **fetcher_options):
    found = Posted(server)
    items = list(read_posted(server, list(categories), start, end, fetcher=api.fetcher(**fetcher_options),
                             found=found))
    papers = [item for _, item in items if isinstance(item, Paper)]
    rejected = [item for _, item in items if isinstance(item, Rejected)]
    return papers, rejected, found


def test_sources_name_their_categories_as_the_api_does_whatever_the_case_or_separator():
    assert parse_source("biorxiv:Neuroscience, cancer_biology,CANCER BIOLOGY") == (
        "biorxiv", ["neuroscience", "cancer biology"])
    assert parse_source("medrxiv:hiv_aids,infectious-diseases") == (
        "medrxiv", ["hiv aids", "infectious diseases"])
    assert category_key("HIV/AIDS") == "hiv aids"
    assert len(BIORXIV_CATEGORIES) == 27 and len(MEDRXIV_CATEGORIES) == 51
    assert source_kind("biorxiv:genomics") == "biorxiv" and source_kind("medRxiv:oncology") == "medrxiv"
    assert details_url("http://h/", "medrxiv", DAY, DAY, 30) == "http://h/details/medrxiv/2026-12-07/2026-12-07/30"


def test_an_unknown_category_is_refused_when_the_source_is_read_in_one_line_naming_the_accepted():
    with pytest.raises(SourceError) as caught:
        read_source("biorxiv:neuroscience,cs.LG")  # raised on the call, before any request
    said = str(caught.value)
    assert "\n" not in said and "'cs.LG' is not a bioRxiv category" in said
    assert "animal_behavior_and_cognition" in said and "zoology" in said and "www.biorxiv.org" in said
    with pytest.raises(SourceError, match="oncology"):  # medRxiv's own list
        parse_source("medrxiv:neuroscience")
    with pytest.raises(SourceError, match="at least one category"):
        parse_source("biorxiv:")


def test_every_page_is_read_by_the_count_each_answer_reports_and_other_categories_left_out(api):
    api.post(day_of_posts("biorxiv", DAY, 70, (NEURO, "genomics")))  # 35 each, 3 pages of 30
    api.post(day_of_posts("medrxiv", DAY, 5, ("neurology",)))

    papers, rejected, found = read(api)

    assert not rejected and found.complete and found.records == 70 and found.papers == {NEURO: 35}
    assert [path.rsplit("/", 1)[1] for path in api.requests] == ["0", "30", "60"]
    assert api.requests[0] == "/details/biorxiv/2026-12-07/2026-12-07/0"
    first = papers[0]
    assert first.id == "doi:10.1101/2026.12.07.500000" and first.doi == "10.1101/2026.12.07.500000"
    assert first.url == "https://www.biorxiv.org/content/10.1101/2026.12.07.500000v1"
    assert first.venue == "bioRxiv" and first.published == "2026-12-07"
    assert first.categories == ["neuroscience"]
    assert first.authors == ["Surname, A.", "Surname, B."]
    assert len({p.id for p in papers}) == 35


def test_the_newest_version_of_a_doi_wins_whatever_order_it_comes_in(api):
    doi = "10.1101/2026.12.01.123456"
    api.post([record("biorxiv", doi, DAY, NEURO, version=2, abstract="The second abstract."),
              record("biorxiv", doi, DAY, NEURO, version=3, abstract="The third abstract.",
                     published="10.1158/2159-8290.CD-24-0187"),
              record("biorxiv", doi, DAY, NEURO, version=1, abstract="The first abstract.")])

    papers, rejected, found = read(api)

    assert not rejected and len(papers) == 1
    assert found.published == {f"doi:{doi}": "10.1158/2159-8290.cd-24-0187"}  # the journal version's
    assert papers[0].abstract == "The third abstract." and papers[0].url.endswith(f"{doi}v3")


def test_medrxiv_papers_link_to_medrxiv(api):
    api.post(day_of_posts("medrxiv", DAY, 3, ("Infectious Diseases",)))
    papers, _, _ = read(api, ("infectious diseases",), server="medrxiv")
    assert len(papers) == 3 and papers[0].venue == "medRxiv"
    assert papers[0].url.startswith("https://www.medrxiv.org/content/10.1101/")
    assert papers[0].categories == ["infectious_diseases"]


def test_a_malformed_record_and_a_strange_date_are_each_one_skipped_line(api):
    good = day_of_posts("biorxiv", DAY, 4, (NEURO,))
    no_abstract = record("biorxiv", "10.1101/2026.12.07.600001", DAY, NEURO)
    del no_abstract["abstract"]
    strange = record("biorxiv", "10.1101/2026.12.07.600002", "07/12/2026", NEURO)
    huge = record("biorxiv", "10.1101/2026.12.07.600003", DAY, NEURO, abstract="cells " * 1_000_000)
    api.post(good[:2] + [no_abstract] + good[2:])
    api.post(["not a record", strange, huge, {"doi": "10.1101/2026.12.07.600004", "version": "1"}],
             server="biorxiv", listed_on=DAY.isoformat())

    papers, rejected, found = read(api)

    assert len(papers) == 4 and found.complete
    assert [(r.where, r.reason) for r in rejected] == [
        ("record 3", "no abstract"), ("record 6", "not an object"), ("record 7", "bad date '07/12/2026'"),
        ("record 8", f"{6_000_000 + len(huge['title']):,} characters of title and abstract: too long"),
        ("record 9", "no category")]


def test_html_instead_of_json_or_a_truncated_page_is_one_skipped_line_and_the_rest_goes_on(api):
    api.post(day_of_posts("biorxiv", DAY, 70, (NEURO,)))
    api.broken = {2: b"<!DOCTYPE html><html><body>Service Unavailable</body></html>"}

    papers, rejected, found = read(api)

    assert [(r.where, r.reason) for r in rejected] == [("page from record 31", "the answer was HTML")]
    assert len(papers) == 40 and not found.complete  # the next read takes the interval again

    api.requests.clear()
    api.broken = {1: b'{"messages":[{"status":"ok","count":30,"total":"70"}],"collection":[{"doi":'}
    papers, rejected, found = read(api)
    assert [r.reason for r in rejected] == ["the answer was not JSON (a truncated body?)"]
    assert papers == [] and not found.complete and len(api.requests) == 1


def test_a_day_without_posts_is_no_error(api):
    papers, rejected, found = read(api)
    assert papers == [] and rejected == [] and found.complete and found.records == 0
    assert api.requests == ["/details/biorxiv/2026-12-07/2026-12-07/0"]
    assert FORMAT["no_posts"]["messages"][0]["status"] == "no posts found"


def test_a_429_is_waited_out_as_its_retry_after_says(api):
    api.post(day_of_posts("biorxiv", DAY, 40, (NEURO,)))
    api.busy = {2: "7"}
    clock = Clock()

    papers, rejected, found = read(api, limiter=RateLimiter(0, clock=clock, sleep=clock.sleep))

    assert len(papers) == 40 and not rejected and found.complete
    assert clock.slept == [7] and [p.rsplit("/", 1)[1] for p in api.requests] == ["0", "30", "30"]


def test_the_base_url_is_a_setting():
    import bot.config

    assert Settings().biorxiv_api_url == DEFAULT_BIORXIV_API_URL == "https://api.biorxiv.org"  # documented
    # (tests aim the default at an empty stand-in: tests/conftest.py)
    assert Settings.load({}, dotenv=None).biorxiv_api_url == bot.config.DEFAULT_BIORXIV_API_URL
    assert Settings.load({"PAPERBOT_BIORXIV_API_URL": "http://127.0.0.1:8/"},
                         dotenv=None).biorxiv_api_url == "http://127.0.0.1:8"
    with pytest.raises(ConfigError, match="PAPERBOT_BIORXIV_API_URL"):
        Settings.load({"PAPERBOT_BIORXIV_API_URL": "api.biorxiv.org"}, dotenv=None)
