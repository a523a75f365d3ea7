"""`/papers followups on|off`: whether a person is told what became of the papers they saved or liked (a new
version whose abstract changed, a venue or journal, a DOI, a code link, a withdrawal), in their next digest
or a short message of its own (:mod:`bot.usecases.followups`); on by default."""

from __future__ import annotations

from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Subcommand
from bot.slack.subcommands.switches import Switch
from bot.state.context import Context
from bot.usecases.settings import set_followups

NAME = "followups"
HELP = (f"• `{COMMAND} followups off`: no word on what became of the papers you saved or liked (a new "
        f"version, a venue, a DOI, code, a withdrawal); `{COMMAND} followups on` brings it back (on by "
        "default)")
EXTRA = ("When a paper you saved or liked gets a new version whose abstract changed, is accepted or "
         "published (a venue or a journal version), gets a DOI or a code link (GitHub, GitLab, Hugging Face, "
         "Zenodo), or "
         "is withdrawn, your next digest says so in one short block (“2 papers you saved moved on: …”), or, "
         "on a day without a digest, one short message of its own, at most one a day. Each is told once. A "
         "channel's digest does the same for the papers liked there (👍 on its papers).")


SWITCH = Switch(
    set_followups,
    f"Say `{COMMAND} followups on` (hear what became of papers you saved or liked) or "
    f"`{COMMAND} followups off`. `{COMMAND} help followups` says more.",
    "Follow-ups are on:", "Follow-ups were already on:",
    f"when a paper you saved or liked gets a new version, a venue, a DOI or code, or is withdrawn, your next "
    f"digest says so. `{COMMAND} followups off` stops it.",
    "Follow-ups are off:", "Follow-ups were already off:",
    f"you won't hear what becomes of the papers you saved or liked. `{COMMAND} followups on` turns them "
    "back on.")


def parse_followups(arg: str) -> tuple[str, bool]:
    """``on`` or ``off`` (any case); anything else is a BadArgument pointing to the help."""
    return NAME, SWITCH.parse(arg)


def reply_followups(ctx: Context, user_id: str, on: bool) -> Reply:
    """Turn follow-ups on or off, and say so (and whether it changed)."""
    return SWITCH.reply(ctx, user_id, on)


FOLLOWUPS = Subcommand(NAME, HELP, parse_followups,
                       lambda req, cmd: reply_followups(req.rt.ctx, req.user, cmd[1]), changes_home=True)
SUBCOMMANDS = (FOLLOWUPS,)
#: Named in the short help's list of topics only: a setting few change (on by default).
TOPIC = HelpTopic("followups", "",
                  SUBCOMMANDS, extra=EXTRA, aliases=("followup", "follow-ups", "news"))
