"""The `/papers` subcommands, each declared once (:class:`Subcommand`): its name, its help line, how the
words after it are parsed, what answers it, and whether Home changes after it. One module a group of
subcommands holds their parsers, replies and declarations (``SUBCOMMANDS``) with the group's
:class:`HelpTopic` (``TOPIC``): ``follow_commands``, ``feed_commands``, ``mute_commands``,
``alert_commands``, ``recommend_commands``, ``digest_commands``, ``saved_commands``, ``suggest``,
``channel`` (`/papers channel …`, a registry of its own), ``forget_commands``, and ``help`` (the help
itself). :mod:`bot.slack.subcommands.personal` gathers them into the one :class:`Registry` that
answers the slash command (:mod:`bot.slack.listeners.commands`) and what is typed in paperbot's DM
(:mod:`bot.slack.listeners.dm_commands`) alike, and into the help.

Parsing needs no database, so a wrong argument is answered at once (in the slash command's ack); the
answer itself runs after the ack, unless the subcommand is declared ``in_ack`` (help).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.errors import BadArgument
from bot.presentation.reasons import shorten
from bot.slack.manifest import COMMAND
from bot.slack.views.messages import escape, fit, unescape

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.slack.runtime import Runtime

#: The keyword arguments of ack()/respond(): {"text": ..., ["blocks": ...]}.
Reply = dict

DEFAULT_RECOMMEND = 5  # papers `/papers recommend` sends unless told
ECHO_LIMIT = 200  # characters of the caller's own text echoed back
QUOTED_LIMIT = 500  # characters of one list of echoed items in a reply

#: Control characters nobody types (a forged request could hold them; PostgreSQL can't store NUL).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(text: str) -> str:
    """The text as the person typed it (the manifest asks Slack not to rewrite it; entities decoded),
    without control characters."""
    return _CONTROL.sub("", unescape(text or "")).strip()


@dataclass(frozen=True)
class Request:
    """Who runs a subcommand and where (the channel it was typed in: a channel, or a DM), with the
    runtime of their workspace and the Web API client; both are None for what is answered in the ack."""

    user: str
    channel: str = ""
    rt: Runtime | None = None
    client: WebClient | None = None
    trigger_id: str = ""  # the slash command's, to open a form (a DM's typed command has none)


def _never(channel: str) -> str | None:
    return None


@dataclass(frozen=True)
class Subcommand:
    """One `/papers` subcommand, declared once.

    ``parse(arg)`` turns the words after the name into what ``handle(request, parsed)`` needs, without
    the database; it raises BadArgument saying what was wrong. ``changes_home`` (or
    ``changes_home(parsed)``) says whether the App Home tab shows something else afterwards.
    ``refusal(channel)`` is the answer when the subcommand can't run where it was typed (checked
    before parsing), else None. ``in_ack``: answered inside the slash command's ack (it must need no
    database)."""

    name: str
    help: str  # its line(s) in the help, "" when another's line covers it
    parse: Callable[[str], Any]
    handle: Callable[[Request, Any], Reply]
    changes_home: bool | Callable[[Any], bool] = False
    refusal: Callable[[str], str | None] = _never
    in_ack: bool = False


@dataclass(frozen=True)
class Parsed:
    """A subcommand and what its parser made of the words after it."""

    subcommand: Subcommand
    args: Any

    def answer(self, request: Request) -> Reply:
        return self.subcommand.handle(request, self.args)

    @property
    def changes_home(self) -> bool:
        changes = self.subcommand.changes_home
        return changes(self.args) if callable(changes) else changes


@dataclass(frozen=True)
class Refused:
    """A subcommand typed where it can't run: ``text`` says where to run it instead."""

    text: str


def _unknown_subcommand(word: str) -> str:
    return f"I don't know the subcommand “{shorten(word, 40)}”."


