import json
import re

from slack_sdk.models.blocks import Block

from bot.slack.views.messages import (
    CONTEXT_ELEMENTS,
    FALLBACK_LIMIT,
    HEADER_LIMIT,
    MESSAGE_BLOCKS,
    SECTION_LIMIT,
    escape,
    fit,
    header_block,
    link,
    paper_blocks,
    paper_text,
    results_blocks,
    unescape,
)
from bot.usecases.recommend import Recommendation
from storage import Paper

HOSTILE = "<!channel> <!here|here> <@U123> <#C1> <https://evil.example|click> & &amp; *bold* _it_"


def texts(blocks):
    """Every text string inside some blocks."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return found


def check_limits(blocks):
    assert len(blocks) <= MESSAGE_BLOCKS
    for block in blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_LIMIT
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= HEADER_LIMIT
        if block["type"] == "context":
            assert len(block["elements"]) <= CONTEXT_ELEMENTS
            assert all(len(e["text"]) <= SECTION_LIMIT for e in block["elements"])


def test_escape_touches_only_the_three_control_characters():
    assert escape("a & b < c > d * _ ~ ` \" '") == "a &amp; b &lt; c &gt; d * _ ~ ` \" '"
    assert escape("&amp;") == "&amp;amp;"  # text that looks escaped is still text
    assert unescape(escape(HOSTILE)) == HOSTILE


def test_fit_never_exceeds_the_limit_nor_cuts_an_entity():
    for text in ("&" * 5000, "<>" * 4000, "word & " * 2000, "x" * 10_000, "short"):
        for limit in (10, 150, 3000):
            out = fit(text, limit)
            assert len(out) <= limit
            assert not re.search(r"&(a|am|l|g|lt|gt)?$", out.rstrip("…")) or out.endswith(";")
            assert "<" not in out and ">" not in out


def test_links_only_for_plain_http_urls():
    assert link("https://arxiv.org/abs/2401.00001", "T") == "<https://arxiv.org/abs/2401.00001|T>"
    assert link("https://x.org/?a=1&b=2", "T") == "<https://x.org/?a=1&amp;b=2|T>"
    for bad in (None, "", "javascript:alert(1)", "https://x.org/a|b", "https://x.org/<!channel>",
                "ftp://x.org", "https://x.org/" + "a" * 2000, "https://x.org/a b"):
        assert link(bad, "T") == "T"


def hostile_paper(size=1):
    return Paper(id="p<1>", title=(HOSTILE + " ") * size, abstract=(HOSTILE + " ") * 200 * size,
                 authors=[HOSTILE] * 30 * size, venue=HOSTILE * 10 * size, url="https://example.org/p?x=1&y=<2>")


def test_a_paper_message_escapes_everything_and_stays_within_limits():
    for size in (1, 50):
        rec = Recommendation(hostile_paper(size), 0.5, ("Like “" + HOSTILE + "”") * size)
        blocks = paper_blocks(rec)
        check_limits(blocks)
        everything = json.dumps(blocks)
        for raw in ("<!channel>", "<!here", "<@U123>", "<#C1>", "<https://evil"):
            assert raw not in everything
        assert "&lt;!channel&gt;" in everything and "&amp;amp;" in everything
        assert "<https://example.org" not in everything  # that URL holds '<': never linked
        assert len(paper_text(rec.paper)) <= FALLBACK_LIMIT
        assert paper_text(rec.paper).startswith("&lt;!channel&gt;")
        assert [b["type"] for b in blocks] == ["section", "context", "section", "actions"]


def test_a_paper_message_has_title_link_byline_reason_abstract_and_buttons():
    paper = Paper(id="a", title="Diffusion & friends", abstract="We denoise. " * 200,
                  authors=[f"Author {i}" for i in range(9)], venue="ICML 2025",
                  url="https://arxiv.org/abs/2401.00001")
    blocks = paper_blocks(Recommendation(paper, 0.9, "Matches your interests: diffusion"))
    head = blocks[0]["text"]["text"]
    assert head.startswith("*<https://arxiv.org/abs/2401.00001|Diffusion &amp; friends>*")
    assert "Author 0, Author 1" in head and "et al." in head and "ICML 2025" in head
    assert blocks[1]["elements"][0]["text"] == "*Why:* Matches your interests: diffusion"
    assert blocks[2]["text"]["text"].startswith("We denoise.") and blocks[2]["text"]["text"].endswith("…")
    assert paper_text(paper) == "Diffusion &amp; friends"


def test_a_paper_saved_by_people_here_says_how_many_beside_its_reason_and_feed():
    paper = Paper(id="a", title="Diffusion", abstract="We denoise.")
    counted = Recommendation(paper, 0.9, "Matches your interests: diffusion", feed="vision", saved_by=3)
    assert paper_blocks(counted)[1]["elements"][0]["text"] == (
        "*Feed:* vision · *Why:* Matches your interests: diffusion · 🔖 Saved by 3 people here")
    alone = paper_blocks(Recommendation(paper, 0.0, "", saved_by=2))
    assert alone[1] == {"type": "context",
                        "elements": [{"type": "mrkdwn", "text": "🔖 Saved by 2 people here"}]}
    plain = paper_blocks(Recommendation(paper, 0.0, ""))
    assert [b["type"] for b in plain] == ["section", "section", "actions"]


def test_an_untitled_paper_uses_a_title_from_its_abstract_and_does_not_repeat_it():
    paper = Paper(id="a", abstract="Graph neural networks pass messages between nodes. They scale. " * 3)
    blocks = paper_blocks(Recommendation(paper, 0.1, ""), buttons=False)
    assert [b["type"] for b in blocks] == ["section", "section"]
    assert paper_text(paper) == "Graph neural networks pass messages between nodes"
    assert blocks[1]["text"]["text"].startswith("They scale. Graph neural")


def test_a_title_once_cut_from_the_abstract_is_derived_afresh_and_not_repeated():
    abstract = ("Exploration is critical for solving real-world decision-making problems, such as robotics "
                "and recommendation in settings with sparse rewards. We propose X.")
    old_title = abstract[:89].rsplit(" ", 1)[0] + "…"  # how titles were derived before
    for title in ("", old_title):
        blocks = paper_blocks(Recommendation(Paper(id="a", title=title, abstract=abstract), 0.1, "r"))
        assert blocks[0]["text"]["text"] == (
            "*Exploration is critical for solving real-world decision-making problems*")
        assert blocks[2]["text"]["text"].startswith("…such as robotics")


def test_tex_in_title_abstract_and_authors_reads_as_unicode():
    paper = Paper(id="arxiv:2401.00001", title=r"An $\Omega(\sqrt{T})$ bound for {\underline b}andits",
                  abstract=r"We show $x_1^2 + \alpha$ is 50% better & {\em faster}.",
                  authors=[r"Kurt G\"odel"], arxiv_id="2401.00001", url="https://arxiv.org/abs/2401.00001")
    blocks = paper_blocks(Recommendation(paper, 0.1, "r"))
    assert paper_text(paper) == "An Ω(√T) bound for bandits"
    assert "Kurt Gödel" in blocks[0]["text"]["text"]
    assert blocks[2]["text"]["text"] == "We show x₁² + α is 50% better &amp; faster."


def test_malformed_tex_shows_the_raw_text_escaped():
    paper = Paper(id="a", title=r"\href{http://a}{<!channel>} $\frac{1}{", abstract="x")
    text = paper_text(paper)
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text


def test_an_arxiv_paper_shows_its_date_and_links_to_abs_and_pdf():
    paper = Paper(id="arxiv:2401.00001", title="T", abstract="A.", arxiv_id="2401.00001",
                  url="https://arxiv.org/abs/2401.00001v2", published="2024-01-05", authors=["Ann"])
    head = paper_blocks(Recommendation(paper, 0.1, ""))[0]["text"]["text"]
    assert head.splitlines() == [
        "*<https://arxiv.org/abs/2401.00001v2|T>*", "Ann",
        "5 January 2024 · <https://arxiv.org/abs/2401.00001|arXiv:2401.00001> · "
        "<https://arxiv.org/pdf/2401.00001|PDF>"]
    other = Paper(id="b", title="T", abstract="A.", url="https://x.org/p", published="2023-12-31T10:00:00")
    assert paper_blocks(Recommendation(other, 0.1, ""))[0]["text"]["text"].splitlines() == [
        "*<https://x.org/p|T>*", "31 December 2023"]
    undated = Paper(id="c", title="T", abstract="A.", published="soon")
    assert paper_blocks(Recommendation(undated, 0.1, ""))[0]["text"]["text"] == "*T*"


def test_every_paper_message_is_valid_block_kit():
    papers = [hostile_paper(), hostile_paper(50),
              Paper(id="arxiv:2401.00001", title=r"$\Omega(\sqrt{T})$", abstract="A.", arxiv_id="2401.00001",
                    published="2024-01-05"),
              Paper(id="d", abstract="Only an abstract, and nothing more to it at all.")]
    for paper in papers:
        for buttons in (True, False):
            for block in paper_blocks(Recommendation(paper, 0.1, "why"), buttons=buttons):
                Block.parse(block).validate_json()
    for block in results_blocks("*Results*", [Recommendation(p, 0.1, "r") for p in papers]):
        Block.parse(block).validate_json()


def test_results_stay_within_fifty_blocks_however_many_papers():
    recs = [Recommendation(hostile_paper(), 0.1, HOSTILE) for _ in range(40)]
    blocks = results_blocks("*Results*", recs)
    check_limits(blocks)
    assert "<!channel>" not in json.dumps(blocks)


def test_header_block_is_cut_to_150():
    assert len(header_block("x " * 500)["text"]["text"]) <= HEADER_LIMIT


def test_a_doi_only_paper_message_carries_its_link():
    paper = Paper(id="doi:10.1/z", title="Zebra stripes", abstract="About zebras.", doi="10.1/z")
    rec = Recommendation(paper, 1.0, "Matches “zebras”")
    assert "<https://doi.org/10.1/z|" in json.dumps(paper_blocks(rec))


ABSTRACT = ("Training large models is slow. We propose $\\alpha$-Sync, a scheme that overlaps gradient "
            "exchange with the backward pass. On ImageNet it trains ResNet-50 2.1x faster at 93.5% of the "
            "accuracy. Code is released.")


def highlighted() -> Paper:
    return Paper(id="p1", title="Fast training", abstract=ABSTRACT,
                 highlight="We propose $\\alpha$-Sync, a scheme that overlaps gradient exchange with the "
                           "backward pass.",
                 result="On ImageNet it trains ResNet-50 2.1x faster at 93.5% of the accuracy.")


def test_a_paper_with_highlights_shows_them_quoted_from_its_abstract_in_place_of_its_start():
    said = texts(paper_blocks(Recommendation(highlighted(), 1.0, "matches: training")))
    body = next(t for t in said if "Quoted from the abstract" in t)
    assert body.splitlines() == ["_Quoted from the abstract:_",
                                 "> We propose α-Sync, a scheme that overlaps gradient exchange with the "
                                 "backward pass.",
                                 "> On ImageNet it trains ResNet-50 2.1x faster at 93.5% of the accuracy."]
    assert not any("Training large models is slow" in t for t in said)


def test_hidden_highlights_or_none_at_all_show_the_start_of_the_abstract():
    for rec in (Recommendation(highlighted(), 1.0, "", highlights=False),
                Recommendation(Paper(id="p2", title="Fast training", abstract=ABSTRACT), 1.0, "")):
        said = texts(paper_blocks(rec))
        assert any(t.startswith("Training large models is slow") for t in said)
        assert not any("Quoted from the abstract" in t for t in said)


def test_a_long_or_hostile_highlight_is_cut_at_a_word_and_escaped():
    long = "We propose " + "a very long sentence " * 60 + "<!channel> done."
    paper = Paper(id="p3", title="T", abstract=long, highlight=long)
    said = texts(paper_blocks(Recommendation(paper, 1.0, "")))
    quote = next(t for t in said if "Quoted from the abstract" in t).splitlines()[1]
    assert quote.endswith("…") and len(quote) <= 2 + 350 and "<!channel>" not in quote
    assert quote[2:-1].rstrip() == quote[2:-1]  # cut at a word boundary
