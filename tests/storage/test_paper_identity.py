"""One paper across sources (storage.identity, storage.merging): the same paper by DOI in any spelling, by
normalised title with a surname in common; every id it had still finds it; the fullest text and the
published venue kept; what people did with a merged-away copy moves to the paper kept. Both backends."""

import json

import pytest

from storage import Paper
from tests.storage.conftest import count_rows, database_before, dispose, sql_rows

PREPRINT = Paper(id="arxiv:2401.00001", title=r"Deep {L}earning for $\mathcal{X}$-ray Images",
                 abstract="We learn from X-ray images.", authors=["Ana Duarte", "Bo Kim"], venue="arXiv",
                 url="https://arxiv.org/abs/2401.00001", arxiv_id="2401.00001", arxiv_version=1,
                 categories=["cs.CV"])
CONFERENCE = Paper(id="conf:icml-17", title="Deep learning for X-ray images.",
                   abstract="We learn from X-ray images, and show in detail how well it works.",
                   authors=["A. Duarte"], venue="ICML 2024", url="https://icml.example/17",
                   categories=["ML"])


@pytest.mark.parametrize("spelling", ["10.1145/ABC.123", "doi:10.1145/abc.123", "DOI: 10.1145/abc.123",
                                      "https://doi.org/10.1145/Abc.123", "http://dx.doi.org/10.1145/abc.123"])
def test_one_paper_by_its_doi_in_any_spelling(any_store, spelling):
    any_store.upsert_papers([Paper(id="a", title="Graph things", abstract="x", doi="10.1145/abc.123")])
    counts = any_store.upsert_papers([Paper(id="b", title="Quite another title", abstract="y", doi=spelling)])
    assert (counts.added, counts.updated) == (0, 1)
    assert any_store.count_papers() == 1
    assert any_store.get_paper("b").id == "a"
    assert any_store.find_paper_by_doi(spelling).id == "a"
    assert any_store.get_paper("a").doi == "10.1145/abc.123"


def test_one_paper_by_title_despite_tex_case_punctuation_and_initials(any_store):
    any_store.upsert_papers([PREPRINT])
    counts = any_store.upsert_papers([CONFERENCE])
    assert (counts.added, counts.updated, counts.unchanged) == (0, 1, 0)
    assert any_store.count_papers() == 1
    paper = any_store.get_paper("arxiv:2401.00001")
    assert paper.venue == "ICML 2024"  # the published version's
    assert paper.abstract == CONFERENCE.abstract  # the fuller text
    assert paper.title == PREPRINT.title
    assert paper.authors == ["Ana Duarte", "Bo Kim"]
    assert paper.categories == ["cs.CV", "ML"]
    assert (paper.arxiv_id, paper.url) == ("2401.00001", PREPRINT.url)


def test_the_published_version_first_then_the_preprint_keeps_its_venue_and_id(any_store):
    any_store.upsert_papers([CONFERENCE])
    any_store.upsert_papers([PREPRINT])
    paper = any_store.find_paper_by_arxiv_id("2401.00001")
    assert (paper.id, paper.venue, paper.abstract) == ("conf:icml-17", "ICML 2024", CONFERENCE.abstract)
    assert any_store.get_paper("arxiv:2401.00001").id == "conf:icml-17"
    assert any_store.count_papers() == 1


def test_the_same_title_without_a_surname_in_common_is_another_paper(any_store):
    any_store.upsert_papers([PREPRINT])
    other = Paper(id="other", title="Deep learning for X-ray images", abstract="Someone else's.",
                  authors=["Carla Mendes"], venue="MICCAI")
    assert any_store.upsert_papers([other]).added == 1
    no_authors = Paper(id="anon", title="Deep learning for X-ray images", abstract="No authors given.")
    assert any_store.upsert_papers([no_authors]).added == 1
    assert any_store.count_papers() == 3


