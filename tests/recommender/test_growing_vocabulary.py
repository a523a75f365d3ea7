"""A word no paper had at fit time counts as soon as papers with it are added, without a refit."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from recommender import PaperIndex, Profile, rank, search
from recommender.text_model import TextModel
from stand_ins.corpus import make_corpus


def corpus_index(per_topic: int = 8) -> PaperIndex:
    papers = make_corpus(per_topic)
    return PaperIndex.build([p.id for p in papers], [p.text for p in papers])


NEW = ["Mamba: linear-time sequence modeling with selective state spaces",
       "Vision Mambas: state space models for images"]


def test_a_word_absent_at_fit_is_searchable_and_ranked_first_once_its_papers_are_added():
    index = corpus_index()
    assert search(index, "mamba", 5) == []
    fitted_on = index.fitted_on
    index.add(["mamba-1", "mamba-2"], NEW)
    assert index.fitted_on == fitted_on and not index.needs_refit()  # no refit did this
    found = search(index, "Mamba", 5)
    assert {p.paper_id for p in found} == {"mamba-1", "mamba-2"}
    assert all(p.terms == ["mamba"] for p in found), "shown as the word, not the stem"
    # Matched as a topic too, and first, ahead of the corpus's own papers.
    picks = rank(index, Profile(topics=["mamba", "cats"]), 3)
    assert picks[0].paper_id in {"mamba-1", "mamba-2"}


def test_existing_rows_and_scores_are_unchanged_by_growth():
    index = corpus_index()
    before = {p.paper_id: p.score for p in search(index, "feline cats", 10)}
    old_rows = index.matrix.toarray()
    index.add(["mamba-1"], NEW[:1])
    width = index.matrix.shape[1]
    assert width > old_rows.shape[1]
    assert np.array_equal(index.matrix[: old_rows.shape[0], : old_rows.shape[1]].toarray(), old_rows)
    assert index.matrix[: old_rows.shape[0], old_rows.shape[1]:].nnz == 0
    after = {p.paper_id: p.score for p in search(index, "feline cats", 10)}
    assert after.keys() == before.keys()


def test_words_the_fit_pruned_as_too_common_do_not_come_back():
    # "study" is in every paper of the corpus: the fit drops it (max_df), and so must growth.
    index = corpus_index()
    assert search(index, "study", 5) == []
    width = index.matrix.shape[1]
    index.add(["s-1"], ["We study a study of studies"])
    assert index.matrix.shape[1] == width
    assert search(index, "study", 5) == []


def test_growth_makes_a_new_model_and_leaves_the_old_one_alone():
    index = corpus_index()
    old = index.model
    width = len(old.vectorizer.vocabulary_)
    index.add(["mamba-1"], NEW[:1])
    assert index.model is not old
    assert len(old.vectorizer.vocabulary_) == width == old.transform(["mamba"]).shape[1]
    assert index.model.transform(["mamba"]).nnz == 1


def test_a_grown_index_saves_and_loads_and_grows_again():
    index = corpus_index()
    index.add(["mamba-1"], NEW[:1])
    loaded = PaperIndex.loads(index.dumps())
    assert [p.paper_id for p in search(loaded, "mamba", 5)] == ["mamba-1"]
    loaded.add(["hyena-1"], ["Hyena hierarchy: towards larger convolutional language models"])
    assert [p.paper_id for p in search(loaded, "hyena", 5)] == ["hyena-1"]
    assert loaded.matrix.shape[1] == len(loaded.model.vectorizer.vocabulary_)


def test_a_model_that_does_not_record_what_it_pruned_never_grows():
    index = corpus_index()
    state = index.model.__getstate__()
    del state["pruned"]
    old = pickle.loads(pickle.dumps(index.model))
    old.__setstate__(state)
    index.model = old
    index.add(["mamba-1"], NEW[:1])
    assert index.model is old and search(index, "mamba", 5) == []


def test_the_new_word_s_idf_is_the_fit_s_formula():
    texts = [p.text for p in make_corpus()]
    model, _ = TextModel.fit(texts)
    grown = model.grown(NEW, n_docs=len(texts) + 2)
    column = grown.vectorizer.vocabulary_["mamba"]
    assert np.isclose(grown.vectorizer.idf_[column], np.log((1 + 42) / (1 + 2)) + 1)


NEW_WORDS = {"mamba", "hyena", "rwkv", "retnet"}
WORDS = [*sorted(NEW_WORDS), "cats", "feline", "quantum", "study", "models", "the", "x1", "Ünïcode"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join),
                min_size=1, max_size=4), st.booleans())
def test_after_any_additions_rows_and_vocabulary_agree_and_old_rows_stay(batch, replace_one):
    index = corpus_index(per_topic=4)
    old = index.matrix.toarray()
    ids = [f"n{i}" for i in range(len(batch))]
    if replace_one:
        ids[0] = index.ids[0]  # a known paper's new text
    index.add(ids, batch)
    width = len(index.model.vectorizer.vocabulary_)
    assert index.matrix.shape == (old.shape[0] + len(batch), width) == (len(index.ids), width)
    assert len(index.model.vectorizer.idf_) == width == index.model.transform(["anything"]).shape[1]
    assert np.array_equal(index.matrix[: old.shape[0], : old.shape[1]].toarray(), old)
    for word in {w for text in batch for w in text.split()} & NEW_WORDS:
        hits = {p.paper_id for p in search(index, word, 10)}
        assert hits == {pid for pid, text in zip(ids, batch, strict=True) if word in text.split()}
