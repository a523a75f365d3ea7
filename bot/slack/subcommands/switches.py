"""A `/papers` setting that is on or off (`suggest`, `followups`, `signals shares`, `digest compact|quiet|
highlights`): reading ``on``/``off`` and answering, in one place, with each setting's own words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import BadArgument
from bot.slack.subcommands import Reply
from bot.state.context import Context


@dataclass(frozen=True)
class Switch:
    """One on/off setting: what saves it (returning whether it changed), and the words of each answer
    (``now_*`` when it changed, ``already_*`` when it was so, then ``after_*``: how to go back)."""

    save: Callable[[Context, str, bool], bool]
    usage: str  # the refusal of anything but on or off
    now_on: str
    already_on: str
    after_on: str
    now_off: str
    already_off: str
    after_off: str

    def parse(self, arg: str) -> bool:
        """``on`` (True) or ``off`` (False), any case; anything else is a BadArgument saying the usage."""
        word = arg.strip().lower()
        if word not in ("on", "off"):
            raise BadArgument(self.usage)
        return word == "on"

    def reply(self, ctx: Context, user_id: str, on: bool) -> Reply:
        """Set it, and say so (and whether it changed)."""
        changed = self.save(ctx, user_id, on)
        if on:
            return {"text": f"{self.now_on if changed else self.already_on} {self.after_on}"}
        return {"text": f"{self.now_off if changed else self.already_off} {self.after_off}"}
