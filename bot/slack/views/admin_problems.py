"""What the admin channel's daily post says of each problem (:class:`bot.usecases.admin_report.Problem`):
what went wrong, in plain words (the caller escapes it), and what an admin can do, in mrkdwn."""

from __future__ import annotations

from bot.presentation.reasons import shorten
from bot.slack.manifest import COMMAND
from bot.slack.views.digest_notes import note_text
from bot.usecases.admin_report import ERROR_SHOWN, Problem
from bot.usecases.stats import Share

#: What to do, by the problem's kind.
TODO = {
    "feeds_failed": ("`paperbot doctor` tries each PAPERBOT_FEEDS source; paperbot tries again within the "
                     "hour"),
    "no_papers": "run `paperbot ingest arxiv:cs.LG` (your categories), or set PAPERBOT_FEEDS",
    "quiet": "check PAPERBOT_FEEDS (`paperbot doctor`) or the cron job that runs `paperbot ingest`",
    "digests_failed": "the log names each; `paperbot doctor` checks the token and its scopes",
    "summaries_failed": ("`paperbot doctor` checks PAPERBOT_LLM_URL and the model; papers show their "
                         "highlights meanwhile, and paperbot asks again later"),
    "summaries_rejected": ("nothing to do: those papers show their highlights; many refusals a day say the "
                           "model makes things up (see docs/summaries.md)"),
    "likes_fell": ("see what changed that week: the feeds (PAPERBOT_FEEDS), people's topics, the ranking "
                   "(`paperbot eval`); each person sees their own numbers with `" + COMMAND + " stats`"),
}


def what(problem: Problem) -> str:
    """What went wrong."""
    error = problem.error or "no reason given"
    if problem.kind == "feeds_failed":
        return f"today's feeds failed ({error})"
    if problem.kind == "no_papers":
        return "there are no papers at all"
    if problem.kind == "quiet":
        read = [f"{category} {day or '(never read)'}" for category, day in problem.read]
        through = "; arXiv's announcements were read through " + ", ".join(read) if read else ""
        return f"no new paper has come in for {problem.days} days (the newest on {problem.newest}){through}"
    if problem.kind == "summaries_failed":
        return f"{problem.count} paper(s) got no summary from the model today ({error})"
    if problem.kind == "summaries_rejected":
        why = ", ".join(f"{reason.replace('_', ' ')} {count}" for reason, count in problem.reasons)
        return f"{problem.count} summar{'y' if problem.count == 1 else 'ies'} failed the check today ({why})"
    if problem.kind == "likes_fell" and problem.shares:
        before, last = problem.shares
        return (f"the 👍 share of ratings fell by a third or more, from {_share(before)} the week of "
                f"{before.start.isoformat()} to {_share(last)} the week of {last.start.isoformat()} (UTC)")
    people = "person's digest" if problem.count == 1 else "people's digests"
    why = shorten(note_text(problem.note), ERROR_SHOWN) if problem.note else "no reason given"
    return f"{problem.count} {people} failed today ({why})"


def _share(share: Share) -> str:
    return f"{share.liked / share.rated:.0%} ({share.liked} of {share.rated})" if share.rated else "none"


def todo(problem: Problem) -> str:
    """What an admin can do about it."""
    return TODO[problem.kind]
