"""Text to vectors to ranked papers. Knows nothing of Slack or SQL: papers arrive as (id, text)."""

from recommender.collaborative import Community
from recommender.diversity import diversify, intra_list_similarity
from recommender.index import PaperIndex
from recommender.profile import Pick, Profile
from recommender.ranker import (
    DEFAULT_WEIGHTS,
    Weights,
    best_of_matrix,
    best_of_rows,
    explain,
    explain_picks,
    model_share,
    profile_vectors,
    rank,
    score_matrix,
    search,
    top_k,
)

__all__ = ["DEFAULT_WEIGHTS", "Community", "PaperIndex", "Pick", "Profile", "Weights", "best_of_matrix",
           "best_of_rows", "diversify", "explain", "explain_picks", "intra_list_similarity", "model_share",
           "profile_vectors", "rank", "score_matrix", "search", "top_k"]
