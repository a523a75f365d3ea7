"""``python -m tests.e2e.quick_ticks ARGS``: the ``paperbot`` command, except that `paperbot run`'s digest
scheduler ticks every :data:`TICK_SECONDS` instead of every 30 s.

For tests that run real `paperbot run` processes (tests/e2e/replicas.py): a digest due now goes out at the
next tick, and the test need not wait for the wall clock's next half minute. The ticks stay on the wall
clock's grid, so replicas started apart still look for due digests at the same moments.
"""

from __future__ import annotations

import functools

import bot.slack.server
from bot.cli.main import main

TICK_SECONDS = 1.0

if __name__ == "__main__":
    # serve() looks start_scheduler up in its module at call time: this is the one place the interval is set.
    bot.slack.server.start_scheduler = functools.partial(bot.slack.server.start_scheduler,
                                                         interval=TICK_SECONDS)
    main()
