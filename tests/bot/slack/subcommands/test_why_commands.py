"""`/papers why …` (bot/slack/subcommands/why_commands.py): parsed without the database, nothing refused
in one line saying what works; the answer says since when the paper is held and from where, then when
it was sent or what kept it out (bot/slack/views/why.py), every echoed word escaped."""

from __future__ import annotations

from datetime import date

import pytest

from bot.errors import BadArgument, NotAPaperName, PaperNotHeld
from bot.slack.subcommands import Command
from bot.slack.subcommands.personal import REGISTRY, help_text
from bot.slack.subcommands.why_commands import reply_why
from bot.slack.views.refusals import say
from bot.slack.views.why import day, fate_text, nth, why_reply
from bot.usecases import follow
from bot.usecases.mutes import mute
from bot.usecases.picking import Fate
from bot.usecases.why import DigestDay, Shown, Why
from storage import Paper
from tests.bot.usecases.conftest import refused

PAPER = Paper(id="arxiv:2501.01234", arxiv_id="2501.01234", title="Purring <kittens> & cats",
              abstract="Purring.")


def parsed(text: str):
    return REGISTRY.parse(text).args


def test_the_words_after_why_are_the_name_as_typed():
    assert parsed("why  https://arxiv.org/abs/2501.01234v2 ") == Command("why", "https://arxiv.org/abs/2501.01234v2")
    assert parsed('WHY "feline and cats"') == Command("why", '"feline and cats"')


@pytest.mark.parametrize("text", ["why", "why   "])
def test_why_with_nothing_says_what_works_in_the_ack(text):
    with refused(BadArgument, r"Say which paper: `/papers why` with its link or id .* in quotes$"):
        REGISTRY.parse(text)


def test_the_help_has_its_line():
    assert "`/papers why LINK`" in help_text()
    assert "`/papers why arxiv.org/abs/2501.01234`" in help_text("why")


@pytest.mark.parametrize(("error", "says"), [
    (NotAPaperName("banana"), "“banana” names no paper: `/papers why` takes a paper's link or id (arXiv"),
    (NotAPaperName("https://example.com/x", link=True), "https://example.com/x is no paper's page I can "),
    (PaperNotHeld("2501.99999", "arxiv"), "I don't hold arXiv:2501.99999: none of the sources I read"),
    (PaperNotHeld("zebra", "title"), "No paper I hold has a title with the words “zebra”"),
])
def test_refusals_are_one_line(error, says):
    assert say(error).startswith(says) and "\n" not in say(error)


def answer(fate: Fate, **kw) -> Why:
    base = {"asked": "2501.01234", "paper": PAPER, "held_since": "2026-12-05T06:00:00+00:00",
            "sources": ("arxiv", "pubmed"), "fate": fate, "today": date(2026, 12, 7)}
    return Why(**(base | kw))


def test_the_answer_names_the_paper_since_when_and_from_where():
    text = why_reply(answer(Fate("below_cut", None, 14, 230, 5)))["text"]
    lines = text.split("\n")
    assert lines[0] == "<https://arxiv.org/abs/2501.01234|Purring &lt;kittens&gt; &amp; cats>"
    assert lines[1] == "I hold it since 5 Dec 2026, from arXiv and PubMed."
    assert lines[2] == ("Today it ranks 14th of your 230 candidates: below the cut, your digest takes the "
                        "top 5.")


@pytest.mark.parametrize(("fate", "says"), [
    (Fate("picked", "robots", 2, 40, 3),
     "Today it ranks 2nd of your 40 candidates in your feed “robots”, and is among the 3 your digest takes"),
    (Fate("too_similar", None, 3, 40, 5), "too close to it ranked above it"),
    (Fate("muted", word="<b>zebra"), "It holds your muted word “&lt;b&gt;zebra”, so it is never sent"),
    (Fate("outside"), "It is outside your feeds"),
    (Fate("saved"), "You saved it"), (Fate("liked"), "You rated it 👍"),
    (Fate("disliked"), "You rated it 👎"), (Fate("shared"), "You posted its link in a channel"),
    (Fate("no_interests"), "You follow nothing yet"),
    (Fate("alert", word="zebra finches"), "Your alert “zebra finches” puts it first"),
    (Fate("author", word="Ada Lovelace"), "It is a new paper by Ada Lovelace, whom you follow"),
    (Fate("not_new"), "Your weekly digest takes only the past week's papers"),
    (Fate("not_indexed"), "It isn't ranked yet"),
])
def test_each_fate_has_its_sentence(fate, says):
    assert says in fate_text(fate)
    assert says.split("“")[0] in why_reply(answer(fate))["text"]


def test_sent_shown_quiet_days_and_a_followed_authors_old_paper_are_told():
    sent = why_reply(answer(Fate("shown"), shown=Shown("2026-12-06", True)))["text"]
    assert sent.endswith("It was sent to you in your digest of 6 Dec 2026.")
    before = why_reply(answer(Fate("shown"), shown=Shown("2026-11-30", False)))["text"]
    assert before.endswith("It was already shown to you on 30 Nov 2026, so digests don't send it again.")
    days = (DigestDay("2026-12-05", "empty"), DigestDay("2026-12-06", "failed"))
    quiet = why_reply(answer(Fate("outside"), followed_author="Ada <Lovelace>", quiet_days=days))
    assert ("It is by Ada &lt;Lovelace&gt;, whom you follow, but followed authors' papers come first only "
            "while") in quiet["text"]
    assert quiet["text"].endswith("Your digest of 5 Dec 2026 was empty; of 6 Dec 2026 was not delivered.")


def test_someone_without_digests_is_told_so():
    off = why_reply(answer(Fate("below_cut", None, 9, 30, 5), digest_on=False))["text"]
    assert off.endswith("You get no digest now (`/papers digest 08:30` starts one): papers come only when "
                        "you ask, e.g. `/papers recommend`.")
    assert "no digest" not in why_reply(answer(Fate("below_cut", None, 9, 30, 5)))["text"]


def test_title_words_name_the_best_match_and_the_others():
    other = Paper(id="x", title="Purring again", abstract="x", url="https://example.org/x")
    text = why_reply(answer(Fate("outside"), also=(other,)))["text"]
    assert text.startswith("The best match of those words is <https://arxiv.org/abs/2501.01234|Purring")
    assert "(also matching: <https://example.org/x|Purring again>)" in text


def test_small_words():
    assert [nth(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
    assert day("2026-01-09T10:00:00+00:00") == "9 Jan 2026"


def test_a_reply_from_the_store(ctx):
    follow(ctx, "U1", "feline cats kittens whiskers")
    mute(ctx, "U1", "purring")
    text = reply_why(ctx, "U1", parsed("why cats-4"))["text"]
    assert "I hold it since" in text and "from a feed." in text
    assert "It holds your muted word “purring”" in text
    assert "It is outside your feeds" in reply_why(ctx, "U1", parsed("why quantum-1"))["text"]
