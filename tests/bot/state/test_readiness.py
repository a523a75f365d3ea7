"""bot/state/readiness.py: when /readyz says ready, and what it says until then."""

from __future__ import annotations

from bot.state.context import Context
from bot.state.readiness import Readiness
from stand_ins.corpus import make_corpus
from stand_ins.waiting import wait_until
from storage import StoreUnavailable


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
        wait_until(lambda: ctx.engine.loaded, 30)
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


def test_a_model_that_fails_to_load_is_said_and_tried_again_only_after_a_pause(tmp_path, monkeypatch):
    import contextlib

    import bot.state.readiness as readiness_module

    ctx = Context.open(str(tmp_path / "broken.db"))
    try:
        ctx.store.upsert_papers(make_corpus())
        tries = []

        @contextlib.contextmanager
        def broken():
            tries.append(1)
            raise RuntimeError("the saved model could not be loaded: truncated")
            yield  # pragma: no cover

        monkeypatch.setattr(ctx.engine, "index", broken)
        readiness = Readiness(ctx)
        assert readiness.problem() == "the paper model is loading"
        said = wait_until(lambda: (p := readiness.problem()) != "the paper model is loading" and p, 30)
        assert said.startswith("the paper model could not be loaded (the saved model could not be loaded")
        for _ in range(5):  # load balancers keep asking: no new try, no new log line
            readiness.problem()
        assert len(tries) == 1
        monkeypatch.setattr(readiness_module, "RETRY_PAUSE", 0.0)
        wait_until(lambda: not readiness._loading.locked(), 30)  # the failed load's thread has ended
        assert readiness.problem() == "the paper model is loading"
        wait_until(lambda: len(tries) == 2, 30)
    finally:
        ctx.close()