def test_two_arxiv_preprints_are_never_one_paper(any_store):
    any_store.upsert_papers([PREPRINT])
    twin = Paper(id="arxiv:2402.00002", title=PREPRINT.title, abstract="A second upload.",
                 authors=["Ana Duarte"], arxiv_id="2402.00002", arxiv_version=1)
    assert any_store.upsert_papers([twin]).added == 1


def test_re_ingesting_either_version_changes_nothing_more(any_store):
    any_store.upsert_papers([PREPRINT, CONFERENCE])
    assert any_store.count_papers() == 1
    seq = any_store.max_paper_seq()
    for _ in range(2):
        counts = any_store.upsert_papers([CONFERENCE, PREPRINT])
        assert (counts.added, counts.updated, counts.unchanged) == (0, 0, 2)
    assert any_store.max_paper_seq() == seq


def test_every_id_url_and_doi_a_paper_had_still_finds_it(any_store):
    any_store.upsert_papers([PREPRINT])
    any_store.upsert_papers([Paper(**{**CONFERENCE.__dict__, "doi": "10.5555/icml.17"})])
    papers = any_store.get_papers(["conf:icml-17", "arxiv:2401.00001", "unknown"])
    assert papers.keys() == {"conf:icml-17", "arxiv:2401.00001"}
    assert {p.id for p in papers.values()} == {"arxiv:2401.00001"}
    assert any_store.find_paper_by_url("https://icml.example/17").id == "arxiv:2401.00001"  # the alias's URL
    assert any_store.find_paper_by_doi("https://doi.org/10.5555/ICML.17").id == "arxiv:2401.00001"
    assert any_store.find_paper_by_arxiv_id("2401.00001").id == "arxiv:2401.00001"


def test_feedback_and_shown_naming_an_old_id_count_for_the_merged_paper(any_store):
    any_store.upsert_papers([PREPRINT, CONFERENCE])
    store = any_store.for_workspace("T1")
    store.set_feedback("U1", "conf:icml-17", 1)
    store.mark_shown("U1", "conf:icml-17", "why", "D1", "1.1")
    assert [(f.paper_id, f.value) for f in store.get_feedback("U1")] == [("arxiv:2401.00001", 1)]
    assert store.shown_paper_ids("U1") == {"arxiv:2401.00001"}
    assert store.shown_among("U1", ["conf:icml-17", "arxiv:2401.00001", "nope"]) == {"conf:icml-17",
                                                                                    "arxiv:2401.00001"}
    assert store.paper_for_message("D1", "1.1") == ("U1", "arxiv:2401.00001")
    assert store.remove_feedback("U1", "conf:icml-17", 1)
    assert store.get_feedback("U1") == []


def test_a_record_tying_two_stored_papers_merges_them_and_what_people_did_moves(any_store):
    any_store.upsert_papers([PREPRINT])
    published = Paper(id="journal:9", title="X-ray learning, the journal version", abstract="Longer. " * 20,
                      authors=["Ana Duarte"], venue="TMI", doi="10.1/tmi.9")
    any_store.upsert_papers([published])
    assert any_store.count_papers() == 2
    one, two = any_store.for_workspace("T1"), any_store.for_workspace("T2")
    one.set_feedback("U1", "arxiv:2401.00001", 1)
    one.set_feedback("U1", "journal:9", 1)  # liked both copies: keeps one like
    one.mark_shown("U1", "journal:9", "why", "D1", "2.2")
    one.save_paper("U1", "journal:9")  # saved the copy that goes: the save goes with it
    two.set_feedback("U1", "journal:9", -1)  # the same user id in another workspace is another person
    two.start_digest("U1", "2024-05-01", "me:1:1", "2999-01-01T00:00:00+00:00", "2024-05-01T08:00:00+00:00")
    two.set_digest_papers("U1", "2024-05-01", "me:1:1", ["journal:9", "arxiv:2401.00001"],
                          {"journal:9": "because"})
    seq = any_store.max_paper_seq()

    bridge = Paper(id="feed:77", abstract="short", arxiv_id="2401.00001", arxiv_version=2, doi="10.1/TMI.9",
                   title="whatever the feed says", authors=["Ana Duarte"])
    assert any_store.upsert_papers([bridge]).updated == 1

    assert any_store.count_papers() == 1
    kept = any_store.get_paper("journal:9")
    assert (kept.id, kept.venue, kept.doi, kept.arxiv_version) == ("arxiv:2401.00001", "TMI", "10.1/tmi.9", 2)
    assert [(f.paper_id, f.value) for f in one.get_feedback("U1")] == [("arxiv:2401.00001", 1)]
    assert [(f.paper_id, f.value) for f in two.get_feedback("U1")] == [("arxiv:2401.00001", -1)]
    assert one.shown_paper_ids("U1") == {"arxiv:2401.00001"}
    assert one.saved_paper_ids("U1") == {"arxiv:2401.00001"} and two.saved_paper_ids("U1") == set()
    assert one.paper_for_message("D1", "2.2") == ("U1", "arxiv:2401.00001")
    digest = two.get_digest("U1", "2024-05-01")
    assert (digest.papers, digest.reasons) == (["arxiv:2401.00001"], {"arxiv:2401.00001": "because"})
    # Running indexes hear of it: the kept paper changed, the merged-away ids are gone.
    assert [p.id for _, p in any_store.papers_changed_since(seq)] == ["arxiv:2401.00001"]
    assert set(any_store.papers_merged_since(seq)) == {"journal:9", "feed:77"}
    assert any_store.papers_merged_since(any_store.max_paper_seq()) == []


