"""`/papers watch`, `/papers watch remove N` and `/papers watches` (issue 43, scoop watch): parsed without
the database (a wrong argument is answered in the ack), answered, and declared (:data:`SUBCOMMANDS`,
:data:`TOPIC`). `watch` alone opens the form (with the slash command's trigger); `watch TEXT` adds the text
as it is. Run in a channel, each acts on the channel's watches; elsewhere on the person's. What a watch
does is :mod:`bot.usecases.watches`; its words are :mod:`bot.slack.views.watch`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from bot.errors import BadArgument, NotFound
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import HelpTopic, Reply, Request, Subcommand
from bot.slack.views import watch as view
from bot.usecases import watches as usecase
from bot.usecases.subjects import is_channel

REMOVE_HINT = (f"Say which watch to remove by its number, e.g. `{COMMAND} watch remove 1` "
               f"(`{COMMAND} watches` lists them).")


@dataclass(frozen=True)
class WatchCommand:
    """A parsed `watch …` or `watches`: ``action`` is "open" (the form), "add" (``text``), "remove"
    (``number``) or "list"."""

    action: str
    text: str = ""
    number: int = 0


def parse_watch(arg: str) -> WatchCommand:
    """`watch`, `watch TEXT` or `watch remove N`. Raises BadArgument saying what works."""
    first, _, rest = arg.strip().partition(" ")
    if first.casefold() == "remove":
        number = rest.strip().lstrip("#")
        if not number.isdigit() or int(number) < 1:
            raise BadArgument(REMOVE_HINT)
        return WatchCommand("remove", number=int(number))
    if not arg.strip():
        return WatchCommand("open")
    try:
        _, text = usecase.check_watch(None, arg)
    except BadArgument as exc:
        raise BadArgument(view.refusal(exc)) from None
    return WatchCommand("add", text=text)


def parse_watches(arg: str) -> WatchCommand:
    """`watches`, which takes nothing after it."""
    if arg.strip():
        raise BadArgument(f"`{COMMAND} watches` takes nothing after it; `{COMMAND} watch` describes a "
                          "project.")
    return WatchCommand("list")


def owner(req: Request) -> str:
    """Whose watches a command acts on: the channel's, run in one; else the person's."""
    return req.channel if is_channel(req.channel) else req.user


def reply_watch(req: Request, cmd: WatchCommand) -> Reply:
    """The answer to `watch …` or `watches`."""
    assert req.rt is not None
    ctx, whose = req.rt.ctx, owner(req)
    try:
        if cmd.action == "list":
            return {"text": view.listed(usecase.watches(ctx, whose), whose)}
        if cmd.action == "remove":
            return {"text": view.removed(usecase.remove_watch(ctx, whose, cmd.number))}
        if cmd.action == "add":
            return {"text": view.added(usecase.add_watch(ctx, whose, None, cmd.text, datetime.now(UTC)))}
    except (BadArgument, NotFound) as exc:
        return {"text": view.refusal(exc)}
    if req.client is None or not req.trigger_id:  # typed in the DM: no form can open from a message
        return {"text": f"Type `{COMMAND} watch` to open the form, or `{COMMAND} watch ` and your "
                        "project's description to add it as it is."}
    req.client.views_open(trigger_id=req.trigger_id, view=view.form(whose))
    return {"text": "Describe your project in the form."}


WATCH = Subcommand("watch", view.HELP, parse_watch, reply_watch)
WATCHES = Subcommand("watches", "",  # watch's line says it
                     parse_watches, reply_watch)
SUBCOMMANDS = (WATCH, WATCHES)
#: Only named in the short help's list of topics (its 1,200 characters are full); `help watch` details it.
TOPIC = HelpTopic("watch", "", SUBCOMMANDS, aliases=("scoop",))
