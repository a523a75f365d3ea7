"""`search` finds an author's papers by name; queries that name nobody rank as before."""

from bot.usecases import search
from recommender import search as search_index
from storage import Paper


def add_papers(ctx):
    ctx.store.upsert_papers([
        Paper(id="bajcsy-old", title="Safe robot control", abstract="Robot control with safety filters.",
              authors=["Andréa Bajcsy", "Someone Else"], published="2021-03-01"),
        Paper(id="bajcsy-new", title="Learning from corrections", abstract="Humans correct robots online.",
              authors=["A. Bajcsy"], published="2024-06-01"),
        Paper(id="other-bajcsy", title="Quantum stuff", abstract="Qubits and circuits.",
              authors=["Ruzena Bajcsy"], published="2023-01-01"),
    ])
    ctx.engine.refresh()


def test_a_surname_finds_that_authors_papers_newest_first(ctx):
    add_papers(ctx)
    recs = search(ctx, "bajcsy", 5)
    assert [r.paper.id for r in recs] == ["bajcsy-new", "other-bajcsy", "bajcsy-old"]
    assert recs[2].reason == "By Andréa Bajcsy"


def test_a_full_name_ignores_accents_and_case_and_narrows_by_given_name(ctx):
    add_papers(ctx)
    assert [r.paper.id for r in search(ctx, "andrea BAJCSY", 5)] == ["bajcsy-new", "bajcsy-old"]


def test_an_author_and_topic_words_rank_the_authors_papers_by_the_words_first(ctx):
    add_papers(ctx)
    recs = search(ctx, "safety filters Andrea Bajcsy", 4)
    assert [r.paper.id for r in recs][:2] == ["bajcsy-old", "bajcsy-new"]
    assert all(r.paper.id != "other-bajcsy" for r in recs)


def test_papers_ingested_later_are_found_by_author_at_once(ctx):
    assert all("Quill" not in " ".join(r.paper.authors) for r in search(ctx, "Zebulon Quill", 3))
    ctx.store.upsert_papers([Paper(id="quill", title="T", abstract="Cats.", authors=["Zebulon Quill"])])
    assert [r.paper.id for r in search(ctx, "Zebulon Quill", 3)] == ["quill"]


def test_a_query_that_names_no_author_ranks_as_the_topic_search_does(ctx):
    add_papers(ctx)
    for query in ("message passing on graph nodes", "robot safety", "qubits"):
        with ctx.engine.index() as index:
            expected = [p.paper_id for p in search_index(index, query, 5)]
        assert [r.paper.id for r in search(ctx, query, 5)] == expected


def test_names_written_in_tex_are_found_as_they_read(ctx):
    ctx.store.upsert_papers([Paper(id="godel", title="T", abstract="Logic.", authors=[r'Kurt G\"odel'])])
    recs = search(ctx, "kurt godel", 3)
    assert [r.paper.id for r in recs] == ["godel"] and recs[0].reason == "By Kurt Gödel"


def test_a_bare_surname_among_topic_words_ranks_that_authors_papers_on_the_topic_first(ctx):
    add_papers(ctx)
    ctx.store.upsert_papers([
        Paper(id="other-safety", title="Safety filters for robot arms",
              abstract="Safety filters keep robot control safe.", authors=["Carol Jones"],
              published="2024-01-01"),
    ])
    ctx.engine.refresh()
    recs = search(ctx, "bajcsy safety", 5)
    ids = [r.paper.id for r in recs]
    assert ids[:2] == ["bajcsy-old", "other-safety"], ids
    assert recs[0].reason == "By Andréa Bajcsy"
    # Her papers on other topics, and the other Bajcsy's, don't push other papers on safety down.
    assert "bajcsy-new" not in ids[:2] and "other-bajcsy" not in ids[:2]
    assert [r.paper.id for r in search(ctx, "safety bajcsy", 5)][:2] == ["bajcsy-old", "other-safety"]


def test_a_surname_that_is_also_a_word_of_the_papers_stays_a_topic_word(ctx):
    add_papers(ctx)
    ctx.store.upsert_papers([Paper(id="mr-robot", title="T", abstract="Cats.", authors=["Ann Robot"])])
    ctx.engine.refresh()
    with ctx.engine.index() as index:
        expected = [p.paper_id for p in search_index(index, "robot safety", 5)]
    assert [r.paper.id for r in search(ctx, "robot safety", 5)] == expected


def test_an_authors_paper_merged_with_another_copy_since_it_was_indexed_comes_once(ctx):
    ctx.store.upsert_papers([
        Paper(id="arxiv:2402.00099", arxiv_id="2402.00099", title="Zebra herds, a preprint",
              abstract="Zebra herds.", authors=["Ana Frost"], published="2024-02-01"),
        Paper(id="journal:zebra-1", title="Zebra herds measured", abstract="Zebra herds in depth.",
              authors=["Ana Frost"], doi="10.5555/zebra.1", venue="Journal of Zebras",
              published="2024-06-01"),
    ])
    assert len(search(ctx, "frost", 5)) == 2  # two papers, as far as anyone knows yet
    ctx.store.upsert_papers([Paper(id="feed:zebra", abstract="short", arxiv_id="2402.00099",
                                   doi="10.5555/ZEBRA.1", title="Something else", authors=["A. Frost"])])
    recs = search(ctx, "frost", 5)
    assert len(recs) == 1 and recs[0].paper.venue == "Journal of Zebras"
