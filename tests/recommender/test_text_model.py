"""The text model: stemming, words shown to people, tiny corpora, and saving."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest
from scipy import sparse

from recommender import PaperIndex, Profile, rank, search
from recommender.text_model import BIGRAM_WEIGHT, TextModel, Tokenizer, Vectorizer, english_stop_words, stem
from stand_ins.corpus import make_corpus
from tests.conftest import ROOT


@pytest.mark.parametrize("word, expected", [
    ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("plastered", "plaster"),
    ("motoring", "motor"), ("sing", "sing"), ("hopping", "hop"), ("happy", "happi"),
    ("adjustment", "adjust"), ("controlling", "control"), ("networks", "network"),
    ("learning", "learn"), ("learned", "learn"), ("by", "by"),
])
def test_stems(word, expected):
    assert stem(word) == expected


def test_tokenizer_drops_stop_words_and_stems():
    assert Tokenizer()("the networks are learning graphs") == ["network", "learn", "graph"]
    assert Tokenizer(stop_words=())("the networks") == ["the", "network"]


def test_word_forms_meet():
    texts = ["Graph networks for molecules", "Convolutional network on images", "Protein folding kinetics",
             "Bayesian inference of phylogenies", "Learning to rank documents"]
    index = PaperIndex.build([str(i) for i in range(len(texts))], texts)
    picks = rank(index, Profile(topics=["networked graphs"]), 2)
    assert [p.paper_id for p in picks] == ["0", "1"]


def test_terms_are_shown_as_words_not_stems():
    texts = ["Learning diffusion models", "Diffusion models learn to denoise images",
             "Learning graph networks", "Studies of networks and graphs", "Quantum circuits study"] * 3
    model, _ = TextModel.fit(texts)
    terms = set(model.terms)
    assert {"learning", "diffusion", "models", "networks", "graph"} <= terms
    assert "diffusion models" in terms
    assert not {"learn", "diffus", "model"} & terms


def test_explanations_use_words():
    texts = ["Diffusion models for image generation", "Score matching and diffusion processes",
             "Graph neural networks for molecules", "Message passing networks on graphs"]
    index = PaperIndex.build(["d1", "d2", "g1", "g2"], texts)
    [pick] = rank(index, Profile(topics=["diffusion"]), 1)
    assert pick.topics == ["diffusion"] and pick.terms == []  # the topic's own word goes without saying
    [pick] = rank(index, Profile(liked=["d2"]), 1)
    assert pick.similar_to == "d2"
    [pick] = search(index, "diffusion models", 1)
    assert pick.topics == [] and "diffusion" in " ".join(pick.terms)


def test_the_bundled_demo_corpus_still_fits():
    text = (ROOT / "bot" / "data" / "icml2025-abstracts.txt").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n")[1:] if p.strip()]
    assert len(paragraphs) >= 15
    index = PaperIndex.build([str(i) for i in range(len(paragraphs))], paragraphs)
    assert index.matrix.shape[1] > 500
    picks = rank(index, Profile(topics=["reinforcement learning"], liked=["0"]), 5)
    assert len(picks) == 5 and "0" not in {p.paper_id for p in picks}
    assert all(p.topics or p.terms or p.similar_to for p in picks)


def test_a_corpus_of_stop_words_falls_back_to_every_word():
    model, matrix = TextModel.fit(["the and of", "of the it"])
    assert matrix.shape == (2, len(model.terms)) and matrix.nnz > 0


def test_saved_model_transforms_and_explains_the_same():
    texts = ["Graph networks for molecules", "Networked graphs of proteins", "Kinetics of folding"]
    model, matrix = TextModel.fit(texts)
    again = pickle.loads(pickle.dumps(model))
    assert np.allclose(again.transform(texts).toarray(), matrix.toarray())
    assert list(again.terms) == list(model.terms)
    assert again.vectorizer.tokenizer.words is None


def test_rows_are_unit_length_and_pairs_count_less():
    texts = ["graph networks", "graph kernels", "network science", "deep kernels", "protein graph"] * 2
    model, matrix = TextModel.fit(texts)
    assert np.allclose(np.sqrt(matrix.multiply(matrix).sum(axis=1)), 1.0, atol=1e-5)
    terms = list(model.terms)
    idf = model.vectorizer.idf_
    # Smoothed idf, ln((1 + n) / (1 + df)) + 1, with n = 10: the stem is in 4 texts (shown as the
    # commoner form, ties going to the first alphabetically), the pair in 2.
    assert idf[terms.index("network")] == pytest.approx(np.log(11 / 5) + 1)
    assert idf[terms.index("graph network")] == pytest.approx(BIGRAM_WEIGHT * (np.log(11 / 3) + 1))
    assert np.allclose(model.transform(texts[:3]).toarray(), matrix[:3].toarray(), atol=1e-6)
    # The ranker relies on it: short texts (topics, queries) come out unit length too, or empty.
    short = model.transform_short(["graph", "kernels of graphs", "unheard-of words", "graph"])
    assert np.allclose(np.sqrt(short.multiply(short).sum(axis=1)).ravel(), [1, 1, 0, 1], atol=1e-5)
    assert model.transform_short(["graph"]).shape == (1, matrix.shape[1])


# -- reading a model without scikit-learn ----------------------------------------------------------------

#: Texts a reader or a paper might bring: the corpus's own, accents, stop words alone, repeats, symbols.
ODD_TEXTS = ["", "the and of", "Café naïve résumé ÉCOLE", "graph graph graph networks", "Ω≈ç√∫ 123 x_1 ab_cd",
             "feline cats whiskers", "Learning diffusion models for images", "CATS. Cats? cats!"]


def fitted_by_scikit_learn(texts):
    """scikit-learn's own vectorizer, fitted as :meth:`TextModel.fit` fits it (pairs weighted down)."""
    from recommender.text_model import _term_weights, make_vectorizer

    vectorizer = make_vectorizer(len(texts))
    vectorizer.fit(texts)
    vectorizer.idf_ = (vectorizer.idf_ * _term_weights(vectorizer.get_feature_names_out())).astype(np.float64)
    return vectorizer


