"""bot/state/readiness.py: when /readyz says ready, and what it says until then."""

from __future__ import annotations

import time

from bot.state.context import Context
from bot.state.readiness import Readiness
from storage import StoreUnavailable
from tests.conftest import make_corpus


def wait_for(condition, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)
    return found


def test_a_database_without_papers_is_ready_at_once(tmp_path):
    ctx = Context.open(str(tmp_path / "empty.db"))
    try:
        assert Readiness(ctx).problem() is None
    finally:
        ctx.close()


def test_with_papers_it_is_loading_until_the_model_is_in_memory_then_ready(tmp_path):
    ctx = Context.open(str(tmp_path / "papers.db"))
    try:
        ctx.store.upsert_papers(make_corpus())
        readiness = Readiness(ctx)
        assert readiness.problem() == "the paper model is loading"  # and now it loads, in the background
        wait_for(lambda: ctx.engine.loaded)
        assert readiness.problem() is None
    finally:
        ctx.close()


def test_a_database_that_does_not_answer_is_named_in_one_line(tmp_path, monkeypatch):
    ctx = Context.open(str(tmp_path / "away.db"))
    try:
        def away():
            raise StoreUnavailable("can't open the database db-host:5432/paperbot (connection refused)\nmore")

        monkeypatch.setattr(ctx.store, "max_paper_seq", away)
        problem = Readiness(ctx).problem()
        assert problem is not None and problem.startswith("the database does not answer: can't open")
        assert "\n" not in problem
    finally:
        ctx.close()
