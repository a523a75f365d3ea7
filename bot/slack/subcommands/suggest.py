"""`/papers suggest on|off`: whether colleagues may suggest papers to the person with "Who should read
this?" (:mod:`bot.usecases.suggestions`); off by default. Its help topic, ``team``, also tells of the
library a person brings in the DM."""

from __future__ import annotations

from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Subcommand
from bot.slack.subcommands.switches import Switch
from bot.slack.views.library import HELP as LIBRARY_HELP
from bot.state.context import Context
from bot.usecases.settings import set_suggest

NAME = "suggest"
HELP = (f"• `{COMMAND} suggest on`: colleagues may send you papers that fit your interests with *Who should "
        f"read this?* (a button on every paper, and a message shortcut); `{COMMAND} suggest off` stops it "
        "(off by default)")
EXTRA = ("*Who should read this?* (a button on every paper message, and a message shortcut on any message "
         "with an arXiv link or DOI) shows only you up to 3 colleagues the paper fits, each with why; "
         "*Send* puts it in their DM, naming you. Only people who said "
         f"`{COMMAND} suggest on` are suggested, and never for a paper they have seen or saved.")


SWITCH = Switch(
    set_suggest,
    f"Say `{COMMAND} suggest on` (colleagues may send you papers) or `{COMMAND} suggest off`. "
    f"`{COMMAND} help suggest` says more.",
    "Suggestions are on:", "Suggestions were already on:",
    f"colleagues may send you papers that fit your interests with *Who should read this?*, one message "
    f"each. `{COMMAND} suggest off` stops it.",
    "Suggestions are off:", "Suggestions were already off:",
    f"nobody will be suggested you as a reader. `{COMMAND} suggest on` turns them back on.")


def parse_suggest(arg: str) -> tuple[str, bool]:
    """``on`` or ``off`` (any case); anything else is a BadArgument pointing to the help."""
    return NAME, SWITCH.parse(arg)


def reply_suggest(ctx: Context, user_id: str, on: bool) -> Reply:
    """Turn suggestions on or off, and say so (and whether it changed)."""
    return SWITCH.reply(ctx, user_id, on)


SUGGEST = Subcommand(NAME, HELP, parse_suggest, lambda req, cmd: reply_suggest(req.rt.ctx, req.user, cmd[1]),
                     changes_home=True)
SUBCOMMANDS = (SUGGEST,)
#: Colleagues: suggestions, and a library brought in the DM (no subcommand of its own).
TOPIC = HelpTopic("team", f"`{COMMAND} {NAME} on`: colleagues may send you papers; a .bib, .ris or "
                          "Zotero CSV in our DM brings your library", SUBCOMMANDS,
                  extra=EXTRA + "\n" + LIBRARY_HELP,
                  aliases=("who", "suggestions", "colleagues", "library", "zotero", "bibtex"))
