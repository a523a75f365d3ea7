"""One seed paper and brand-new papers: the query leaning on rarer words, pseudo-relevance feedback,
topic phrases against ambiguous words, and reasons without generic words."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import recommender.ranker as ranker
from bot.presentation.reasons import reason_text
from recommender import DEFAULT_WEIGHTS, PaperIndex, Profile, rank, score_matrix
from recommender.ranker import _sharpened, generic_terms
from stand_ins.corpus import make_corpus

NO_EXPANSION = replace(DEFAULT_WEIGHTS, expansion=0.0)

# A seed paper, papers close to it, and one that shares no word with the seed, only with its
# neighbours: the case pseudo-relevance feedback is for.
CHAIN = {
    "seed": "Feline whiskers. Whiskers of feline animals.",
    "near-1": "Feline whiskers and purring. Purring kittens with whiskers.",
    "near-2": "Whiskers, purring and kittens. Feline purring.",
    "near-3": "Kittens purring. Feline whiskers sense purring kittens.",
    "target": "Purring kittens. Why kittens keep purring.",
}


@pytest.fixture
def chain() -> PaperIndex:
    papers = [p for p in make_corpus() if not p.id.startswith("cats")]
    return PaperIndex.build([p.id for p in papers] + list(CHAIN),
                            [p.text for p in papers] + list(CHAIN.values()))


def score_of(index, profile, paper_id, weights=DEFAULT_WEIGHTS):
    return float(score_matrix(index, [profile], weights)[0, index.row_of[paper_id]])


def test_sharpening_keeps_a_rows_length_and_favours_rare_words(chain):
    rows = chain.rows(["near-1", "graphs-0"])
    sharp = _sharpened(chain, rows, 0.5)
    assert np.allclose(np.sqrt(sharp.multiply(sharp).sum(axis=1)).A.ravel(),
                       np.sqrt(rows.multiply(rows).sum(axis=1)).A.ravel(), rtol=1e-5)
    idf = chain.model.vectorizer.idf_
    row, before = sharp[0].toarray().ravel(), rows[0].toarray().ravel()
    cols = np.flatnonzero(before)
    rare, common = cols[np.argmax(idf[cols])], cols[np.argmin(idf[cols])]
    assert row[rare] / row[common] > before[rare] / before[common]


def test_a_one_paper_profile_reaches_what_its_neighbours_share(chain):
    seed = Profile(liked=["seed"])
    assert score_of(chain, seed, "target", NO_EXPANSION) == 0.0
    assert score_of(chain, seed, "target") > 0
    ids = [p.paper_id for p in rank(chain, seed, 10)]
    assert "target" in ids and "seed" not in ids
    # The seed's own neighbours still come first: the expansion is damped.
    assert ids.index("target") > max(ids.index(n) for n in ("near-1", "near-2", "near-3"))


def test_neighbours_come_from_the_whole_index_so_new_papers_gain(chain):
    picks = rank(chain, Profile(liked=["seed"]), 5, candidates=["target", "graphs-0"])
    assert [p.paper_id for p in picks] == ["target"]


def test_expansion_fades_with_likes_and_stops_past_a_few(chain):
    few = Profile(liked=["seed", "near-1"])
    gain = score_of(chain, few, "target") - score_of(chain, few, "target", NO_EXPANSION)
    one = score_of(chain, Profile(liked=["seed"]), "target")
    assert 0 < gain < one
    many = Profile(liked=["seed", "near-1", "near-2", "near-3"])
    assert ranker.EXPANSION_MAX_LIKES < 4
    assert np.array_equal(score_matrix(chain, [many]), score_matrix(chain, [many], NO_EXPANSION))


def test_expansion_never_uses_the_persons_own_dislikes_as_neighbours(chain):
    # The only papers sharing "purring" are disliked, or the target: the target is still reached
    # through the remaining neighbours, and a dislike is never what expands the query.
    profile = Profile(liked=["seed"], disliked=["near-1", "near-2", "near-3"])
    assert "near-1" not in [p.paper_id for p in rank(chain, profile, 20)]


def test_a_profile_with_topics_is_not_expanded(chain):
    # What the person wrote says what the seed leaves out; the seed's neighbours would drown it.
    for profile in (Profile(topics=["feline whiskers"]), Profile(topics=["graphs"], liked=["seed"])):
        assert np.array_equal(score_matrix(chain, [profile]), score_matrix(chain, [profile], NO_EXPANSION))


# A phrase the person wrote against one of its words in another sense.

def _diffusion_index() -> PaperIndex:
    # "models" is in most papers, as in a machine-learning corpus, so the fit drops it as a word;
    # the pair "diffusion models" is what tells the subject.
    papers = [p for p in make_corpus() if not p.id.startswith("diffusion")]
    texts = [p.text + " Our models are simple." for p in papers]
    extra = {
        "diffusion-models": "Faster sampling for diffusion models. Generative image models that learn "
                            "to reverse a noising process are slow; we cut the number of denoising steps "
                            "tenfold with a learned schedule, distillation and caching.",
        "langevin": "Langevin diffusion mixes fast. We bound the mixing time of the Langevin diffusion; "
                    "the diffusion converges.",
    }
    return PaperIndex.build([p.id for p in papers] + list(extra), texts + list(extra.values()))


def test_a_match_on_the_phrase_ranks_above_a_match_on_an_ambiguous_word(monkeypatch):
    index = _diffusion_index()
    assert "diffus model" in index.model.vectorizer.vocabulary_
    assert [p.paper_id for p in rank(index, Profile(topics=["diffusion models"]), 2)] == \
        ["diffusion-models", "langevin"]
    # Without the phrase's weight, the short paper repeating "diffusion" wins: the test can fail.
    monkeypatch.setattr(ranker, "TOPIC_PHRASE_WEIGHT", 1.0)
    index = _diffusion_index()
    assert [p.paper_id for p in rank(index, Profile(topics=["diffusion models"]), 2)][0] == "langevin"


# Reasons without generic words.

def _common_word_index() -> PaperIndex:
    papers = make_corpus()
    # "learning" in 40% of the papers: kept as a word, far too common to be a reason.
    texts = [p.text + (" Learning helps." if i % 5 < 2 else "") for i, p in enumerate(papers)]
    return PaperIndex.build([p.id for p in papers], texts)


def test_generic_words_are_flagged_from_the_model_alone():
    index = _common_word_index()
    flags = generic_terms(index.model, index.fitted_on)
    vocabulary = index.model.vectorizer.vocabulary_
    # "learning" is in 16 of the 40 papers, "qubits" in 8: only the first is too common.
    assert flags[vocabulary["learn"]] and not flags[vocabulary["qubit"]]
    assert generic_terms(index.model, index.fitted_on) is flags  # cached per model


def test_threads_asking_at_once_share_one_working_out_of_the_generic_words(monkeypatch):
    import threading
    import time

    index = _common_word_index()
    found, start = [], threading.Barrier(8)
    vectorizer = index.model.vectorizer

    class Slow:  # as on a real corpus, where working them out takes a while
        idf_ = vectorizer.idf_

        @property
        def vocabulary_(self):
            time.sleep(0.05)  # the work a real corpus takes
            return vectorizer.vocabulary_

    monkeypatch.setattr(index.model, "vectorizer", Slow())

    def ask():
        start.wait()
        found.append(generic_terms(index.model, index.fitted_on))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 8 and all(f is found[0] for f in found)  # a digest run's workers: once, not 8 times


def test_a_topic_reason_never_trails_off_into_a_generic_word():
    index = _common_word_index()
    profile = Profile(topics=["quantum qubits", "deep learning"])
    picks = [p for p in rank(index, profile, 20) if p.paper_id.startswith("quantum")]
    assert len(picks) == 8
    for pick in picks:
        # "deep learning" shares only the generic word with these papers: not named either.
        assert pick.topics == ["quantum qubits"]
        assert "learning" not in pick.terms
        assert "also learning" not in reason_text(pick, {})
    # Without the filter, "learning" would be the trailing word: the test can fail.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranker, "GENERIC_SHARE", 1.0)
        ranker._generic.clear()
        again = [p for p in rank(index, profile, 20) if p.paper_id.startswith("quantum")]
        assert any("deep learning" in p.topics or "learning" in p.terms for p in again)
    ranker._generic.clear()