def assert_same_rows(ours, theirs):
    theirs = sparse.csr_matrix(theirs, dtype=np.float32)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours.indptr, theirs.indptr) and np.array_equal(ours.indices, theirs.indices)
    assert np.array_equal(ours.data, theirs.data)  # to the bit: rankings and their ties stay as they were


def test_the_saved_vectorizer_makes_scikit_learns_rows_to_the_bit():
    texts = [f"{p.title}. {p.abstract}" for p in make_corpus()]
    model, _ = TextModel.fit(texts)
    theirs = fitted_by_scikit_learn(texts)
    assert isinstance(model.vectorizer, Vectorizer)
    assert model.vectorizer.vocabulary_ == theirs.vocabulary_
    assert np.array_equal(model.vectorizer.idf_, theirs.idf_)
    assert_same_rows(model.transform(texts + ODD_TEXTS), theirs.transform(texts + ODD_TEXTS))
    assert model.transform([]).shape == (0, len(theirs.vocabulary_))


def test_a_model_saved_with_scikit_learns_vectorizer_reads_as_the_same_model():
    texts = [f"{p.title}. {p.abstract}" for p in make_corpus()]
    model, _ = TextModel.fit(texts)
    model.vectorizer = fitted_by_scikit_learn(texts)  # what models saved before Vectorizer hold
    again = pickle.loads(pickle.dumps(model))
    assert isinstance(again.vectorizer, Vectorizer)
    assert_same_rows(again.transform(ODD_TEXTS + texts), model.vectorizer.transform(ODD_TEXTS + texts))


def test_the_stop_words_are_scikit_learns():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as theirs

    assert english_stop_words() == theirs


def test_reading_a_saved_index_and_ranking_imports_no_scikit_learn(tmp_path):
    texts = [f"{p.title}. {p.abstract}" for p in make_corpus()]
    saved = tmp_path / "index.pickle"
    saved.write_bytes(PaperIndex.build([str(i) for i in range(len(texts))], texts).dumps())
    program = ("import sys; from pathlib import Path; from recommender import PaperIndex, Profile, rank;"
               f" index = PaperIndex.loads(Path({str(saved)!r}).read_bytes());"
               " assert rank(index, Profile(topics=['feline cats']), 3);"
               " print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # a process that only reads a model pays nothing for scikit-learn
