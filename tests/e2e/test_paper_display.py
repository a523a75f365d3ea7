"""End to end: a paper with TeX in its title reads as Unicode in Slack, with its date and links to its
arXiv page and PDF; `/papers search` finds papers by their authors' names."""

from __future__ import annotations

import pytest

from tests.e2e.harness import posts_to, user_ids

TEX_PAPER = {
    "id": "arXiv:2401.12345v2",
    "title": r"An $\Omega(\sqrt{T})$ regret bound for {\underline b}andits",
    "abstract": r"Bandit regret lower bounds with $\epsilon$-greedy exploration for adversarial bandits.",
    "authors": ["Andréa Bajcsy", r"Kurt G\"odel"],
    "published": "2024-01-22",
}
NO_TITLE = {"id": "untitled-1", "authors": ["Ruzena Bajcsy"], "published": "2020-05-05",
            "abstract": "Active perception lets robots choose where to look next, to reduce their "
                        "uncertainty about the scene. A second sentence follows."}

new_user = user_ids("UDISP")


@pytest.fixture(scope="module")
def extra_papers():
    return [TEX_PAPER, NO_TITLE]


def test_a_paper_with_tex_in_its_title_reads_as_unicode_and_links_to_abs_and_pdf(slack, standin):
    user = new_user()
    slack.ask(user, "follow adversarial bandits regret")
    slack.ask(user, "recommend 1")
    [post] = [c for c in posts_to(standin, "D" + user) if c.params.get("blocks")]
    assert post.params["text"] == "An Ω(√T) regret bound for bandits"
    head = post.params["blocks"][0]["text"]["text"]
    assert head.startswith("*<https://arxiv.org/abs/2401.12345|An Ω(√T) regret bound for bandits>*")
    assert "Andréa Bajcsy, Kurt Gödel" in head
    assert "22 January 2024" in head
    assert "<https://arxiv.org/abs/2401.12345|arXiv:2401.12345>" in head
    assert "<https://arxiv.org/pdf/2401.12345|PDF>" in head
    abstract = post.params["blocks"][2]["text"]["text"]
    assert "ϵ-greedy" in abstract and "$" not in abstract and "\\" not in head + abstract


def test_search_by_author_name_finds_their_papers_accents_and_case_ignored(slack):
    reply = slack.ask(new_user(), "search andrea bajcsy")
    sections = [b["text"]["text"] for b in reply.blocks if b["type"] == "section"][1:]  # after the intro
    titles = [s.split("\n")[0] for s in sections if s.startswith("*")]
    assert titles == ["*<https://arxiv.org/abs/2401.12345|An Ω(√T) regret bound for bandits>*"]
    assert any("By Andréa Bajcsy" in e["text"] for b in reply.blocks if b["type"] == "context"
               for e in b["elements"])


def test_a_surname_finds_every_author_of_it_and_an_untitled_paper_is_not_repeated(slack):
    reply = slack.ask(new_user(), "search Bajcsy")
    sections = [b["text"]["text"] for b in reply.blocks if b["type"] == "section"][1:]  # after the intro
    heads = [s for s in sections if s.startswith("*")]
    assert [h.split("\n")[0] for h in heads] == [
        "*<https://arxiv.org/abs/2401.12345|An Ω(√T) regret bound for bandits>*",
        "*Active perception lets robots choose where to look next*"]
    assert "5 May 2020" in heads[1]
    # Its derived title's words are not said again: its quoted highlight starts where the title ends.
    assert any("\n> …to reduce their uncertainty about the scene." in s for s in sections)
    assert not any("> Active perception" in s for s in sections)

