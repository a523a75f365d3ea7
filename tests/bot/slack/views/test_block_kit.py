"""Every Block Kit payload paperbot builds, built at its largest and checked with ``slack_sdk``'s block
models (``Block.parse(...).validate_json()``) and against Slack's limits: 50 blocks a message (100 in
App Home and modals), section text 3,000 characters, header 150, button text 75 and value 2,000,
action and block ids 255, 10 elements in a context block, and a message's ``text`` 40,000 (we hold
ours to Slack's advice of 4,000).

Each builder is driven with the worst input it can meet: TeX-heavy titles and abstracts far longer
than any paper's, dozens of authors, markup characters everywhere, the most feeds and topics a person
may have. A payload that fails here would be refused by Slack (``invalid_blocks``) or cut short.
"""

from __future__ import annotations

import json
from datetime import date
from types import SimpleNamespace

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.delivery.digests import slack_courier
from bot.slack.delivery.trending import trending_message
from bot.slack.listeners import dm_commands
from bot.slack.listeners.saved_buttons import more_reply
from bot.slack.listeners.shortcuts import saved_reply
from bot.slack.oauth.flow import WELCOME
from bot.slack.subcommands import channel as channel_commands
from bot.slack.subcommands import digest_commands, follow_commands, recommend_commands, saved_commands
from bot.slack.subcommands import personal as commands
from bot.slack.subcommands.channel import FROM_DM, HELP_LINES, INVITE, USAGE, _channel_digest_sent
from bot.slack.subcommands.follow_commands import reply_interests
from bot.slack.subcommands.personal import HELP, HELP_TOPICS, help_text, reply_help
from bot.slack.subcommands.recommend_commands import reply_search
from bot.slack.subcommands.saved_commands import reply_saved
from bot.slack.views.digest_texts import header_text
from bot.slack.views.marks import marked
from bot.slack.views.messages import HOME_BLOCKS, MESSAGE_BLOCKS, paper_blocks, paper_text, results_blocks
from bot.slack.views.unfurl_card import unfurl_blocks
from bot.usecases.channel_subjects import ChannelProfile
from bot.usecases.delivery import Delivery
from bot.usecases.digest_vocabulary import Note, Outcome
from bot.usecases.export import ExportFile
from bot.usecases.feeds import MAX_FEEDS
from bot.usecases.interests import FollowResult, Interests
from bot.usecases.recommend import Recommendation
from bot.usecases.save_named import NamedSave
from bot.usecases.saved import Marks, SavedItem, SavedPage
from bot.usecases.similar import MoreLikeThis
from bot.usecases.trending import TrendingPaper
from storage import Paper
from tests.fakes import FakeWebClient

MESSAGE_TEXT = 40_000  # Slack cuts a message's text here
ADVISED_TEXT = 4_000  # and advises at most this
SECTION_TEXT, SECTION_FIELD, SECTION_FIELDS = 3000, 2000, 10
HEADER_TEXT, BUTTON_TEXT, BUTTON_VALUE, BUTTON_URL = 150, 75, 2000, 3000
ID_LIMIT, CONTEXT_ELEMENTS, ACTIONS_ELEMENTS = 255, 10, 25

# -- the checks ----------------------------------------------------------------------------------------


def check_blocks(blocks: list[dict], limit: int = MESSAGE_BLOCKS) -> None:
    """Slack would take ``blocks``: each parses into slack_sdk's model and validates, and every text,
    element count and id is within Slack's limits."""
    assert isinstance(blocks, list) and 0 < len(blocks) <= limit, len(blocks)
    json.dumps(blocks)  # plain JSON, nothing else
    block_ids = [b["block_id"] for b in blocks if "block_id" in b]
    assert len(block_ids) == len(set(block_ids)), block_ids
    for block in blocks:
        parsed = Block.parse(block)
        assert parsed is not None, block
        parsed.validate_json()
        assert len(block.get("block_id", "")) <= ID_LIMIT
        kind = block["type"]
        if kind == "section":
            if "text" in block:
                assert 0 < len(block["text"]["text"]) <= SECTION_TEXT
            fields = block.get("fields") or []
            assert len(fields) <= SECTION_FIELDS and all(len(f["text"]) <= SECTION_FIELD for f in fields)
        elif kind == "header":
            assert 0 < len(block["text"]["text"]) <= HEADER_TEXT
            assert block["text"]["type"] == "plain_text"
        elif kind == "context":
            assert 0 < len(block["elements"]) <= CONTEXT_ELEMENTS
            assert all(len(e.get("text", "")) <= SECTION_TEXT for e in block["elements"])
        elif kind == "actions":
            assert 0 < len(block["elements"]) <= ACTIONS_ELEMENTS
            action_ids = [e["action_id"] for e in block["elements"]]
            assert len(action_ids) == len(set(action_ids))
            for element in block["elements"]:
                assert len(element["action_id"]) <= ID_LIMIT
                if element["type"] == "button":
                    assert 0 < len(element["text"]["text"]) <= BUTTON_TEXT
                    assert len(element.get("value", "")) <= BUTTON_VALUE
                    assert len(element.get("url", "")) <= BUTTON_URL


