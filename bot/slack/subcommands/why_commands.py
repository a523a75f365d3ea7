"""`/papers why LINK|ID|"title words"`: whether paperbot holds a paper, and what kept it from the person
asking (shown on a day, a muted word, outside their feeds, its rank below the cut, …) or when it was
sent; parsed, answered (:mod:`bot.usecases.why`, worded by :mod:`bot.slack.views.why`) and declared
(:data:`SUBCOMMANDS`, :data:`TOPIC`)."""

from __future__ import annotations

from bot.errors import Missing
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import Command, HelpTopic, Reply, Subcommand
from bot.slack.views.why import why_reply
from bot.state.context import Context
from bot.usecases.why import why

WHY_HELP = (
    f"• `{COMMAND} why arxiv.org/abs/2501.01234` (or an arXiv id, a DOI, an OpenReview, PubMed, ACL "
    f"Anthology or bioRxiv link, or `{COMMAND} why \"title words\"`): whether I hold that paper and since "
    "when, and when it was sent to you or what kept it out of your digest (shown before, a muted word, "
    "outside your feeds, its rank below the cut, …)")


def parse_why(arg: str) -> Command:
    """`why NAME`: the name as typed. Raises Missing("why") for nothing."""
    if not arg.strip():
        raise Missing("why")
    return Command("why", arg.strip())


def reply_why(ctx: Context, user_id: str, cmd: Command) -> Reply:
    return why_reply(why(ctx, user_id, cmd.arg))


WHY = Subcommand("why", WHY_HELP, parse_why, lambda req, cmd: reply_why(req.rt.ctx, req.user, cmd))
SUBCOMMANDS = (WHY,)
TOPIC = HelpTopic("why", f"`{COMMAND} why LINK`: why a paper came to you, or didn't", SUBCOMMANDS,
                  aliases=("why not",))
