"""Use cases: plain functions over the store and the recommender, shared by Slack, the CLI and the demo."""

from bot.usecases.digest_vocabulary import Courier, Outcome
from bot.usecases.digests.choose import Digest, build_digest
from bot.usecases.digests.run import DailyRun, run_daily, send_digest_now, send_due_digests
from bot.usecases.feedback import DISLIKE, LIKE, record_feedback, withdraw_feedback
from bot.usecases.forget import forget
from bot.usecases.ingest import SourceReport, ingest
from bot.usecases.interests import FollowResult, Interests, follow, interests, unfollow
from bot.usecases.recommend import Recommendation, recommend, remember_shown, search

__all__ = [
    "DISLIKE", "LIKE", "Courier", "DailyRun", "Digest", "FollowResult", "Interests", "Outcome",
    "Recommendation", "SourceReport", "build_digest", "follow", "forget", "ingest", "interests",
    "record_feedback", "recommend", "remember_shown", "run_daily", "search", "send_digest_now",
    "send_due_digests", "unfollow", "withdraw_feedback",
]
