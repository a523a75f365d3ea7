"""Every word findable (issue 23, item 4): a name only one paper holds, which the TF-IDF vocabulary leaves
out, finds that paper first in a search and, followed, brings it into /papers recommend and the digest,
for a true reason; quoted phrases match as phrases; hostile queries get answers, never errors."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date

import pytest

from bot.errors import BadArgument
from bot.state.context import Context
from bot.usecases import follow, rare_terms, recommend, search
from bot.usecases.digests.choose import Chooser
from stand_ins.corpus import make_corpus
from storage import Paper
from storage.fulltext import words
from tests.conftest import shared_data

#: Big enough that the model keeps only words seen in two papers or more (as on any real corpus).
PER_TOPIC = 41

MECO = Paper(id="meco-1", title="Metadata conditioning then cooldown for pre-training",
             abstract="We introduce MeCo: graph neural networks pre-trained with metadata, then cooled down.",
             authors=["Tianyu Gao"], published="2020-01-01")
PHRASED = Paper(id="phrase-1", title="Sampling kittens",
                abstract="A reward model for feline litter sampling.", authors=["Bo Kim"],
                published="2020-01-01")


@pytest.fixture(scope="module")
def corpus_ctx(tmp_path_factory):
    c = Context.open(str(tmp_path_factory.mktemp("rare") / "ctx.db"), digest_size=3)
    c.store.upsert_papers([*make_corpus(PER_TOPIC), MECO, PHRASED])
    c.engine.refresh()
    yield c
    c.store.close()


@pytest.fixture
def ctx(corpus_ctx):
    yield corpus_ctx
    with corpus_ctx.store.transaction():  # each test's people start afresh; the papers stay
        for table in ("topics", "people", "shown", "feed_papers", "digests"):
            corpus_ctx.store.db.execute(f"delete from {table}")


def ids(recs):
    return [r.paper.id for r in recs]


def test_the_model_leaves_the_name_out_and_the_index_keeps_it(ctx):
    with ctx.engine.index() as index:
        assert not index.model.knows("MeCo") and index.model.knows("kittens")
        assert rare_terms.rare_words(index, "MeCo graph the 2024") == ("meco",)
    assert rare_terms.papers_holding(ctx, ("meco",)) == ("meco-1",)
    assert rare_terms.papers_holding(ctx, ("graph",)) == ()  # in too many papers to be a name


@pytest.mark.parametrize("query", ["MeCo", "meco", "MECO graph", "graph neural networks MeCo", "“MeCo”"])
def test_a_name_only_one_paper_holds_finds_it_first(ctx, query):
    recs = search(ctx, query, 5)
    assert ids(recs)[0] == "meco-1"
    assert recs[0].reason.startswith("Matches: MeCo")  # as the paper writes it, whatever the case asked


def test_ordinary_words_rank_as_before(ctx):
    recs = search(ctx, "message passing on graph nodes", 3)
    assert all(r.paper.id.startswith("graphs-") for r in recs)


def test_a_quoted_phrase_matches_as_a_phrase(ctx):
    assert ids(search(ctx, '"reward model"', 5)) == ["phrase-1"]
    assert search(ctx, '"model reward"', 5) == []
    recs = search(ctx, 'feline "litter sampling"', 5)
    assert ids(recs) == ["phrase-1"] and "litter sampling" in recs[0].reason
    # Loose, the same words match many papers.
    assert len(search(ctx, "reward model litter", 5)) > 1


@pytest.mark.parametrize("hostile", ['NEAR(', '"', '*', 'AND OR', ':*', '!', 'meco*', '"meco', 'MeCo"',
                                     "meco & !graph", "title:meco", "meco <-> x", "'; drop table papers; --",
                                     '"""', "“unclosed phrase", "%", "\\"])
def test_a_hostile_query_gets_answers_or_a_plain_refusal(ctx, hostile):
    try:
        recs = search(ctx, hostile, 5)
    except BadArgument:
        return
    assert all(r.paper.id for r in recs)
    if "meco" in words(hostile):
        assert ids(recs)[0] == "meco-1"
    assert ctx.store.count_papers() == 5 * PER_TOPIC + 2


def test_following_the_name_brings_its_paper_into_recommend_for_that_reason(ctx):
    follow(ctx, "U1", "MeCo, robots")
    recs = recommend(ctx, "U1", 3, remember=False)
    meco = [r for r in recs if r.paper.id == "meco-1"]
    assert meco and "“MeCo”" in meco[0].reason
    assert any(r.paper.id.startswith("robots-") for r in recs)  # the other topic still counts


