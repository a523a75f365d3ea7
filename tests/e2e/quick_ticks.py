"""``python -m tests.e2e.quick_ticks ARGS``: the ``paperbot`` command, except that `paperbot run`'s digest
scheduler ticks every :data:`TICK_SECONDS` instead of every 30 s, and its paper index looks for papers
added by other processes every :data:`REFRESH_SECONDS` instead of every 15 s.

For tests that run real `paperbot run` processes (tests/e2e/replicas.py): a digest due now goes out at the
next tick, and a paper another process ingested shows at the next look, without waiting for the wall
clock's next half minute or a quarter minute. The ticks stay on the wall clock's grid, so replicas started
apart still look for due digests at the same moments.
"""

from __future__ import annotations

import functools

import bot.slack.server
import bot.state.context
from bot.cli.main import main
from bot.state.engine import Engine

TICK_SECONDS = 1.0
REFRESH_SECONDS = 1.0


class QuickEngine(Engine):
    """The paper index, refreshed every :data:`REFRESH_SECONDS`."""

    def __init__(self, store, refresh_every: float = REFRESH_SECONDS, background_refit: bool = False):
        super().__init__(store, refresh_every, background_refit)


if __name__ == "__main__":
    # serve() and Context.open look these up in their modules at call time: the one place each is changed.
    bot.slack.server.start_scheduler = functools.partial(bot.slack.server.start_scheduler,
                                                         interval=TICK_SECONDS)
    bot.state.context.Engine = QuickEngine
    main()
