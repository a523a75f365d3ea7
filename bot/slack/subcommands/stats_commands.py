"""`/papers stats`: the person's own numbers, week by week over the last eight weeks of their timezone, and
where their likes came from (:mod:`bot.usecases.stats`, :mod:`bot.slack.views.stats`)."""

from __future__ import annotations

from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Request, Subcommand, nothing_after
from bot.slack.timezones import refresh_timezone
from bot.slack.views.stats import stats_reply
from bot.usecases.stats import person_stats


def reply_stats(req: Request) -> Reply:
    ctx = req.rt.ctx
    tz = refresh_timezone(ctx, req.client, req.user)  # weeks of their own timezone, as Slack has it now
    return stats_reply(person_stats(ctx, req.user, tz=tz))


STATS = Subcommand(
    "stats", f"• `{COMMAND} stats`: your own numbers, week by week over 8 weeks: papers shown, rated and "
             "saved, your 👍 share, and the topics and feeds your likes came from",
    nothing_after("stats"), lambda req, cmd: reply_stats(req))
SUBCOMMANDS = (STATS,)
TOPIC = HelpTopic("stats", f"`{COMMAND} stats`: your numbers by week", SUBCOMMANDS)
