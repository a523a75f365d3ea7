"""Markdown, HTML and Slack's control characters in papers' text: read as plain text everywhere a paper
is shown, and never formatting a Slack message by accident."""

from __future__ import annotations

import json
import re

import pytest

from bot.presentation.bibtex import bibtex
from bot.presentation.markup import clean_markup, mrkdwn
from bot.presentation.paper_view import shown_abstract, shown_text, shown_title
from bot.usecases.recommend import Recommendation
from storage import Paper


@pytest.mark.parametrize("raw, shown", [
    ("*A **Blockwise Learning Rate (LR)** strategy*", "A Blockwise Learning Rate (LR) strategy"),
    ("__Strong__ and _emphasis_ and `code` here", "Strong and emphasis and code here"),
    ("See [the code](https://github.com/x/y) now", "See the code now"),
    ("AT&amp;T &lt;3 &#39;quoted&#39; &#x2019; a&nbsp;b", "AT&T <3 'quoted' ’ a\xa0b"),
    ("H<sub>2</sub>O and x<sup>2</sup> and <i>in vivo</i>, <B>bold</B><br/>next", "H₂O and x² and in vivo, "
     "bold next"),
    ("<jats:p>The <jats:italic>E. coli</jats:italic> genome</jats:p>", " The E. coli genome "),
    ('<span class="x">kept</span> <b><i>nested</i></b>', "kept nested"),
])
def test_markup_reads_as_plain_text(raw, shown):
    assert clean_markup(raw) == shown


@pytest.mark.parametrize("text", [
    "snake_case_words and file_name.py", "p < 0.05* was significant", "a * b * c and 2*3*4",
    "R&D and AT&T; stay", "x <b and y> z", "**", "_", "a_b_c", "q > 1 and p < 2",
    r"$x_t$ and $a*b*c$ keep their scripts", "``TeX quotes'' and `single'",
])
def test_what_only_looks_like_markup_is_kept(text):
    assert clean_markup(text) == text


def test_markdown_inside_a_formula_is_left_to_the_tex_reader():
    assert shown_text(r"The *fast* rule $\theta_{t+1} = \theta_t - \eta_t g_t$ _works_") == (
        "The fast rule θₜ₊₁ = θₜ - ηₜ gₜ works")


def test_a_sample_title_shows_without_markdown_everywhere_in_paper_view():
    paper = Paper(id="p", title="*A **Blockwise Learning Rate (LR)** strategy*",
                  abstract="We &amp; they show **gains** of 10<sup>4</sup>.", authors=["Zoë &amp; <i>Al</i>"],
                  venue="<b>ICML</b> 2025")
    assert shown_title(paper) == "A Blockwise Learning Rate (LR) strategy"
    assert shown_abstract(paper) == "We & they show gains of 10⁴."
    assert shown_text(paper.authors[0]) == "Zoë & Al" and shown_text(paper.venue) == "ICML 2025"
    assert shown_text(None) == ""


@pytest.mark.parametrize("text, escaped", [
    ("a < b & c > d", "a &lt; b &amp; c &gt; d"),
    ("<!channel> <@U123>", "&lt;!channel&gt; &lt;@U123&gt;"),
    ("p < 0.05*", "p &lt; 0.05∗"),
    ("*bold* _it_ ~gone~ `code`", "∗bold∗ ˍitˍ ∼gone∼ ˋcodeˋ"),
    ("θ_(t+1) and x^* and snake_case and 2*3", "θˍ(t+1) and x^∗ and snake_case and 2*3"),
])
def test_mrkdwn_escapes_control_characters_and_formatting_that_could_start(text, escaped):
    assert mrkdwn(text) == escaped


HOSTILE = Paper(id="arxiv:2401.00001", arxiv_id="2401.00001",
                title="*A **Blockwise** _LR_ strategy* for `x` & <y> with $\\alpha_t$",
                abstract="We study &lt;i&gt;in vivo&lt;/i&gt; **gains** and *p < 0.05* for <!here> with "
                         "$\\theta_{t+1}$.",
                authors=["Ann *Smith*", "Bo_b <@U1>"], venue="ICML_2025 & ~co~", published="2025-07-01")
TITLE = "A Blockwise LR strategy for x & <y> with αₜ"


def _texts(blocks) -> list[str]:
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn":
                found.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(blocks)
    return found


def _safe_mrkdwn(text: str) -> None:
    """No markup of the paper's and nothing that would format, link or mention by accident."""
    without_links = re.sub(r"<https?://[^|<>]+\|[^<>]*>", "", text)
    assert "**" not in text and "&lt;b&gt;" not in text and "\\alpha" not in text
    assert "<" not in without_links and ">" not in without_links
    assert "~co~" not in text and "`x`" not in text and "_LR_" not in text


def test_slack_messages_home_and_unfurls_show_the_paper_as_plain_safe_text():
    from bot.slack.views.home_view import round_modal
    from bot.slack.views.messages import paper_blocks, paper_text
    from bot.slack.views.unfurl_card import unfurl_blocks

    rec = Recommendation(HOSTILE, 1.0, "Matches your interests")
    surfaces = [paper_blocks(rec), unfurl_blocks(HOSTILE), round_modal([HOSTILE], {})]
    for blocks in surfaces:
        texts = _texts(blocks)
        assert any("Blockwise" in t for t in texts)
        for text in texts:
            _safe_mrkdwn(text)
    head = _texts(paper_blocks(rec))[0]
    assert "A Blockwise LR strategy for x &amp; &lt;y&gt; with αₜ" in head
    assert "Ann Smith, Bo_b &lt;@U1&gt;" in head and "ICML_2025 &amp; ∼co∼" in head
    assert paper_text(HOSTILE) == mrkdwn(TITLE)
    abstract = _texts(paper_blocks(rec))[-1]
    assert abstract == "We study in vivo gains and p &lt; 0.05 for &lt;!here&gt; with θₜ₊₁."


def test_bibtex_and_the_terminal_show_the_paper_as_plain_text(capsys):
    from bot.cli.terminal import console, show_recommendations

    entry = bibtex([HOSTILE])
    assert "**" not in entry and "\\alpha" not in entry and "&lt;" not in entry and "<i>" not in entry
    assert "Blockwise LR strategy" in entry
    with console.capture() as captured:
        show_recommendations([Recommendation(HOSTILE, 1.0, "why")], "Papers")
    shown = " ".join(captured.get().split())
    assert "A Blockwise LR strategy for x & <y> with αₜ" in shown and "ICML_2025 & ~co~" in shown
    assert "Ann Smith, Bo_b <@U1>" in shown and "**" not in shown
    json.dumps(shown)  # plain text
