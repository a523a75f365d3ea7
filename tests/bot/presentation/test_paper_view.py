from bot.presentation.paper_view import (
    paper_links,
    published_on,
    shown_abstract,
    shown_title,
    title_is_derived,
    title_url,
)
from bot.sources.normalize import build_paper
from storage import Paper

ABSTRACT = ("In this work, we show that tiny models learn arithmetic from curated data with careful "
            "tuning of many knobs. It works.")


def test_a_derived_title_is_not_repeated_by_the_abstract():
    paper = build_paper(abstract=ABSTRACT)
    assert shown_title(paper) == "Tiny models learn arithmetic from curated data with careful tuning"
    assert shown_abstract(paper) == "…of many knobs. It works."


def test_a_title_named_from_a_later_sentence_leaves_the_abstract_whole_and_renders_tex():
    abstract = ("Bandits are a classic model of sequential decisions. Regret bounds have been studied for "
                "decades. We propose \\textsc{Lucid}, an algorithm that attains $O(\\sqrt{T})$ regret "
                "against adaptive adversaries. Experiments agree.")
    paper = build_paper(abstract=abstract)
    assert shown_title(paper) == "Lucid: An algorithm attaining O(√T) regret against adaptive adversaries"
    assert shown_abstract(paper).startswith("Bandits are a classic model of sequential decisions. ")
    assert shown_abstract(paper).endswith("O(√T) regret against adaptive adversaries. Experiments agree.")


def test_titles_derived_the_old_ways_count_as_derived():
    assert title_is_derived("In this work, we show that tiny models learn arithmetic from curated…", ABSTRACT)
    assert title_is_derived("We study cats", "We study cats. Then dogs.")
    assert not title_is_derived("We study", "We study cats. Then dogs.")
    assert not title_is_derived("Cats", "We study cats. Then dogs.")
    # The first clause, after a lead-in and capitalised, as titles were derived before the contribution.
    clause = "Exploration is critical for solving decision-making problems"
    assert title_is_derived(clause, clause + ", such as design. X.")
    assert title_is_derived("We show that tiny models learn arithmetic from curated data…", ABSTRACT)
    assert not title_is_derived("Tiny models", ABSTRACT)


def test_a_real_title_keeps_the_whole_abstract():
    paper = Paper(id="a", title="Tiny arithmetic", abstract=ABSTRACT)
    assert shown_title(paper) == "Tiny arithmetic" and shown_abstract(paper) == ABSTRACT


def test_an_abstract_that_is_all_title_shows_no_abstract():
    paper = build_paper(abstract="Short and sweet.")
    assert (shown_title(paper), shown_abstract(paper)) == ("Short and sweet", "")
    assert shown_title(Paper(id="only-id", abstract="")) == "only-id"


def test_dates_read_as_day_month_year_and_bad_ones_are_left_out():
    assert published_on(Paper(id="a", abstract="x", published="2024-03-12")) == "12 March 2024"
    assert published_on(Paper(id="a", abstract="x", published="2024-03-12T23:00:00+00:00")) == "12 March 2024"
    for bad in (None, "", "2024-13-01", "soon"):
        assert published_on(Paper(id="a", abstract="x", published=bad)) == ""


def test_arxiv_papers_link_to_abs_and_pdf_others_to_their_url():
    arxiv = build_paper(abstract="x", id="arXiv:2401.12345v3")
    assert [(lk.label, lk.url) for lk in paper_links(arxiv)] == [
        ("arXiv:2401.12345", "https://arxiv.org/abs/2401.12345"), ("PDF", "https://arxiv.org/pdf/2401.12345")]
    other = Paper(id="b", abstract="x", url="https://x.org/p")
    assert [(lk.label, lk.url) for lk in paper_links(other)] == [("Link", "https://x.org/p")]
    assert paper_links(Paper(id="c", abstract="x")) == [] and title_url(Paper(id="c", abstract="x")) is None
    assert title_url(Paper(id="d", abstract="x", arxiv_id="2401.00001")) == "https://arxiv.org/abs/2401.00001"


def test_an_openreview_forum_is_named_so_and_kept_beside_arxiv_s_links():
    forum = "https://openreview.net/forum?id=SharpRgrt1"
    accepted = Paper(id="openreview:SharpRgrt1", abstract="x", url=forum, venue="ICML 2025 poster")
    assert [(lk.label, lk.url) for lk in paper_links(accepted)] == [("OpenReview", forum)]
    assert title_url(accepted) == forum
    both = Paper(id="openreview:SharpRgrt1", abstract="x", url=forum, arxiv_id="2502.01234")
    assert [lk.label for lk in paper_links(both)] == ["arXiv:2502.01234", "PDF", "OpenReview"]


def test_a_paper_from_several_sources_links_to_its_page_at_each_once():
    forum = "https://openreview.net/forum?id=SharpRgrt1"
    merged = Paper(id="arxiv:2502.01234", abstract="x", url="https://arxiv.org/abs/2502.01234",
                   arxiv_id="2502.01234", other_urls=[
                       forum, "https://pubmed.ncbi.nlm.nih.gov/40000001/", "https://openreview.net/forum?id=Other",
                       "https://aclanthology.org/2025.acl-long.9/", "https://www.biorxiv.org/content/10.1101/1v2",
                       "https://elsewhere.example/p"])
    assert [(lk.label, lk.url) for lk in paper_links(merged)] == [
        ("arXiv:2502.01234", "https://arxiv.org/abs/2502.01234"), ("PDF", "https://arxiv.org/pdf/2502.01234"),
        ("OpenReview", forum), ("PubMed", "https://pubmed.ncbi.nlm.nih.gov/40000001/"),
        ("ACL Anthology", "https://aclanthology.org/2025.acl-long.9/"),
        ("bioRxiv", "https://www.biorxiv.org/content/10.1101/1v2")]
    preprint = Paper(id="biorxiv:10.1101/1", abstract="x", url="https://www.medrxiv.org/content/10.1101/1v1",
                     doi="10.1101/1", other_urls=["https://pubmed.ncbi.nlm.nih.gov/40000002/"])
    assert [lk.label for lk in paper_links(preprint)] == ["medRxiv", "PubMed"]


def test_a_paper_known_only_by_its_doi_links_to_doi_org():
    bare = Paper(id="doi:10.1145/3292500.3330701", title="T", abstract="A.", doi="10.1145/3292500.3330701")
    assert title_url(bare) == "https://doi.org/10.1145/3292500.3330701"
    assert [(p.label, p.url) for p in paper_links(bare)] == [
        ("doi:10.1145/3292500.3330701", "https://doi.org/10.1145/3292500.3330701")]
    odd = Paper(id="d", title="T", abstract="A.", doi="10.1002/(sici)1097-4571<3::aid>")
    assert title_url(odd) == "https://doi.org/10.1002/(sici)1097-4571%3C3::aid%3E"  # nothing Slack can't link
    own = Paper(id="o", title="T", abstract="A.", doi="10.1/x", url="https://example.org/x")
    assert title_url(own) == "https://example.org/x" and [p.url for p in paper_links(own)] == [own.url]
    arxiv = Paper(id="2401.00042", title="T", abstract="A.", doi="10.1/y", arxiv_id="2401.00042")
    assert title_url(arxiv) == "https://arxiv.org/abs/2401.00042"
    assert [p.label for p in paper_links(arxiv)] == ["arXiv:2401.00042", "PDF"]
    assert title_url(Paper(id="n", title="T", abstract="A.")) is None

