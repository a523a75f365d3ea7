"""A person's alerts (storage/alerts.py, step m030_alerts) and the one read of a digest that finds their
new papers through the full-text index: whole words in order, any case, added since the person's last
digest of an earlier day (or the first one's window), never before the oldest moment asked. Both
backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from storage import Paper
from storage.moments import iso_utc

GRAPH = Paper(id="p-graph", title="Graph Transformers at scale", abstract="Attention over nodes.",
              authors=["Ana Duarte"])
PARAGRAPH = Paper(id="p-para", title="Paragraph embeddings", abstract="Each paragraph, transformers.",
                  authors=["Kim Lee"])
ABSTRACT_ONLY = Paper(id="p-abs", title="Message passing", abstract="We study GRAPH transformers, not GNNs.",
                      authors=["Kim Lee"])
AUTHOR_ONLY = Paper(id="p-auth", title="Wave equations", abstract="Numerics.", authors=["Graph Transformers"])
REORDERED = Paper(id="p-rev", title="Transformers for graph data", abstract="Nothing more.", authors=[])

NOW = datetime.now(UTC)
LONG_AGO = iso_utc(NOW - timedelta(days=30))
TODAY = NOW.date().isoformat()


#: Every paper holding the word "graph" (the author's name included).
GRAPHS = {"p-graph", "p-abs", "p-auth", "p-rev"}


def ids(rows) -> set[str]:
    return {row[0] for row in rows}


@pytest.fixture
def papers(any_store):
    store = any_store.for_workspace("T1")
    store.upsert_papers([GRAPH, PARAGRAPH, ABSTRACT_ONLY, AUTHOR_ONLY, REORDERED])
    return store


def test_alerts_are_kept_once_per_key_in_the_order_added_and_removed_by_key(any_store):
    store = any_store.for_workspace("T1")
    assert store.get_alerts("U1") == []
    assert store.add_alert("U1", "graph transformers", "Graph  Transformers")
    assert not store.add_alert("U1", "graph transformers", "graph transformers")  # the key decides
    assert store.add_alert("U1", "diffusion", "diffusion")
    assert store.add_alert("U2", "graph transformers", "graph transformers")  # everyone their own
    assert store.for_workspace("T2").get_alerts("U1") == []
    assert store.get_alerts("U1") == [("graph transformers", "Graph  Transformers"),
                                      ("diffusion", "diffusion")]
    assert store.remove_alert("U1", "graph transformers") == "Graph  Transformers"
    assert store.remove_alert("U1", "graph transformers") is None
    assert store.get_alerts("U1") == [("diffusion", "diffusion")]
    assert store.get_alerts("U2") == [("graph transformers", "graph transformers")]


def test_a_phrase_finds_its_words_in_order_whatever_their_case_never_inside_another_word(papers):
    found = papers.new_papers_saying("U1", ["Graph Transformers"], TODAY, LONG_AGO, LONG_AGO)
    # The index reads authors too: which field holds the phrase is the caller's to check.
    assert ids(found) == {"p-graph", "p-abs", "p-auth"}
    assert "p-para" not in ids(papers.new_papers_saying("U1", ["graph"], TODAY, LONG_AGO, LONG_AGO))
    row = next(r for r in found if r[0] == "p-graph")
    assert row[1:3] == ("Graph Transformers at scale", "Attention over nodes.")


def test_several_phrases_are_one_read_of_any_of_them(papers):
    found = papers.new_papers_saying("U1", ["paragraph", "graph data", "  ", "!!"], TODAY, LONG_AGO, LONG_AGO)
    assert ids(found) == {"p-para", "p-rev"}
    assert papers.new_papers_saying("U1", ["", "?"], TODAY, LONG_AGO, LONG_AGO) == []


def test_new_means_added_since_the_last_digest_of_an_earlier_day_else_the_first_window(papers):
    later = iso_utc(NOW + timedelta(hours=1))
    assert ids(papers.new_papers_saying("U1", ["graph"], TODAY, LONG_AGO, LONG_AGO)) == GRAPHS
    # No digest yet: the first window counts, and so does the oldest moment asked.
    assert papers.new_papers_saying("U1", ["graph"], TODAY, later, LONG_AGO) == []
    assert papers.new_papers_saying("U1", ["graph"], TODAY, LONG_AGO, later) == []
    # Yesterday's digest began after the papers came: none is new.
    yesterday = (NOW - timedelta(days=1)).date().isoformat()
    assert papers.start_digest("U1", yesterday, "me", later, later)
    assert papers.new_papers_saying("U1", ["graph"], TODAY, LONG_AGO, LONG_AGO) == []
    # Today's own digest (begun before its papers are chosen) is not the previous one.
    assert papers.new_papers_saying("U1", ["graph"], yesterday, LONG_AGO, LONG_AGO) != []
    # Someone else's digest is not theirs.
    assert ids(papers.new_papers_saying("U2", ["graph"], TODAY, LONG_AGO, LONG_AGO)) == GRAPHS


def test_shown_papers_are_counted_by_the_start_of_their_reason_since_a_moment(papers):
    papers.ensure_person("U1")
    papers.mark_shown("U1", "p-graph", "Matches your alert “graph”")
    papers.mark_shown("U1", "p-abs", "Matches your alert “100%_sure”")
    papers.mark_shown("U1", "p-para", "Similar to papers you liked")
    papers.mark_shown("U2", "p-rev", "Matches your alert “graph”")
    assert papers.count_shown_with_reason("U1", LONG_AGO, "Matches your alert “") == 2
    assert papers.count_shown_with_reason("U1", LONG_AGO, "Matches your alert “100%_") == 1
    assert papers.count_shown_with_reason("U1", LONG_AGO, "Matches your alert “1__%") == 0
    assert papers.count_shown_with_reason("U1", iso_utc(NOW + timedelta(hours=1)), "Matches") == 0


def test_a_persons_snapshot_holds_their_alerts_and_mutes_as_read_alone(any_store):
    store = any_store.for_workspace("T1")
    store.ensure_person("U1")
    store.add_mutes("U1", ["zebra", "aardvark"])
    store.add_alert("U1", "zeta", "Zeta")
    store.add_alert("U1", "alpha beta", "Alpha  beta")
    store.add_alert("U2", "other", "other")
    view = store.person_view("U1")
    mine = [("zeta", "Zeta"), ("alpha beta", "Alpha  beta")]
    assert view.get_alerts("U1") == store.get_alerts("U1") == mine
    assert view.get_mutes("U1") == store.get_mutes("U1")
    assert view.get_alerts("U2") == [("other", "other")]


def test_forgetting_a_person_deletes_their_alerts_and_an_export_hands_them_over(any_store):
    store = any_store.for_workspace("T1")
    store.ensure_person("U1")
    store.add_alert("U1", "graph", "Graph")
    store.add_alert("U2", "graph", "graph")
    assert [(r["key"], r["phrase"]) for r in store.person_rows("U1")["alerts"]] == [("graph", "Graph")]
    assert store.rows_about("U1")["alerts"] == 1
    assert store.forget_person("U1")["alerts"] == 1
    assert store.get_alerts("U1") == [] and store.get_alerts("U2") == [("graph", "graph")]


def test_no_phrase_speaks_the_index_s_own_syntax(papers):
    for phrase in ['"graph', 'NEAR(graph data)', 'graph* OR data', "graph:* & !data", "AND OR NOT"]:
        found = papers.new_papers_saying("U1", [phrase], TODAY, LONG_AGO, LONG_AGO)
        assert isinstance(found, list), phrase
    assert ids(papers.new_papers_saying("U1", ['"Graph" -- data!'], TODAY, LONG_AGO, LONG_AGO)) == {"p-rev"}
