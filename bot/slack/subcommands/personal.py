"""A person's own `/papers` subcommands, each declared once in :data:`REGISTRY` (with `/papers channel`,
declared in :mod:`bot.slack.subcommands.channel`): how its words are parsed, and how use-case results
become replies seen only by the caller.

Only what needs no database is answered inside the ack: help, and a command that can't be parsed.
Every other subcommand acks at once with nothing and answers through ``respond`` when done, so the
ack never waits on the database (another process may hold its write lock) and the command is carried
out once, however often the same signed request arrives (see :mod:`bot.slack.background`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.paper_view import shown_title, title_url
from bot.presentation.reasons import shorten
from bot.slack.delivery.digests import slack_courier
from bot.slack.delivery.files import upload_to_dm
from bot.slack.dm import send_papers
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import (
    ECHO_LIMIT,
    Registry,
    Reply,
    Request,
    Subcommand,
    alert_commands,
    quoted,
    suggest,
)
from bot.slack.subcommands.channel import CHANNEL_SUBCOMMAND
from bot.slack.subcommands.digest_times import parse_daily, parse_hhmm, parse_weekly
from bot.slack.timezones import refresh_timezone
from bot.slack.views.forget import NOTHING as FORGET_NOTHING
from bot.slack.views.forget import confirm_blocks, confirm_text
from bot.slack.views.messages import (
    FALLBACK_LIMIT,
    MESSAGE_BLOCKS,
    SECTION_LIMIT,
    byline,
    escape,
    fit,
    link,
    results_blocks,
    title_of,
)
from bot.state.context import Context
from bot.usecases import follow, interests, recommend, search, unfollow
from bot.usecases.delivery import Delivery
from bot.usecases.digests.due import local_date
from bot.usecases.digests.run import send_digest_now
from bot.usecases.digests.schedule import (
    next_digest,
    set_daily,
    set_digest_time,
    set_weekly,
    stop_digests,
    weekday_name,
)
from bot.usecases.digests.vocabulary import Outcome
from bot.usecases.export import bibtex_export, data_export
from bot.usecases.feeds import add_feed, feed_name, parse_feed_add, remove_feed
from bot.usecases.forget import forget_ticket, stored_about
from bot.usecases.interests import AUTHOR_PREFIX, FollowResult
from bot.usecases.mutes import mute, split_words, unmute
from bot.usecases.recommend import MAX_RECOMMEND
from bot.usecases.saved import SavedItem, saved_page
from bot.usecases.settings import check_author_picks, save_author_picks, set_compact_digest, set_quiet_days

DEFAULT_RECOMMEND = 5
SEARCH_RESULTS = 5
#: Newest saved papers `saved` lists at most (fewer when the message is full first); the rest are counted
#: and left to `export`. A cold title costs about a millisecond: this keeps the answer well under 0.3 s.
SAVED_SHOWN = 100
FEEDS_BUDGET = 1500  # characters for the named feeds' topics in `interests` (shared among them)
ERROR_LIMIT = 300  # characters of an error Slack or a source gave, told to the person

@dataclass(frozen=True)
class Command:
    """One parsed `/papers` request. ``name`` is a subcommand, or digest-at / digest-off / digest-now /
    digest-weekly / digest-daily / digest-compact / digest-quiet (``arg`` on or off), or export-bibtex /
    export-data, or feed-add / feed-remove."""

    name: str
    arg: str = ""
    count: int = DEFAULT_RECOMMEND
    time: str | None = None
    weekday: int | None = None


def _nothing_after(name: str) -> Callable[[str], Command]:
    def parse_nothing(arg: str) -> Command:
        if arg:
            raise BadArgument(f"`{COMMAND} {name}` takes nothing after it.")
        return Command(name)

    return parse_nothing


def _words(name: str, example: str) -> Callable[[str], Command]:
    """The parser of a subcommand taking comma-separated words (mute, unmute)."""

    def parse_words(arg: str) -> Command:
        if not split_words(arg):
            raise BadArgument(f"Say what to {name}: `{COMMAND} {name} {example}`.")
        return Command(name, arg)

    return parse_words


def _topics(name: str) -> Callable[[str], Command]:
    """The parser of follow and unfollow: topics, or `author: NAME` (whose name must be said)."""

    def parse_topics(arg: str) -> Command:
        if arg.casefold().startswith(AUTHOR_PREFIX) and not arg[len(AUTHOR_PREFIX):].strip():
            raise BadArgument(f"Say whose papers: `{COMMAND} {name} author: Andrea Bajcsy`.")
        return Command(name, arg)

    return parse_topics


def _feed(arg: str) -> Command:
    parts = arg.split(None, 1)
    action, rest = (parts[0].lower(), parts[1].strip() if len(parts) > 1 else "") if parts else ("", "")
    if action == "add":
        parse_feed_add(rest)  # a wrong argument is answered at once, before anything is written
        return Command("feed-add", rest)
    if action == "remove":
        feed_name(rest)
        return Command("feed-remove", rest)
    raise BadArgument(f"Say `{COMMAND} feed add NAME: TOPICS` or `{COMMAND} feed remove NAME`, "
                      f"e.g. `{COMMAND} feed add robotics: grasping, sim2real`.")


def _recommend(arg: str) -> Command:
    return Command("recommend", count=_count(arg))


def _count(arg: str) -> int:
    if not arg:
        return DEFAULT_RECOMMEND
    # ASCII digits only (str.isdigit() also takes "²", which int() refuses, and int() takes "٣"), and
    # few of them: int() refuses more than 4,300 digits.
    if not (arg.isascii() and arg.isdigit() and len(arg) <= 9) or not 1 <= int(arg) <= MAX_RECOMMEND:
        raise BadArgument(f"`{COMMAND} recommend N` takes a number from 1 to {MAX_RECOMMEND}, "
                          f"not “{shorten(arg, 40)}”.")
    return int(arg)


def _export(arg: str) -> Command:
    word = arg.lower()
    if not arg:
        return Command("export-bibtex")
    if word == "data":
        return Command("export-data")
    raise BadArgument(f"`{COMMAND} export` takes nothing, or `data`, not “{shorten(arg, 40)}”: "
                      f"`{COMMAND} export` for a BibTeX file of your saved and liked papers, "
                      f"`{COMMAND} export data` for everything paperbot stores about you.")


def _digest(arg: str) -> Command:
    word = arg.lower()
    if word in ("off", "now"):
        return Command(f"digest-{word}")
    first, _, rest = arg.partition(" ")
    if first.lower() == "weekly":
        weekday, hhmm = parse_weekly(rest)
        return Command("digest-weekly", time=hhmm, weekday=weekday)
    if first.lower() == "daily":
        return Command("digest-daily", time=parse_daily(rest))
    if first.lower() == "authors":
        return Command("digest-authors", count=check_author_picks(rest))
    if first.lower() == "compact":
        if rest.lower() not in ("on", "off"):
            raise BadArgument(f"Say `{COMMAND} digest compact on` (the day's papers in one message) or "
                              f"`{COMMAND} digest compact off` (one message a paper).")
        return Command("digest-compact", rest.lower())
    if first.lower() == "quiet":
        if rest.lower() not in ("on", "off"):
            raise BadArgument(f"Say `{COMMAND} digest quiet on` (no note on a day nothing new matched) or "
                              f"`{COMMAND} digest quiet off` (a short note on such a day).")
        return Command("digest-quiet", rest.lower())
    if not arg:
        raise BadArgument(f"Say when: `{COMMAND} digest 08:30`, `{COMMAND} digest off` "
                          f"or `{COMMAND} digest now`.")
    try:
        return Command("digest-at", time=parse_hhmm(arg))
    except BadArgument:
        pass
    raise BadArgument(f"“{shorten(arg, 40)}” is not a time from 00:00 to 23:59; try "
                      f"`{COMMAND} digest 08:30`, `{COMMAND} digest off` or `{COMMAND} digest now`.")


# -- replies -----------------------------------------------------------------------------------------
# Each returns the keyword arguments of ack()/respond(): {"text": ..., ["blocks": ...]}.

def reply_help(topic: str = "") -> Reply:
    """The short help, or `/papers help TOPIC`'s details (:func:`help_text`)."""
    return {"text": help_text(topic)}


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
    return {"text": "\n".join(lines)}


