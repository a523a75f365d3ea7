"""`/papers help` and `/papers help TOPIC`: the short help (a line a topic) and each topic's details, made
from the topics :mod:`bot.slack.subcommands.personal` gathers (each group's, declared with its
subcommands); and the one topic of no subcommand, ``buttons``: what paperbot offers beyond them."""

from __future__ import annotations

from collections.abc import Iterable

from bot.slack.manifest import COMMAND
from bot.slack.subcommands import Command, HelpTopic, Reply, Subcommand
from bot.slack.views.messages import fit

#: Characters the short help may take: a line a group, on one screen of a laptop's Slack (a topic for a
#: setting few change has no line of its own: it is only named in the list of topics).
SHORT_HELP_MOST = 1400  # 1200 until issue 43's `why`, `conference` and `watch` came

#: What a paper message offers, and paperbot beyond the subcommands (`/papers help buttons`).
BUTTONS_HELP = (
    "React to a paper with :+1: :heart: :star: or :fire: for more like it, :-1: for fewer, :bookmark: to "
    "save it; remove the reaction to take it back. Its buttons: Save (click again to unsave), 👍, 👎, "
    "More like this (similar papers in its thread), and Who should read this? (colleagues it fits, to "
    "send it to, below).\n"
    "• paperbot's *Home* tab shows all of this, with forms to change it, and for someone new a round of "
    "papers to rate to get started\n"
    "An arxiv.org link posted where I am shows the paper's card; the message shortcut *Save paper* (in a "
    "message's ⋮ menu) saves the arXiv papers and DOIs it names, and *Who should read this?* finds "
    "colleagues for its paper. In our DM, type the same subcommands "
    f"without `{COMMAND}`, e.g. `recommend 3`.")

TOPIC = HelpTopic("buttons",
                  "React :+1: :-1: or :bookmark: on a paper, or click its buttons; Home shows it all",
                  extra=BUTTONS_HELP, aliases=("reactions", "home", "dm"))
#: The help's own subcommand is made with the topics (:class:`Guide`).
SUBCOMMANDS: tuple[Subcommand, ...] = ()


class Guide:
    """The help over ``topics`` (in the short help's order): ``short``, :meth:`text`, and the `help`
    subcommand answering with them inside the ack."""

    def __init__(self, topics: Iterable[HelpTopic]):
        self.topics = tuple(topics)
        self.names = ", ".join(t.name for t in self.topics)
        self.by_word = {word: topic for topic in self.topics for word in topic.words}
        self.short = ("*paperbot* sends you new papers that match your interests.\n"
                      + "\n".join(f"• {topic.summary}" for topic in self.topics if topic.summary)
                      + f"\n`{COMMAND} help TOPIC` for more: {self.names}.")
        self.subcommand = Subcommand("help", "", lambda arg: Command("help", arg),
                                     lambda req, cmd: self.reply(cmd.arg), in_ack=True)

    def text(self, topic: str = "") -> str:
        """The short help, or the details of one topic (named by it, an alias or one of its
        subcommands); for an unknown topic, which topics there are."""
        word = " ".join(topic.split()).casefold()
        if not word:
            return self.short
        found = self.by_word.get(word)
        if found is None:
            return (f"I have no help on “{fit(topic, 40)}”. Try `{COMMAND} help TOPIC` with one of: "
                    f"{self.names}.")
        return found.details()

    def reply(self, topic: str = "") -> Reply:
        return {"text": self.text(topic)}
