"""Every `/papers` subcommand, gathered: :data:`GROUPS` lists the modules declaring them (each holds its
group's parsers, replies, ``SUBCOMMANDS`` and help ``TOPIC``), and from that one list come the
:data:`REGISTRY` the slash command and the DM answer through, and the help (:data:`GUIDE`). A new
subcommand is a module of its own, named here.

Only what needs no database is answered inside the ack: help, and a command that can't be parsed.
Every other subcommand acks at once with nothing and answers through ``respond`` when done, so the
ack never waits on the database (another process may hold its write lock) and the command is carried
out once, however often the same signed request arrives (see :mod:`bot.slack.background`).
"""

from __future__ import annotations

from bot.slack.subcommands import (
    Command,
    Registry,
    Reply,
    alert_commands,
    channel,
    conference_commands,
    digest_commands,
    feed_commands,
    follow_commands,
    followup_commands,
    forget_commands,
    help_topics,
    mute_commands,
    recommend_commands,
    saved_commands,
    signals_commands,
    stats_commands,
    suggest,
    watch_commands,
    why_commands,
)

#: The groups of subcommands, in the order the help shows their topics.
GROUPS = (follow_commands, feed_commands, mute_commands, alert_commands, recommend_commands, digest_commands,
          saved_commands, stats_commands, why_commands, followup_commands, watch_commands, help_topics,
          suggest, signals_commands, channel, forget_commands, conference_commands)

HELP_TOPICS = tuple(group.TOPIC for group in GROUPS)
GUIDE = help_topics.Guide(HELP_TOPICS)
HELP = GUIDE.short
help_text = GUIDE.text
SHORT_HELP_MOST = help_topics.SHORT_HELP_MOST

#: Every `/papers` subcommand, each declared once in its group's module.
REGISTRY = Registry([GUIDE.subcommand, *(sub for group in GROUPS for sub in group.SUBCOMMANDS)],
                    default=GUIDE.subcommand)

#: The subcommands' names (what a DM's first word must be to be taken as one).
SUBCOMMANDS = REGISTRY.names


def reply_help(topic: str = "") -> Reply:
    """The short help, or `/papers help TOPIC`'s details (:func:`help_text`)."""
    return GUIDE.reply(topic)


def parse(text: str) -> Command:
    """Parse the text after `/papers` (`channel …` is parsed where it was run: it is kept as typed).
    Raises BadArgument saying what was wrong."""
    sub, rest = REGISTRY.find(text)
    if sub is channel.CHANNEL_SUBCOMMAND:
        return Command(sub.name, rest)
    return sub.parse(rest)
