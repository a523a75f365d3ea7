"""`/papers mute WORDS` and `/papers unmute WORD|all`: papers never sent (:mod:`bot.usecases.mutes`)."""

from __future__ import annotations

from collections.abc import Callable

from bot.errors import BadArgument
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import ECHO_LIMIT, Command, HelpTopic, Reply, Subcommand, quoted
from bot.slack.views.messages import fit
from bot.state.context import Context
from bot.usecases.mutes import mute, split_words, unmute


def _words(name: str, example: str) -> Callable[[str], Command]:
    """The parser of a subcommand taking comma-separated words (mute, unmute)."""

    def parse_words(arg: str) -> Command:
        if not split_words(arg):
            raise BadArgument(f"Say what to {name}: `{COMMAND} {name} {example}`.")
        return Command(name, arg)

    return parse_words


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


MUTE = Subcommand(
    "mute",
    f"• `{COMMAND} mute blockchain, large language model`: never send papers that mention these; "
    f"`{COMMAND} unmute blockchain` or `{COMMAND} unmute all` takes that back",
    _words("mute", "blockchain, large language model"),
    lambda req, cmd: reply_mute(req.rt.ctx, req.user, cmd), changes_home=True)
UNMUTE = Subcommand(
    "unmute", "",  # mute's line says it
    _words("unmute", f"blockchain` or `{COMMAND} unmute all"),
    lambda req, cmd: reply_unmute(req.rt.ctx, req.user, cmd), changes_home=True)
SUBCOMMANDS = (MUTE, UNMUTE)
TOPIC = HelpTopic("mute", f"`{COMMAND} mute blockchain` · `unmute`: papers never sent", SUBCOMMANDS)
