"""`/papers watch …` and `watches` (bot/slack/subcommands/watch_commands.py): parsed without the database, a
wrong argument answered in one line saying what works; `watch` alone opens the form with the command's
trigger; run in a channel, the channel's watches; the replies escape what they echo."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.errors import BadArgument
from bot.slack.subcommands import Request
from bot.slack.subcommands.personal import REGISTRY
from bot.slack.subcommands.watch_commands import WatchCommand, reply_watch
from bot.slack.views import watch as view
from tests.bot.usecases.conftest import refused


def parsed(text: str):
    return REGISTRY.parse(text).args


class Client:
    """Records the modals opened."""

    def __init__(self):
        self.opened: list[tuple[str, dict]] = []

    def views_open(self, trigger_id: str, view: dict) -> dict:
        self.opened.append((trigger_id, view))
        return {"ok": True, "view": {"id": "V1"}}


def ask(ctx, text: str, user: str = "U1", channel: str = "DU1", client=None, trigger: str = "") -> str:
    request = Request(user, channel, SimpleNamespace(ctx=ctx), client, trigger)
    return reply_watch(request, parsed(text))["text"]


def test_the_words_after_watch():
    assert parsed("watch") == WatchCommand("open")
    assert parsed("watch remove 2") == WatchCommand("remove", number=2)
    assert parsed("WATCH Remove #1") == WatchCommand("remove", number=1)
    assert parsed("watch  Coral reefs bleach.  ") == WatchCommand("add", text="Coral reefs bleach.")
    assert parsed("watches") == WatchCommand("list")


@pytest.mark.parametrize(("text", "says"), [
    ("watch remove", "Say which watch to remove by its number"),
    ("watch remove two", "Say which watch to remove by its number"),
    ("watch remove 0", "Say which watch to remove by its number"),
    ("watch " + "x" * 3001, "at most 3,000 characters, not 3,001"),
    ("watches mine", "takes nothing after it"),
])
def test_wrong_arguments_say_what_works_in_one_line(text, says):
    with refused(BadArgument, says) as caught:
        REGISTRY.parse(text)
    assert "\n" not in str(caught.value)


def test_watch_alone_opens_the_form_with_the_commands_trigger(ctx):
    client = Client()
    assert "form" in ask(ctx, "watch", client=client, trigger="T.1")
    [(trigger, form)] = client.opened
    assert trigger == "T.1" and form["callback_id"] == view.FORM_CALLBACK and form["private_metadata"] == "U1"
    # Typed in the DM (no trigger), it says how to open it.
    assert "to open the form" in ask(ctx, "watch", client=client)
    # In a channel, the form is the channel's, and says its alerts are posted there.
    ask(ctx, "watch", channel="C42", client=client, trigger="T.2")
    assert client.opened[-1][1]["private_metadata"] == "C42"
    assert "posted *in this channel*" in str(client.opened[-1][1]["blocks"])


def test_add_list_and_remove_with_one_line_for_a_watch_that_is_not(ctx):
    assert ask(ctx, "watches").startswith("No watches yet")
    assert "Watching for papers close to your project" in ask(ctx, "watch <!channel> & *reefs* bleach.")
    listed = ask(ctx, "watches")
    assert "1. &lt;!channel&gt; &amp;" in listed and "<!channel>" not in listed
    assert ask(ctx, "watch remove 9") == ("There is no watch 9: you have 1 (1 to 1); `/papers watches` lists "
                                          "them.")
    assert ask(ctx, "watch remove 1").startswith("Removed the watch")
    assert ask(ctx, "watch remove 1").startswith("There is no watch 1: you have none.")


def test_a_channels_watches_are_the_channels(ctx):
    ask(ctx, "watch Coral reefs bleach in heat waves.", channel="C42")
    assert ask(ctx, "watches").startswith("No watches yet")
    assert ask(ctx, "watches", user="U2", channel="C42").startswith("*This channel's watches* (1 of")
