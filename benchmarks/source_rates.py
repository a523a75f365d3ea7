"""Papers read per second by each dated source against its local stand-in, the rate limit's spacing aside
(``RateLimiter(0)``, as the tests use; with it, a source's time is its pages times its interval). Nothing
leaves 127.0.0.1. Run by hand; prints figures.

- ``biorxiv:`` (stand_ins/biorxiv.py, 30 records a page as api.biorxiv.org answers): two days of 1,200
  records, 8 subject areas in turn, read for three of them: the reader alone (parsing, paging, newest
  version), then through the ingest use case into a new SQLite database (stored, highlights, index).

- ``pubmed:`` (stand_ins/pubmed.py, esearch 1,000 ids a page, efetch 200 records a request): two days of
  1,000 records entered, three labelled abstract sections each, read for one query: the reader alone (search,
  XML parsing), then through the ingest use case into a new SQLite database.

- ``openreview:`` (stand_ins/openreview.py, 1,000 notes a page as the API answers): a venue of 3,500
  accepted papers, a fifth of them also on arXiv (same title, an author in common) and stored first: the
  reader alone (paging, JSON), then through the ingest use case into a new SQLite database, counting the
  notes that became one paper with their arXiv preprint (merged) and checking each merged paper's venue.
- bioRxiv and PubMed together: 1,000 preprints read from bioRxiv, then 500 PubMed records, half of them
  the journal versions of a quarter of those preprints (titles spelt otherwise, an author in common, the
  journal's DOI): how many merge into their preprint, how many papers are stored, and how many of the
  merged ones link to both pages.
- ``acl:`` (stand_ins/acl.py, BibTeX in the Anthology's form): a volume of 1,700 papers (about ACL 2025's
  long papers), 100 of them without an abstract in the volume's file and so looked up in their own: the
  reader alone (one volume request, BibTeX parsing, TeX read as text, 100 lookups), then through the ingest
  use case into a new SQLite database.

    .venv/bin/python benchmarks/source_rates.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.sources.acl import Volume, read_volume  # noqa: E402
from bot.sources.biorxiv import Posted, read_posted  # noqa: E402
from bot.sources.http import ACL_INTERVAL, BIORXIV_INTERVAL, OPENREVIEW_INTERVAL, PUBMED_INTERVAL  # noqa: E402
from bot.sources.openreview import Found as Venue  # noqa: E402
from bot.sources.openreview import read_venue  # noqa: E402
from bot.sources.pubmed import Found, read_pubmed  # noqa: E402
from bot.state.context import Context  # noqa: E402
from bot.usecases.ingest import ingest  # noqa: E402
from stand_ins.acl import Anthology, volume_of  # noqa: E402
from stand_ins.biorxiv import Biorxiv, day_of_posts, record  # noqa: E402
from stand_ins.openreview import OpenReview, venue_of_notes  # noqa: E402
from stand_ins.pubmed import Pubmed, article, day_of_records, entry  # noqa: E402

DAY = date(2026, 12, 7)
AREAS = ("neuroscience", "genomics", "cell biology", "microbiology", "bioinformatics", "ecology",
         "immunology", "biophysics")
ASKED = ["neuroscience", "genomics", "bioinformatics"]
PER_DAY = 1200


def main() -> int:
    with Biorxiv() as api, tempfile.TemporaryDirectory() as tmp:
        for day in (DAY - timedelta(days=1), DAY):
            api.post(day_of_posts("biorxiv", day, PER_DAY, AREAS))
        found = Posted("biorxiv")
        began = time.perf_counter()
        papers = sum(1 for _ in read_posted("biorxiv", ASKED, DAY - timedelta(days=1), DAY,
                                            fetcher=api.fetcher(), found=found))
        took = time.perf_counter() - began
        pages = len(api.requests)
        print(f"biorxiv reader: {found.records} records in {pages} pages, {papers} papers of "
              f"{len(ASKED)} areas in {took:.2f} s: {found.records / took:,.0f} records/s, "
              f"{papers / took:,.0f} papers/s (spacing aside; with {BIORXIV_INTERVAL:g} s a request, "
              f"{pages * BIORXIV_INTERVAL:.0f} s)")

        app = Context.open(str(Path(tmp) / "rates.db"))
        try:
            now = datetime.combine(DAY, datetime.min.time(), UTC).replace(hour=9)
            began = time.perf_counter()
            reports = ingest(app, ["biorxiv:" + ",".join(a.replace(" ", "_") for a in ASKED)],
                             fetcher=api.fetcher(), clock=lambda: now)
            took = time.perf_counter() - began
        finally:
            app.store.close()
        added = sum(r.added for r in reports)
        print(f"biorxiv ingest: {added} papers added in {took:.2f} s: {added / took:,.0f} papers/s "
              "(stored with highlights, index refitted; spacing aside)")
    pubmed_rates()
    openreview_rates()
    acl_rates()
    merge_rates()
    return 0


def pubmed_rates() -> None:
    with Pubmed() as api, tempfile.TemporaryDirectory() as tmp:
        for day in (DAY - timedelta(days=1), DAY):
            api.add(day_of_records(day, PUBMED_PER_DAY, "crispr screen"))
        found = Found()
        began = time.perf_counter()
        papers = sum(1 for _ in read_pubmed("crispr screen", DAY - timedelta(days=1), DAY,
                                            fetcher=api.fetcher(), found=found))
        took = time.perf_counter() - began
        asked = len(api.requests)
        print(f"pubmed reader: {found.records} records in {asked} requests, {papers} papers in {took:.2f} s: "
              f"{found.records / took:,.0f} records/s (spacing aside; with {PUBMED_INTERVAL:g} s a request "
              f"without a key, {asked * PUBMED_INTERVAL:.1f} s)")

        app = Context.open(str(Path(tmp) / "rates.db"))
        try:
            now = datetime.combine(DAY, datetime.min.time(), UTC).replace(hour=9)
            began = time.perf_counter()
            reports = ingest(app, ['pubmed:"crispr screen"'], fetcher=api.fetcher(), clock=lambda: now)
            took = time.perf_counter() - began
        finally:
            app.store.close()
        added = sum(r.added for r in reports)
        print(f"pubmed ingest: {added} papers added in {took:.2f} s: {added / took:,.0f} papers/s "
              "(stored with highlights, index refitted; spacing aside)")


PUBMED_PER_DAY = 1000
VENUE = "ICML.cc/2025/Conference"
ACCEPTED = 3500
#: One accepted paper in this many is also an arXiv preprint already stored.
ON_ARXIV_EVERY = 5


def openreview_rates() -> None:
    from storage.models import Paper

    notes = venue_of_notes(VENUE, ACCEPTED)
    with OpenReview() as api, tempfile.TemporaryDirectory() as tmp:
        api.add(notes)
        found = Venue()
        began = time.perf_counter()
        papers = sum(1 for _ in read_venue(VENUE, fetcher=api.fetcher(), found=found))
        took = time.perf_counter() - began
        pages = len(api.requests)
        print(f"openreview reader: {found.records} notes in {pages} pages, {papers} papers in {took:.2f} s: "
              f"{papers / took:,.0f} papers/s (spacing aside; with {OPENREVIEW_INTERVAL:g} s a request, "
              f"{pages * OPENREVIEW_INTERVAL:.1f} s)")

        preprints = []
        for number, item in enumerate(notes[::ON_ARXIV_EVERY]):
            content = item["content"]
            preprints.append(Paper(
                id=f"arxiv:2502.{number:05d}", title=content["title"]["value"].upper(),  # spelt otherwise
                abstract="A shorter preprint abstract.", authors=[content["authors"]["value"][0]],
                url=f"https://arxiv.org/abs/2502.{number:05d}", arxiv_id=f"2502.{number:05d}",
                arxiv_version=1, venue="arXiv"))
        app = Context.open(str(Path(tmp) / "rates.db"))
        try:
            app.store.upsert_papers(preprints)
            before = app.store.count_papers()
            now = datetime.combine(DAY, datetime.min.time(), UTC).replace(hour=9)
            began = time.perf_counter()
            [report] = ingest(app, [f"openreview:{VENUE}"], fetcher=api.fetcher(), clock=lambda: now)
            took = time.perf_counter() - began
            after = app.store.count_papers()
            with_venue = sum(1 for p in preprints if app.store.get_paper(p.id).venue == "ICML 2025 poster")
        finally:
            app.store.close()
        read = report.added + report.updated
        print(f"openreview ingest: {read} papers ({report.added} added, {report.updated} merged into their "
              f"arXiv preprint) in {took:.2f} s: {read / took:,.0f} papers/s (stored with highlights, index "
              "refitted; spacing aside)")
        print(f"openreview merges: {len(preprints)} preprints stored first, {report.updated} merged, "
              f"{after - before} papers new ({after} stored), {with_venue} preprints now with the venue")
ACL_PAPERS, ACL_WITHOUT = 1700, 100


def acl_rates() -> None:
    volume = "2025.acl-long"
    with Anthology() as site, tempfile.TemporaryDirectory() as tmp:
        with_abstracts = ACL_PAPERS - ACL_WITHOUT
        site.add(volume, volume_of(volume, with_abstracts))
        site.add(volume, volume_of(volume, ACL_WITHOUT, first=with_abstracts + 1, abstracts=False)[1:])
        for number in range(with_abstracts + 1, ACL_PAPERS + 1):  # their own files hold one
            site.own[f"{volume}.{number}"] = volume_of(volume, 1, first=number)[1]
        found = Volume()
        began = time.perf_counter()
        papers = sum(1 for _ in read_volume(volume, fetcher=site.fetcher(), found=found))
        took = time.perf_counter() - began
        asked = len(site.requests)
        print(f"acl reader: {found.entries} entries in {asked} requests ({found.looked_up} lookups), "
              f"{papers} papers in {took:.2f} s: {papers / took:,.0f} papers/s (spacing aside; with "
              f"{ACL_INTERVAL:g} s a request, {asked * ACL_INTERVAL:.0f} s)")

        app = Context.open(str(Path(tmp) / "rates.db"))
        try:
            now = datetime.combine(DAY, datetime.min.time(), UTC).replace(hour=9)
            began = time.perf_counter()
            reports = ingest(app, [f"acl:{volume}"], fetcher=site.fetcher(), clock=lambda: now)
            took = time.perf_counter() - began
        finally:
            app.store.close()
        added = sum(r.added for r in reports)
        print(f"acl ingest: {added} papers added in {took:.2f} s: {added / took:,.0f} papers/s "
              "(stored with highlights, index refitted; spacing aside)")


PREPRINTS, IN_PUBMED_EVERY = 1000, 4
SURNAMES = ("Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Quispe", "Mensah", "Ivanova",
            "Reyes")


def merge_rates() -> None:
    """The same papers from two sources: bioRxiv preprints read first, then PubMed's records of the journal
    versions of one in :data:`IN_PUBMED_EVERY` (their titles spelt otherwise, one author in common, the
    journal's DOI; half of the preprints' records name that DOI as ``published``), and PubMed records of
    other papers beside them. Each paper should be stored once, with both pages."""
    day = DAY - timedelta(days=1)
    posts, records = [], []
    for i in range(PREPRINTS):
        doi = f"10.1101/{day:%Y.%m.%d}.{600000 + i:06d}"
        surname = f"{SURNAMES[i % len(SURNAMES)]}{'abcdefghij'[i // 100 % 10]}{'klmnopqrst'[i // 10 % 10]}"
        journal_doi = f"10.1038/s41586-026-{i:05d}-x"
        published = journal_doi if i % (2 * IN_PUBMED_EVERY) == 0 else "NA"
        title = f"Cortical {SURNAMES[i % 10].lower()} circuits remap synapse {i} during plasticity"
        posts.append(record("biorxiv", doi, day, "neuroscience", title=title, published=published,
                            authors=f"{surname}, A.; Field, B."))
        if i % IN_PUBMED_EVERY == 0:
            pmid = str(41_000_000 + i)
            records.append(entry(pmid, DAY, article(
                pmid, title=title.upper() + ".", doi=journal_doi, authors=(f"Ada|{surname}", "Bo|Other"),
                abstract={"BACKGROUND": f"Circuits remap {i}.", "RESULTS": "They do, in cortex."})))
    others = day_of_records(DAY, PREPRINTS // IN_PUBMED_EVERY, "circuits remap")
    with Biorxiv() as biorxiv, Pubmed() as pubmed, tempfile.TemporaryDirectory() as tmp:
        biorxiv.post(posts)
        pubmed.add(records + others)
        app = Context.open(str(Path(tmp) / "merge.db"))
        try:
            now = datetime.combine(DAY, datetime.min.time(), UTC).replace(hour=9)
            [first] = ingest(app, ["biorxiv:neuroscience"], fetcher=biorxiv.fetcher(), clock=lambda: now,
                             arxiv_since=day)
            began = time.perf_counter()
            [second] = ingest(app, ['pubmed:"circuits remap"'], fetcher=pubmed.fetcher(), clock=lambda: now,
                              arxiv_since=day)
            took = time.perf_counter() - began
            stored = app.store.count_papers()
            asked = [f"pmid:{41_000_000 + i}" for i in range(0, PREPRINTS, IN_PUBMED_EVERY)]
            both = app.store.get_papers(asked)
            with_pages = sum(1 for p in both.values() if p.id.startswith("doi:10.1101/")
                             and any(u.startswith("https://pubmed") for u in p.other_urls))
        finally:
            app.store.close()
        print(f"biorxiv+pubmed merges: {first.added} preprints stored, then {len(records) + len(others)} "
              f"PubMed records ({len(records)} of those preprints' journal versions) in {took:.2f} s: "
              f"{second.updated} merged into their preprint, {second.added} new; {stored} papers stored "
              f"(expected {PREPRINTS + len(others)}), {with_pages} merged papers linking both pages")


if __name__ == "__main__":
    raise SystemExit(main())
