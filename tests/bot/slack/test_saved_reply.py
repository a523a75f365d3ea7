"""`/papers saved`'s answer: valid Block Kit within Slack's limits however long the reading list."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import Block

import bot.slack.subcommands.personal as commands
from bot.slack.views.messages import FALLBACK_LIMIT
from bot.usecases.saved import SavedItem
from storage import Paper
from tests.bot.slack.test_messages import HOSTILE, check_limits


@pytest.mark.parametrize("n", [1, 30, 600])
def test_the_saved_list_is_valid_block_kit_within_slacks_limits(monkeypatch, n):
    items = [SavedItem(Paper(id=f"p{i}", title=f"{HOSTILE} {'long title ' * 30} {i}", abstract="x",
                             authors=["Ann Smith", "Bo Jones"], url=f"https://example.org/{'x' * 80}/{i}",
                             venue="NeurIPS", published="2024-01-01"), f"2024-05-{i % 28 + 1:02d}T10:00:00")
             for i in range(n)]
    monkeypatch.setattr(commands, "saved_papers", lambda ctx, user_id: items)
    reply = commands.reply_saved(None, "U1")
    blocks = reply["blocks"]
    check_limits(blocks)
    for block in blocks:
        Block.parse(block).validate_json()
    assert len(reply["text"]) <= FALLBACK_LIMIT and "<!channel>" not in reply["text"]
    if n == 600:  # more than one message holds: the rest is pointed to
        assert "more: `/papers export` has them all" in blocks[-1]["elements"][0]["text"]
