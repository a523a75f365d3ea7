"""The papers' full-text index (storage/fulltext.py, step m019_fulltext): every word of every paper found,
the rarest included, whatever its case, phrases as phrases, kept current on ingest, change, merge and
deletion, filled for papers stored before it, and no query able to speak the index's own syntax. Both
backends."""

from __future__ import annotations

import pytest

from storage import Paper, open_store
from storage.fulltext import parse, words
from tests.storage.conftest import database_before, dispose, sql_rows

MECO = Paper(id="p-meco", title="Metadata Conditioning Accelerates Language Model Pre-training",
             abstract="We propose MeCo, metadata conditioning then cooldown, to pre-train a reward model.",
             authors=["Tianyu Gao", "Danqi Chen"], arxiv_id="2501.01956", arxiv_version=1)
RLHF = Paper(id="p-rlhf", title="Training language models to follow instructions",
             abstract="We fine-tune with RLHF: a model of reward learned from human preferences.",
             authors=["Long Ouyang"])
DRAGO = Paper(id="p-drago", title="DRAGO: drift-aware online optimisation",
              abstract="Regret bounds for a model.", authors=["Ana Duarte"], doi="10.1/drago")


def ids(found: list[tuple[str, float]]) -> list[str]:
    return [pid for pid, _ in found]


@pytest.fixture
def papers(any_store):
    any_store.upsert_papers([MECO, RLHF, DRAGO])
    return any_store


def test_a_word_only_one_paper_holds_finds_it_whatever_its_case(papers):
    for spelling in ("MeCo", "meco", "MECO"):
        assert ids(papers.search_text([spelling], 10)) == ["p-meco"]
    assert ids(papers.search_text(["rlhf"], 10)) == ["p-rlhf"]
    assert ids(papers.search_text(["Drago"], 10)) == ["p-drago"]
    assert ids(papers.search_text(["Ouyang"], 10)) == ["p-rlhf"]  # authors are words too
    assert papers.search_text(["nowhere"], 10) == []


def test_a_word_inside_a_link_an_address_or_a_hyphenation_is_a_word(any_store):
    any_store.upsert_papers([Paper(id="p-link", title="Code", abstract="See github.com/someone/zorbnet-v2 or"
                                   " mail kim@quuxlab.org; GPT-4o and pre_training.")])
    for word in ("zorbnet", "v2", "quuxlab", "kim", "4o", "gpt-4o", "GPT 4o", "pre-training"):
        assert ids(any_store.search_text([word], 10)) == ["p-link"], word


def test_a_phrase_matches_its_words_in_order_only(papers):
    assert ids(papers.search_text(["reward model"], 10)) == ["p-meco"]
    assert papers.search_text(["model reward"], 10) == []
    # The same words loose: both papers, each holding both.
    assert set(ids(papers.search_text(["reward", "model"], 10))) == {"p-meco", "p-rlhf"}
    assert set(ids(papers.search_text(["meco", "rlhf"], 10, every=False))) == {"p-meco", "p-rlhf"}
    assert papers.search_text(["meco", "rlhf"], 10) == []


def test_a_title_match_ranks_first_and_limits_and_counts_hold(papers):
    # "drago" is a title word of one paper; "model" is in every abstract and one title.
    found = papers.search_text(["model"], 10)
    assert set(ids(found)) == {"p-meco", "p-rlhf", "p-drago"}
    assert ids(found)[0] == "p-meco"
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert len(papers.search_text(["model"], 2)) == 2
    assert papers.count_text(["model"], 2) == 2
    assert papers.count_text(["model"], 100) == 3
    assert papers.count_text(["meco"], 100) == 1
    assert papers.count_text(["nowhere"], 100) == 0


@pytest.mark.parametrize("hostile", ['NEAR(', '"', '*', 'AND OR', ':*', '!', "meco*", 'meco"', "'meco'",
                                     "meco & !rlhf", "meco | rlhf", "title:meco", "(meco", "meco <-> rlhf",
                                     "-meco", "^meco", "NOT meco", "\\", "%_", "meco; drop table papers"])
def test_no_query_speaks_the_index_syntax(papers, hostile):
    found = ids(papers.search_text([hostile], 10))
    found += ids(papers.search_text([hostile, "model"], 10, every=False))
    assert set(found) <= {"p-meco", "p-rlhf", "p-drago"}
    assert papers.count_text([hostile], 10) >= 0
    if "meco" in words(hostile) and len(words(hostile)) == 1:
        assert ids(papers.search_text([hostile], 10)) == ["p-meco"]  # punctuation around a word: the word
    assert papers.count_papers() == 3


def test_nothing_to_look_for_finds_nothing(papers):
    assert papers.search_text([], 10) == []
    assert papers.search_text(["", "  ", "!!"], 10) == []
    assert papers.search_text(["meco"], 0) == []
    assert papers.count_text(["*"], 10) == 0