class Registry:
    """Subcommands, in the order their help lines are shown. ``default`` answers an empty text (it
    need not be one of them: then no word names it); ``unknown(word)`` says a word is none of them.
    ``cleans``: the text is as Slack sent it (entities, control characters), else already cleaned (the
    words after an outer subcommand's name)."""

    def __init__(self, subcommands: Iterable[Subcommand], default: Subcommand,
                 unknown: Callable[[str], str] = _unknown_subcommand, cleans: bool = True):
        self.subcommands = {sub.name: sub for sub in subcommands}
        self.default = default
        self.unknown = unknown
        self.cleans = cleans

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.subcommands)

    def help_lines(self) -> str:
        """Every subcommand's help, one after the other, in the order they were declared."""
        return "\n".join(sub.help for sub in self.subcommands.values() if sub.help)

    def find(self, text: str) -> tuple[Subcommand, str]:
        """The subcommand ``text`` names (its first word, in any case) and the words after it.
        Raises BadArgument for a word that is no subcommand."""
        parts = (clean(text) if self.cleans else text).split(None, 1)
        if not parts:
            return self.default, ""
        first, rest = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        sub = self.subcommands.get(first.lower())
        if sub is None:
            raise BadArgument(self.unknown(first))
        return sub, rest

    def parse(self, text: str, channel: str = "") -> Parsed | Refused:
        """``text`` (the words after `/papers`, or typed in the DM), typed in ``channel``: parsed, or
        refused there. Raises BadArgument saying what was wrong."""
        sub, rest = self.find(text)
        refusal = sub.refusal(channel)
        if refusal is not None:
            return Refused(refusal)
        return Parsed(sub, sub.parse(rest))

    def answer(self, request: Request, text: str) -> Reply:
        """The answer to ``text`` for ``request``, parsed and answered at once (what the DM does)."""
        parsed = self.parse(text, request.channel)
        if isinstance(parsed, Refused):
            return {"text": parsed.text}
        return parsed.answer(request)


def quoted(items: list[str], budget: int = QUOTED_LIMIT) -> str:
    """The items quoted and escaped, as many as fit in about ``budget`` characters (at most 20), then
    how many more: a reply of several such lists stays within Slack's advised 4,000 characters."""
    shown: list[str] = []
    for item in items[:20]:
        text = f"“{fit(item, ECHO_LIMIT)}”"
        if shown and sum(len(s) + 2 for s in shown) + len(text) > budget:
            break
        shown.append(text)
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def papers(n: int) -> str:
    """"1 paper", "2 papers"."""
    return f"{n} paper" if n == 1 else f"{n} papers"


def where(tz: str | None) -> str:
    """The timezone a person's times are meant in, as a reply says it."""
    return f"({escape(tz)} time)" if tz else "(your Slack timezone)"


@dataclass(frozen=True)
class Command:
    """One parsed `/papers` request. ``name`` is a subcommand, or digest-at / digest-off / digest-now /
    digest-weekly / digest-daily / digest-compact / digest-quiet (``arg`` on or off), or export-bibtex /
    export-data, or feed-add / feed-remove."""

    name: str
    arg: str = ""
    count: int = DEFAULT_RECOMMEND
    time: str | None = None
    weekday: int | None = None


def nothing_after(name: str) -> Callable[[str], Command]:
    """The parser of a subcommand that takes no words after it."""

    def parse_nothing(arg: str) -> Command:
        if arg:
            raise BadArgument(f"`{COMMAND} {name}` takes nothing after it.")
        return Command(name)

    return parse_nothing


@dataclass(frozen=True)
class HelpTopic:
    """One group of the help: its line in the short help (``summary``; none for a topic that is only named
    there: a setting few change), and the subcommands whose help lines (each declared once, with its
    subcommand) `/papers help NAME` shows, then ``extra``. ``aliases``: other words naming it (each of its
    subcommands' names does too)."""

    name: str
    summary: str
    subcommands: tuple[Subcommand, ...] = ()
    extra: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def words(self) -> tuple[str, ...]:
        """Every word naming the topic."""
        return (self.name, *(sub.name for sub in self.subcommands), *self.aliases)

    def details(self) -> str:
        lines = [sub.help for sub in self.subcommands if sub.help]
        return "\n".join([f"*{COMMAND} help {self.name}*", *lines, *([self.extra] if self.extra else [])])
