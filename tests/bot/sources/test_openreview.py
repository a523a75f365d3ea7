"""``openreview:VENUE_ID`` sources (bot/sources/openreview.py): a venue's accepted papers from the OpenReview
API v2 by ``content.venueid``, paged by ``offset`` to the ``count`` reported; each note one paper with its
forum link, venue, authors, abstract and keywords; a bad note, page or body one skipped line. Against
stand_ins/openreview.py, which answers in the API's format (stand_ins/openreview_format.json)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

import bot.config
from bot.config import Settings
from bot.errors import ConfigError
from bot.sources import read_source, source_kind
from bot.sources.http import RateLimiter
from bot.sources.openreview import PAGE, Found, first_page, parse_source, read_page, read_venue
from bot.sources.records import BadRecord, Rejected, SourceError
from stand_ins.openreview import FORMAT, OpenReview, note, venue_of_notes
from storage.models import Paper
from tests.fakes import Clock

VENUE = "ICML.cc/2025/Conference"
ASKED = "the venue id as on openreview.net, e.g. openreview:ICML.cc/2025/Conference"


@pytest.fixture
def api():
    with OpenReview() as stand_in:
        yield stand_in


def read(api: OpenReview, venue=VENUE, **fetcher_options):
    found = Found()
    items = list(read_venue(venue, fetcher=api.fetcher(**fetcher_options), found=found))
    return ([i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, Rejected)], found)


def asked(path: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(path).query).items()}


def test_the_venue_id_is_taken_as_on_openreview_and_anything_else_refused_naming_what_is_accepted():
    assert parse_source("openreview:ICML.cc/2025/Conference") == VENUE
    assert parse_source('OpenReview: "ICLR.cc/2025/Conference" ') == "ICLR.cc/2025/Conference"
    assert parse_source("openreview:https://openreview.net/group?id=NeurIPS.cc/2024/Conference") == \
        "NeurIPS.cc/2024/Conference"
    assert parse_source("openreview:TMLR") == "TMLR"  # a journal's venue id is one word
    assert parse_source("openreview:ICML.cc/2025/Conference/") == VENUE
    assert source_kind("openreview:ICML.cc/2025/Conference") == "openreview"
    for bad in ("openreview:", "openreview:ICML 2025", "openreview:ICML@2025",
                "openreview:ICML.cc/2025/-/Submission", "openreview:https://openreview.net/forum?id=AbCdEfGh12"):
        with pytest.raises(SourceError) as refused:
            read_source(bad)
        said = str(refused.value)
        assert "\n" not in said and ASKED in said and "https://openreview.net/venues" in said, said
    with pytest.raises(SourceError, match="names a venue's submissions, not its accepted papers"):
        parse_source("openreview:ICML.cc/2025/Conference/Rejected_Submission")


def test_a_venue_is_read_by_its_venueid_a_thousand_notes_a_page_to_the_count_reported(api):
    api.add(venue_of_notes(VENUE, 2500))
    api.add(venue_of_notes("ICLR.cc/2025/Conference", 40))  # another venue: never asked for

    papers, rejected, found = read(api)

    assert (len(papers), rejected, found.count, found.records, found.complete) == (2500, [], 2500, 2500, True)
    assert [asked(p) for p in api.requests] == [
        {"content.venueid": VENUE, "limit": str(PAGE), "offset": str(offset)} for offset in (0, 1000, 2000)]
    assert all(p.startswith("/notes?") for p in api.requests)
    assert len({p.id for p in papers}) == 2500
    assert found.venues == {"ICML 2025 poster": 2500}


def test_a_note_keeps_its_forum_link_venue_authors_abstract_keywords_and_acceptance_day(api):
    made = note("Xy7AbCdEf1", VENUE, title="Sharp  bounds for\nbandits", abstract="We bound regret.",
                authors=["Ada Lovelace", {"fullname": "Alan Turing", "username": "~Alan_Turing1"}],
                keywords=["bandits", "regret", "bandits"], venue="ICML 2025 oral",
                accepted=datetime(2025, 5, 1, 16, tzinfo=UTC))
    undated = note("Xy7AbCdEf2", VENUE)
    del undated["pdate"]  # not accepted by date: the day it went public
    api.add([made, undated])

    [paper, other], [], _ = read(api)

    assert paper.id == "openreview:Xy7AbCdEf1"
    assert paper.url == "https://openreview.net/forum?id=Xy7AbCdEf1"
    assert (paper.title, paper.abstract) == ("Sharp bounds for bandits", "We bound regret.")
    assert paper.authors == ["Ada Lovelace", "Alan Turing"]
    assert (paper.venue, paper.published) == ("ICML 2025 oral", "2025-05-01")
    assert paper.categories == ["bandits", "regret"]
    assert (paper.arxiv_id, paper.doi) == (None, None)
    assert other.published == "2025-05-09"  # odate of the recorded note


def test_a_malformed_huge_or_misplaced_note_is_one_skipped_line_and_the_rest_goes_on(api):
    no_abstract = note("NoAbstract1", VENUE, abstract="")
    huge = note("HugeNote01", VENUE, abstract="regret " * 750_000)  # about 5 MB
    elsewhere = note("Elsewhere1", "ICML.cc/2025/Conference/Rejected_Submission")
    api.add(venue_of_notes(VENUE, 3) + [no_abstract, huge])
    api.add([b'{"id": "Broken0001", "content": "not an object"}', b'"just text"', elsewhere], venue_id=VENUE)

    papers, rejected, found = read(api)

    assert len(papers) == 3 and found.complete and found.records == 8
    assert [(r.where, r.reason.split(" characters")[0]) for r in rejected] == [
        ("note NoAbstract1", "no abstract"), ("note HugeNote01", "5,250,044"),
        ("note Broken0001", "no content"), ("note 7", "not a note (a JSON object)"),
        ("note Elsewhere1", f"not accepted at {VENUE} (its venueid is {VENUE}/Rejected_Submission)")]


@pytest.mark.parametrize(("body", "reason"), [
    (b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "the answer was HTML"),
    (b'{"notes": [{"id": "Trunc', "the answer was not JSON (a truncated body?)"),
    (json.dumps(FORMAT["rate_limited"]).encode(), "OpenReview answered RateLimitError: Too many requests"),
])
def test_a_page_that_is_no_answer_is_one_line_the_pages_after_it_are_read_and_the_read_not_complete(
        api, body, reason):
    api.add(venue_of_notes(VENUE, 2100))
    api.broken = {2: body}

    papers, [skipped], found = read(api)

    assert len(papers) == 1100 and not found.complete
    assert skipped.where == "notes 1001-2000" and skipped.reason.startswith(reason)
    assert len(api.requests) == 3


def test_a_first_page_that_is_no_answer_fails_the_venue_in_one_line(api):
    api.broken = {1: b"<html><body>Bad Gateway</body></html>"}
    with pytest.raises(SourceError, match=rf"^OpenReview venue {VENUE}: the answer was HTML$"):
        read(api)
    api.broken = {2: b"<html></html>"}
    with pytest.raises(SourceError, match="the answer was HTML"):
        first_page(VENUE, api.fetcher())


def test_an_empty_venue_is_one_request_and_no_error(api):
    papers, rejected, found = read(api, "ICML.cc/2031/Conference")
    assert (papers, rejected, found.count, found.complete) == ([], [], 0, True)
    assert len(api.requests) == 1
    assert first_page("ICML.cc/2031/Conference", api.fetcher()) == 0


def test_an_answer_without_count_is_read_while_its_pages_come_full(api, monkeypatch):
    monkeypatch.setattr("bot.sources.openreview.PAGE", 2)
    notes = venue_of_notes(VENUE, 3)
    api.broken = {1: json.dumps({"notes": notes[:2]}).encode(), 2: json.dumps({"notes": notes[2:]}).encode()}
    papers, [], found = read(api)
    assert len(papers) == 3 and found.complete and found.count == 3 and len(api.requests) == 2


def test_a_429_waits_its_retry_after_then_goes_on(api):
    api.add(venue_of_notes(VENUE, 5))
    api.busy = {1: "7"}
    clock = Clock()
    papers, rejected, found = read(api, limiter=RateLimiter(0, clock=clock, sleep=clock.sleep))
    assert len(papers) == 5 and not rejected and found.complete
    assert clock.slept == [7.0]


def test_a_429_asking_an_hour_fails_at_once_saying_so(api):
    api.add(venue_of_notes(VENUE, 5))
    api.busy = {1: "3600"}
    with pytest.raises(SourceError) as failed:
        read(api)
    said = str(failed.value)
    assert said.startswith(f"OpenReview venue {VENUE}: couldn't fetch {api.base_url} (notes 1-1000): "
                           "HTTP 429")
    assert "asks to wait 3600 s" in said and len(api.requests) == 1


def test_the_api_s_error_answer_is_said_in_one_line():
    said = r"^OpenReview answered NotFoundError: The Note NoSuchNote was not found$"
    with pytest.raises(BadRecord, match=said):
        read_page(json.dumps(FORMAT["not_found"]).encode())
    assert read_page(json.dumps(FORMAT["empty"]).encode()) == (0, [])
    with pytest.raises(BadRecord, match="bad count"):
        read_page(b'{"notes": [], "count": "many"}')


def test_settings_name_the_api():
    assert Settings.load({}, dotenv=None).openreview_api_url == bot.config.DEFAULT_OPENREVIEW_API_URL
    settings = Settings.load({"PAPERBOT_OPENREVIEW_API_URL": "http://127.0.0.1:9/or/"}, dotenv=None)
    assert settings.openreview_api_url == "http://127.0.0.1:9/or"
    with pytest.raises(ConfigError, match="^PAPERBOT_OPENREVIEW_API_URL must be an http"):
        Settings.load({"PAPERBOT_OPENREVIEW_API_URL": "api2.openreview.net"}, dotenv=None)


def test_read_source_takes_the_venue_s_accepted_papers(api):
    api.add(venue_of_notes(VENUE, 4))
    items = list(read_source(f"openreview:{VENUE}", fetcher=api.fetcher()))
    assert len(items) == 4 and all(isinstance(i, Paper) for i in items)
