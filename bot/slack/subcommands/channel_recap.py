"""`/papers channel recap weekly [DAY] [HH:MM]` and `/papers channel recap off`: a channel's weekly recap
(see :mod:`bot.usecases.recap`), parsed here and answered only to who ran it. Declared in
:mod:`bot.slack.subcommands.channel` with the channel's other actions, which refuses them outside a
channel."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.reasons import shorten
from bot.slack.delivery.trending import is_member
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import Reply
from bot.slack.subcommands.digest_times import parse_hhmm, parse_weekday
from bot.slack.timezones import refresh_timezone
from bot.slack.views.messages import escape
from bot.state.context import Context
from bot.usecases.channel_subjects import follows_nothing
from bot.usecases.digest_due import zone
from bot.usecases.digest_schedule import weekday_name
from bot.usecases.recap import (
    DEFAULT_TIME,
    DEFAULT_WEEKDAY,
    TOP,
    next_recap,
    recap_off,
    set_recap,
)
from bot.usecases.trending import DAYS
from storage.recaps import RecapSetting

RECAP = f"{COMMAND} channel recap"
HELP_LINE = (f"• `{RECAP} weekly` (or `{RECAP} weekly monday 09:00`; Friday 16:00 in your timezone unless "
             f"you say): once a week, the workspace's {TOP} most liked and saved papers with counts (never "
             f"who) and the channel's best papers nobody was shown or rated; `{RECAP} off` stops it")
USAGE = f"Say `{RECAP} weekly`, `{RECAP} weekly friday 16:00` or `{RECAP} off`"
INVITE = (":warning: I'm not in this channel, so I can't post here: type `/invite @paperbot` in the "
          "channel (or add the app from the channel's settings).")


@dataclass(frozen=True)
class RecapCommand:
    """A parsed `/papers channel recap …`: weekly on ``weekday`` (0 = Monday) at ``time``, or off."""

    action: Literal["weekly", "off"]
    weekday: int = DEFAULT_WEEKDAY
    time: str = DEFAULT_TIME


def parse_recap(arg: str) -> RecapCommand:
    """The words after `/papers channel recap`: ``weekly [DAY] [HH:MM]`` (in either order) or ``off``.
    Raises BadArgument saying what was wrong and what to type."""
    words = arg.split()
    first = words[0].casefold() if words else ""
    if first == "off" and len(words) == 1:
        return RecapCommand("off")
    if first != "weekly":
        raise BadArgument(USAGE + (f", not “{shorten(arg, 40)}”." if arg.strip() else "."))
    rest = words[1:]
    if len(rest) > 2 or (len(rest) == 2 and (":" in rest[0]) == (":" in rest[1])):
        raise BadArgument(f"Give one day and one time at most: `{RECAP} weekly friday 16:00`.")
    weekday, hhmm = DEFAULT_WEEKDAY, DEFAULT_TIME
    for word in rest:
        if ":" in word:
            try:
                hhmm = parse_hhmm(word)
            except BadArgument:
                raise BadArgument(f"“{shorten(word, 40)}” is not a time of day: use 24-hour HH:MM, e.g. "
                                  f"`{RECAP} weekly friday 16:00`.") from None
        else:
            try:
                weekday = parse_weekday(word)
            except BadArgument:
                raise BadArgument(f"“{shorten(word, 40)}” is not a day of the week; try "
                                  f"`{RECAP} weekly friday 16:00`.") from None
    return RecapCommand("weekly", weekday, hhmm)


def recap_line(setting: RecapSetting | None) -> str:
    """The channel's recap in its settings (`/papers channel`)."""
    if setting is None:
        return f"*Weekly recap:* off (`{RECAP} weekly` turns it on)"
    where = f"({escape(setting.tz)} time)" if setting.tz else "(UTC)"
    return (f"*Weekly recap:* every {weekday_name(setting.weekday)} at {setting.at_time} {where}: the week's "
            "most liked and saved papers, and this channel's best nobody was shown")


def reply_recap(ctx: Context, client: WebClient, user: str, channel: str, cmd: RecapCommand,
                now: datetime | None = None) -> Reply:
    """Turn the channel's recap on (at the time meant in the caller's timezone) or off."""
    if cmd.action == "off":
        if not recap_off(ctx, channel):
            return {"text": f"This channel has no weekly recap. `{RECAP} weekly` starts one."}
        return {"text": f"No more weekly recaps here. `{RECAP} weekly` brings them back."}
    tz = refresh_timezone(ctx, client, user, fresh=True)  # the time is meant in the setter's zone
    now = now or datetime.now(UTC)
    setting = set_recap(ctx, channel, user, tz, cmd.weekday, cmd.time, now)
    first = next_recap(setting, now).astimezone(zone(tz))
    where = f"({escape(tz)} time)" if tz else "(UTC)"
    text = (f"Every {weekday_name(cmd.weekday)} at {cmd.time} {where} I'll post here what people in this "
            f"workspace liked and saved most in the past {DAYS} days (the top {TOP}, with counts, never who) "
            "and this channel's best papers nobody here was shown or rated yet; the first on "
            f"{first:%A} {first.day} {first:%B}. `{RECAP} off` stops it.")
    if follows_nothing(ctx, channel):
        text += (f"\nThis channel follows no topics yet, so there is nothing unclaimed to find: "
                 f"`{COMMAND} channel follow TOPICS` says what it cares about.")
    if is_member(client, channel) is False:
        text += "\n" + INVITE
    return {"text": text}
