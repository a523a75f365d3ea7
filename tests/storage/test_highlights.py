"""A paper's highlights (``papers.highlight``/``result``, step m033): stored with the paper, replaced with
its abstract, kept when a record brings the same abstract without them, and back-filled where missing,
never over an abstract that changed meanwhile. Both backends."""

from __future__ import annotations

from storage import Paper

ABSTRACT = "We propose X. X beats Y by 3%."
NEW_ABSTRACT = "We propose X, improved. X beats Y by 5%."


def _paper(**fields) -> Paper:
    values = {"id": "arxiv:2501.00001", "abstract": ABSTRACT, "title": "X", "arxiv_id": "2501.00001",
              "arxiv_version": 1, "highlight": "We propose X.", "result": "X beats Y by 3%."} | fields
    return Paper(**values)


def test_highlights_are_stored_and_read_with_the_paper(any_store):
    any_store.upsert_papers([_paper(), _paper(id="p2", arxiv_id=None, arxiv_version=None, abstract="Hm.",
                                            title="Other", highlight=None, result=None)])
    paper = any_store.get_paper("arxiv:2501.00001")
    assert (paper.highlight, paper.result) == ("We propose X.", "X beats Y by 3%.")
    assert any_store.get_papers(["p2"])["p2"].highlight is None


def test_a_new_version_that_changes_the_abstract_replaces_them(any_store):
    any_store.upsert_papers([_paper()])
    counts = any_store.upsert_papers([_paper(arxiv_version=2, abstract=NEW_ABSTRACT,
                                             highlight="We propose X, improved.", result="X beats Y by 5%.")])
    assert counts.updated == 1
    paper = any_store.get_paper("arxiv:2501.00001")
    assert (paper.abstract, paper.highlight, paper.result) == (NEW_ABSTRACT, "We propose X, improved.",
                                                               "X beats Y by 5%.")


def test_an_older_version_or_a_record_without_them_leaves_them(any_store):
    any_store.upsert_papers([_paper(arxiv_version=2)])
    before = any_store.max_paper_seq()
    # The same abstract from a path that computed nothing: nothing changes.
    counts = any_store.upsert_papers([_paper(arxiv_version=2, highlight=None, result=None)])
    assert counts.unchanged == 1 and any_store.max_paper_seq() == before
    # An older version's text never wins, nor its lines.
    any_store.upsert_papers([_paper(arxiv_version=1, abstract="Old text.", highlight="Old text.",
                                    result=None)])
    paper = any_store.get_paper("arxiv:2501.00001")
    assert (paper.abstract, paper.highlight, paper.result) == (ABSTRACT, "We propose X.", "X beats Y by 3%.")


def test_a_changed_abstract_without_lines_leaves_none_to_be_filled(any_store):
    any_store.upsert_papers([_paper()])
    any_store.upsert_papers([_paper(arxiv_version=2, abstract=NEW_ABSTRACT, highlight=None, result=None)])
    paper = any_store.get_paper("arxiv:2501.00001")
    assert (paper.highlight, paper.result) == (None, None)  # never the old abstract's lines
    assert any_store.papers_lacking_highlights() == [("arxiv:2501.00001", "X", NEW_ABSTRACT)]


def test_papers_lacking_them_are_listed_by_id_and_filled_without_a_change_number(any_store):
    papers = [_paper(id=f"p{i}", arxiv_id=None, arxiv_version=None, title=f"Title number {i}",
                     abstract=f"Abstract {i}.", highlight=None, result=None) for i in range(5)]
    papers.append(_paper(id="p9", arxiv_id=None, arxiv_version=None, title="Nothing", abstract="",
                         highlight=None, result=None))
    any_store.upsert_papers([*papers, _paper()])
    seq = any_store.max_paper_seq()
    first = any_store.papers_lacking_highlights(limit=2)
    assert [row[0] for row in first] == ["p0", "p1"]
    assert [row[0] for row in any_store.papers_lacking_highlights(after="p1", limit=10)] == ["p2", "p3", "p4"]
    # p0 gets lines, p1 none (kept as "computed, nothing"), p2's abstract changed since it was read.
    done = any_store.set_highlights([("p0", "Abstract 0.", "Abstract 0.", None),
                                     ("p1", "Abstract 1.", None, None),
                                     ("p2", "An older abstract.", "An older abstract.", None)])
    assert done == 2
    assert any_store.max_paper_seq() == seq
    assert any_store.get_paper("p0").highlight == "Abstract 0."
    assert any_store.get_paper("p1").highlight is None
    assert [row[0] for row in any_store.papers_lacking_highlights()] == ["p2", "p3", "p4"]
    # Lines set once are not set again by a back-fill that read them missing before.
    assert any_store.set_highlights([("p0", "Abstract 0.", "Other.", None)]) == 0
    assert any_store.get_paper("p0").highlight == "Abstract 0."


def test_a_merge_keeps_the_lines_of_the_abstract_it_keeps(any_store):
    preprint = _paper(title="Quasar telescopes and spectrographs", authors=["Ana Duarte"])
    published = Paper(id="neurips:1", title="Quasar telescopes and spectrographs", authors=["A. Duarte"],
                      abstract=ABSTRACT + " A longer, published abstract.", venue="NeurIPS",
                      highlight="We propose X.", result="A longer, published abstract.")
    any_store.upsert_papers([preprint])
    any_store.upsert_papers([published])
    paper = any_store.get_paper("neurips:1")
    # From another source the fuller text wins, and its lines with it.
    assert paper.abstract == published.abstract
    assert (paper.highlight, paper.result) == ("We propose X.", "A longer, published abstract.")
