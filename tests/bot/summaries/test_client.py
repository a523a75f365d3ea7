"""The chat-completions client (bot/summaries/client.py) against the local stand-in over real HTTP: a summary
in the API's real format, 429 with its Retry-After obeyed, 500 and garbage tried again with back-off, a slow
model given up at the timeout, the key sent and never logged, failures logged once a minute at most, and
nothing ever raised."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from bot.summaries.client import Answer, EndpointError, FailureAlarm, SummaryClient, fits, tidy
from stand_ins.chat_completions import FORMAT, ChatCompletionsStandIn, Reply
from tests.bot.summaries.papers import SPARSE, SPARSE_FAITHFUL
from tests.fakes import Clock

MODEL = "llama3.1:8b"


@pytest.fixture
def llm():
    with ChatCompletionsStandIn(model=MODEL) as standin:
        yield standin


def client(llm, clock=None, **options) -> SummaryClient:
    clock = clock or Clock()
    options.setdefault("timeout", 2.0)
    return SummaryClient(llm.url, MODEL, sleep=clock.sleep, clock=clock, **options)


def ask(c: SummaryClient, **options) -> Answer:
    return c.summarize(SPARSE.title, SPARSE.abstract, **options)


def test_a_summary_comes_back_from_a_chat_completion_in_the_real_format(llm):
    llm.default = Reply.says(SPARSE_FAITHFUL)
    answer = ask(client(llm))
    assert answer == Answer(SPARSE_FAITHFUL, "stop", calls=1)
    body, = llm.asked
    assert body["model"] == MODEL and body["stream"] is False and body["max_tokens"] > 0
    system, user = body["messages"]
    assert system["role"] == "system" and "280 characters" in system["content"]
    assert user["content"] == f"Title: {SPARSE.title}\n\nAbstract: {SPARSE.abstract}"
    assert FORMAT["chat_completion"]["object"] == "chat.completion"  # the recorded format it answered in


def test_a_busy_answer_waits_its_retry_after_then_tries_again(llm):
    clock = Clock()
    llm.script("Sparse", Reply.busy(retry_after="7"), Reply.says(SPARSE_FAITHFUL))
    answer = ask(client(llm, clock))
    assert (answer.text, answer.calls) == (SPARSE_FAITHFUL, 2)
    assert clock.slept == [7.0]


def test_a_retry_after_given_as_a_date_is_read_against_the_wall_clock(llm):
    clock = Clock()
    llm.script("Sparse", Reply.busy(retry_after="Mon, 07 Dec 2026 06:00:12 GMT"), Reply.says("Fine."))
    c = client(llm, clock, wall=lambda: datetime(2026, 12, 7, 6, 0, 0, tzinfo=UTC))
    assert ask(c).text == "Fine." and clock.slept == [12.0]


def test_a_retry_after_too_long_or_past_the_deadline_gives_up_without_waiting(llm):
    clock = Clock()
    llm.script("Sparse", Reply.busy(retry_after="3600"))
    answer = ask(client(llm, clock))
    assert answer.text is None and "HTTP 429" in answer.error and clock.slept == []
    llm.script("Sparse", Reply.busy(retry_after="5"))
    assert ask(client(llm, clock), deadline=clock() + 3).text is None and clock.slept == []


@pytest.mark.parametrize("reply", [Reply.failing(500), Reply.failing(503), Reply.garbage(),
                                   Reply(content=None)], ids=["500", "503", "garbage", "no-content"])
def test_failing_and_garbled_answers_are_tried_again_with_a_doubling_back_off(llm, reply):
    clock = Clock()
    llm.script("Sparse", reply)
    answer = ask(client(llm, clock, retries=2, backoff=2.0))
    assert answer.text is None and answer.calls == 3 and len(llm.asked) == 3
    assert clock.slept == [2.0, 4.0]


def test_one_failure_then_a_summary(llm):
    llm.script("Sparse", Reply.failing(500), Reply.garbage(), Reply.says("Third time."))
    assert ask(client(llm)).text == "Third time."


def test_a_slow_model_is_given_up_at_the_timeout_and_not_asked_again_at_once(llm):
    llm.script("Sparse", Reply.slow(30))
    answer = ask(client(llm, timeout=0.3))
    assert answer.text is None and "did not answer within 0.3 s" in answer.error and answer.calls == 1


def test_an_endpoint_that_is_down_is_an_answer_not_an_exception(llm):
    gone = SummaryClient("http://127.0.0.1:9/v1", MODEL, timeout=1.0, sleep=Clock().sleep)
    answer = ask(gone)
    assert answer.text is None and "can't be reached" in answer.error and answer.calls == 1


def test_a_model_the_endpoint_does_not_serve_is_not_tried_again(llm):
    other = SummaryClient(llm.url, "llama3.1:70b", sleep=Clock().sleep)
    answer = ask(other)
    assert answer.calls == 1 and "HTTP 404" in answer.error and "not found" in answer.error


def test_no_request_is_made_once_the_daily_limit_says_no(llm):
    answer = ask(client(llm), allow=lambda: False)
    assert answer == Answer(None, error=answer.error, calls=0, limited=True) and llm.asked == []
    allowed = iter([True, False])
    llm.script("Sparse", Reply.failing(500))
    answer = ask(client(llm), allow=lambda: next(allowed))
    assert answer.calls == 1 and not answer.limited  # one call made: a failure, not the limit


def test_the_key_is_sent_as_a_bearer_token_and_never_logged(llm, caplog):
    llm.key = "sk-very-secret"
    keyed = client(llm)
    keyed._key = "sk-very-secret"
    llm.default = Reply.says("Fine.")
    assert ask(keyed).text == "Fine."
    assert llm.authorizations[-1] == "Bearer sk-very-secret"
    caplog.set_level(logging.DEBUG)
    wrong = SummaryClient(llm.url, MODEL, "sk-wrong-secret", sleep=Clock().sleep)
    answer = ask(wrong)
    assert "HTTP 401" in answer.error
    assert "secret" not in caplog.text and "secret" not in repr(wrong) and "secret" not in answer.error


def test_failures_are_logged_once_a_minute_with_their_count(caplog):
    clock = Clock()
    alarm = FailureAlarm(interval=60.0, clock=clock)
    caplog.set_level(logging.WARNING)
    assert alarm.note("HTTP 500")
    assert not alarm.note("HTTP 500") and not alarm.note("timed out")
    clock.advance(61)
    assert alarm.note("timed out")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "3 call(s)" in lines[1] and "latest: timed out" in lines[1]


def test_the_models_the_endpoint_lists(llm):
    assert client(llm).models() == [MODEL]
    llm.models_status = 404
    with pytest.raises(EndpointError, match="HTTP 404"):
        client(llm).models()
    with pytest.raises(EndpointError, match="can't be reached"):
        SummaryClient("http://127.0.0.1:9/v1", MODEL, timeout=1.0).models()
    assert client(llm).tiny_completion() is None
    assert "HTTP 404" in SummaryClient(llm.url, "nope").tiny_completion()


def test_an_answer_that_is_no_list_of_models_is_said(llm):
    llm.model = "x"
    answer = SummaryClient(llm.url + "/chat", MODEL).models  # a path answering 404 with a JSON error
    with pytest.raises(EndpointError, match="HTTP 404"):
        answer()


@pytest.mark.parametrize(("said", "shown"), [
    ("Summary: V-MoE scales.", "V-MoE scales."),
    ("<think>Let me see.\nIt is about experts.</think>\n\n**V-MoE** scales.", "V-MoE scales."),
    ('"V-MoE scales."', "V-MoE scales."),
    ("  V-MoE\n scales.  ", "V-MoE scales."),
    ("TL;DR: V-MoE scales.", "V-MoE scales."),
    ("Here is a one-sentence summary of the paper:\n\nV-MoE scales.", "V-MoE scales."),
    ("Sure! Here's the summary: V-MoE scales.", "V-MoE scales."),
    ("- V-MoE scales.", "V-MoE scales."),
    ("V-MoE scales: here is how.", "V-MoE scales: here is how."),  # a colon of its own stays
])
def test_an_answer_is_tidied_and_nothing_more(said, shown):
    assert tidy(said) == shown


def test_only_an_abstract_of_a_sensible_length_is_worth_a_summary():
    assert fits(SPARSE.abstract)
    assert not fits("") and not fits(None) and not fits("Too short.")
    assert not fits("word " * 2000)  # sent whole or not at all
