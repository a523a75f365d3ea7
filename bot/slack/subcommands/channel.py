"""`/papers channel …`: a channel's own profile, digest and weekly trending post, set up from inside
the channel (see :mod:`bot.usecases.channel_subjects` and :mod:`bot.usecases.trending`).

Declared once (:data:`CHANNEL_SUBCOMMAND`), for the slash command and the DM alike. Parsing needs no
database, so a wrong argument, and a channel command run anywhere but a channel (a DM: slash or typed),
are answered at once; the rest answers after the ack, seen only by the caller.
Every reply that needs the bot to post in the channel first checks it is a member
(``conversations.info``) and says how to invite it when it is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from slack_sdk import WebClient

from bot.errors import BadArgument, NoInterests, Outage, Unreachable
from bot.presentation.reasons import shorten
from bot.slack.delivery.digests import slack_courier
from bot.slack.delivery.trending import is_member, trending_poster
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import ECHO_LIMIT, HelpTopic, Parsed, Registry, Reply, Subcommand, quoted
from bot.slack.subcommands.channel_poll import HELP_LINE as POLL_HELP_LINE
from bot.slack.subcommands.channel_poll import (
    NO_TOPICS,
    PollCommand,
    parse_poll,
    reply_poll_close,
    reply_poll_open,
)
from bot.slack.subcommands.channel_recap import HELP_LINE as RECAP_HELP_LINE
from bot.slack.subcommands.channel_recap import parse_recap, recap_line, reply_recap
from bot.slack.subcommands.conference_commands import parse_conference, reply_channel_conference
from bot.slack.subcommands.digest_times import parse_daily, parse_hhmm, parse_weekly
from bot.slack.timezones import refresh_timezone
from bot.slack.views.digest_notes import note_text
from bot.slack.views.messages import escape, fit
from bot.slack.views.refusals import say
from bot.state.context import Context
from bot.usecases.channel_subjects import (
    channel_daily,
    channel_digest_off,
    channel_profile,
    channel_timezone,
    channel_weekly,
    follow_in_channel,
    follows_nothing,
    is_channel,
    set_trending,
    unfollow_in_channel,
)
from bot.usecases.digest_due import local_date
from bot.usecases.digest_schedule import next_digest, weekday_name
from bot.usecases.digest_vocabulary import Outcome
from bot.usecases.digests.run import send_digest_now
from bot.usecases.interests import AUTHOR_PREFIX, FollowResult
from bot.usecases.trending import DAYS, trending_papers

CHANNEL = f"{COMMAND} channel"
LISTED_LIMIT = 1400  # characters of the channel's topics (or authors) in its settings
INVITE = (":warning: I'm not in this channel, so I can't post here: type `/invite @paperbot` in the "
          "channel (or add the app from the channel's settings), then try again.")
FROM_DM = (f"`{CHANNEL} …` sets up a channel's own papers: run it in the channel that should get them "
           f"(and `/invite @paperbot` there first). In our DM, `{COMMAND} help` shows your own settings.")
USAGE = (f"Say what to do: `{CHANNEL} follow TOPICS`, `{CHANNEL} unfollow TOPIC` (or `all`), "
         f"`{CHANNEL} digest daily 08:30`, `{CHANNEL} digest weekly friday 16:00`, `{CHANNEL} digest off`, "
         f"`{CHANNEL} digest now`, `{CHANNEL} trending on`, `off` or `now`, `{CHANNEL} poll` or "
         f"`{CHANNEL} poll close`, `{CHANNEL} recap weekly` or `off`; `{CHANNEL}` alone shows this channel's "
         "settings.")
HELP_LINES = (
    f"• `{CHANNEL} follow diffusion models`, run in a channel (after `/invite @paperbot`): papers of its "
    f"own, posted there daily at 09:00; `{CHANNEL} digest weekly friday 16:00`, `digest off` or `digest now` "
    f"(one at once); a reaction there counts for the channel and for you\n"
    f"• `{CHANNEL} trending on`: each Monday, the workspace's most-liked papers of the week, with how many "
    f"liked each (never who); `{CHANNEL}` alone shows the channel's settings\n"
    + POLL_HELP_LINE + "\n"
    + RECAP_HELP_LINE
)


@dataclass(frozen=True)
class ChannelCommand:
    """One parsed `/papers channel …`: ``action`` is show, follow, unfollow, digest-daily,
    digest-weekly, digest-off, digest-now, trending-on, trending-off or trending-now."""

    action: str
    arg: str = ""
    time: str | None = None
    weekday: int | None = None


def parse_channel(text: str) -> ChannelCommand:
    """Parse the text after `/papers channel`. Raises BadArgument saying what was wrong and what to type."""
    return _parse_action(text).args


def _parse_action(text: str) -> Parsed:
    action, rest = ACTIONS.find(text)
    return Parsed(action, action.parse(rest))


def _follow(arg: str) -> ChannelCommand:
    if not arg:
        raise BadArgument(f"Say what this channel should follow: `{CHANNEL} follow diffusion models`.")
    if arg.casefold().startswith(AUTHOR_PREFIX) and not arg[len(AUTHOR_PREFIX):].strip():
        raise BadArgument(f"Say whose papers: `{CHANNEL} follow author: Andrea Bajcsy`.")
    return ChannelCommand("follow", arg)


def _unfollow(arg: str) -> ChannelCommand:
    if not arg:
        raise BadArgument(f"Say which topic to unfollow: `{CHANNEL} unfollow diffusion models` or "
                          f"`{CHANNEL} unfollow all`.")
    return ChannelCommand("unfollow", arg)


def _trending(arg: str) -> ChannelCommand:
    choice = arg.lower()
    if choice in ("on", "off", "now"):
        return ChannelCommand(f"trending-{choice}")
    raise BadArgument(f"Say `{CHANNEL} trending on`, `{CHANNEL} trending off` or `{CHANNEL} trending now`"
                      + (f", not “{shorten(arg, 40)}”." if arg else "."))


def _digest(arg: str) -> ChannelCommand:
    parts = arg.split(None, 1)
    first, rest = (parts[0], parts[1].strip() if len(parts) > 1 else "") if parts else ("", "")
    word = first.lower()
    try:
        if word == "off" and not rest:
            return ChannelCommand("digest-off")
        if word == "now" and not rest:
            return ChannelCommand("digest-now")
        if word == "weekly":
            weekday, hhmm = parse_weekly(rest)
            return ChannelCommand("digest-weekly", time=hhmm, weekday=weekday)
        if word == "daily":
            return ChannelCommand("digest-daily", time=parse_daily(rest))
        if word and not rest:
            return ChannelCommand("digest-daily", time=parse_hhmm(word))
    except BadArgument as exc:  # the person's digest's wording, for the channel's command
        # The schedule's errors (bot/usecases/digests/) still come worded: patched until they carry fields.
        raise BadArgument(say(exc, CHANNEL).replace(f"`{COMMAND} digest", f"`{CHANNEL} digest")) from None
    raise BadArgument(f"Say when: `{CHANNEL} digest daily 08:30`, `{CHANNEL} digest weekly friday 16:00`, "
                      f"`{CHANNEL} digest off` or `{CHANNEL} digest now`"
                      + (f", not “{shorten(arg, 40)}”." if arg else "."))


# -- replies -----------------------------------------------------------------------------------------


def reply_show(ctx: Context, client: WebClient, channel: str) -> Reply:
    profile = channel_profile(ctx, channel)
    if not profile.known:
        return {"text": f"This channel has no papers of its own yet: `{CHANNEL} follow diffusion models` "
                        f"gives it a daily digest here, `{CHANNEL} trending on` the workspace's most-liked "
                        "papers every Monday."}
    info = profile.interests
    topics = _listed(info.topics) if info.topics else f"none yet; try `{CHANNEL} follow diffusion models`"
    lines = [f"*This channel's topics:* {topics}"]
    if info.authors:
        lines.append(f"*Authors it follows:* {_listed(info.authors)}")
    lines.append(f"*Feedback:* {info.liked} liked, {info.disliked} disliked (reactions on its papers)")
    if not info.digest_enabled or not info.digest_time:
        lines.append(f"*Digest:* off (`{CHANNEL} digest daily 09:00` turns it on)")
    elif info.digest_weekday is not None:
        lines.append(f"*Digest:* weekly on {weekday_name(info.digest_weekday)}s at {info.digest_time} "
                     f"{_where(info.tz)}, posted here")
    else:
        lines.append(f"*Digest:* daily at {info.digest_time} {_where(info.tz)}, posted here")
    lines.append("*Trending:* " + (f"on: every Monday at 09:00 UTC, the workspace's most-liked papers of the "
                                   f"past {DAYS} days" if profile.trending
                                   else f"off (`{CHANNEL} trending on` turns it on)"))
    lines.append(recap_line(profile.recap))
    return _with_membership(client, channel, {"text": "\n".join(lines)})


def reply_follow(ctx: Context, client: WebClient, user: str, channel: str, cmd: ChannelCommand) -> Reply:
    tz = _setter_timezone(ctx, client, user)
    try:
        result = follow_in_channel(ctx, channel, user, tz, cmd.arg)
    except BadArgument as exc:  # said with the channel's command in what to try
        raise BadArgument(say(exc, CHANNEL)) from None
    return _with_membership(client, channel, {"text": _followed(ctx, channel, result)})


def _followed(ctx: Context, channel: str, result: FollowResult) -> str:
    lines = []
    if result.added:
        lines.append("This channel now follows " + quoted(result.added) + ".")
    if result.already:
        lines.append("This channel already follows " + quoted(result.already) + ".")
    if result.authors:
        lines.append("This channel now follows the author" + ("s " if len(result.authors) > 1 else " ")
                     + quoted(result.authors) + ".")
    if result.authors_already:
        lines.append("This channel already follows " + quoted(result.authors_already) + ".")
    if result.seeds:
        lines.append(f"Noted as liked by this channel: {len(result.seeds)} paper(s).")
    if result.unknown_seeds:
        lines.append("I don't have these papers (yet): " + quoted(result.unknown_seeds) + ".")
    if result.digest_turned_on:
        lines.append(f"Its digest is on, posted here daily at {result.digest_time} "
                     f"{_where(channel_timezone(ctx, channel))}; change that with "
                     f"`{CHANNEL} digest daily HH:MM` or `{CHANNEL} digest weekly`.")
    return "\n".join(lines)


def reply_unfollow(ctx: Context, channel: str, cmd: ChannelCommand) -> Reply:
    try:
        removed = unfollow_in_channel(ctx, channel, cmd.arg)
    except BadArgument as exc:
        raise BadArgument(say(exc, CHANNEL)) from None
    if removed:
        return {"text": "This channel stopped following " + quoted(removed) + "."}
    if cmd.arg.strip().casefold() == "all":
        return {"text": "This channel wasn't following anything."}
    return {"text": f"This channel wasn't following “{fit(cmd.arg, ECHO_LIMIT)}”. `{CHANNEL}` lists its "
                    "topics."}


def reply_digest(ctx: Context, client: WebClient, user: str, channel: str, cmd: ChannelCommand) -> Reply:
    if cmd.action == "digest-off":
        if not channel_digest_off(ctx, channel):
            return {"text": f"This channel has no digest. `{CHANNEL} follow TOPICS` gives it one."}
        return {"text": f"This channel's digest is off. `{CHANNEL} digest daily HH:MM` turns it back on."}
    setter_tz = _setter_timezone(ctx, client, user, fresh=True)  # the time is meant in the setter's zone
    now = datetime.now(UTC)
    if cmd.action == "digest-weekly":
        channel_weekly(ctx, channel, user, setter_tz, cmd.weekday, cmd.time)
        tz = channel_timezone(ctx, channel)  # the setter's, or (Slack couldn't say) the one it had
        first = next_digest(ctx, channel, now)
        when = f"; the next one on {first:%A} {first.day} {first:%B}" if first else ""
        day = weekday_name(cmd.weekday)
        text = (f"This channel's digest is weekly on {day}s at {cmd.time} {_where(tz)}, posted here{when}. "
                f"`{CHANNEL} digest daily` goes back to daily ones.")
    else:
        hhmm = channel_daily(ctx, channel, user, setter_tz, cmd.time)
        tz = channel_timezone(ctx, channel)
        first = next_digest(ctx, channel, now)
        when = "today" if first == local_date(tz, now) else "tomorrow"
        text = (f"This channel's digest is daily at {hhmm} {_where(tz)}, posted here; the next one {when}. "
                f"`{CHANNEL} digest off` stops it.")
    if follows_nothing(ctx, channel):
        text += f"\nIt follows nothing yet: `{CHANNEL} follow TOPICS` says what it should get."
    return _with_membership(client, channel, {"text": text})


def reply_digest_now(rt: Runtime, client: WebClient, channel: str) -> Reply:
    """The channel's digest posted at once, as `/papers digest now` does for a person: today's if it has
    not gone out yet (then not again later today), else an extra one of papers it was never shown.
    Nothing is written for a channel that follows nothing, or that the bot is not in."""
    ctx = rt.ctx
    if follows_nothing(ctx, channel):
        return {"text": f"This channel follows nothing yet, so there is no digest to post: "
                        f"`{CHANNEL} follow TOPICS` says what it should get."}
    if is_member(client, channel) is False:
        return {"text": INVITE}
    try:
        with rt.locks.hold(channel):  # the channel's digests, one at a time, as the scheduler's
            outcome = send_digest_now(ctx, channel, slack_courier(ctx, client))
    except NoInterests:
        return {"text": f"This channel follows nothing yet: `{CHANNEL} follow TOPICS` says what it should "
                        "get."}
    return {"text": _channel_digest_sent(outcome)}


def _channel_digest_sent(outcome: Outcome) -> str:
    if outcome.status == "empty":
        return "No new papers for this channel right now; I'll keep looking."
    if outcome.status == "busy":
        return "This channel's digest is being posted here right now."
    if outcome.status == "failed" and not outcome.delivered:
        if outcome.note and "not_in_channel" in (outcome.note.detail or ""):
            return INVITE
        why = note_text(outcome.note) if outcome.note else "Slack refused it"
        return f"Sorry, I couldn't post the digest here: {fit(why, 300)}."
    if outcome.outage and not outcome.delivered:
        return ("Sorry, Slack isn't answering right now, so nothing was posted. Please try again in a few "
                "minutes." if outcome.status != "incomplete" else
                "Slack isn't answering right now, so the digest is held back; I'll post it once Slack is "
                "back, without repeats.")
    if not outcome.delivered:
        return "Sorry, Slack didn't accept the messages, so nothing was posted. Please try again in a minute."
    n = outcome.delivered
    text = f"Posted {n} {'paper' if n == 1 else 'papers'} here."
    if outcome.failed:
        text += f" {outcome.failed} couldn't be posted; they may come again later."
    if outcome.outage:
        text += " Slack stopped answering, so I stopped there; the rest come later, without repeats."
    return text


def reply_trending(ctx: Context, client: WebClient, user: str, channel: str, cmd: ChannelCommand) -> Reply:
    if cmd.action == "trending-now":
        papers = trending_papers(ctx, datetime.now(UTC))
        try:
            trending_poster(client)(channel, papers)
        except Unreachable:
            return {"text": INVITE}
        except Outage:
            return {"text": "Sorry, Slack isn't answering right now, so nothing was posted. Please try again "
                            "in a few minutes."}
        if not papers:
            return {"text": f"Nobody in this workspace liked or saved a paper in the past {DAYS} days; I "
                            "said so here."}
        plural = "s" if len(papers) > 1 else ""
        return {"text": f"Posted the {len(papers)} most-liked (then most-saved) paper{plural} of the past "
                        f"{DAYS} days here."}
    on = cmd.action == "trending-on"
    set_trending(ctx, channel, user, on)
    if not on:
        return {"text": f"No more trending posts here. `{CHANNEL} trending on` brings them back."}
    return _with_membership(client, channel, {
        "text": f"Every Monday at 09:00 UTC I'll post here the papers people in this workspace liked (then "
                f"saved) most in the past {DAYS} days, with how many liked and saved each (never who). "
                f"`{CHANNEL} trending now` posts it at once, `{CHANNEL} trending off` stops it."})


def reply_poll(rt: Runtime, client: WebClient, channel: str, cmd: PollCommand) -> Reply:
    """`/papers channel poll [N]` or `… poll close` (:mod:`bot.slack.subcommands.channel_poll`), refused
    as the channel's other posts are: in a channel that follows nothing (for a new poll), and where the
    bot is not a member."""
    if cmd.action == "open" and follows_nothing(rt.ctx, channel):
        return {"text": NO_TOPICS}
    if is_member(client, channel) is False:
        return {"text": INVITE}
    try:
        if cmd.action == "close":
            return reply_poll_close(rt, client, channel)
        return reply_poll_open(rt, client, channel, cmd.size)
    except Unreachable:  # a private channel Slack wouldn't say it is in, until the post
        return {"text": INVITE}


def _with_membership(client: WebClient, channel: str, reply: Reply) -> Reply:
    """``reply`` with how to invite the bot when it is not in the channel (it can't post there then)."""
    if is_member(client, channel) is False:
        return {**reply, "text": reply["text"] + "\n" + INVITE}
    return reply


def _setter_timezone(ctx: Context, client: WebClient, user: str, fresh: bool = False) -> str | None:
    """The timezone of who runs the command: the channel's schedule is meant in it."""
    return refresh_timezone(ctx, client, user, fresh=fresh)


def _where(tz: str | None) -> str:
    return f"({escape(tz)} time)" if tz else "(UTC)"


def _listed(items: list[str], limit: int = LISTED_LIMIT) -> str:
    return escape(shorten(", ".join(items), limit))


# -- the declarations -------------------------------------------------------------------------------

#: Nothing after `/papers channel`: the channel's settings (no word names it: `channel show` is unknown).
_SHOW = Subcommand("", "", lambda arg: ChannelCommand("show"),
                   lambda req, cmd: reply_show(req.rt.ctx, req.client, req.channel))


def _unknown_action(word: str) -> str:
    return f"I don't know “{shorten(word, 40)}” after `{CHANNEL}`. {USAGE}"


#: What `/papers channel` can do, each action declared once (HELP_LINES tells them all). Its words were
#: cleaned with the rest of the text: not again (an entity typed as text stays as typed).
ACTIONS = Registry([
    Subcommand("follow", "", _follow,
               lambda req, cmd: reply_follow(req.rt.ctx, req.client, req.user, req.channel, cmd)),
    Subcommand("unfollow", "", _unfollow, lambda req, cmd: reply_unfollow(req.rt.ctx, req.channel, cmd)),
    Subcommand("digest", "", _digest, lambda req, cmd: (
        reply_digest_now(req.rt, req.client, req.channel) if cmd.action == "digest-now"
        else reply_digest(req.rt.ctx, req.client, req.user, req.channel, cmd))),
    Subcommand("trending", "", _trending,
               lambda req, cmd: reply_trending(req.rt.ctx, req.client, req.user, req.channel, cmd)),
    Subcommand("poll", "", parse_poll, lambda req, cmd: reply_poll(req.rt, req.client, req.channel, cmd)),
    Subcommand("recap", "", parse_recap,
               lambda req, cmd: reply_recap(req.rt.ctx, req.client, req.user, req.channel, cmd)),
    Subcommand("conference", "", parse_conference, lambda req, cmd: reply_channel_conference(
        req.rt, req.client, req.channel, cmd.arg)),  # issue 43: helped under `/papers help conference`
], default=_SHOW, unknown=_unknown_action, cleans=False)

#: `/papers channel …`: refused (with how to run it) anywhere but a channel, before it is parsed.
CHANNEL_SUBCOMMAND = Subcommand(
    "channel", HELP_LINES, _parse_action, lambda req, parsed: parsed.answer(req),
    refusal=lambda channel: None if is_channel(channel) else FROM_DM)
SUBCOMMANDS = (CHANNEL_SUBCOMMAND,)
TOPIC = HelpTopic("channel", f"`{COMMAND} channel follow TOPICS` · `channel poll`: a channel's own papers, "
                             "and reading-group votes", SUBCOMMANDS,
                  aliases=("channels", "trending", "poll", "polls", "recap"))