def reply_feed_add(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    result = add_feed(ctx, user_id, cmd.arg)
    name = fit(result.feed, ECHO_LIMIT)
    lines = []
    if result.added:
        lines.append(f"Feed “{name}” now follows " + quoted(result.added) + ".")
    if result.already:
        lines.append(f"Feed “{name}” already follows " + quoted(result.already) + ".")
    if result.digest_turned_on:
        tz = refresh_timezone(ctx, client, user_id)
        lines.append(f"Daily digests are on at {result.digest_time} {_where(tz)}; change that with "
                     f"`{COMMAND} digest HH:MM`.")
    lines.append(f"Its papers come in a section of their own; `{COMMAND} feed remove {name}` deletes it.")
    return {"text": "\n".join(lines)}


def reply_feed_remove(ctx: Context, user_id: str, cmd: Command) -> Reply:
    removed = remove_feed(ctx, user_id, cmd.arg)
    if removed is None:
        return {"text": f"You have no feed “{fit(cmd.arg, ECHO_LIMIT)}”. "
                        f"`{COMMAND} interests` lists your feeds."}
    return {"text": f"Deleted the feed “{fit(removed, ECHO_LIMIT)}” and its topics."}


def reply_mute(ctx: Context, user_id: str, cmd: Command) -> Reply:
    result = mute(ctx, user_id, cmd.arg)
    lines = []
    if result.added:
        lines.append("Muted " + quoted(result.added) + ": no paper whose title or abstract says "
                     f"{'it' if len(result.added) == 1 else 'one of them'} (or a plural) will be sent "
                     "to you.")
    if result.already:
        lines.append("Already muted: " + quoted(result.already) + ".")
    lines.append(f"`{COMMAND} unmute WORD` or `{COMMAND} unmute all` takes it back.")
    return {"text": "\n".join(lines)}


def reply_unmute(ctx: Context, user_id: str, cmd: Command) -> Reply:
    removed = unmute(ctx, user_id, cmd.arg)
    everything = " ".join(cmd.arg.split()).casefold() == "all"
    if removed:
        return {"text": "Unmuted " + quoted(removed) + "."}
    if everything:
        return {"text": "Nothing was muted."}
    return {"text": f"“{fit(cmd.arg, ECHO_LIMIT)}” wasn't muted. "
                    f"`{COMMAND} interests` lists your muted words."}


def reply_digest_weekly(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    set_weekly(ctx, user_id, cmd.weekday, cmd.time)
    tz = refresh_timezone(ctx, client, user_id, fresh=True)  # the time is meant in their zone of now
    first = next_digest(ctx, user_id, datetime.now(UTC))
    day = weekday_name(cmd.weekday)
    when = f" the next one on {first:%A} {first.day} {first:%B}." if first else "."
    return {"text": f"Weekly digest on {day}s at {cmd.time} {_where(tz)}, with the week's best new papers;"
                    f"{when} `{COMMAND} digest daily` goes back to daily ones."}


def reply_digest_daily(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    return _daily(ctx, client, user_id, set_daily(ctx, user_id, cmd.time))


def _daily(ctx: Context, client: WebClient, user_id: str, hhmm: str) -> Reply:
    """The reply once a daily digest at ``hhmm`` is set: when the first one comes."""
    tz = refresh_timezone(ctx, client, user_id, fresh=True)  # the time is meant in their zone of now
    now = datetime.now(UTC)
    first = next_digest(ctx, user_id, now)
    when = "today" if first == local_date(tz, now) else "tomorrow"
    return {"text": f"Daily digest at {hhmm} {_where(tz)}, the next one {when}. "
                    f"`{COMMAND} digest off` stops it."}


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


def reply_digest_compact(ctx: Context, user_id: str, cmd: Command) -> Reply:
    on = cmd.arg == "on"
    changed = set_compact_digest(ctx, user_id, on)
    if on:
        what = ("Your digests now come as one message: a header line, then each paper with its own "
                "buttons (a reaction there can't say which paper, so use the buttons)."
                if changed else "Your digests already come as one message.")
        return {"text": f"{what} `{COMMAND} digest compact off` goes back to one message a paper."}
    what = ("Your digests now come as a header and one message a paper." if changed
            else "Your digests already come as one message a paper.")
    return {"text": f"{what} `{COMMAND} digest compact on` puts them in one message."}


def reply_digest_quiet(ctx: Context, user_id: str, cmd: Command) -> Reply:
    on = cmd.arg == "on"
    changed = set_quiet_days(ctx, user_id, on)
    if on:
        what = ("On a day nothing new matches your interests, you'll hear nothing." if changed
                else "You already hear nothing on a day nothing new matches.")
        return {"text": f"{what} `{COMMAND} digest quiet off` brings back the short note."}
    what = ("On a day nothing new matches your interests, you'll get a short note saying so." if changed
            else "You already get a short note on a day nothing new matches.")
    return {"text": f"{what} `{COMMAND} digest quiet on` stops it."}


def reply_digest_off(ctx: Context, user_id: str) -> Reply:
    stop_digests(ctx, user_id)  # someone unknown has no digests to stop: nothing is stored
    return {"text": f"Daily digests are off. `{COMMAND} digest HH:MM` turns them back on."}


def reply_forget(rt: Runtime, user_id: str) -> Reply:
    """What forgetting would delete, and the Forget me button that does it (nothing goes before)."""
    stored = stored_about(rt.ctx, user_id)
    if stored.nothing:
        return {"text": FORGET_NOTHING}
    ticket = forget_ticket(user_id, datetime.now(UTC))
    return {"text": confirm_text(stored), "blocks": confirm_blocks(stored, ticket)}


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
        lines.append(f"Daily digests are on at {result.digest_time} {_where(tz)}; change that with "
                     f"`{COMMAND} digest HH:MM`.")
    lines.append(f"`{COMMAND} recommend` sends you papers now.")
    return "\n".join(lines)


def reply_recommend(rt: Runtime, client: WebClient, user_id: str, cmd: Command) -> Reply:
    ctx = rt.ctx
    with rt.locks.hold(user_id):
        recs = recommend(ctx, user_id, cmd.count, remember=False)
        if not recs:
            return {"text": "Nothing new matches your interests right now. Try again after new papers "
                            f"arrive, or `{COMMAND} follow` more topics."}
        header = f":books: {_papers(len(recs))} picked for you. React :+1: or :-1: to tune what comes next."
        delivery = send_papers(ctx, client, user_id, recs, header)
    return {"text": _delivered(delivery)}


def reply_digest_now(rt: Runtime, client: WebClient, user_id: str, cmd: Command) -> Reply:
    """Today's digest now if it has not gone out yet (then not again later today), else an extra one."""
    refresh_timezone(rt.ctx, client, user_id, fresh=True)  # whose "today" it is
    with rt.locks.hold(user_id):
        outcome = send_digest_now(rt.ctx, user_id, slack_courier(rt.ctx, client))
    return {"text": _digest_sent(outcome)}


def _digest_sent(outcome: Outcome) -> str:
    if outcome.status == "empty":
        return "No new papers for a digest right now; I'll keep looking."
    if outcome.status == "busy":
        return "Today's digest is on its way to your direct messages right now."
    if outcome.status == "failed" and not outcome.delivered:
        return f"Sorry, I couldn't send your digest: {fit(outcome.error or 'Slack refused it', ERROR_LIMIT)}."
    if outcome.outage and outcome.status == "incomplete":
        sent = f"{_papers(outcome.delivered)} went out; " if outcome.delivered else ""
        return (f"Slack isn't answering right now, so your digest is held back: {sent}I'll keep trying "
                "and send the rest once Slack is back, without repeats.")
    if outcome.outage and not outcome.delivered:
        return ("Sorry, Slack isn't answering right now, so nothing was sent. "
                "Please try again in a few minutes.")
    if not outcome.delivered:
        return "Sorry, Slack didn't accept the messages, so nothing was sent. Please try again in a minute."
    text = f"I sent you {_papers(outcome.delivered)} in our direct messages."
    if outcome.failed:
        text += f" {_papers(outcome.failed)} couldn't be delivered; they may come again later."
    if outcome.outage:
        text += " Slack stopped answering, so I stopped there."
    return text


def reply_digest_at(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    set_digest_time(ctx, user_id, cmd.time)
    return _daily(ctx, client, user_id, cmd.time)


def reply_search(ctx: Context, user_id: str, cmd: Command) -> Reply:
    recs = search(ctx, cmd.arg, SEARCH_RESULTS)
    query = fit(" ".join(cmd.arg.split()), ECHO_LIMIT)
    if not recs:
        return {"text": f"No paper matches “{query}”."}
    intro = f"*{_papers(len(recs))} matching “{query}”:*"
    return {"text": intro, "blocks": results_blocks(intro, recs)}


def reply_saved(ctx: Context, user_id: str) -> Reply:
    page = saved_page(ctx, user_id, SAVED_SHOWN)
    items = page.items
    if not items:
        return {"text": "You have no saved papers yet: click Save on a paper I sent you, or react to it "
                        "with :bookmark:."}
    intro = f"*Your saved papers* ({page.total}), newest first:"
    # Only the newest are read, and lines are made only as far as they fit (a title costs about a
    # millisecond): a list of thousands answers as fast as a short one.
    lines: list[str] = []
    blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn", "text": intro}}]
    chunk: list[str] = []
    for item in items:
        line = _saved_line(item)
        if sum(len(x) + 1 for x in chunk) + len(line) > SECTION_LIMIT - 100:
            if len(blocks) + 3 > MESSAGE_BLOCKS:  # this section, the one after it, the "and N more" line
                break
            blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(chunk)}})
            chunk = []
        chunk.append(line)
        lines.append(line)
    shown = len(lines)
    if chunk:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(chunk)}})
    if shown < page.total:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text":
                       f"and {page.total - shown} more: `{COMMAND} export` has them all."}]})
    return {"text": f"{intro}\n" + "\n".join(lines[:20])[:FALLBACK_LIMIT - 200], "blocks": blocks}


