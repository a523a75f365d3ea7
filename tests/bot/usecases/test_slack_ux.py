"""Issue 23's Slack-facing use cases: a paper message rewritten after feedback keeps its feed, a compact
digest's click names its own paper, and forget's counts; on both backends (``any_store``)."""

from __future__ import annotations

import pytest

from bot.state.context import Context
from bot.state.engine import Engine
from bot.usecases.feeds import add_feed, remember_feeds
from bot.usecases.saved import paper_message, saved_on_message
from tests.conftest import make_corpus
from tests.storage.conftest import any_store, backend, pg_database, pg_url, store_target  # noqa: F401

WS = "T1"


@pytest.fixture
def app(any_store):  # noqa: F811
    any_store.upsert_papers(make_corpus())
    root = Context(any_store, Engine(any_store), digest_size=3)
    root.engine.refresh()
    return root.for_workspace(WS)


def show(ctx, user, paper_id, ts, channel="D1"):
    ctx.store.ensure_person(user)
    ctx.store.mark_shown(user, paper_id, "Matches your interest “cats”", channel, ts)


def test_a_paper_message_rewritten_after_feedback_keeps_the_feed_it_was_sent_for(app):
    add_feed(app, "U1", "pets: cats, whiskers")
    show(app, "U1", "cats-1", "1.1")
    show(app, "U1", "graphs-2", "1.2")
    remember_feeds(app, "U1", {"cats-1": "pets", "graphs-2": "main"})
    saved_on_message(app, "U1", "D1", "1.1")
    found = paper_message(app, "U1", "D1", "1.1")
    assert found.rec.feed == "pets" and found.marks.saved
    assert found.rec.reason == "Matches your interest “cats”"
    assert paper_message(app, "U1", "D1", "1.2").rec.feed == "main"


def test_without_named_feeds_a_rewritten_message_names_no_feed(app):
    show(app, "U1", "cats-1", "1.1")
    assert paper_message(app, "U1", "D1", "1.1").rec.feed is None
