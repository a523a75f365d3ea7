"""A bioRxiv preprint's journal version (issue 42), on both backends: the ``published`` DOI bioRxiv's record
names is kept as an alias of the preprint, told once as the event "doi", and the journal version's PubMed
record then merges into the preprint ("accepted" in that journal). Against stand_ins/biorxiv.py."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.text.paper_events import events
from bot.usecases.ingest import ingest
from stand_ins.biorxiv import Biorxiv, record
from storage import Paper

DAY = date(2026, 12, 7)
PREPRINT = "10.1101/2026.12.07.500001"
JOURNAL = "10.1016/j.cell.2026.01.001"
SINCE = "2000-01-01T00:00:00+00:00"


@pytest.fixture
def api():
    with Biorxiv() as stand_in:
        yield stand_in


def run(app, api, day: date):
    now = datetime.combine(day, datetime.min.time(), UTC).replace(hour=9)
    return ingest(app, ["biorxiv:neuroscience"], fetcher=api.fetcher(), clock=lambda: now)


def test_a_journal_version_is_kept_told_once_and_its_pubmed_record_merges_in(app, api):
    api.post([record("biorxiv", PREPRINT, DAY, "neuroscience", title="Place cells remap in darkness",
                     authors="Duarte, A.; Li, B.")])
    run(app, api, DAY)
    preprint = f"doi:{PREPRINT}"
    assert app.store.get_paper(preprint).venue == "bioRxiv"
    app.store.save_paper("U1", preprint)

    api.post([record("biorxiv", PREPRINT, DAY.replace(day=8), "neuroscience", version=2, published=JOURNAL,
                     title="Place cells remap in darkness", authors="Duarte, A.; Li, B.")])
    run(app, api, DAY.replace(day=8))
    run(app, api, DAY.replace(day=8))  # read again: nothing new
    dois = [(e.kind, e.detail) for e in app.store.paper_events([preprint]) if e.kind == "doi"]
    assert dois == [("doi", JOURNAL)]

    # The journal version's PubMed record (another id, the journal's DOI, another title) is the same paper.
    journal = Paper(id="pmid:41000001", doi=JOURNAL, title="Hippocampal place cells remap in the dark",
                    abstract="Place cells remap in darkness, in mice.", authors=["Ana Duarte"], venue="Cell")
    app.store.upsert_papers([journal], events=events)
    assert app.store.get_paper("pmid:41000001").id == preprint
    told = app.store.claim_followups("U1", "2026-12-09", "t", SINCE, 10)
    assert {(e.kind, e.detail) for e in told} >= {("doi", JOURNAL), ("accepted", "Cell")}