def test_a_batch_holding_both_versions_makes_one_paper(any_store):
    counts = any_store.upsert_papers([PREPRINT, CONFERENCE, PREPRINT])
    assert (counts.added, counts.updated, counts.unchanged) == (1, 1, 1)
    assert any_store.count_papers() == 1


# -- the migration -----------------------------------------------------------------------------------

_PAPERS = ("insert into papers (id, arxiv_id, arxiv_version, title, abstract, authors, url, venue, published,"
           " categories, added_at, updated_at, seq) values ")


def _paper(paper: Paper, added_at: str, seq: int) -> tuple:
    return (paper.id, paper.arxiv_id, paper.arxiv_version, paper.title, paper.abstract,
            json.dumps(paper.authors), paper.url, paper.venue, paper.published, json.dumps(paper.categories),
            added_at, added_at, seq)


def test_the_migration_merges_stored_copies_carrying_likes_shown_and_digests(backend, store_target,
                                                                              monkeypatch):
    other = Paper(id="other", title="Something else entirely", abstract="z", authors=["Ana Duarte"])
    step = "m010_paper_identity"
    database_before(backend, store_target, monkeypatch, step, _PAPERS, [
        _paper(PREPRINT, "2024-01-01T00:00:00+00:00", 1), _paper(CONFERENCE, "2024-02-01T00:00:00+00:00", 2),
        _paper(other, "2024-03-01T00:00:00+00:00", 3)])
    database_before(backend, store_target, monkeypatch, step,
                    "insert into feedback (ws, user_id, paper_id, value, created_at) values ", [
                        ("T1", "U1", "arxiv:2401.00001", 1, "2024-04-01T00:00:00+00:00"),
                        ("T1", "U1", "conf:icml-17", 1, "2024-04-02T00:00:00+00:00"),
                        ("T2", "U1", "conf:icml-17", -1, "2024-04-03T00:00:00+00:00")])
    database_before(backend, store_target, monkeypatch, step,
                    "insert into shown (ws, user_id, paper_id, shown_at, reason, channel, message_ts)"
                    " values ",
                    [("T1", "U1", "arxiv:2401.00001", "2024-04-01T00:00:00+00:00", "r", "D1", "1.1"),
                     ("T1", "U1", "conf:icml-17", "2024-04-02T00:00:00+00:00", "r", "D1", "1.2"),
                     ("T2", "U1", "conf:icml-17", "2024-04-03T00:00:00+00:00", "r", "D2", "2.1")])
    database_before(backend, store_target, monkeypatch, step,
                    "insert into digests (ws, user_id, local_date, status, papers, reasons) values ",
                    [("T2", "U1", "2024-04-03", "sent", json.dumps(["conf:icml-17", "other"]),
                      json.dumps({"conf:icml-17": "why", "other": "because"}))])
    from storage import open_store

    store = open_store(store_target)
    try:
        assert store.count_papers() == 2
        kept = store.get_paper("conf:icml-17")
        assert (kept.id, kept.venue, kept.abstract) == ("arxiv:2401.00001", "ICML 2024", CONFERENCE.abstract)
        one, two = store.for_workspace("T1"), store.for_workspace("T2")
        assert [(f.paper_id, f.value) for f in one.get_feedback("U1")] == [("arxiv:2401.00001", 1)]
        assert [(f.paper_id, f.value) for f in two.get_feedback("U1")] == [("arxiv:2401.00001", -1)]
        assert one.shown_paper_ids("U1") == two.shown_paper_ids("U1") == {"arxiv:2401.00001"}
        assert two.paper_for_message("D2", "2.1") == ("U1", "arxiv:2401.00001")
        digest = two.get_digest("U1", "2024-04-03")
        assert digest.papers == ["arxiv:2401.00001", "other"]
        assert digest.reasons == {"arxiv:2401.00001": "why", "other": "because"}
        # A process holding an index of change 3 drops the copy and refreshes the paper kept.
        assert store.papers_merged_since(3) == ["conf:icml-17"]
        assert [p.id for _, p in store.papers_changed_since(3)] == ["arxiv:2401.00001"]
        assert store.max_paper_seq() == 4
        assert count_rows(store, "paper_aliases") == 1
        keys = sql_rows(store, "select title_key from papers where id = 'other'")
        assert keys == [("something else entirely",)]
        # New records of either copy find the one paper.
        assert store.upsert_papers([CONFERENCE]).unchanged == 1
    finally:
        dispose(store)


