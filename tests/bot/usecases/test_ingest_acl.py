"""``acl:`` volumes through the ingest use case, on both backends: a volume read whole is noted and rests a
week (no request), then is read again for corrections; ``--since`` reads it anyway; a read that broke off
leaves no note; a volume that doesn't exist is one report's error; and an Anthology paper the store knows
from arXiv (same title, an author in common) is one paper. Against stand_ins/acl.py."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.usecases.ingest import ingest
from stand_ins.acl import Anthology, entry, volume_of
from storage.models import Paper

VOLUME = "2025.acl-long"
NAME = f"acl:{VOLUME}"
DAY = date(2026, 12, 7)


@pytest.fixture
def site():
    with Anthology() as stand_in:
        yield stand_in


def run(app, site, day: date, sources=(NAME,), **options):
    now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=9)
    reports = ingest(app, list(sources), fetcher=site.fetcher(), clock=lambda: now, **options)
    return {r.source: r for r in reports}


def test_a_volume_read_whole_rests_a_week_then_is_read_again(app, site):
    site.add(VOLUME, volume_of(VOLUME, 6))
    papers = app.store.count_papers()

    report = run(app, site, DAY)[NAME]

    assert (report.error, report.rejected, report.announced, report.added) == (None, [], 6, 6)
    assert report.read_on == "2026-12-07" and report.read_again_on is None
    assert app.store.count_papers() == papers + 6 and app.store.source_cursor(NAME) == "2026-12-07"
    held = app.store.get_paper(f"acl:{VOLUME}.3")
    assert held.url == f"https://aclanthology.org/{VOLUME}.3/" and held.doi == f"10.18653/v1/{VOLUME}.3"
    assert held.authors == ["Ada Author3", "Ivan Vulić"] and "{" not in held.abstract

    site.requests.clear()
    rested = run(app, site, DAY + timedelta(days=6))[NAME]
    assert site.requests == [] and not rested.empty
    assert (rested.read_on, rested.read_again_on, rested.added) == ("2026-12-07", "2026-12-14", 0)

    site.add(VOLUME, [entry(VOLUME, 7, abstract="A paper added later.")])
    again = run(app, site, DAY + timedelta(days=7))[NAME]
    assert (again.added, again.unchanged, again.read_on) == (1, 6, "2026-12-14")
    assert app.store.source_cursor(NAME) == "2026-12-14"


def test_since_reads_a_resting_volume_and_a_broken_read_leaves_no_note(app, site):
    site.add(VOLUME, volume_of(VOLUME, 6))
    app.store.set_source_cursor(NAME, DAY.isoformat(), "2026-12-07T09:00:00+00:00")
    report = run(app, site, DAY, arxiv_since=DAY - timedelta(days=30))[NAME]
    assert report.added == 6 and len(site.requests) == 1

    other = "2025.acl-short"
    site.add(other, volume_of(other, 6))
    whole = site.volumes[other].encode()
    site.broken = {len(site.requests) + 1: whole[: len(whole) // 2]}
    broken = run(app, site, DAY, sources=(f"acl:{other}",))[f"acl:{other}"]
    assert broken.error is None and broken.rejected and 0 < broken.added < 6
    assert broken.read_on is None and app.store.source_cursor(f"acl:{other}") is None  # read again next time


def test_a_volume_that_does_not_exist_is_one_report_s_error(app, site):
    [report] = ingest(app, ["acl:2031.acl-long"], fetcher=site.fetcher())
    assert report.error.startswith("the ACL Anthology has no volume '2031.acl-long'")
    assert "acl:VOLUME, e.g. acl:2025.acl-long" in report.error
    [refused] = ingest(app, ["acl:not a volume"], fetcher=site.fetcher())
    assert refused.source == "acl:not a volume" and refused.error.startswith("acl: needs a volume")


def test_an_anthology_paper_known_from_arxiv_is_one_paper(app, site):
    app.store.upsert_papers([Paper(
        id="arxiv:2502.00001", abstract="A preprint of the retriever training.", arxiv_id="2502.00001",
        title="ReSCORE: Label-free Iterative Retriever Training for Multi-hop Question Answering with "
              "Relevance-Consistency Supervision", authors=["D. Lee", "Paul Hongsuck Seo"], venue="arXiv")])
    site.add_recorded()
    site.own[f"{VOLUME}.1185"] = entry(VOLUME, 1185, abstract="We invert embeddings with few samples.")
    papers = app.store.count_papers()

    report = run(app, site, DAY)[NAME]

    assert report.error is None and report.added + report.updated == 3
    assert app.store.count_papers() == papers + 2  # ReSCORE merged into the arXiv paper
    merged = app.store.get_paper("arxiv:2502.00001")
    assert merged.doi == f"10.18653/v1/{VOLUME}.16" and merged.venue.startswith("Proceedings of the 63rd")
    assert "Dosung Lee" in merged.authors and merged.arxiv_id == "2502.00001"
    assert app.store.get_paper(f"acl:{VOLUME}.16").id == "arxiv:2502.00001"  # known by its Anthology id too
