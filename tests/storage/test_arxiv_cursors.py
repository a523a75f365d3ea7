"""How far each arXiv category was read (storage/arxiv_cursors.py, step m031_arxiv_cursors): one date a
category, shared by every workspace, only ever moving forward. Both backends."""

from __future__ import annotations


def test_a_category_never_read_has_no_cursor_and_each_keeps_its_own(any_store):
    assert any_store.arxiv_cursor("cs.LG") is None
    assert any_store.set_arxiv_cursor("cs.LG", "2026-12-04", "2026-12-05T01:00:00+00:00")
    assert any_store.set_arxiv_cursor("stat.ML", "2026-12-03", "2026-12-05T01:00:03+00:00")
    assert any_store.arxiv_cursor("cs.LG") == "2026-12-04"
    assert any_store.arxiv_cursor("stat.ML") == "2026-12-03"
    assert any_store.arxiv_cursor("cs.CL") is None
    # Papers are every workspace's, and so is how far their announcements were read.
    assert any_store.for_workspace("T1").arxiv_cursor("cs.LG") == "2026-12-04"


def test_the_cursor_moves_forward_only(any_store):
    any_store.set_arxiv_cursor("cs.LG", "2026-12-07", "2026-12-08T01:00:00+00:00")
    assert any_store.set_arxiv_cursor("cs.LG", "2026-12-07", "2026-12-08T02:00:00+00:00")  # read again
    # A back-fill of older days, or a slower process that read yesterday's listing, sets nothing back.
    assert not any_store.set_arxiv_cursor("cs.LG", "2026-12-01", "2026-12-08T03:00:00+00:00")
    assert any_store.arxiv_cursor("cs.LG") == "2026-12-07"
    assert any_store.set_arxiv_cursor("cs.LG", "2026-12-08", "2026-12-09T01:00:00+00:00")
    assert any_store.arxiv_cursor("cs.LG") == "2026-12-08"


def test_dated_sources_keep_their_own_cursor_beside_the_categories(any_store):
    # biorxiv:/medrxiv: sources (bot/sources/biorxiv.py): named with a colon, so never an arXiv category.
    assert any_store.source_cursor("biorxiv:neuroscience") is None
    assert any_store.set_source_cursor("biorxiv:neuroscience", "2026-12-06", "2026-12-07T01:00:00+00:00")
    assert any_store.set_arxiv_cursor("neuroscience", "2026-12-01", "2026-12-07T01:00:00+00:00")
    assert any_store.source_cursor("biorxiv:neuroscience") == "2026-12-06"
    assert any_store.source_cursor("medrxiv:neurology") is None
    assert not any_store.set_source_cursor("biorxiv:neuroscience", "2026-12-02", "2026-12-07T02:00:00+00:00")
    assert any_store.for_workspace("T1").source_cursor("biorxiv:neuroscience") == "2026-12-06"
