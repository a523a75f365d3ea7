"""``acl:VOLUME`` sources (bot/sources/acl.py): a volume of the ACL Anthology read from its BibTeX, the
frontmatter passed over, TeX read as text, "Last, First" names turned round, an entry without an abstract
looked up in the paper's own file, and a bad entry or body one skipped line. Against stand_ins/acl.py,
which serves the Anthology's BibTeX as recorded (stand_ins/acl_volume.bib) and entries of its form."""

from __future__ import annotations

import pytest

import bot.config
from bot.config import DEFAULT_ACL_URL, Settings
from bot.errors import ConfigError
from bot.sources import read_source, source_kind
from bot.sources.acl import MAX_LOOKUPS, Volume, authors, entries_in, parse_source, read_volume
from bot.sources.http import RateLimiter
from bot.sources.records import Rejected, SourceError
from stand_ins.acl import Anthology, entry, frontmatter, volume_of
from storage.models import Paper
from tests.fakes import Clock

VOLUME = "2025.acl-long"


@pytest.fixture
def site():
    with Anthology() as stand_in:
        yield stand_in


def read(site: Anthology, volume=VOLUME, **fetcher_options):
    found = Volume()
    items = list(read_volume(volume, fetcher=site.fetcher(**fetcher_options), found=found))
    return ([i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, Rejected)], found)


def test_a_volume_is_named_as_in_the_anthology_s_urls_and_anything_else_refused():
    assert parse_source("acl:2025.acl-long") == "2025.acl-long"
    assert parse_source("ACL: 2025.ACL-Long ") == "2025.acl-long"
    assert parse_source("acl:https://aclanthology.org/volumes/2024.findings-emnlp/") == "2024.findings-emnlp"
    assert parse_source("acl:P19-1") == "P19-1"
    assert parse_source("acl:2023.latechclfl-1") == "2023.latechclfl-1"
    assert source_kind("acl:2025.acl-long") == "acl"
    for bad in ("acl:", "acl:acl-long", "acl:2025.acl-long.1x", "acl:../etc"):
        with pytest.raises(SourceError, match=r"^acl: needs a volume.*acl:VOLUME, e\.g\. acl:2025\.acl-long, "
                                              r"as in the Anthology's volume URLs.*https://aclanthology\.org/"):
            read_source(bad)


def test_the_recorded_volume_gives_its_papers_and_passes_over_its_frontmatter(site):
    site.add_recorded()
    site.own[f"{VOLUME}.1185"] = entry(VOLUME, 1185, abstract="We invert embeddings with few samples.")

    papers, rejected, found = read(site)

    assert rejected == [] and found.complete and found.entries == 3 and found.looked_up == 1
    assert [p.id for p in papers] == [f"acl:{VOLUME}.16", f"acl:{VOLUME}.483", f"acl:{VOLUME}.1185"]
    first = papers[0]
    assert first.title.startswith("ReSCORE: Label-free Iterative Retriever Training")  # {R}e{SCORE} read
    assert first.authors == ["Dosung Lee", "Wonjun Oh", "Boyoung Kim", "Minyoung Kim", "Joonsuk Park",
                             "Paul Hongsuck Seo"]
    assert first.url == f"https://aclanthology.org/{VOLUME}.16/" and first.doi == f"10.18653/v1/{VOLUME}.16"
    assert first.venue == ("Proceedings of the 63rd Annual Meeting of the Association for Computational "
                           "Linguistics (Volume 1: Long Papers)")
    assert first.published == "2025-07-01" and first.abstract.startswith("Multi-hop question answering")
    tex = papers[1].abstract
    assert "TG's attention" in tex and "representations—one" in tex and "{" not in tex
    assert papers[2].abstract == "We invert embeddings with few samples."  # from its own file
    assert site.requests == [f"/volumes/{VOLUME}.bib", f"/{VOLUME}.1185.bib"]


def test_tex_in_titles_names_and_abstracts_reads_as_text():
    names = 'Vuli{\\\'c}, Ivan  and\n      G{\\"o}del, Kurt and Ada Lovelace and Jr, Sammy, Davis'
    assert authors(names) == ["Ivan Vulić", "Kurt Gödel", "Ada Lovelace", "Davis Jr Sammy"]


def test_a_paper_without_an_abstract_anywhere_is_one_skipped_line(site):
    gone = entry(VOLUME, 3).replace(f"{VOLUME}.3", f"{VOLUME}.30")  # its own file is not found (404)
    site.add(VOLUME, [frontmatter(VOLUME), entry(VOLUME, 1, abstract="One."), entry(VOLUME, 2), gone])
    site.own[f"{VOLUME}.30"] = ""
    papers, rejected, found = read(site)
    assert [p.id for p in papers] == [f"acl:{VOLUME}.1"] and found.complete  # nothing to read again
    assert [(r.where, r.reason) for r in rejected] == [(f"{VOLUME}.2", "no abstract"),
                                                       (f"{VOLUME}.30", "no abstract")]


def test_lookups_are_capped_in_one_read(site, monkeypatch):
    monkeypatch.setattr("bot.sources.acl.MAX_LOOKUPS", 2)
    site.add(VOLUME, volume_of(VOLUME, 4, abstracts=False))
    papers, rejected, found = read(site)
    assert found.looked_up == 2 and len(site.requests) == 3 and found.complete
    assert [r.reason for r in rejected][:2] == ["no abstract", "no abstract"]
    assert rejected[2].reason.startswith("no abstract in the volume's file (2 papers were looked up")
    assert MAX_LOOKUPS >= 100


