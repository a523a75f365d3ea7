"""`/papers follow`, `/papers unfollow` and `/papers interests`: topics and authors followed, and all a
person has said, listed (:mod:`bot.usecases.interests`, :mod:`bot.usecases.authors`)."""

from __future__ import annotations

from collections.abc import Callable

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.paper_view import shown_title
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import (
    ECHO_LIMIT,
    Command,
    HelpTopic,
    Reply,
    Subcommand,
    nothing_after,
    papers,
    quoted,
    where,
)
from bot.slack.timezones import refresh_timezone
from bot.slack.views.messages import escape, fit
from bot.state.context import Context
from bot.usecases import follow, interests, unfollow
from bot.usecases.digest_schedule import weekday_name
from bot.usecases.interests import AUTHOR_PREFIX, FollowResult

FEEDS_BUDGET = 1500  # characters for the named feeds' topics in `interests` (shared among them)


def _topics(name: str) -> Callable[[str], Command]:
    """The parser of follow and unfollow: topics, or `author: NAME` (whose name must be said)."""

    def parse_topics(arg: str) -> Command:
        if arg.casefold().startswith(AUTHOR_PREFIX) and not arg[len(AUTHOR_PREFIX):].strip():
            raise BadArgument(f"Say whose papers: `{COMMAND} {name} author: Andrea Bajcsy`.")
        return Command(name, arg)

    return parse_topics