def check_text(text: str) -> None:
    """A message's ``text`` (its whole content, or the fallback of its blocks): there, and short
    enough for Slack's advice, so nothing of it is ever cut."""
    assert isinstance(text, str) and text.strip()
    assert len(text) <= MESSAGE_TEXT
    assert len(text) <= ADVISED_TEXT, len(text)


def check_message(message: dict, limit: int = MESSAGE_BLOCKS) -> None:
    """A whole message (``chat.postMessage``'s or a reply's keyword arguments): its text and blocks."""
    check_text(message["text"])
    if message.get("blocks") is not None:
        check_blocks(message["blocks"], limit)


# -- the worst papers ------------------------------------------------------------------------------------

TEX = r"$\mathcal{O}(n^{2})$ \emph{bounds} for \textbf{sparse} <attention> & \"{u}ber-$\alpha$ models "
PAPERS = {
    "plain": Paper(id="plain", title="A plain paper", abstract="Short."),
    "untitled": Paper(id="untitled", abstract="Only an abstract, which gives the title line. " * 3),
    "long tex": Paper(id="2401.00001", arxiv_id="2401.00001", title=TEX * 60, abstract=TEX * 400,
                      url="https://arxiv.org/abs/2401.00001", published="2024-01-01",
                      venue=r"Proc. \emph{NeurIPS} & <friends> " * 20),
    "many authors": Paper(id="doi:10.1/x", doi="10.1/x", title="Big collaboration",
                          abstract="We measured. " * 200, authors=[f"Author {'ñ' * 30} <{i}> & Co"
                                                                   for i in range(3000)],
                          url="https://doi.org/10.1/x"),
    "odd url": Paper(id="odd", title="A <link> with | pipes", abstract="x", url="javascript:alert(1)|x"),
    "long id": Paper(id="x" * 3000, title="An id too long for a button", abstract="Abstract."),
}
REASONS = {
    "no reason": ("", None),
    "with feed": ("Matches your topic “graph neural networks”", "robotics lab"),
    "author reason": ("A new paper by " + ", ".join(f"Author {i} <&>" for i in range(200))
                      + ", whom you follow", None),
    "feed and long reason": ("Because " + "you liked <this> & that " * 300, "x" * 40),
}
MARKS = {"none": Marks(), "liked": Marks(liked=True), "disliked": Marks(disliked=True),
         "saved": Marks(saved=True), "saved and liked": Marks(liked=True, saved=True)}


def rec(paper: Paper, reason: str = "Matches your topic “attention”",
        feed: str | None = None) -> Recommendation:
    return Recommendation(paper, 0.9, reason, feed)


def every_rec() -> list[Recommendation]:
    return [rec(p, r, f) for p in PAPERS.values() for r, f in REASONS.values()]


# -- paper messages (digests, recommend, More like this threads, a channel's digest) ---------------------

@pytest.mark.parametrize("paper", PAPERS.values(), ids=PAPERS.keys())
@pytest.mark.parametrize("why", REASONS.values(), ids=REASONS.keys())
@pytest.mark.parametrize("buttons", [True, False], ids=["buttons", "no buttons"])
def test_a_paper_message_in_every_shape(paper, why, buttons):
    reason, feed = why
    blocks = paper_blocks(rec(paper, reason, feed), buttons=buttons)
    check_message({"text": paper_text(paper), "blocks": blocks})
    if buttons:
        assert any(b["type"] == "actions" for b in blocks)


@pytest.mark.parametrize("marks", MARKS.values(), ids=MARKS.keys())
@pytest.mark.parametrize("paper", PAPERS.values(), ids=PAPERS.keys())
def test_a_paper_message_showing_the_persons_feedback(paper, marks):
    blocks = marked(paper_blocks(rec(paper, *REASONS["feed and long reason"])), marks)
    check_message({"text": paper_text(paper), "blocks": blocks})
    again = marked(blocks, marks)  # marked twice (a second click): still one mark line
    assert again == blocks


