"""The embedding blend (recommender/embeddings.py), numpy only: no model needed."""

import numpy as np

from recommender import PaperIndex, Profile, rank, score_matrix
from recommender.embeddings import (
    SPREAD_FLOOR,
    EmbeddingBlend,
    EmbeddingWeights,
    PaperVectors,
    blend_scores,
    unit,
)

IDS = ["cars", "engines", "cats", "dogs"]
TEXTS = ["Fast cars on the road", "Automobile engine design and fuel", "Cats purr and sleep",
         "Dogs bark at cats"]
# Two "meanings": vehicles (axis 0) and pets (axis 1).
VECTORS = unit(np.array([[1, 0.1, 0], [0.9, 0, 0.3], [0, 1, 0.1], [0.1, 0.9, 0.2]], dtype=np.float32))


def _setup():
    index = PaperIndex.build(IDS, TEXTS)
    vectors = PaperVectors(3)
    vectors.put(IDS, VECTORS)
    return index, vectors


def _encode(texts):
    return unit(np.array([[1.0, 0.0, 0.0] if "vehicle" in t else [0.0, 1.0, 0.0] for t in texts],
                         dtype=np.float32))


def test_a_paper_sharing_no_word_but_the_meaning_ranks_with_the_blend_and_not_without():
    index, vectors = _setup()
    profile = Profile(liked=["cars"])
    assert [p.paper_id for p in rank(index, profile, 3)] == []  # no word in common with any other
    picks = rank(index, profile, 3, blend=EmbeddingBlend(vectors, _encode))
    assert picks[0].paper_id == "engines"


def test_topics_are_embedded_as_text_and_steer_the_blend_even_where_no_word_matches():
    index, vectors = _setup()
    blended = score_matrix(index, [Profile(topics=["vehicle"]), Profile(topics=["pet"])],
                           blend=EmbeddingBlend(vectors, _encode))
    vehicle, pet = blended
    assert vehicle[index.row_of["engines"]] > vehicle[index.row_of["cats"]]
    assert pet[index.row_of["dogs"]] > pet[index.row_of["engines"]]


def test_weight_zero_and_papers_without_vectors_keep_the_tfidf_scores():
    index, vectors = _setup()
    profile = [Profile(topics=["cats"], liked=["dogs"])]
    plain = score_matrix(index, profile)
    off = EmbeddingBlend(vectors, _encode, EmbeddingWeights(weight=0.0))
    assert np.array_equal(score_matrix(index, profile, blend=off), plain)
    partial = PaperVectors(3)
    partial.put(IDS[:3], VECTORS[:3])  # "dogs" has no vector yet
    blended = score_matrix(index, profile, blend=EmbeddingBlend(partial, _encode))
    assert blended[0, index.row_of["dogs"]] == plain[0, index.row_of["dogs"]]
    assert not np.array_equal(blended, plain)


def test_the_blend_moves_scores_by_the_tfidf_spread_around_the_mean_cosine():
    scores = np.array([[0.0, 1.0, 0.0, 1.0]], dtype=np.float32)
    cosines = np.array([[1.0, 0.0, 0.0, 0.5]], dtype=np.float32)
    has = np.array([True, True, True, False])
    out = blend_scores(scores, cosines, has, 1.0)
    known_std, cos_std, cos_mean = scores[0, :3].std(), cosines[0, :3].std(), cosines[0, :3].mean()
    expected = scores[0, :3] + max(known_std, SPREAD_FLOOR) / cos_std * (cosines[0, :3] - cos_mean)
    assert np.allclose(out[0, :3], expected) and out[0, 3] == 1.0
    assert np.array_equal(blend_scores(scores, np.zeros_like(cosines), has, 1.0), scores)  # no spread


def test_vectors_line_up_with_a_growing_index_and_can_be_replaced():
    index, vectors = _setup()
    matrix, has = vectors.aligned(index)
    assert has.all() and np.allclose(matrix[index.row_of["cats"]], VECTORS[2])
    index.add(["new"], ["A new paper about cars"])
    matrix, has = vectors.aligned(index)
    assert has.tolist() == [True, True, True, True, False] and not matrix[4].any()
    vectors.put(["new", "cats"], np.array([[0, 0, 2.0], [1.0, 0, 0]], dtype=np.float32))
    matrix, has = vectors.aligned(index)
    assert has.all() and np.allclose(matrix[4], [0, 0, 1])
    assert np.allclose(matrix[index.row_of["cats"]], [1, 0, 0])
    assert vectors.missing(["new", "nope"]) == ["nope"] and len(vectors) == 5
