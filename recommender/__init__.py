"""Text to vectors to ranked papers. Knows nothing of Slack or SQL: papers arrive as (id, text)."""

from recommender.index import PaperIndex
from recommender.profile import Pick, Profile
from recommender.ranker import DEFAULT_WEIGHTS, Weights, rank, score_matrix, search, top_k

__all__ = ["DEFAULT_WEIGHTS", "PaperIndex", "Pick", "Profile", "Weights", "rank", "score_matrix", "search",
           "top_k"]