@pytest.mark.parametrize("channel", ["C0READING", "G0PRIVATE"])
def test_a_channels_digest_as_posted_header_and_papers(channel):
    client = FakeWebClient()
    courier = slack_courier(None, client)  # a channel needs no DM opened, so no store either
    assert courier.open(channel) == channel
    courier.post_text(channel, header_text(3, date(2026, 12, 1), by_feed=None, channel=True))
    for each in every_rec():
        courier.post_paper(channel, each)
    header, *papers = client.posts()
    check_text(header["text"])
    assert len(papers) == len(every_rec())
    for message in papers:
        check_message(message)
        assert message["metadata"]["event_payload"]["paper_id"]


def test_digest_headers_with_every_feed():
    by_feed = [("main", 3)] + [(f"{'f' * 18} {'g' * 18}{i}", 2) for i in range(MAX_FEEDS)]
    day = date(2026, 12, 30)
    for options in ({}, {"extra": True}, {"weekly": True}, {"channel": True},
                    {"channel": True, "weekly": True}):
        check_text(header_text(40, day, by_feed=by_feed, **options))
        check_text(header_text(1, day, **options))


# -- unfurl cards ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("paper", PAPERS.values(), ids=PAPERS.keys())
def test_an_unfurl_card(paper):
    blocks = unfurl_blocks(paper)
    check_blocks(blocks)  # an unfurl is an attachment's blocks: a message's limits
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert buttons or len("paper:" + paper.id) > BUTTON_VALUE  # only an id too long goes without


# -- lists of papers: trending, search results, the saved list ---------------------------------------

def test_a_trending_post_with_ten_of_the_worst_papers_and_the_empty_one():
    papers = [TrendingPaper(p, 1000 - i) for i, p in enumerate([*PAPERS.values(), *PAPERS.values()][:10])]
    message = trending_message(papers)
    check_message(message)
    assert len([b for b in message["blocks"] if b["type"] == "section"]) == 10
    check_message(trending_message([]))
    check_message(trending_message(papers[:1]))


def test_search_results_as_many_as_fit(monkeypatch):
    recs = every_rec() * 3
    monkeypatch.setattr(recommend_commands, "search", lambda ctx, query, n: recs[:n])
    monkeypatch.setattr(recommend_commands, "SEARCH_RESULTS", len(recs))
    reply = reply_search(None, "U1", commands.parse("search " + "<b> & " * 300))
    check_message(reply)
    check_message({"text": "x", "blocks": results_blocks("*intro*", recs)})
    check_message({"text": "x", "blocks": results_blocks("*intro*", recs[:1])})


@pytest.mark.parametrize("count", [1, 7, 500, 3000])
def test_the_saved_list(monkeypatch, count):
    items = [SavedItem(list(PAPERS.values())[i % len(PAPERS)], "2026-12-01T09:00:00Z") for i in range(count)]
    monkeypatch.setattr(saved_commands, "saved_page",
                        lambda ctx, user, limit: SavedPage(items[:limit], len(items)))
    reply = reply_saved(None, "U1")
    check_message(reply)
    if count == 3000:  # not all fit: the last block says how many more, and where they are
        assert "more" in reply["blocks"][-1]["elements"][0]["text"]


# -- text replies: help, interests, channels, export, DM answers ---------------------------------------

def test_help_and_the_channel_texts():
    check_message(reply_help())
    for text in (HELP, USAGE, FROM_DM, INVITE, HELP_LINES, *(help_text(t.name) for t in HELP_TOPICS)):
        check_text(text)
    assert "/papers channel" in HELP
    for word in ("Save paper", "DM"):
        assert word in help_text("buttons")


def test_interests_with_the_most_anyone_can_have(monkeypatch):
    many = [f"topic {'q' * 60} <{i}> & more" for i in range(400)]
    info = Interests(topics=many, liked=10**6, disliked=10**6, digest_time="09:00", digest_enabled=True,
                     tz="America/Argentina/ComodRivadavia",
                     feeds={f"{'n' * 18} {'m' * 18}{i}": many for i in range(MAX_FEEDS)},
                     authors=many, muted=many, digest_weekday=4, saved=10**6, digest_compact=True)
    monkeypatch.setattr(follow_commands, "interests", lambda ctx, user: info)
    reply = reply_interests(None, "U1")
    check_message(reply)
    assert "as one message" in reply["text"]


