"""`/papers digest …`: when a person's digest comes (daily, weekly, off, now), and how (compact, quiet,
how many followed authors' papers): :mod:`bot.usecases.digest_schedule` and
:mod:`bot.usecases.settings`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.reasons import shorten
from bot.slack.delivery.digests import slack_courier
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Command, HelpTopic, Reply, Request, Subcommand, papers, where
from bot.slack.subcommands.digest_times import parse_daily, parse_hhmm, parse_weekly
from bot.slack.subcommands.switches import Switch
from bot.slack.timezones import refresh_timezone
from bot.slack.views.digest_notes import note_text
from bot.slack.views.messages import fit
from bot.state.context import Context
from bot.usecases.digest_due import local_date
from bot.usecases.digest_schedule import (
    next_digest,
    set_daily,
    set_digest_time,
    set_weekly,
    stop_digests,
    weekday_name,
)
from bot.usecases.digest_vocabulary import Outcome
from bot.usecases.digests.run import send_digest_now
from bot.usecases.settings import (
    check_author_picks,
    save_author_picks,
    set_compact_digest,
    set_highlights,
    set_quiet_days,
)

ERROR_LIMIT = 300  # characters of an error Slack or a source gave, told to the person


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
    if first.lower() in SWITCHES:
        on = SWITCHES[first.lower()].parse(rest)
        return Command(f"digest-{first.lower()}", "on" if on else "off")
    if not arg:
        raise BadArgument(f"Say when: `{COMMAND} digest 08:30`, `{COMMAND} digest off` "
                          f"or `{COMMAND} digest now`.")
    try:
        return Command("digest-at", time=parse_hhmm(arg))
    except BadArgument:
        pass
    raise BadArgument(f"“{shorten(arg, 40)}” is not a time from 00:00 to 23:59; try "
                      f"`{COMMAND} digest 08:30`, `{COMMAND} digest off` or `{COMMAND} digest now`.")


def reply_digest_weekly(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    set_weekly(ctx, user_id, cmd.weekday, cmd.time)
    tz = refresh_timezone(ctx, client, user_id, fresh=True)  # the time is meant in their zone of now
    first = next_digest(ctx, user_id, datetime.now(UTC))
    day = weekday_name(cmd.weekday)
    when = f" the next one on {first:%A} {first.day} {first:%B}." if first else "."
    return {"text": f"Weekly digest on {day}s at {cmd.time} {where(tz)}, with the week's best new papers;"
                    f"{when} `{COMMAND} digest daily` goes back to daily ones."}


def reply_digest_daily(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    return _daily(ctx, client, user_id, set_daily(ctx, user_id, cmd.time))


def _daily(ctx: Context, client: WebClient, user_id: str, hhmm: str) -> Reply:
    """The reply once a daily digest at ``hhmm`` is set: when the first one comes."""
    tz = refresh_timezone(ctx, client, user_id, fresh=True)  # the time is meant in their zone of now
    now = datetime.now(UTC)
    first = next_digest(ctx, user_id, now)
    when = "today" if first == local_date(tz, now) else "tomorrow"
    return {"text": f"Daily digest at {hhmm} {where(tz)}, the next one {when}. "
                    f"`{COMMAND} digest off` stops it."}


SWITCHES = {
    "compact": Switch(
        set_compact_digest,
        f"Say `{COMMAND} digest compact on` (the day's papers in one message) or `{COMMAND} digest compact "
        "off` (one message a paper).",
        "Your digests now come as one message: a header line, then each paper with its own buttons (a "
        "reaction there can't say which paper, so use the buttons).",
        "Your digests already come as one message.",
        f"`{COMMAND} digest compact off` goes back to one message a paper.",
        "Your digests now come as a header and one message a paper.",
        "Your digests already come as one message a paper.",
        f"`{COMMAND} digest compact on` puts them in one message."),
    "quiet": Switch(
        set_quiet_days,
        f"Say `{COMMAND} digest quiet on` (no note on a day nothing new matched) or `{COMMAND} digest quiet "
        "off` (a short note on such a day).",
        "On a day nothing new matches your interests, you'll hear nothing.",
        "You already hear nothing on a day nothing new matches.",
        f"`{COMMAND} digest quiet off` brings back the short note.",
        "On a day nothing new matches your interests, you'll get a short note saying so.",
        "You already get a short note on a day nothing new matches.",
        f"`{COMMAND} digest quiet on` stops it."),
    "highlights": Switch(
        set_highlights,
        f"Say `{COMMAND} digest highlights on` (each paper's key sentences, quoted from its abstract) or "
        f"`{COMMAND} digest highlights off` (the start of the abstract).",
        "Each paper now shows what it does and its main result, quoted from its abstract.",
        "Your papers already show their highlights.",
        f"`{COMMAND} digest highlights off` shows the start of the abstract instead.",
        "Each paper now shows the start of its abstract instead of its highlights.",
        "Your papers already show the start of the abstract.",
        f"`{COMMAND} digest highlights on` brings the highlights back."),
}


def _answer(name: str) -> Callable[[Context, str, Command], Reply]:
    """The reply of `/papers digest NAME on|off`."""
    return lambda ctx, user_id, cmd: SWITCHES[name].reply(ctx, user_id, cmd.arg == "on")


reply_digest_compact = _answer("compact")
reply_digest_quiet = _answer("quiet")
reply_digest_highlights = _answer("highlights")


def reply_digest_off(ctx: Context, user_id: str) -> Reply:
    stop_digests(ctx, user_id)  # someone unknown has no digests to stop: nothing is stored
    return {"text": f"Daily digests are off. `{COMMAND} digest HH:MM` turns them back on."}


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
        why = note_text(outcome.note) if outcome.note else "Slack refused it"
        return f"Sorry, I couldn't send your digest: {fit(why, ERROR_LIMIT)}."
    if outcome.outage and outcome.status == "incomplete":
        sent = f"{papers(outcome.delivered)} went out; " if outcome.delivered else ""
        return (f"Slack isn't answering right now, so your digest is held back: {sent}I'll keep trying "
                "and send the rest once Slack is back, without repeats.")
    if outcome.outage and not outcome.delivered:
        return ("Sorry, Slack isn't answering right now, so nothing was sent. "
                "Please try again in a few minutes.")
    if not outcome.delivered:
        return "Sorry, Slack didn't accept the messages, so nothing was sent. Please try again in a minute."
    text = f"I sent you {papers(outcome.delivered)} in our direct messages."
    if outcome.failed:
        text += f" {papers(outcome.failed)} couldn't be delivered; they may come again later."
    if outcome.outage:
        text += " Slack stopped answering, so I stopped there."
    return text


def reply_digest_at(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    set_digest_time(ctx, user_id, cmd.time)
    return _daily(ctx, client, user_id, cmd.time)


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
    if (switch := SWITCHES.get(cmd.name.removeprefix("digest-"))) is not None:
        return switch.reply(req.rt.ctx, req.user, cmd.arg == "on")
    setting = {"digest-at": reply_digest_at, "digest-weekly": reply_digest_weekly,
               "digest-daily": reply_digest_daily}
    return setting[cmd.name](req.rt.ctx, req.client, req.user, cmd)


DIGEST = Subcommand(
    "digest",
    f"• `{COMMAND} digest 08:30`: a daily digest at that time in your Slack timezone; `{COMMAND} digest "
    f"off` stops it, `{COMMAND} digest now` sends one now; `{COMMAND} digest weekly friday 16:00`: one "
    f"a week instead (default Monday 09:00), `{COMMAND} digest daily` goes back\n"
    f"• `{COMMAND} digest compact on`: the digest as one message (a header line, then each paper with "
    f"its own buttons) instead of one message a paper; `{COMMAND} digest compact off` goes back\n"
    f"• `{COMMAND} digest quiet on`: no note on a day nothing new matched your interests (by default "
    f"you get one); `{COMMAND} digest quiet off` brings it back\n"
    f"• `{COMMAND} digest highlights off`: the start of each paper's abstract instead of its highlights "
    f"(what it does and its main result, quoted from the abstract); `{COMMAND} digest highlights on` "
    "brings them back",
    _digest, lambda req, cmd: _answer_digest(req, cmd),
    changes_home=lambda cmd: cmd.name not in ("digest-now", "digest-compact", "digest-quiet",
                                              "digest-highlights"))
SUBCOMMANDS = (DIGEST,)
TOPIC = HelpTopic("digest", f"`{COMMAND} digest 08:30` · `digest weekly friday 16:00` · "
                            "`digest compact on` · `digest off`: when papers come", SUBCOMMANDS,
                  aliases=("digests",))