def _saved_line(item: SavedItem) -> str:
    paper = item.paper
    line = "• " + link(title_url(paper), fit(title_of(paper), 200))
    by = byline(paper)
    return line + (f" · {by}" if by else "") + f" · saved {item.saved_at[:10]}"


def reply_export(rt: Runtime, client: WebClient, user_id: str, cmd: Command) -> Reply:
    ctx = rt.ctx
    if cmd.name == "export-data":
        file = data_export(ctx, user_id)
        upload_to_dm(ctx, client, user_id, file, "Everything paperbot stores about you, as JSON.")
        return {"text": f"I put a JSON file of everything I store about you ({file.count} rows) in our "
                        "direct messages."}
    file = bibtex_export(ctx, user_id)
    comment = f"Your saved and liked papers as BibTeX ({_papers(file.count)})."
    upload_to_dm(ctx, client, user_id, file, comment)
    return {"text": f"I put a BibTeX file of your {_papers(file.count)} (saved and liked) in our direct "
                    "messages; a reference manager imports it."}


def _delivered(delivery: Delivery) -> str:
    delivered, failed, unsure = delivery.delivered, delivery.failed, delivery.unconfirmed
    unsure_text = (f"Slack didn't confirm {_papers(len(unsure))} in time and I couldn't check, so look "
                   "in our direct messages; I won't send it again." if unsure else "")
    if not delivered and not unsure:
        if delivery.outage:
            return ("Sorry, Slack isn't answering right now, so nothing was sent. "
                "Please try again in a few minutes.")
        return "Sorry, Slack didn't accept the messages, so nothing was sent. Please try again in a minute."
    text = f"I sent you {_papers(len(delivered))} in our direct messages." if delivered else ""
    if unsure:
        text = f"{text} {unsure_text}".strip()
    if failed:
        text += f" {_papers(len(failed))} couldn't be delivered; they may come again later."
    return text


