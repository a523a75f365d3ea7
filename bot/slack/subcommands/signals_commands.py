"""`/papers signals shares on|off`: whether the paper links a person posts in channels the bot is in count
as their interest (:mod:`bot.usecases.shares`); on by default."""

from __future__ import annotations

from bot.errors import BadArgument
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Subcommand
from bot.slack.subcommands.switches import Switch
from bot.state.context import Context
from bot.usecases.shares import set_share_signals

NAME = "signals"
HELP = (f"• `{COMMAND} signals shares off`: paper links you post in channels stop counting as interest; "
        f"`{COMMAND} signals shares on` (the default) counts each as a save")
EXTRA = ("A link to a paper (arXiv, a DOI, OpenReview, bioRxiv or medRxiv) that you post in a channel "
         "paperbot is in tells your digests you care about it, as saving it would, and that paper is not "
         "sent to you again. paperbot sees only the links Slack shows it for those sites, never your "
         "messages.")


SHARES = Switch(
    set_share_signals,
    f"Say `{COMMAND} signals shares off` (links you post stop counting as interest) or "
    f"`{COMMAND} signals shares on`. `{COMMAND} help signals` says more.",
    "Shared links count:", "Shared links already counted:",
    f"a paper link you post in a channel I'm in counts as interest, as a save does. "
    f"`{COMMAND} signals shares off` stops it.",
    "Shared links no longer count:", "Shared links already didn't count:",
    f"paper links you post in channels won't shape your digests. `{COMMAND} signals shares on` turns it "
    "back on.")


def parse_signals(arg: str) -> tuple[str, bool]:
    """``shares on`` or ``shares off`` (any case); anything else is a BadArgument pointing to the help."""
    first, _, rest = arg.strip().partition(" ")
    if first.lower() != "shares":
        raise BadArgument(SHARES.usage)
    return NAME, SHARES.parse(rest)


def reply_signals(ctx: Context, user_id: str, on: bool) -> Reply:
    """Turn share signals on or off, and say so (and whether it changed)."""
    return SHARES.reply(ctx, user_id, on)


SIGNALS = Subcommand(NAME, HELP, parse_signals, lambda req, cmd: reply_signals(req.rt.ctx, req.user, cmd[1]),
                     changes_home=True)
SUBCOMMANDS = (SIGNALS,)
#: Named in the short help's list of topics only: a setting few change.
TOPIC = HelpTopic("signals", "", SUBCOMMANDS, extra=EXTRA, aliases=("shares", "links"))
