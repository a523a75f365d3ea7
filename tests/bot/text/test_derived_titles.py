"""Titles derived from abstracts end where a phrase ends: never on a function word, a dangling verb or
auxiliary, or a noun asking for more (as benchmarks/derived_titles.py counts them), on the bundled
sample and on the shared NeurIPS 2018 + ICML 2019 abstracts (their real titles set aside)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bot
from benchmarks.derived_titles import FILES, ends_badly
from bot.text.tex import tex_to_text
from bot.text.titles import split_title
from bot.text.whitespace import collapse_ws
from tests.conftest import shared_data


def _shown_title(abstract: str) -> str:
    return tex_to_text(split_title(abstract)[0])


def test_no_bundled_abstract_gets_a_title_ending_mid_phrase():
    text = (Path(bot.__file__).parent / "data" / "icml2025-abstracts.txt").read_text(encoding="utf-8")
    abstracts = [collapse_ws(p) for p in text.split("\n\n")[1:] if p.strip()]
    assert len(abstracts) >= 19
    assert [t for t in map(_shown_title, abstracts) if ends_badly(t)] == []


def test_no_shared_abstract_gets_a_title_ending_mid_phrase():
    abstracts = [json.loads(line)["abstract"] for name in FILES
                 for line in shared_data(name).read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(abstracts) > 1000
    assert [t for t in map(_shown_title, filter(None, abstracts)) if ends_badly(t)] == []


@pytest.mark.parametrize(("abstract", "title", "rest"), [
    # A whole abstract that short, cut off: the title stops before "of", which the rest goes on with.
    ("The notion of", "The notion", "…of"),
    ("Part of. More text.", "Part", "…of. More text."),
    # The opener says nothing of the paper: what it says is known is the title.
    ("It is well known that cats purr. More.", "Cats purr", "More."),
    # "for its ability" asks "to what?": the first sentence's line stops before it.
    ("In-context learning (ICL) has garnered significant attention for its ability to grasp functions/tasks "
     "from demonstrations. More.", "In-context learning (ICL) has garnered significant attention",
     "…for its ability to grasp functions/tasks from demonstrations. More."),
])
def test_a_title_never_stops_mid_phrase(abstract, title, rest):
    assert split_title(abstract) == (title, rest)


def test_a_title_is_judged_as_the_reader_sees_its_tex():
    # However a macro of the paper's own renders (nothing, or its name), no dangling "that" is left shown.
    abstract = ("A long-standing problem in stochastic optimization is proving that \\rsgd, the "
                "without-replacement version of \\sgd, converges faster. More.")
    title = split_title(abstract)[0]
    assert title.startswith("A long-standing problem in stochastic optimization is proving")
    assert not ends_badly(tex_to_text(title)), title


def test_a_contribution_that_names_nothing_gives_way_to_one_that_does():
    abstract = ("To bridge the gap between empirical success and theory in transfer RL, we study a "
                "principled approach with provable performance guarantees. We introduce a novel composite "
                "MDP framework where dynamics are low-rank plus sparse. More.")
    assert split_title(abstract)[0] == "A composite MDP framework"


def test_a_question_studied_gives_way_to_what_is_made():
    abstract = ("In this paper, we investigate how to push the performance limits of serving models on CPU "
                "servers. We present Packrat, a new serving system for online inference. More.")
    assert split_title(abstract)[0] == "Packrat: A serving system for online inference"


def test_et_al_does_not_end_a_sentence():
    abstract = ("ICL is popular. Recent studies suggest task vectors. Merullo et al. (2024) showed that LLMs "
                "use them. Others agree. Despite this, theory lacks. To move forward, we propose "
                "a theoretical framework for hierarchical concept modeling. More.")
    assert split_title(abstract)[0] == "A theoretical framework for hierarchical concept modeling"