def _papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


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
        return f"weekly on {weekday_name(weekday)}s at {digest_time} {_where(tz)}"
    return f"daily at {digest_time} {_where(tz)}"


def _where(tz: str | None) -> str:
    return f"({escape(tz)} time)" if tz else "(your Slack timezone)"


# -- wiring ------------------------------------------------------------------------------------------

#: Every `/papers` subcommand, each declared once: name, help line(s), parser, answer, whether Home
#: changes after it. The help shows their lines in this order.
_HELP = Subcommand("help", "", lambda arg: Command("help", arg), lambda req, cmd: reply_help(cmd.arg),
                   in_ack=True)

REGISTRY = Registry([
    _HELP,
    Subcommand(
        "follow",
        f"• `{COMMAND} follow diffusion models, robot grasping`: add topics (comma-separated) to your main "
        "feed; an arXiv id or paper URL there adds that paper as one you like\n"
        f"• `{COMMAND} follow author: Andrea Bajcsy`: their new papers come whatever they are about (at most "
        f"2 a digest; `{COMMAND} digest authors 5` for up to 5, `0` for none); "
        f"`{COMMAND} unfollow author: Andrea Bajcsy` stops that",
        _topics("follow"), lambda req, cmd: reply_follow(req.rt.ctx, req.client, req.user, cmd),
        changes_home=True),
    Subcommand(
        "unfollow", f"• `{COMMAND} unfollow diffusion models` or `{COMMAND} unfollow all`: remove topics",
        _topics("unfollow"), lambda req, cmd: reply_unfollow(req.rt.ctx, req.user, cmd),
        changes_home=True),
    Subcommand(
        "feed",
        f"• `{COMMAND} feed add robotics: grasping, sim2real`: a feed of its own (a name of one or two "
        f"words), with its own section in your digest; `{COMMAND} feed remove robotics` deletes it",
        _feed, lambda req, cmd: _answer_feed(req, cmd), changes_home=True),
    Subcommand(
        "mute",
        f"• `{COMMAND} mute blockchain, large language model`: never send papers that mention these; "
        f"`{COMMAND} unmute blockchain` or `{COMMAND} unmute all` takes that back",
        _words("mute", "blockchain, large language model"),
        lambda req, cmd: reply_mute(req.rt.ctx, req.user, cmd), changes_home=True),
    Subcommand(
        "unmute", "",  # mute's line says it
        _words("unmute", f"blockchain` or `{COMMAND} unmute all"),
        lambda req, cmd: reply_unmute(req.rt.ctx, req.user, cmd), changes_home=True),
    Subcommand(
        "interests",
        f"• `{COMMAND} interests`: your feeds and their topics, authors, muted words, alerts, likes and "
        "dislikes, and digest schedule",
        _nothing_after("interests"), lambda req, cmd: reply_interests(req.rt.ctx, req.user)),
    Subcommand(
        "recommend",
        f"• `{COMMAND} recommend` or `{COMMAND} recommend 10`: the best new papers for you now, in a DM "
        f"(default {DEFAULT_RECOMMEND}, at most {MAX_RECOMMEND})",
        _recommend, lambda req, cmd: reply_recommend(req.rt, req.client, req.user, cmd)),
    Subcommand(
        "search",
        f"• `{COMMAND} search contrastive learning`: papers matching a query, shown only to you; an "
        f"author's name finds their papers (`{COMMAND} search bajcsy safety`: Bajcsy's papers on safety "
        "first)",
        lambda arg: Command("search", arg), lambda req, cmd: reply_search(req.rt.ctx, req.user, cmd)),
    Subcommand(
        "digest",
        f"• `{COMMAND} digest 08:30`: a daily digest at that time in your Slack timezone; `{COMMAND} digest "
        f"off` stops it, `{COMMAND} digest now` sends one now; `{COMMAND} digest weekly friday 16:00`: one "
        f"a week instead (default Monday 09:00), `{COMMAND} digest daily` goes back\n"
        f"• `{COMMAND} digest compact on`: the digest as one message (a header line, then each paper with "
        f"its own buttons) instead of one message a paper; `{COMMAND} digest compact off` goes back\n"
        f"• `{COMMAND} digest quiet on`: no note on a day nothing new matched your interests (by default "
        f"you get one); `{COMMAND} digest quiet off` brings it back",
        _digest, lambda req, cmd: _answer_digest(req, cmd),
        changes_home=lambda cmd: cmd.name not in ("digest-now", "digest-compact", "digest-quiet")),
    Subcommand(
        "saved", f"• `{COMMAND} saved`: your saved papers, newest first, with links",
        _nothing_after("saved"), lambda req, cmd: reply_saved(req.rt.ctx, req.user)),
    Subcommand(
        "export",
        f"• `{COMMAND} export`: a BibTeX file of your saved and liked papers, in our DM; `{COMMAND} export "
        "data` a JSON file of everything paperbot stores about you",
        _export, lambda req, cmd: reply_export(req.rt, req.client, req.user, cmd)),
    Subcommand(
        "forget", f"• `{COMMAND} forget`: delete everything paperbot stores about you, from every table; "
                  "it shows what would go, and deletes it only once you press *Forget me*",
        _nothing_after("forget"), lambda req, cmd: reply_forget(req.rt, req.user)),
    CHANNEL_SUBCOMMAND,
    Subcommand(
        suggest.NAME, suggest.HELP, suggest.parse_suggest,
        lambda req, cmd: suggest.reply_suggest(req.rt.ctx, req.user, cmd[1]), changes_home=True),
    Subcommand(
        "alert", alert_commands.ALERT_HELP, alert_commands.parse_alert,
        lambda req, cmd: alert_commands.reply_alert(req.rt.ctx, req.user, cmd), changes_home=True),
    Subcommand(
        "alerts", "",  # alert's line says it
        alert_commands.parse_alerts, lambda req, cmd: alert_commands.reply_alert(req.rt.ctx, req.user, cmd)),
], default=_HELP)