def test_the_index_follows_every_change_of_a_paper(papers):
    papers.upsert_papers([Paper(id="p-new", title="Fresh", abstract="Introducing Zorblax, a new thing.")])
    assert ids(papers.search_text(["zorblax"], 10)) == ["p-new"]
    # A newer version rewrites the abstract: the old words go, the new ones come.
    papers.upsert_papers([Paper(id="p-meco", title=MECO.title, abstract="A rewritten abstract about Quokkas.",
                                authors=MECO.authors, arxiv_id="2501.01956", arxiv_version=2)])
    assert papers.search_text(["cooldown"], 10) == []
    assert ids(papers.search_text(["quokkas"], 10)) == ["p-meco"]
    assert ids(papers.search_text(["metadata conditioning"], 10)) == ["p-meco"]  # the title stayed


def test_a_merge_leaves_one_paper_holding_the_words_of_what_was_kept(any_store):
    preprint = Paper(id="arxiv:1", title="Sparse widgets", abstract="We study Frobnitz widgets.",
                     authors=["Ana Duarte"], arxiv_id="2401.00001", arxiv_version=1)
    journal = Paper(id="journal:9", title="Widgets, the journal version", abstract="Longer on Glimmer. " * 5,
                    authors=["Ana Duarte"], doi="10.1/j.9")
    any_store.upsert_papers([preprint, journal])
    assert ids(any_store.search_text(["glimmer"], 10)) == ["journal:9"]
    bridge = Paper(id="feed:77", abstract="short", arxiv_id="2401.00001", arxiv_version=2, doi="10.1/J.9",
                   title="whatever", authors=["Ana Duarte"])
    assert any_store.upsert_papers([bridge]).updated == 1
    assert any_store.count_papers() == 1
    kept = any_store.get_paper("arxiv:1")
    # Whatever text the merge kept is what the one paper is found by; the merged-away id is no answer.
    for word in words(f"{kept.title} {kept.abstract}"):
        assert ids(any_store.search_text([word], 10)) == ["arxiv:1"]
    assert "journal:9" not in ids(any_store.search_text(["widgets"], 10))
    assert sql_rows(any_store, "select count(*) from paper_text")[0][0] == 1


def test_a_deleted_paper_is_found_no_more(papers):
    with papers.transaction():
        sql_rows(papers, "delete from papers where id = 'p-drago'")
    assert papers.search_text(["drago"], 10) == []
    assert set(ids(papers.search_text(["model"], 10))) == {"p-meco", "p-rlhf"}


def test_the_step_indexes_the_papers_stored_before_it(backend, store_target, monkeypatch):
    database_before(backend, store_target, monkeypatch, "m019_fulltext",
                    "insert into papers (id, title, abstract, authors, added_at, updated_at, seq) values ",
                    [("old1", "Before the index", "An abstract naming Xyzzyformer.", '["Bo Kim"]',
                      "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00", 1),
                     ("old2", None, "No title, a reward model.", None,
                      "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00", 2)])
    store = open_store(store_target)
    try:
        assert ids(store.search_text(["XYZZYFORMER"], 10)) == ["old1"]
        assert ids(store.search_text(["reward model"], 10)) == ["old2"]
        assert ids(store.search_text(["kim"], 10)) == ["old1"]
    finally:
        dispose(store)


def test_a_query_is_its_quoted_phrases_and_its_loose_words():
    parsed = parse('MeCo “reward model” "RLHF" "half open')
    assert parsed.phrases == (("reward", "model"),)
    assert parsed.words == ("MeCo", "RLHF", "half", "open")
    assert parse('NEAR( " * AND OR :* !').words == ("NEAR", "AND", "OR")
    assert parse('"" “”').phrases == () and parse("").words == ()
    assert words("GPT-4o, MeCo's") == ("gpt", "4o", "meco", "s")


def test_a_statement_for_one_backend_only_is_left_out_on_the_other():
    from storage.schema_steps import Only, Step, statements

    step = Step("m999_only", (Only("sqlite", "select 1"), Only("postgres", "select 2")))
    assert statements(step, "sqlite") == ["select 1"]
    assert statements(step, "postgres") == ["select 2"]
    with pytest.raises(ValueError):
        Only("oracle", "select 3")  # type: ignore[arg-type]


def test_text_holders_are_every_paper_holding_any_phrase_with_its_text(papers):
    assert papers.text_holders(["meco", "rlhf"]) == {
        "p-meco": f"{MECO.title}. {MECO.abstract}", "p-rlhf": f"{RLHF.title}. {RLHF.abstract}"}
    assert set(papers.text_holders(["model"])) == {"p-meco", "p-rlhf", "p-drago"}  # no limit
    assert set(papers.text_holders(["reward model", "nowhere"])) == {"p-meco"}
    assert papers.text_holders(["ouyang"]) == {"p-rlhf": f"{RLHF.title}. {RLHF.abstract}"}
    assert papers.text_holders([]) == {} and papers.text_holders(["!!"]) == {}


def test_paper_texts_pages_through_every_paper_in_id_order(papers):
    first = papers.paper_texts("", 2)
    assert [pid for pid, _ in first] == ["p-drago", "p-meco"]
    assert papers.paper_texts(first[-1][0], 2) == [("p-rlhf", f"{RLHF.title}. {RLHF.abstract}")]
    assert papers.paper_texts("p-rlhf") == [] and papers.paper_texts("", 0) == []
