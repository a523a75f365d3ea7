"""What became of a paper between two records of it (issue 42): each kind of event, and what is none."""

from dataclasses import replace

from bot.text.paper_events import code_links, events, is_withdrawn
from storage import Paper

V1 = Paper(id="arxiv:2501.00001", arxiv_id="2501.00001", arxiv_version=1, title="Sparse graph transformers",
           abstract="We study sparse attention on graphs.", venue=None)


def test_a_later_version_whose_abstract_changed_is_a_new_version():
    v2 = replace(V1, arxiv_version=2, abstract="We study sparse attention on large graphs.")
    assert events(V1, v2) == [("version", "v2")]


def test_a_later_version_with_the_same_abstract_or_only_other_spacing_is_none():
    assert events(V1, replace(V1, arxiv_version=2)) == []
    assert events(V1, replace(V1, arxiv_version=2, abstract="We study  sparse attention\non graphs. ")) == []


def test_another_sources_fuller_text_of_an_arxiv_paper_is_no_new_version():
    fuller = replace(V1, abstract=V1.abstract + " Longer, from a journal's record.")
    assert events(V1, fuller) == []


def test_a_venue_where_there_was_a_preprint_server_is_acceptance():
    assert events(replace(V1, venue="arXiv"), replace(V1, venue="ICML  2025")) == [("accepted", "ICML 2025")]
    assert events(V1, replace(V1, venue="Nature")) == [("accepted", "Nature")]
    # Another spelling of a venue already there is no news.
    assert events(replace(V1, venue="ICML 2025"), replace(V1, venue="Proc. ICML 2025")) == []


def test_a_doi_where_there_was_none():
    assert events(V1, replace(V1, doi="10.1000/XYZ.1")) == [("doi", "10.1000/xyz.1")]
    assert events(replace(V1, doi="10.1000/a"), replace(V1, doi="10.1000/b")) == []


def test_a_new_code_link_in_a_later_version():
    v2 = replace(V1, arxiv_version=2, abstract=V1.abstract + " Code: github.com/lab/sgt.")
    assert events(V1, v2) == [("version", "v2"), ("code", "https://github.com/lab/sgt")]
    v3 = replace(v2, arxiv_version=3, abstract=v2.abstract + " Weights at https://huggingface.co/lab/sgt-base,"
                 " data at https://zenodo.org/records/123.")
    assert events(v2, v3) == [("version", "v3"), ("code", "https://huggingface.co/lab/sgt-base"),
                              ("code", "https://zenodo.org/records/123")]


def test_code_links_are_of_the_four_hosts_and_name_more_than_a_host():
    text = "See https://gitlab.com/a/b; http://www.github.com/c/d/ and https://github.com and example.com/x."
    assert code_links(text) == ["https://gitlab.com/a/b", "http://www.github.com/c/d"]


def test_withdrawal_is_told_alone():
    gone = replace(V1, arxiv_version=2,
                   abstract="This paper has been withdrawn by the author due to an error.")
    assert is_withdrawn(gone) and not is_withdrawn(V1)
    assert events(V1, gone) == [("withdrawn", "")]
    assert events(gone, replace(gone, arxiv_version=3)) == []  # withdrawn already
    biorxiv = Paper(id="doi:10.1101/1", title="WITHDRAWN: A cell atlas", abstract="The authors have withdrawn"
                    " their manuscript owing to a flaw.")
    before = replace(biorxiv, title="A cell atlas", abstract="We map cells.")
    assert events(before, biorxiv) == [("withdrawn", "")]


def test_a_paper_without_arxiv_versions_whose_record_changed_its_abstract():
    one = Paper(id="doi:10.1101/2", abstract="First text.", venue="bioRxiv")
    (kind, detail), = events(one, replace(one, abstract="Second text."))
    assert kind == "version" and detail.startswith("text ")


def test_nothing_changed_is_nothing():
    assert events(V1, V1) == []


def test_a_journal_s_record_merging_into_a_preprint_is_acceptance_not_a_new_version():
    preprint = Paper(id="doi:10.1101/3", abstract="Preprint text.", venue="bioRxiv", doi="10.1101/3")
    journal = replace(preprint, abstract="The journal's longer text of it.", venue="Cell")
    assert events(preprint, journal) == [("accepted", "Cell")]
