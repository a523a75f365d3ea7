"""`/papers stats` in Block Kit: a person's weeks as an aligned table (shown, rated, saved, and the 👍 share
with a bar), the current week marked as counted so far, then the topics and feeds their likes came from
(:class:`bot.usecases.stats.PersonStats`)."""

from __future__ import annotations

from bot.slack.manifest import COMMAND
from bot.slack.views.messages import FALLBACK_LIMIT, SECTION_LIMIT, fit
from bot.usecases.stats import ELSEWHERE, LikeSources, PersonStats, Week

#: The one line for someone with nothing shown, rated or saved in all those weeks.
NOTHING = (f"No numbers yet: follow a few topics (`{COMMAND} follow TOPICS`) and react to the papers I send "
           f"with 👍 or 👎; `{COMMAND} stats` then shows your weeks.")
BAR = 10  # cells of the 👍 share's bar
SOURCES_SHOWN = 8  # topics (and feeds) named; the rest counted
NAME_LIMIT = 60  # characters of one topic or feed name
#: How each other kind of pick reads (bot.presentation.reason_sources.Source's kinds).
KINDS = {
    "liked": "like papers you liked or saved",
    "colleagues": "colleagues' likes",
    "more_like": "More like this",
    "alert": "alerts",
    "author": "followed authors",
    "suggested": "colleagues' suggestions",
    "onboarding": "getting started",
    "other": "other picks",
    ELSEWHERE: "papers I never sent you",
}


def bar(share: float | None) -> str:
    """The 👍 share as a bar of :data:`BAR` cells (▇ liked, ░ not), blank without ratings."""
    if share is None:
        return " " * BAR
    full = round(share * BAR)
    return "▇" * full + "░" * (BAR - full)


def _row(week: Week) -> str:
    label = week.start.strftime("%b %d").replace(" 0", "  ")
    share = "   –" if week.share is None else f"{week.share:4.0%}"
    row = f"{label:<8}{week.shown:>6}{week.rated:>6}{week.saved:>6}  {bar(week.share)} {share}"
    if week.partial:
        row += f"  this week so far ({week.days} day{'' if week.days == 1 else 's'})"
    return row.rstrip()


def table(stats: PersonStats) -> str:
    """The weeks as monospaced rows, oldest first."""
    head = f"{'week of':<8}{'shown':>6}{'rated':>6}{'saved':>6}  👍 share"
    return "\n".join([head, *(_row(w) for w in stats.weeks)])


def _named(items: tuple[tuple[str, int], ...], limit: int = SOURCES_SHOWN) -> str:
    said = ", ".join(f"{name} {count}" for name, count in items[:limit])
    rest = len(items) - limit
    return said + (f" and {rest} more" if rest > 0 else "")


def sources_text(likes: LikeSources) -> str:
    """Where the likes came from, a line each for topics, feeds and the rest; "" for none."""
    lines = []
    if likes.topics:
        lines.append("• topics: " + _named(tuple((f"“{fit(t, NAME_LIMIT)}”", n) for t, n in likes.topics)))
    if likes.feeds:
        feeds = tuple(("your main feed" if f is None else f"feed “{fit(f, NAME_LIMIT)}”", n)
                      for f, n in likes.feeds)
        lines.append("• feeds: " + _named(feeds))
    if likes.kinds:
        lines.append("• also: " + _named(tuple((KINDS.get(k, k), n) for k, n in likes.kinds), len(KINDS)))
    return "\n".join(lines)


def stats_reply(stats: PersonStats) -> dict:
    """The reply: :data:`NOTHING` for someone with no history, else the table and the likes' sources."""
    if stats.empty:
        return {"text": NOTHING}
    rated, liked = stats.rated, stats.liked
    intro = (f"*Your numbers, week by week* (from Monday, {fit(stats.tz, 60)} time; 👍 share: of the papers "
             "I sent you that you rated)")
    summary = (f"Over {len(stats.weeks)} weeks: {liked} 👍 of {rated} rating{'' if rated == 1 else 's'}"
               + (f" ({liked / rated:.0%})." if rated else "."))
    sources = sources_text(stats.likes)
    likes = f"*Your likes came from*\n{sources}" if sources else "No likes in these weeks."
    blocks: list[dict] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": intro}},
        {"type": "section", "text": {"type": "mrkdwn", "text": f"```{table(stats)}```"}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": summary}]},
        {"type": "section", "text": {"type": "mrkdwn", "text": likes[:SECTION_LIMIT]}},
    ]
    text = f"{intro}\n```{table(stats)}```\n{summary}\n{likes}"
    return {"text": text[:FALLBACK_LIMIT], "blocks": blocks}
