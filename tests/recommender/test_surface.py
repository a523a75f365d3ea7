"""Reasons in the paper's own words: stems shown as the paper writes them, and only covered topics claimed."""

from __future__ import annotations

import pytest

from recommender import PaperIndex, Pick, Profile, rank, search
from recommender.surface import PaperWords, as_written, covers, worded

TEXT = ("Robot Models for Grasping. We train models of robots with GANs on ImageNet; the robot models "
        "then transfer. A learned model. Robots act.")


def test_a_stem_is_shown_as_its_first_word_in_the_paper_never_as_the_stem():
    paper = PaperWords(TEXT)
    assert paper.shown("robot") == "robot"  # a title's capital is not the word's
    assert paper.shown("model") == "models"
    assert paper.shown("gan") == "GANs" and paper.shown("imagenet") == "ImageNet"  # their own capitals
    assert paper.shown("grasp") == "grasping"
    assert paper.shown("diffus") is None


def test_a_stem_pair_is_the_phrase_where_its_words_stand_together_in_one_clause():
    paper = PaperWords(TEXT)
    assert paper.shown("robot model") == "robot models"
    assert paper.shown("model robot") == "models of robots"
    # "model. Robots" has the stems of a pair, but across a full stop it is no phrase
    assert not PaperWords("A learned model. Robots act.").has("model robot")
    assert not PaperWords("We learn this uncertainty").has("learn uncertainti")
    assert PaperWords("a 2 layer network").shown("layer network") == "layer network"
    assert PaperWords("Rényi divergence").shown("renyi diverg") == "rényi divergence"  # accents kept


def test_terms_come_in_the_papers_order_each_once():
    paper = PaperWords(TEXT)
    assert paper.in_order(["imagenet", "robot model", "gan", "robot"]) == [
        "robot models", "robot", "GANs", "ImageNet"]
    assert paper.in_order(["diffus", "grasp", "grasp"]) == ["grasping"]


def test_a_topic_is_covered_by_at_least_half_of_its_content_words():
    paper = PaperWords("Sublinear quantum algorithms for training classifiers on a lattice.")
    assert not covers(["quantum", "chromodynam", "qcd"], paper)
    assert covers(["quantum", "chromodynam", "lattic"], paper)
    assert covers(["quantum", "chromodynam"], paper)
    assert not covers([], paper)


def test_worded_claims_only_covered_topics_and_names_what_a_touched_one_shares():
    pick = Pick("p", 1.0, terms=["classifier", "train"], topics=["quantum chromodynamics lattice", "quantum"],
                term_stems=["classifi", "model robot", "train", "sublinear"],
                topic_stems={"quantum chromodynamics lattice": ["quantum", "chromodynam", "lattic"],
                             "quantum": ["quantum"]})
    said = worded(pick, "Sublinear quantum algorithms for training classifiers. We train.")
    assert said.topics == ["quantum"]
    assert said.partial == [("quantum chromodynamics lattice", ["quantum"])]
    # the pair is not in the paper: the next candidate takes its place; then the paper's order
    assert said.terms == ["training", "classifiers"]


def test_a_pick_made_by_hand_is_left_as_it_is():
    pick = Pick("p", 1.0, terms=["cats"], topics=["cats"])
    assert worded(pick, "Dogs only.") == pick


def test_the_ranker_records_stems_that_word_back_to_the_papers_text():
    texts = {
        "a": "Learning robot models. We fit models of robots to grasping data and robot arms.",
        "b": "Quantum classifiers. Sublinear quantum algorithms for training classifiers.",
        "c": "Lattice regression. Lattice basis reduction for high dimensional regression.",
        "d": "Cats and dogs. Feline behaviour studied with cameras.",
    }
    index = PaperIndex.build(list(texts), list(texts.values()))
    picks = {p.paper_id: p for p in rank(index, Profile(topics=["quantum chromodynamics lattice"]), 4)}
    quantum = worded(picks["b"], texts["b"])
    assert picks["b"].topics == ["quantum chromodynamics lattice"]  # the ranker's candidate ...
    assert quantum.topics == [] and quantum.partial == [("quantum chromodynamics lattice", ["quantum"])]
    [found] = search(index, "robot grasping", 1)
    assert found.paper_id == "a"
    shown = worded(found, texts["a"]).terms
    assert shown and all(t.lower() in texts["a"].lower() for t in shown)
    assert not any(stem in shown for stem in ("robot model", "grasp"))


def test_the_papers_words_are_read_as_the_model_reads_them():
    texts = [TEXT, "Rényi divergences for naïve Bayes: ﬁne-tuning 3D x2 models_v2 in Zürich.",
             "SGD's rate, O(1/n), with the L2-norm and k-NN; Kelvin’s K-means."]
    model = PaperIndex.build(["a", "b", "c"], texts).model
    tokenize, preprocess = model.vectorizer.build_tokenizer(), model.vectorizer.build_preprocessor()
    for text in texts:
        assert PaperWords(text).stems == set(tokenize(preprocess(text))), text


def test_a_pair_made_only_by_joining_two_topics_is_never_a_reason():
    texts = {"g": "Gaussian processes for regression: Gaussian process kernels, noise modelled by a "
                  "Gaussian.",
             "h": "Robot models for planning.", "k": "Kernel regression.", "c": "Cats and dogs."}
    index = PaperIndex.build(list(texts), list(texts.values()))
    topics = ["robot models", "gaussian processes"]
    [pick] = [p for p in rank(index, Profile(topics=topics), 4) if p.paper_id == "g"]
    assert "model gaussian" in index.model.vectorizer.vocabulary_  # the paper has the pair of stems ...
    assert pick.topics == ["gaussian processes"]
    assert "model gaussian" not in pick.term_stems  # ... but the profile only by joining its topics


@pytest.mark.parametrize(("word", "text", "written"), [
    ("meco", "We propose MeCo, a method; meco again.", "MeCo"),
    ("x-net", "the X-Net model", "X-Net"),
    ("drago", "DRAGOn flies", "drago"),  # not a whole word there: as asked
    ('"reward model"', "A Reward Model", '"reward model"'),  # a phrase stays as quoted
])
def test_a_word_searched_for_is_said_as_the_paper_writes_it(word, text, written):
    assert as_written(word, text) == written