#: The subcommands' names (what a DM's first word must be to be taken as one).
SUBCOMMANDS = REGISTRY.names

#: What a paper message offers, and paperbot beyond the subcommands (`/papers help buttons`).
BUTTONS_HELP = (
    "React to a paper with :+1: :heart: :star: or :fire: for more like it, :-1: for fewer, :bookmark: to "
    "save it; remove the reaction to take it back. Its buttons: Save (click again to unsave), 👍, 👎, "
    "More like this (similar papers in its thread), and Who should read this? (colleagues it fits, to "
    "send it to, below).\n"
    "• paperbot's *Home* tab shows all of this, with forms to change it, and for someone new a round of "
    "papers to rate to get started\n"
    "An arxiv.org link posted where I am shows the paper's card; the message shortcut *Save paper* (in a "
    "message's ⋮ menu) saves the arXiv papers and DOIs it names, and *Who should read this?* finds "
    "colleagues for its paper. In our DM, type the same subcommands "
    f"without `{COMMAND}`, e.g. `recommend 3`.")


#: Characters the short help may take: a line a group, on one screen of a laptop's Slack.
SHORT_HELP_MOST = 1200

#: What a library export shared in paperbot's DM does (`/papers help team`).
LIBRARY_HELP = ("*Bring your library:* share a `.bib`, `.ris` or Zotero CSV export (up to 5 MB) in our DM: "
                "each entry is matched to a paper I hold (by DOI, arXiv id or title) or stored as a new one, "
                "and counts as a paper you like; I answer with how many were read, matched, added and "
                "skipped.")


