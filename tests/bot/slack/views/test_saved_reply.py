"""`/papers saved`'s answer: valid Block Kit within Slack's limits however long the reading list."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import Block

import bot.slack.subcommands.personal as commands
from bot.slack.views.messages import FALLBACK_LIMIT
from bot.usecases.saved import SavedItem, SavedPage
from storage import Paper
from tests.bot.slack.views.test_messages import HOSTILE, check_limits


@pytest.mark.parametrize("n", [1, 30, 600])
def test_the_saved_list_is_valid_block_kit_within_slacks_limits(monkeypatch, n):
    items = [SavedItem(Paper(id=f"p{i}", title=f"{HOSTILE} {'long title ' * 30} {i}", abstract="x",
                             authors=["Ann Smith", "Bo Jones"], url=f"https://example.org/{'x' * 80}/{i}",
                             venue="NeurIPS", published="2024-01-01"), f"2024-05-{i % 28 + 1:02d}T10:00:00")
             for i in range(n)]
    monkeypatch.setattr(commands, "saved_page", lambda ctx, user, limit: SavedPage(items[:limit], len(items)))
    reply = commands.reply_saved(None, "U1")
    blocks = reply["blocks"]
    check_limits(blocks)
    for block in blocks:
        Block.parse(block).validate_json()
    assert len(reply["text"]) <= FALLBACK_LIMIT and "<!channel>" not in reply["text"]
    if n == 600:  # more than one message holds: the rest is pointed to
        assert "more: `/papers export` has them all" in blocks[-1]["elements"][0]["text"]


# -- a long reading list: only what is shown is read and rendered ----------------------------------------

LONG = 3000


@pytest.fixture
def long_list(tmp_path):
    """A context whose person U1 saved LONG untitled papers (each shown title derived from its abstract)."""
    from bot.state.context import Context

    ctx = Context.open(str(tmp_path / "saved.db"))
    ctx.store.upsert_papers([Paper(id=f"p{i}", title="", abstract=f"We study problem number {i} of graphs. "
                                   "It is hard.", authors=["Ann Smith"]) for i in range(LONG)])
    with ctx.store.transaction():
        ctx.store.ensure_person("U1")
        for i in range(LONG):
            ctx.store.save_paper("U1", f"p{i}")
    yield ctx
    ctx.store.close()


@pytest.fixture
def derivations(monkeypatch):
    """How many titles are worked out (``split_title`` calls from the shown-title code), cold."""
    import bot.presentation.paper_view as view

    view.clear_kept()  # a title kept from another test would not be counted
    calls = {"split_title": 0}
    original = view.split_title

    def spy(text, *args, **kwargs):
        calls["split_title"] += 1
        return original(text, *args, **kwargs)

    monkeypatch.setattr(view, "split_title", spy)
    return calls


def _listed(blocks) -> list[str]:
    return [line for block in blocks if block["type"] == "section"
            for line in block["text"]["text"].split("\n") if line.startswith("• ")]


@pytest.mark.parametrize("cap", [commands.SAVED_SHOWN, LONG])  # LONG: the message fills up first
def test_a_long_reading_list_reads_and_renders_only_what_it_shows(long_list, derivations, monkeypatch, cap):
    monkeypatch.setattr(commands, "SAVED_SHOWN", cap)
    fetched = []
    get_papers = long_list.store.get_papers
    monkeypatch.setattr(long_list.store, "get_papers", lambda ids: get_papers(fetched.extend(ids) or ids))
    reply = commands.reply_saved(long_list, "U1")
    shown = _listed(reply["blocks"])
    assert 0 < len(shown) <= min(cap, LONG - 1) and "number 2999 of graphs" in shown[0]  # newest first
    assert derivations["split_title"] <= len(shown) + 1  # at most the one line that did not fit
    assert len(fetched) <= cap
    assert reply["blocks"][0]["text"]["text"] == f"*Your saved papers* ({LONG}), newest first:"
    assert reply["blocks"][-1]["elements"][0]["text"].startswith(f"and {LONG - len(shown)} more:")


def test_homes_latest_saved_papers_read_only_those(long_list, derivations, monkeypatch):
    from bot.slack.views.home_view import home_view
    from bot.usecases.home import LATEST_SAVED, home_data

    fetched = []
    get_papers = long_list.store.get_papers
    monkeypatch.setattr(long_list.store, "get_papers", lambda ids: get_papers(fetched.extend(ids) or ids))
    data = home_data(long_list, "U1")
    assert data.saved_count == LONG and len(data.latest_saved) == LATEST_SAVED
    assert len(fetched) == LATEST_SAVED
    home_view(data)
    assert derivations["split_title"] <= LATEST_SAVED


def test_a_list_that_fits_is_shown_whole_without_a_more_line(monkeypatch):
    items = [SavedItem(Paper(id=f"p{i}", title=f"Title {i}", abstract="x"), "2024-05-01T10:00:00")
             for i in range(7)]
    monkeypatch.setattr(commands, "saved_page", lambda ctx, user, limit: SavedPage(items[:limit], len(items)))
    reply = commands.reply_saved(None, "U1")
    assert [line.split("·")[0] for line in _listed(reply["blocks"])] == [f"• Title {i} " for i in range(7)]
    assert all(block["type"] == "section" for block in reply["blocks"])
    assert reply["text"].startswith("*Your saved papers* (7), newest first:\n• Title 0 ·")