def test_a_volume_that_does_not_exist_says_the_form_and_where_the_list_is(site):
    with pytest.raises(SourceError) as failed:
        read(site, "2031.acl-long")
    said = str(failed.value)
    assert said.startswith("the ACL Anthology has no volume '2031.acl-long'") and "\n" not in said
    assert "acl:VOLUME, e.g. acl:2025.acl-long, as in the Anthology's volume URLs" in said
    assert "https://aclanthology.org/" in said


@pytest.mark.parametrize(("body", "says"), [
    (b"<!DOCTYPE html><html><body>Maintenance</body></html>", "the answer was HTML, not BibTeX"),
    (b"Internal error", "the answer was not BibTeX"),
    (b"", "the answer was empty"),
])
def test_an_answer_that_is_no_bibtex_raises_one_line(site, body, says):
    site.add_recorded()
    site.broken = {1: body}
    with pytest.raises(SourceError, match=f"/volumes/{VOLUME}.bib: {says}$"):
        read(site)


def test_a_malformed_or_huge_entry_is_one_skipped_line_and_the_rest_goes_on(site):
    good = volume_of(VOLUME, 3)
    broken = entry(VOLUME, 7, abstract="Fine.").replace('title = "', 'title = "Unclosed', 1).replace(
        '",\n    author', ',\n    author', 1)
    huge = entry(VOLUME, 8, abstract="tokens " * 800_000)  # about 5.6 MB
    no_url = entry(VOLUME, 9, abstract="Nowhere.").replace("https://aclanthology.org/", "", 1)
    site.add(VOLUME, [*good, broken, huge, no_url, entry(VOLUME, 10, abstract="The last one.")])

    papers, rejected, found = read(site)

    assert [p.id for p in papers] == [f"acl:{VOLUME}.{n}" for n in (1, 2, 3, 10)] and found.complete
    reasons = [(r.where, r.reason.split(" characters")[0]) for r in rejected]
    assert reasons[0] == (f"{VOLUME}.7", "an entry that can't be read as BibTeX")
    assert reasons[1] == (f"{VOLUME}.8", "5,600,024")
    assert reasons[2][1].startswith("no Anthology URL")


def test_a_truncated_body_keeps_the_entries_before_the_break(site):
    site.add(VOLUME, volume_of(VOLUME, 10))
    whole = site.volumes[VOLUME].encode()
    site.broken = {1: whole[: len(whole) * 2 // 3]}
    papers, rejected, found = read(site)
    assert 5 <= len(papers) < 10 and not found.complete
    assert [r.reason for r in rejected] == ["the answer broke off inside this entry (a truncated body?)"]
    # Cut just after an entry's first characters: no entry to name. (A body cut exactly after an entry's
    # closing brace can't be told from a whole one.)
    between = whole[: whole.index(b"@inproceedings", len(whole) // 2) + 6]
    site.broken = {len(site.requests) + 1: between}
    papers, rejected, found = read(site)
    assert not found.complete and rejected[-1].reason.startswith("the answer broke off")


def test_a_429_waits_its_retry_after_then_goes_on(site):
    site.add(VOLUME, [frontmatter(VOLUME), entry(VOLUME, 1, abstract="One."), entry(VOLUME, 2)])
    site.own[f"{VOLUME}.2"] = entry(VOLUME, 2, abstract="Two.")
    site.busy = {1: "7", 3: "2"}
    clock = Clock()
    papers, rejected, found = read(site, limiter=RateLimiter(0, clock=clock, sleep=clock.sleep))
    assert [p.abstract for p in papers] == ["One.", "Two."] and not rejected and found.complete
    assert clock.slept == [7.0, 2.0]


def test_a_lookup_that_fails_is_one_line_and_the_read_is_not_complete(site):
    site.add(VOLUME, [frontmatter(VOLUME), entry(VOLUME, 1, abstract="One."), entry(VOLUME, 2)])
    site.broken = {2: b"<html><body>Bad Gateway</body></html>"}
    papers, [rejected], found = read(site)
    assert len(papers) == 1 and not found.complete
    assert rejected.where == f"{VOLUME}.2" and rejected.reason.endswith("the answer was HTML, not BibTeX")


def test_an_older_volume_s_paper_zero_is_its_frontmatter(site):
    old = [entry("P19", 1000, abstract="The front matter.").replace("P19.1000", "P19-1000"),
           entry("P19", 1001, abstract="A paper.").replace("P19.1001", "P19-1001")]
    site.add("P19-1", old)
    papers, rejected, found = read(site, "P19-1")
    assert [p.id for p in papers] == ["acl:P19-1001"] and not rejected and found.entries == 1


def test_the_doctor_s_count_is_one_request_without_lookups(site):
    site.add(VOLUME, volume_of(VOLUME, 5, abstracts=False))
    assert entries_in(VOLUME, site.fetcher()) == 5 and len(site.requests) == 1


def test_settings_name_the_anthology():
    assert Settings().acl_url == DEFAULT_ACL_URL == "https://aclanthology.org"  # documented
    assert Settings.load({}, dotenv=None).acl_url == bot.config.DEFAULT_ACL_URL  # tests: the stand-in
    assert Settings.load({"PAPERBOT_ACL_URL": "http://127.0.0.1:9/"}, dotenv=None).acl_url == "http://127.0.0.1:9"
    with pytest.raises(ConfigError, match="^PAPERBOT_ACL_URL must be"):
        Settings.load({"PAPERBOT_ACL_URL": "aclanthology.org"}, dotenv=None)


def test_read_source_reads_the_whole_volume(site):
    site.add(VOLUME, volume_of(VOLUME, 4))
    items = list(read_source(f"acl:{VOLUME}", fetcher=site.fetcher()))
    assert len(items) == 4 and all(isinstance(i, Paper) for i in items)