@dataclass(frozen=True)
class HelpTopic:
    """One group of the help: its line in the short help, and the subcommands whose help lines (from
    :data:`REGISTRY`, the one place saying what each does) `/papers help NAME` shows, then ``extra``.
    ``aliases``: other words naming it (each of its subcommands' names does too)."""

    name: str
    summary: str
    subcommands: tuple[str, ...] = ()
    extra: str = ""
    aliases: tuple[str, ...] = ()

    def details(self) -> str:
        helps = (REGISTRY.subcommands[name].help for name in self.subcommands)
        lines = [line for line in helps if line]
        return "\n".join([f"*{COMMAND} help {self.name}*", *lines, *([self.extra] if self.extra else [])])


HELP_TOPICS = (
    HelpTopic("follow", f"`{COMMAND} follow diffusion models` · `follow author: Andrea Bajcsy` · "
                        "`unfollow` · `interests`: what you follow", ("follow", "unfollow", "interests"),
              aliases=("topics", "authors")),
    HelpTopic("feeds", f"`{COMMAND} feed add robotics: grasping, sim2real`: a feed of its own", ("feed",)),
    HelpTopic("mute", f"`{COMMAND} mute blockchain` · `unmute`: papers never sent", ("mute", "unmute")),
    HelpTopic("alerts", f"`{COMMAND} alert graph transformers` · `alerts`: new papers holding a phrase, "
                        "first in your digest", ("alert", "alerts")),
    HelpTopic("recommend", f"`{COMMAND} recommend` · `search contrastive learning`: papers now",
              ("recommend", "search")),
    HelpTopic("digest", f"`{COMMAND} digest 08:30` · `digest weekly friday 16:00` · `digest compact on` · "
                        "`digest off`: when papers come", ("digest",), aliases=("digests",)),
    HelpTopic("saved", f"`{COMMAND} saved` · `export`: your reading list, as BibTeX too",
              ("saved", "export")),
    HelpTopic("buttons", "React :+1: :-1: or :bookmark: on a paper, or click its buttons; Home shows it all",
              extra=BUTTONS_HELP, aliases=("reactions", "home", "dm")),
    HelpTopic("team", f"`{COMMAND} {suggest.NAME} on`: colleagues may send you papers; a .bib, .ris or "
                      "Zotero CSV in our DM brings your library", (suggest.NAME,),
              extra=suggest.EXTRA + "\n" + LIBRARY_HELP,
              aliases=("who", "suggestions", "colleagues", "library", "zotero", "bibtex")),
    HelpTopic("channel", f"`{COMMAND} channel follow TOPICS` · `channel poll`: a channel's own papers, and "
                         "reading-group votes", ("channel",),
              aliases=("channels", "trending", "poll", "polls")),
    HelpTopic("forget", f"`{COMMAND} forget`: delete everything paperbot stores about you (asks first)",
              ("forget",)),
)
_TOPIC_NAMES = ", ".join(t.name for t in HELP_TOPICS)
_TOPICS = {word: topic for topic in HELP_TOPICS for word in (topic.name, *topic.subcommands, *topic.aliases)}

