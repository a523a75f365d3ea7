"""A paper message's texts are kept per paper: the same blocks as worked out afresh, and an edited
paper (or a cleared keep) is worked out again."""

from __future__ import annotations

from dataclasses import replace

from bot.presentation import paper_view
from bot.slack.views import messages
from bot.slack.views.messages import paper_blocks
from bot.usecases.picking import Recommendation
from storage import Paper

PAPER = Paper(id="p1", title="Graph <b>networks</b> & $\\alpha$-cats", abstract="We study cats. " * 80,
              authors=["Ada Lovelace", "Alan Turing"], venue="NeurIPS 2024", published="2024-03-12",
              arxiv_id="2403.01234")


def fresh_blocks(rec: Recommendation) -> list[dict]:
    paper_view.clear_kept()
    return paper_blocks(rec)


def test_kept_texts_give_the_blocks_worked_out_afresh():
    rec = Recommendation(PAPER, 0.5, "Matches your interest “cats”", feed="main")
    expected = fresh_blocks(rec)
    assert paper_blocks(rec) == expected  # from what was kept
    other = Recommendation(PAPER, 0.1, "Like “Dogs”, which you liked")
    assert paper_blocks(other)[0] == expected[0] and paper_blocks(other)[1] != expected[1]


def test_an_edited_paper_is_worked_out_again():
    before = paper_blocks(Recommendation(PAPER, 0.5, "why"))
    edited = replace(PAPER, title="Another title", authors=["Grace Hopper"])
    after = paper_blocks(Recommendation(edited, 0.5, "why"))
    assert after[0] != before[0] and "Another title" in after[0]["text"]["text"]
    assert "Grace Hopper" in after[0]["text"]["text"]


def test_clearing_what_is_kept_clears_the_message_texts():
    paper_blocks(Recommendation(PAPER, 0.5, "why"))
    assert messages._kept
    paper_view.clear_kept()
    assert not messages._kept
