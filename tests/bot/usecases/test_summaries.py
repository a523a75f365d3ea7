"""Summaries of papers about to be shown (bot/usecases/summaries.py), against the chat-completions stand-in
over real HTTP, on both backends: each paper asked for once per model, each answer checked before it may
be shown (faithful kept; an invented number or name, an empty or cut-off one refused), a slow, failing or
busy endpoint retried later and costing the caller nothing, the daily limit held by the database, and a
run that stops starting calls when its time is up."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from bot.config import Settings
from bot.summaries.client import SummaryClient
from bot.usecases.summaries import (
    FAILED_AGAIN_AFTER,
    MOST_ATTEMPTS,
    RETRY_DELAYS,
    Summarizer,
    Summary,
    fingerprint,
    request_in_background,
    request_summaries,
    summaries_for,
    summarizer,
    summary_counts,
)
from stand_ins.chat_completions import ChatCompletionsStandIn, Reply
from storage import Paper, StoreUnavailable
from tests.bot.summaries.papers import (
    GRAPHS,
    GRAPHS_FAITHFUL,
    PAPERS,
    PROTEINS,
    PROTEINS_FAITHFUL,
    SPARSE,
    SPARSE_FAITHFUL,
    SPEECH,
    SPEECH_FAITHFUL,
)
from tests.bot.usecases.conftest import workspace_context
from tests.fakes import Clock

MODEL = "llama3.1:8b"
IDS = [p.id for p in PAPERS]


@pytest.fixture
def ctx(any_store):
    return workspace_context(any_store, PAPERS)


@pytest.fixture
def llm():
    with ChatCompletionsStandIn(model=MODEL) as standin:
        standin.script("Sparse", Reply.says(SPARSE_FAITHFUL))
        standin.script("Message Passing", Reply.says(GRAPHS_FAITHFUL))
        standin.script("Streaming", Reply.says(SPEECH_FAITHFUL))
        standin.script("Protein", Reply.says(PROTEINS_FAITHFUL))
        yield standin


class Times:
    """The use case's UTC clock and the client's monotonic one (its sleeps move it: nothing waits)."""

    def __init__(self):
        self.utc = Clock(datetime(2026, 12, 7, 6, 0, tzinfo=UTC))
        self.mono = Clock()


@pytest.fixture
def times():
    return Times()


def summer(llm, times, limit=500, **options) -> Summarizer:
    options.setdefault("timeout", 2.0)
    client = SummaryClient(llm.url, MODEL, sleep=times.mono.sleep, clock=times.mono, **options)
    return Summarizer(client, limit)


def titles_asked(llm) -> list[str]:
    return [body["messages"][1]["content"].split("\n")[0].removeprefix("Title: ") for body in llm.asked]


def test_faithful_summaries_are_kept_and_shown_and_each_paper_is_asked_once(ctx, llm, times):
    run = request_summaries(ctx, IDS, times.utc, summer(llm, times))
    assert sorted(run.ok) == sorted(["sparse", "graphs", "speech", "proteins"])
    assert run.skipped == ["short"]  # an abstract too short to summarise is not asked about
    assert run.outcomes() == [("ok", None)] * 4
    assert summaries_for(ctx, IDS, MODEL) == {
        "sparse": Summary(SPARSE_FAITHFUL, MODEL), "graphs": Summary(GRAPHS_FAITHFUL, MODEL),
        "speech": Summary(SPEECH_FAITHFUL, MODEL), "proteins": Summary(PROTEINS_FAITHFUL, MODEL)}
    # Asked once: a later digest showing the same papers asks nothing, and writes nothing.
    again = request_summaries(ctx, IDS, times.utc, summer(llm, times))
    assert len(llm.asked) == 4 and again.ok == [] and sorted(again.skipped) == sorted(IDS)
    assert summaries_for(ctx, IDS, "another:7b") == {}  # another model's are its own


@pytest.mark.parametrize(("reply", "reason"), [
    (Reply.says("V-MoE reaches 97.1% top-1 on ImageNet with half the inference compute."), "invented_number"),
    (Reply.says("V-MoE beats ResNet-152 on ImageNet with half the inference compute."), "invented_name"),
    (Reply.empty(), "empty"),
    (Reply.says("V-MoE reaches 90.35% top-1 on ImageNet.", finish_reason="length"), "cut_off"),
    (Reply.says("V-MoE, a sparse ViT, reaches 90.35% top-1 on ImageNet while using half the"), "cut_off"),
], ids=["number", "name", "empty", "length", "mid-sentence"])
def test_a_summary_that_fails_the_check_is_never_shown_nor_asked_again(ctx, llm, times, reply, reason):
    llm.script("Sparse", reply)
    run = request_summaries(ctx, ["sparse", "graphs"], times.utc, summer(llm, times))
    assert run.rejected == {"sparse": reason} and run.ok == ["graphs"]
    assert ("rejected", reason) in run.outcomes()
    assert list(summaries_for(ctx, ["sparse", "graphs"], MODEL)) == ["graphs"]
    stored = ctx.store.summaries_of(["sparse"], MODEL)["sparse"]
    assert (stored.status, stored.reason) == ("rejected", reason)  # kept for an admin to see why
    times.utc.advance(timedelta(days=3))
    request_summaries(ctx, ["sparse"], times.utc, summer(llm, times))
    assert titles_asked(llm).count(SPARSE.title) == 1


def test_a_slow_model_costs_the_caller_its_timeout_and_is_asked_again_later(ctx, llm, times):
    llm.script("Sparse", Reply.slow(30), Reply.says(SPARSE_FAITHFUL))
    run = request_summaries(ctx, ["sparse"], times.utc, summer(llm, times, timeout=0.3))
    assert list(run.failed) == ["sparse"] and "did not answer within 0.3 s" in run.failed["sparse"]
    assert run.outcomes() == [("failed", None)] and summaries_for(ctx, ["sparse"], MODEL) == {}
    stored = ctx.store.summaries_of(["sparse"], MODEL)["sparse"]
    assert (stored.status, stored.attempts) == ("claimed", 1)  # given back, for a later run
    # Not before its retry time: a digest a minute later asks nothing.
    times.utc.advance(timedelta(minutes=1))
    assert request_summaries(ctx, ["sparse"], times.utc, summer(llm, times)).skipped == ["sparse"]
    times.utc.advance(RETRY_DELAYS[0])
    assert request_summaries(ctx, ["sparse"], times.utc, summer(llm, times)).ok == ["sparse"]
    assert summaries_for(ctx, ["sparse"], MODEL)["sparse"].text == SPARSE_FAITHFUL


def test_an_endpoint_that_keeps_failing_is_given_up_for_a_day_after_its_attempts(ctx, llm, times):
    llm.script("Sparse", Reply.failing(500))
    s = summer(llm, times)
    for attempt in range(MOST_ATTEMPTS):
        run = request_summaries(ctx, ["sparse"], times.utc, s)
        assert "HTTP 500" in run.failed["sparse"]
        assert run.given_up == (["sparse"] if attempt == MOST_ATTEMPTS - 1 else [])
        times.utc.advance(timedelta(hours=2))
    assert len(llm.asked) == MOST_ATTEMPTS * 3  # each call tried three times, with back-off
    assert times.mono.slept == [2.0, 4.0] * MOST_ATTEMPTS
    assert ctx.store.summaries_of(["sparse"], MODEL)["sparse"].status == "failed"
    assert request_summaries(ctx, ["sparse"], times.utc, s).skipped == ["sparse"]
    llm.script("Sparse", Reply.says(SPARSE_FAITHFUL))
    times.utc.advance(FAILED_AGAIN_AFTER)
    assert request_summaries(ctx, ["sparse"], times.utc, s).ok == ["sparse"]


def test_a_busy_endpoint_s_retry_after_is_obeyed(ctx, llm, times):
    llm.script("Sparse", Reply.busy(retry_after="3"), Reply.says(SPARSE_FAITHFUL))
    assert request_summaries(ctx, ["sparse"], times.utc, summer(llm, times)).ok == ["sparse"]
    assert times.mono.slept == [3.0]


def test_garbage_is_tried_again_and_never_shown(ctx, llm, times):
    llm.script("Sparse", Reply.garbage(), Reply.says(SPARSE_FAITHFUL))
    assert request_summaries(ctx, ["sparse"], times.utc, summer(llm, times)).ok == ["sparse"]
    llm.script("Message Passing", Reply.garbage())
    run = request_summaries(ctx, ["graphs"], times.utc, summer(llm, times))
    assert "no chat completion" in run.failed["graphs"] and summaries_for(ctx, ["graphs"], MODEL) == {}


def test_the_daily_limit_holds_across_runs_and_calls_resume_the_next_day(ctx, llm, times):
    llm.script("Sparse", Reply.failing(500), Reply.says(SPARSE_FAITHFUL))  # a retry is a call too
    run = request_summaries(ctx, ["sparse", "graphs", "speech", "proteins"], times.utc,
                            summer(llm, times, limit=3, concurrency=1))
    assert run.ok == ["sparse", "graphs"] and run.limited and sorted(run.waiting) == ["proteins", "speech"]
    assert ctx.store.summary_calls("2026-12-07") == 3 and len(llm.asked) == 3
    # Another process the same day asks nothing more.
    later = request_summaries(ctx, ["speech", "proteins"], times.utc, summer(llm, times, limit=3))
    assert later.limited and len(llm.asked) == 3
    times.utc.advance(timedelta(days=1))
    assert sorted(request_summaries(ctx, ["speech", "proteins"], times.utc,
                                    summer(llm, times, limit=3)).ok) == ["proteins", "speech"]


def test_a_limit_of_zero_asks_for_nothing(ctx, llm, times):
    run = request_summaries(ctx, IDS, times.utc, summer(llm, times, limit=0))
    assert run.limited and run.ok == [] and llm.asked == []


def test_no_call_starts_once_the_run_s_time_is_up(ctx, llm, times):
    run = request_summaries(ctx, IDS, times.utc, summer(llm, times), within=0)
    assert sorted(run.waiting) == sorted(["sparse", "graphs", "speech", "proteins"]) and llm.asked == []
    # Nothing was claimed: the next run asks for all of them.
    assert len(request_summaries(ctx, IDS, times.utc, summer(llm, times)).ok) == 4


def test_a_new_version_s_changed_abstract_is_asked_again_and_the_old_summary_not_shown(ctx, llm, times):
    request_summaries(ctx, ["sparse"], times.utc, summer(llm, times))
    changed = Paper(id="sparse", title=SPARSE.title,
                    abstract=SPARSE.abstract.replace("90.35%", "90.45%"), arxiv_id=None)
    ctx.store.upsert_papers([changed])
    stored = ctx.store.get_paper("sparse")
    assert stored is not None and "90.45%" in stored.abstract
    assert summaries_for(ctx, ["sparse"], MODEL) == {}  # said of the old abstract: not shown
    llm.script("Sparse", Reply.says("V-MoE reaches 90.45% top-1 on ImageNet with half the inference "
                                    "compute."))
    assert request_summaries(ctx, ["sparse"], times.utc, summer(llm, times)).ok == ["sparse"]
    assert "90.45%" in summaries_for(ctx, ["sparse"], MODEL)["sparse"].text
    assert ctx.store.summaries_of(["sparse"], MODEL)["sparse"].source == fingerprint(stored)


def test_two_processes_asking_at_once_ask_the_model_once_per_paper(ctx, llm, times):
    start = threading.Barrier(2)
    runs = []

    def process(owner: str) -> None:
        start.wait()
        runs.append(request_summaries(ctx, IDS, times.utc, summer(llm, times), owner=owner))
        ctx.store.close()

    threads = [threading.Thread(target=process, args=(f"host:{n}:{n}",)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(titles_asked(llm)) == sorted([SPARSE.title, GRAPHS.title, SPEECH.title, PROTEINS.title])
    assert sorted(p for run in runs for p in run.ok) == sorted(["sparse", "graphs", "speech", "proteins"])


def test_the_day_s_counts_for_the_admin_report(ctx, llm, times):
    llm.script("Sparse", Reply.says("V-MoE beats ResNet-152 with half the inference compute."))
    llm.script("Message Passing", Reply.failing(500))
    s = summer(llm, times)
    for _ in range(MOST_ATTEMPTS):
        request_summaries(ctx, IDS, times.utc, s)
        times.utc.advance(timedelta(hours=2))
    counts = summary_counts(ctx, times.utc())
    assert (counts.ok, dict(counts.rejected), counts.failed) == (2, {"invented_name": 1}, 1)
    assert counts.refused == 1 and "HTTP 500" in counts.error
    assert summary_counts(ctx, times.utc() + timedelta(days=1)).failed == 0


def test_the_summarizer_is_made_from_the_settings_only_when_set():
    assert summarizer(Settings.load({}, dotenv=None)) is None
    made = summarizer(Settings.load({"PAPERBOT_LLM_URL": "http://localhost:11434/v1", "PAPERBOT_LLM_MODEL":
                                     MODEL, "PAPERBOT_LLM_DAILY_LIMIT": "50"}, dotenv=None))
    assert made is not None and (made.model, made.daily_limit, made.client.base_url) == (
        MODEL, 50, "http://localhost:11434/v1")


def test_in_the_background_the_caller_goes_on_and_hears_what_was_done(ctx, llm, times):
    heard = []
    llm.script("Sparse", Reply.slow(0.5, SPARSE_FAITHFUL))
    thread = request_in_background(ctx, ["sparse", "graphs"], times.utc, summer(llm, times),
                                   done=heard.append)
    assert summaries_for(ctx, ["sparse"], MODEL) == {}  # the caller did not wait: nothing ready yet
    thread.join(10)
    assert not thread.is_alive() and sorted(heard[0].ok) == ["graphs", "sparse"]
    assert set(summaries_for(ctx, ["sparse", "graphs"], MODEL)) == {"sparse", "graphs"}


def test_in_the_background_a_failure_is_logged_never_raised(ctx, llm, times, caplog, monkeypatch):
    def away(*_a, **_k):
        raise StoreUnavailable("the database is away")

    monkeypatch.setattr(ctx.store, "get_papers", away)
    thread = request_in_background(ctx, ["sparse"], times.utc, summer(llm, times))
    thread.join(10)
    assert "not asked for this time" in caplog.text and llm.asked == []


def test_at_most_the_concurrency_cap_of_requests_are_in_flight(ctx, llm, times):
    for phrase, text in (("Sparse", SPARSE_FAITHFUL), ("Message Passing", GRAPHS_FAITHFUL),
                         ("Streaming", SPEECH_FAITHFUL), ("Protein", PROTEINS_FAITHFUL)):
        llm.script(phrase, Reply.slow(0.3, text))
    run = request_summaries(ctx, IDS, times.utc, summer(llm, times, concurrency=2))
    assert len(run.ok) == 4 and llm.most_at_once == 2