HELP = ("*paperbot* sends you new papers that match your interests.\n"
        + "\n".join(f"• {topic.summary}" for topic in HELP_TOPICS)
        + f"\n`{COMMAND} help TOPIC` for more: {_TOPIC_NAMES}.")


def help_text(topic: str = "") -> str:
    """The short help, or the details of one topic (named by it, an alias or one of its subcommands);
    for an unknown topic, which topics there are."""
    word = " ".join(topic.split()).casefold()
    if not word:
        return HELP
    found = _TOPICS.get(word)
    if found is None:
        return (f"I have no help on “{fit(topic, 40)}”. Try `{COMMAND} help TOPIC` with one of: "
                f"{_TOPIC_NAMES}.")
    return found.details()


def _answer_feed(req: Request, cmd: Command) -> Reply:
    if cmd.name == "feed-add":
        return reply_feed_add(req.rt.ctx, req.client, req.user, cmd)
    return reply_feed_remove(req.rt.ctx, req.user, cmd)


def _author_picks(n: int) -> str:
    """How many followed authors' papers a digest holds, and the command that changes it."""
    if not n:
        return f"(none in your digests; `{COMMAND} digest authors 2` brings their new papers back)"
    return f"(at most {_papers(n)} of theirs a digest; `{COMMAND} digest authors N` changes it, 0-10)"