def test_a_topic_names_a_paper_only_when_the_paper_holds_all_of_it(ctx):
    with ctx.engine.index() as index:
        assert rare_terms.topic_term(index, "MeCo for graph") == ("meco", "graph")
        assert rare_terms.topic_term(index, "graph neural networks") == ()
        assert rare_terms.mentions(ctx, index, ["MeCo graph", "MeCo quantum"]) == {"meco-1": ["MeCo graph"]}
    follow(ctx, "U1", "MeCo quantum")
    recs = recommend(ctx, "U1", 3, remember=False)
    assert "meco-1" not in ids(recs)  # about MeCo, not quantum: not put first for that topic


def test_following_the_name_brings_its_paper_into_the_digest(ctx):
    follow(ctx, "U1", "MeCo")
    follow(ctx, "U2", "quantum")
    follow(ctx, "U3", "meco, cats")
    chooser = Chooser(ctx, [("U1", date(2026, 7, 15)), ("U2", date(2026, 7, 15)), ("U3", date(2026, 7, 15))],
                      record_feeds=False)
    one = chooser.choose("U1", date(2026, 7, 15))
    assert ids(one)[:1] == ["meco-1"] and "“MeCo”" in one[0].reason
    assert "meco-1" not in ids(chooser.choose("U2", date(2026, 7, 15)))
    three = chooser.choose("U3", date(2026, 7, 15))
    assert "meco-1" in ids(three)
    assert "“meco”" in next(r for r in three if r.paper.id == "meco-1").reason


def test_each_rare_term_is_looked_up_once_per_state_of_the_papers(tmp_path, monkeypatch):
    ctx = Context.open(str(tmp_path / "small.db"))
    try:
        ctx.store.upsert_papers(make_corpus(2))
        ctx.engine.refresh()
        asked: Counter = Counter()
        real = ctx.store.count_text

        def counted(phrases, at_most, every=True):
            asked[tuple(phrases)] += 1
            return real(phrases, at_most, every)

        monkeypatch.setattr(ctx.store, "count_text", counted)
        with ctx.engine.index() as index:
            rare_terms.mentions_of_many(ctx, index, [["Quuxian", "cats"], ["quuxian"], ["QUUXIAN"]])
            rare_terms.mentions_of_many(ctx, index, [["Quuxian"]])
            assert asked == {("quuxian",): 1}
            assert rare_terms.papers_holding(ctx, ("quuxian",)) == ()
        # New papers: the word is looked up again, and found.
        ctx.store.upsert_papers([Paper(id="quux-1", title="Quuxian things", abstract="All about Quuxian.")])
        assert rare_terms.papers_holding(ctx, ("quuxian",)) == ("quux-1",)
        assert asked == {("quuxian",): 2}
    finally:
        ctx.store.close()


def test_too_long_or_empty_queries_are_refused_plainly(ctx):
    with pytest.raises(BadArgument):
        search(ctx, '  ')
    with pytest.raises(BadArgument):
        search(ctx, '"' * 501)


def _real_names(papers: list[dict], n: int) -> list[tuple[str, str]]:
    """Up to ``n`` (word, paper id): a mixed-case or all-caps word of a title that no other paper's
    title, abstract or authors hold, and no author's name."""
    held = Counter(w for p in papers for w in set(words(f"{p['title']} {p.get('abstract', '')}")))
    named = {w for p in papers for a in p.get("authors") or [] for w in words(a)}
    found = []
    for p in papers:
        for word in re.findall(r"\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b|\b[A-Z]{3,}[a-z]?\b", p["title"]):
            if held[word.lower()] == 1 and word.lower() not in named and word.isalpha():
                found.append((word, p["id"]))
                break
        if len(found) == n:
            break
    return found


def test_ten_real_names_each_find_their_paper_first(tmp_path):
    path = shared_data("icml2019.jsonl")
    papers = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    ctx = Context.open(str(tmp_path / "real.db"), digest_size=3)
    try:
        ctx.store.upsert_papers([Paper(id=p["id"], title=p["title"], abstract=p["abstract"],
                                       authors=p.get("authors") or []) for p in papers])
        ctx.engine.refresh()
        names = _real_names(papers, 10)
        assert len(names) == 10
        with ctx.engine.index() as index:
            assert not any(index.model.knows(word) for word, _ in names)  # what the tester found missing
        for word, pid in names:
            assert ids(search(ctx, word, 5))[:1] == [pid], word
        word, pid = names[0]
        follow(ctx, "U1", word)
        assert pid in ids(recommend(ctx, "U1", 3, remember=False))
    finally:
        ctx.store.close()
