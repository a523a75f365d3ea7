"""`/papers signals shares on|off`: whether the paper links a person posts in channels the bot is in count
as their interest (:mod:`bot.usecases.shares`); on by default."""

from __future__ import annotations

from bot.errors import BadArgument
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Subcommand
from bot.state.context import Context
from bot.usecases.shares import set_share_signals

NAME = "signals"
HELP = (f"• `{COMMAND} signals shares off`: paper links you post in channels stop counting as interest; "
        f"`{COMMAND} signals shares on` (the default) counts each as a save")
EXTRA = ("A link to a paper (arXiv, a DOI, OpenReview, bioRxiv or medRxiv) that you post in a channel "
         "paperbot is in tells your digests you care about it, as saving it would, and that paper is not "
         "sent to you again. paperbot sees only the links Slack shows it for those sites, never your "
         "messages.")


def parse_signals(arg: str) -> tuple[str, bool]:
    """``shares on`` or ``shares off`` (any case); anything else is a BadArgument pointing to the help."""
    words = arg.lower().split()
    if len(words) != 2 or words[0] != "shares" or words[1] not in ("on", "off"):
        raise BadArgument(f"Say `{COMMAND} signals shares off` (links you post stop counting as interest) or "
                          f"`{COMMAND} signals shares on`. `{COMMAND} help signals` says more.")
    return NAME, words[1] == "on"


def reply_signals(ctx: Context, user_id: str, on: bool) -> Reply:
    """Turn share signals on or off, and say so (and whether it changed)."""
    changed = set_share_signals(ctx, user_id, on)
    if on:
        what = "Shared links count" if changed else "Shared links already counted"
        return {"text": f"{what}: a paper link you post in a channel I'm in counts as interest, as a save "
                        f"does. `{COMMAND} signals shares off` stops it."}
    what = "Shared links no longer count" if changed else "Shared links already didn't count"
    return {"text": f"{what}: paper links you post in channels won't shape your digests. "
                    f"`{COMMAND} signals shares on` turns it back on."}


SIGNALS = Subcommand(NAME, HELP, parse_signals, lambda req, cmd: reply_signals(req.rt.ctx, req.user, cmd[1]),
                     changes_home=True)
SUBCOMMANDS = (SIGNALS,)
#: Named in the short help's list of topics only: a setting few change.
TOPIC = HelpTopic("signals", "", SUBCOMMANDS, extra=EXTRA, aliases=("shares", "links"))