def reply_digest_authors(ctx: Context, user_id: str, cmd: Command) -> Reply:
    save_author_picks(ctx, user_id, cmd.count)
    if not cmd.count:
        return {"text": "Your digests won't bring papers just for being by authors you follow; their papers "
                        f"still come when they match your topics. `{COMMAND} digest authors 2` undoes it."}
    papers = "paper" if cmd.count == 1 else "papers"
    return {"text": f"Each digest brings at most {cmd.count} new {papers} (of the past month) by authors you "
                    f"follow, first. `{COMMAND} interests` shows it."}


def _answer_digest(req: Request, cmd: Command) -> Reply:
    if cmd.name == "digest-authors":
        return reply_digest_authors(req.rt.ctx, req.user, cmd)
    if cmd.name == "digest-off":
        return reply_digest_off(req.rt.ctx, req.user)
    if cmd.name == "digest-now":
        return reply_digest_now(req.rt, req.client, req.user, cmd)
    if cmd.name == "digest-compact":
        return reply_digest_compact(req.rt.ctx, req.user, cmd)
    if cmd.name == "digest-quiet":
        return reply_digest_quiet(req.rt.ctx, req.user, cmd)
    setting = {"digest-at": reply_digest_at, "digest-weekly": reply_digest_weekly,
               "digest-daily": reply_digest_daily}
    return setting[cmd.name](req.rt.ctx, req.client, req.user, cmd)


def parse(text: str) -> Command:
    """Parse the text after `/papers` (`channel …` is parsed where it was run: it is kept as typed).
    Raises BadArgument saying what was wrong."""
    sub, rest = REGISTRY.find(text)
    if sub is CHANNEL_SUBCOMMAND:
        return Command(sub.name, rest)
    return sub.parse(rest)