# -- PostgreSQL: several processes ---------------------------------------------------------------------


def test_two_ingests_of_the_two_versions_at_once_make_one_paper(pg_store):
    from tests.storage.test_postgres import Holder, in_thread, waiting_for_a_lock

    holder = Holder(pg_store, lambda: pg_store.upsert_papers([PREPRINT]))  # uncommitted while the other runs
    second, box = in_thread(lambda: pg_store.upsert_papers([CONFERENCE]))
    assert waiting_for_a_lock(pg_store)  # the second queues behind the first's paper write
    holder.end()
    second.join(20)
    assert (box[0].added, box[0].updated) == (0, 1)
    assert pg_store.count_papers() == 1
    assert pg_store.get_paper("conf:icml-17").venue == "ICML 2024"


def test_a_paper_read_by_id_carries_the_pages_of_the_records_merged_into_it(any_store):
    forum = "https://openreview.net/forum?id=XrayF0rum1"
    pubmed = "https://pubmed.ncbi.nlm.nih.gov/40000001/"
    any_store.upsert_papers([PREPRINT])
    any_store.upsert_papers([Paper(id="openreview:XrayF0rum1", title=PREPRINT.title, abstract="x", url=forum,
                                   authors=["Ana Duarte"], venue="ICML 2024 poster")])
    any_store.upsert_papers([Paper(id="pmid:40000001", title=PREPRINT.title, abstract="x", url=pubmed,
                                   authors=["Bo Kim"])])
    for asked in ("arxiv:2401.00001", "openreview:XrayF0rum1", "pmid:40000001"):
        paper = any_store.get_paper(asked)
        assert paper.url == PREPRINT.url and paper.other_urls == [forum, pubmed], asked
    assert any_store.get_papers(["arxiv:2401.00001", "pmid:40000001"])["pmid:40000001"].other_urls == [forum,
                                                                                                       pubmed]
    alone = Paper(id="acl:2025.acl-long.9", title="Another paper", abstract="y",
                  url="https://aclanthology.org/2025.acl-long.9/")
    any_store.upsert_papers([alone])
    assert any_store.get_paper(alone.id).other_urls == []