def reply_follow(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    result = follow(ctx, user_id, cmd.arg)
    tz = refresh_timezone(ctx, client, user_id)
    return {"text": _followed(result, tz)}


def _followed(result: FollowResult, tz: str | None) -> str:
    lines = []
    if result.added:
        lines.append("Now following " + quoted(result.added) + ".")
    if result.already:
        lines.append("Already following " + quoted(result.already) + ".")
    if result.authors:
        lines.append("Now following the author" + ("s " if len(result.authors) > 1 else " ")
                     + quoted(result.authors) + ": their new papers will come whatever they are about.")
    if result.authors_already:
        lines.append("Already following " + quoted(result.authors_already) + ".")
    if result.seeds:
        lines.append("Noted as papers you like: " + quoted([shown_title(p) for p in result.seeds]) + ".")
    if result.unknown_seeds:
        lines.append("I don't have these papers (yet): " + quoted(result.unknown_seeds) + ".")
    if result.digest_turned_on:
        lines.append(f"Daily digests are on at {result.digest_time} {where(tz)}; change that with "
                     f"`{COMMAND} digest HH:MM`.")
    lines.append(f"`{COMMAND} recommend` sends you papers now.")
    return "\n".join(lines)


def reply_unfollow(ctx: Context, user_id: str, cmd: Command) -> Reply:
    removed = unfollow(ctx, user_id, cmd.arg)
    if removed:
        return {"text": "Stopped following " + quoted(removed) + "."}
    if cmd.arg.strip().casefold().startswith(AUTHOR_PREFIX):
        name = cmd.arg.strip()[len(AUTHOR_PREFIX):]
        return {"text": f"You weren't following the author “{fit(' '.join(name.split()), ECHO_LIMIT)}”. "
                        f"`{COMMAND} interests` lists the authors you follow."}
    if cmd.arg.strip().casefold() == "all":
        return {"text": "You weren't following anything."}
    return {"text": f"You weren't following “{fit(cmd.arg, ECHO_LIMIT)}”. "
                    f"`{COMMAND} interests` lists your topics."}


def reply_interests(ctx: Context, user_id: str) -> Reply:
    info = interests(ctx, user_id)
    topics = _topic_list(info.topics) if info.topics else (
        f"none yet; try `{COMMAND} follow diffusion models, robotics`")
    lines = [f"*Your topics:* {topics}"]
    if info.feeds:  # by feed: the main one first; all of it within Slack's advised 4,000 characters
        per_feed = max(120, min(600, FEEDS_BUDGET // len(info.feeds)))
        topics = _topic_list(info.topics, 800) if info.topics else topics
        lines = [f"*Main feed:* {topics}"]
        lines += [f"*Feed “{escape(name)}”:* {_topic_list(items, per_feed)}"
                  for name, items in info.feeds.items()]
    if info.authors:
        lines.append(f"*Authors you follow:* {_topic_list(info.authors, 400 if info.feeds else 600)} "
                     f"{_author_picks(info.author_picks)}")
    if info.muted:
        lines.append(f"*Muted:* {_topic_list(info.muted, 400 if info.feeds else 600)}")
    if info.alerts:
        lines.append(f"*Alerts:* {_topic_list(info.alerts, 400 if info.feeds else 600)} "
                     f"(`{COMMAND} alert remove PHRASE` removes one)")
    saved = f", {info.saved} saved (`{COMMAND} saved` lists them)" if info.saved else ""
    lines.append(f"*Feedback:* {info.liked} liked, {info.disliked} disliked{saved}")
    schedule = _schedule(info.digest_time, info.digest_enabled, info.tz, info.digest_weekday)
    if info.digest_enabled and info.digest_compact:
        schedule += ", as one message"
    if info.digest_enabled and info.digest_quiet:
        schedule += ", no note on days nothing matched"
    lines.append(f"*Digest:* {schedule}")
    suggesting = (f"on (`{COMMAND} suggest off` stops them)" if info.suggest
                  else f"off (`{COMMAND} suggest on` turns them on)")
    lines.append(f"*Suggestions from colleagues:* {suggesting}")
    lines.append("*Follow-ups:* " + (f"on (`{COMMAND} followups off` stops them)" if info.followups
                                     else f"off (`{COMMAND} followups on` turns them on)"))
    return {"text": "\n".join(lines)}


def _topic_list(topics: list[str], limit: int = 2400) -> str:
    """Escaped topics, as many as fit in ``limit`` characters (a section holds 3000)."""
    shown: list[str] = []
    for i, topic in enumerate(topics):
        more = f" and {len(topics) - i} more" if i else ""
        item = escape(topic)
        if sum(len(s) + 2 for s in shown) + len(item) + len(" and 99 more") > limit:
            return ", ".join(shown) + more
        shown.append(item)
    return ", ".join(shown)


def _schedule(digest_time: str | None, enabled: bool, tz: str | None, weekday: int | None = None) -> str:
    if not enabled or not digest_time:
        return f"off (`{COMMAND} digest HH:MM` turns it on)"
    if weekday is not None:
        return f"weekly on {weekday_name(weekday)}s at {digest_time} {where(tz)}"
    return f"daily at {digest_time} {where(tz)}"


def _author_picks(n: int) -> str:
    """How many followed authors' papers a digest holds, and the command that changes it."""
    if not n:
        return f"(none in your digests; `{COMMAND} digest authors 2` brings their new papers back)"
    return f"(at most {papers(n)} of theirs a digest; `{COMMAND} digest authors N` changes it, 0-10)"


FOLLOW = Subcommand(
    "follow",
    f"• `{COMMAND} follow diffusion models, robot grasping`: add topics (comma-separated) to your main "
    "feed; an arXiv id or paper URL there adds that paper as one you like\n"
    f"• `{COMMAND} follow author: Andrea Bajcsy`: their new papers come whatever they are about (at most "
    f"2 a digest; `{COMMAND} digest authors 5` for up to 5, `0` for none); "
    f"`{COMMAND} unfollow author: Andrea Bajcsy` stops that",
    _topics("follow"), lambda req, cmd: reply_follow(req.rt.ctx, req.client, req.user, cmd),
    changes_home=True)
UNFOLLOW = Subcommand(
    "unfollow", f"• `{COMMAND} unfollow diffusion models` or `{COMMAND} unfollow all`: remove topics",
    _topics("unfollow"), lambda req, cmd: reply_unfollow(req.rt.ctx, req.user, cmd),
    changes_home=True)
INTERESTS = Subcommand(
    "interests",
    f"• `{COMMAND} interests`: your feeds and their topics, authors, muted words, alerts, likes and "
    "dislikes, and digest schedule",
    nothing_after("interests"), lambda req, cmd: reply_interests(req.rt.ctx, req.user))
SUBCOMMANDS = (FOLLOW, UNFOLLOW, INTERESTS)
TOPIC = HelpTopic("follow", f"`{COMMAND} follow diffusion models` · `follow author: Andrea Bajcsy` · "
                            "`unfollow` · `interests`: what you follow", SUBCOMMANDS,
                  aliases=("topics", "authors"))
