"""The words of follow-ups (issue 42): a line a paper, each event said, Slack's control characters escaped,
a long list cut."""

from bot.slack.views.followup_texts import MOST_LISTED, event_text, followup_block, followup_message
from bot.usecases.followups import Followup
from storage import Paper

PAPER = Paper(id="arxiv:2501.1", arxiv_id="2501.1", title="Cats <b>& dogs</b> *at scale*", abstract="Cats.")


def test_each_event_is_said_briefly():
    assert event_text("accepted", "ICML 2025") == "accepted at ICML 2025"
    assert event_text("doi", "10.1000/x.1") == "DOI <https://doi.org/10.1000/x.1|10.1000/x.1>"
    assert event_text("code", "https://github.com/a/b") == "code: <https://github.com/a/b|github.com/a/b>"
    assert event_text("withdrawn", "") == "withdrawn by its authors"
    assert event_text("version", "v3") == "new version (v3): the abstract changed"
    assert event_text("version", "text 0123abcd") == "new version: the abstract changed"


def test_a_block_names_each_paper_linked_and_escaped():
    block = followup_block([Followup(PAPER, (("accepted", "NeurIPS <2025>"), ("code", "https://gitlab.com/x/y")))])
    first, line = block.split("\n")
    assert first == "*1 paper you saved moved on:*"
    assert line.startswith("• <https://arxiv.org/abs/2501.1|Cats &amp; dogs at scale>: ")  # markup read
    assert line.endswith(": accepted at NeurIPS &lt;2025&gt;; code: <https://gitlab.com/x/y|gitlab.com/x/y>")
    assert followup_block([Followup(PAPER, (("doi", "10.1/x"),))], channel=True).startswith(
        "*1 paper this channel liked moved on:*")


def test_a_long_list_is_cut_and_a_message_of_its_own_says_how_to_stop_them():
    many = [Followup(Paper(id=f"p{i}", title=f"Paper {i}", abstract="x"), (("doi", f"10.1/{i}"),))
            for i in range(MOST_LISTED + 2)]
    block = followup_block(many)
    assert block.startswith(f"*{MOST_LISTED + 2} papers you saved moved on:*")
    assert block.count("\n• ") == MOST_LISTED and block.endswith("…and 2 more.")
    assert followup_message(many[:1]).endswith("`/papers followups off` stops these._")


def test_long_titles_and_links_keep_the_block_within_a_section():
    long = [Followup(Paper(id=f"p{i}", title="A very long title " * 20, abstract="x",
                           url="https://example.org/" + "x" * 200),
                     tuple(("code", f"https://github.com/{'y' * 90}/{j}") for j in range(3)))
            for i in range(MOST_LISTED)]
    block = followup_block(long)
    assert len(block) <= 3000 and block.count("\n• ") >= 1 and "more." in block
