"""The lab's model's summaries reach the messages: papers chosen for a person are asked about in the
background (nothing waits), and once checked their summary is shown, labelled with its model, in place of
the highlights, unless the person hid those; over the chat-completions stand-in, on both backends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.slack.views.messages import paper_blocks
from bot.summaries.client import Summarizer, SummaryClient
from bot.text.highlights import highlights
from bot.usecases import follow
from bot.usecases.recommend import recommend
from bot.usecases.settings import set_highlights
from bot.usecases.social import as_shown_to
from stand_ins.chat_completions import ChatCompletionsStandIn, Reply
from stand_ins.waiting import wait_until
from tests.bot.summaries.papers import GRAPHS_FAITHFUL, PAPERS, SPARSE_FAITHFUL
from tests.bot.usecases.conftest import workspace_context

MODEL = "llama3.1:8b"


@pytest.fixture
def llm():
    with ChatCompletionsStandIn(model=MODEL) as standin:
        standin.script("Sparse", Reply.says(SPARSE_FAITHFUL))
        standin.script("Message Passing", Reply.says(GRAPHS_FAITHFUL + " It reaches 99.9% on ImageNet."))
        yield standin


@pytest.fixture
def ctx(any_store, llm):
    counted = []
    # Stored with their highlights, as the ingest stores every paper.
    root = workspace_context(any_store, [replace(p, highlight=h.what, result=h.result)
                                         for p in PAPERS for h in [highlights(p.title, p.abstract)]])
    root.summarizer = Summarizer(SummaryClient(llm.url, MODEL, timeout=5.0), counted=counted.extend)
    root.counted = counted
    return root


def texts(blocks) -> str:
    return "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")


def test_papers_recommended_are_summarized_meanwhile_and_then_shown_with_the_model_named(ctx, llm):
    follow(ctx, "U1", "sparse experts vision transformers, message passing graphs oversmoothing")
    recs = {rec.paper.id: rec for rec in recommend(ctx, "U1", 2, remember=False)}
    assert set(recs) == {"sparse", "graphs"}
    wait_until(lambda: len(ctx.counted) == 2, timeout=20, what="both summaries asked for and checked")
    assert sorted(ctx.counted) == [("ok", None), ("rejected", "invented_number")]
    shown = {rec.paper.id: rec for rec in as_shown_to(ctx, "U1", list(recs.values()))}
    said = texts(paper_blocks(shown["sparse"]))
    assert f"_Summary by {MODEL}, checked against the abstract:_" in said and SPARSE_FAITHFUL[:40] in said
    assert "Quoted from the abstract" not in said
    said = texts(paper_blocks(shown["graphs"]))  # its number is nowhere in the abstract: never shown
    assert "Summary by" not in said and "99.9" not in said and "_Quoted from the abstract:_" in said
    set_highlights(ctx, "U1", False)
    hidden = as_shown_to(ctx, "U1", [recs["sparse"]])[0]
    assert hidden.summary is None and "Summary by" not in texts(paper_blocks(hidden))


def test_without_the_lab_s_model_nothing_is_asked_and_the_highlights_are_shown(ctx, llm):
    ctx.summarizer = None
    follow(ctx, "U1", "sparse experts vision transformers")
    recs = recommend(ctx, "U1", 1, remember=False)
    shown = as_shown_to(ctx, "U1", recs)
    assert llm.asked == [] and shown[0].summary is None
    assert "_Quoted from the abstract:_" in texts(paper_blocks(shown[0]))
