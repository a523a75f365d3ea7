"""bot/slack/request_keys.py: the kind a request is counted as."""

from __future__ import annotations

from bot.slack.request_keys import request_kind


def test_request_kinds_are_a_small_fixed_set():
    bodies = [{"command": "/papers"}, {"type": "event_callback"}, {"type": "block_actions"},
              {"type": "shortcut"}, {"type": "message_action"}, {"type": "view_submission"},
              {"type": "block_suggestion"}, {"type": "url_verification"}, {"type": ["odd"]}, {}]
    assert [request_kind(b) for b in bodies] == ["command", "event", "action", "shortcut", "shortcut", "view",
                                                 "options", "other", "other", "other"]