def test_what_the_shortcut_more_like_this_and_a_channel_digest_now_say():
    worst = list(PAPERS.values()) * 10
    check_text(saved_reply(NamedSave(named=["x"] * 60, saved=worst, already=worst, missing=["y" * 500] * 60,
                                     unreachable=True)))
    check_text(saved_reply(NamedSave(named=[], saved=[], already=[], missing=[])))
    for delivery in (Delivery(), Delivery(delivered=every_rec(), failed=every_rec()),
                     Delivery(failed=[rec(worst[0])])):
        for channel in (False, True):
            check_text(more_reply(MoreLikeThis(PAPERS["long tex"], delivery, for_channel=channel)))
    for outcome in (Outcome("C1", date(2026, 1, 1), "sent", 3), Outcome("C1", date(2026, 1, 1), "empty"),
                    Outcome("C1", date(2026, 1, 1), "failed",
                            note=Note("unreachable", detail="<x> & " * 300)),
                    Outcome("C1", date(2026, 1, 1), "incomplete", 1, 2, outage=True)):
        check_text(_channel_digest_sent(outcome))
        check_text(digest_commands._digest_sent(outcome))


def test_a_dm_answer_is_a_message_too(monkeypatch):
    answer = dm_commands.dm_reply(None, None, "U1", "what can you do?")
    check_message(answer)
    items = [SavedItem(PAPERS["long tex"], "2026")] * 99
    monkeypatch.setattr(saved_commands, "saved_page",
                        lambda ctx, user, limit: SavedPage(items[:limit], len(items)))
    check_message(dm_commands.dm_reply(None, None, "U1", "saved"))


# -- App Home and modals ----------------------------------------------------------------------------------
# The App Home tab and its modals are checked as views in test_home_view.py (slack_sdk's View, titles,
# inputs); here their blocks pass the same block checks as every message, held to the views' limit.

def test_the_home_tab_and_every_modal_pass_the_same_block_checks():
    from bot.slack.views import home_view as views
    from tests.bot.slack.views.test_home_view import HOSTILE, data, interests

    many = [f"{HOSTILE} topic {i} " + "x" * 60 for i in range(50)]
    worst = interests(topics=many, feeds={f"feed{i}": many for i in range(10)}, authors=many, muted=many)
    built = [views.home_view(data(worst, saved=500, new=True), notice="Not saved: " + "x" * 5000),
             views.topics_modal("robotics", many), views.new_feed_modal(), views.authors_modal(many),
             views.mutes_modal(many), views.schedule_modal(worst), views.wait_modal(),
             views.round_modal([PAPERS["long tex"]] * 8, {PAPERS["long tex"].id: 1})]
    for view in built:
        check_blocks(view["blocks"], HOME_BLOCKS)


# -- the other text replies: follow, a channel's settings, export, the welcome ------------------------

def _worst_follow(n: int = 50) -> FollowResult:
    long = [f"{'w' * 90} <{i}> &" for i in range(n)]
    return FollowResult(added=long, already=long, seeds=list(PAPERS.values()) * 9, unknown_seeds=long,
                        digest_turned_on=True, digest_time="09:00", authors=long, authors_already=long)


def test_what_follow_says_at_most(monkeypatch):
    check_text(follow_commands._followed(_worst_follow(), "America/Argentina/ComodRivadavia"))
    monkeypatch.setattr(channel_commands, "channel_timezone", lambda ctx, channel: "Europe/Berlin")
    check_text(channel_commands._followed(None, "C1", _worst_follow()))


def test_a_channels_settings_at_most(monkeypatch):
    many = [f"topic {'q' * 90} <{i}> &" for i in range(50)]
    info = Interests(topics=many, liked=10**6, disliked=10**6, digest_time="09:00", digest_enabled=True,
                     tz="America/Argentina/ComodRivadavia", authors=many, digest_weekday=2)
    monkeypatch.setattr(channel_commands, "channel_profile",
                        lambda ctx, channel: ChannelProfile(channel, info, True, True))
    monkeypatch.setattr(channel_commands, "is_member", lambda client, channel: False)
    reply = channel_commands.reply_show(None, None, "C1")
    check_message(reply)
    assert INVITE in reply["text"]


def test_export_answers_and_the_files_comments(monkeypatch):
    uploaded: list[str] = []
    titles: list[str] = []
    monkeypatch.setattr(saved_commands, "upload_to_dm",
                        lambda ctx, client, user, file, title, comment: (uploaded.append(comment),
                                                                         titles.append(title)))
    monkeypatch.setattr(saved_commands, "bibtex_export",
                        lambda ctx, user: ExportFile("a.bib", "bibtex", "", 10**6))
    monkeypatch.setattr(saved_commands, "data_export",
                        lambda ctx, user: ExportFile("a.json", "json", "", 10**9))
    rt = SimpleNamespace(ctx=None)
    for text in ("export", "export data"):
        check_message(saved_commands.reply_export(rt, None, "U1", commands.parse(text)))
    assert len(uploaded) == 2
    assert titles == ["Your saved and liked papers", "Everything paperbot stores about you"]
    for comment in uploaded:
        check_text(comment)


def test_the_welcome_after_an_install():
    check_text(WELCOME)
