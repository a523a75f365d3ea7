"""The App Home tab and its modals as Block Kit: valid (slack_sdk's models), within Slack's limits
however long the lists, every outside text escaped."""

from __future__ import annotations

import json

import pytest
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.slack.views.home_view import (
    ALERTS_ACTION,
    AUTHORS_ACTION,
    BUTTON_LIMIT,
    FOLLOWUPS_ACTION,
    INPUT_LIMIT,
    MODAL_TITLE,
    MUTES_ACTION,
    NEW_FEED_ACTION,
    ROUND_ACTION,
    ROUND_DISLIKE,
    ROUND_LIKE,
    SCHEDULE_ACTION,
    SUGGEST_ACTION,
    TOPICS_ACTION,
    TOPICS_BLOCK,
    alerts_modal,
    arrival_text,
    authors_modal,
    home_view,
    mutes_modal,
    new_feed_modal,
    round_modal,
    schedule_modal,
    too_long_modal,
    topics_modal,
    wait_modal,
)
from bot.slack.views.messages import HEADER_LIMIT, HOME_BLOCKS, SECTION_LIMIT
from bot.usecases.feeds import MAIN
from bot.usecases.home import HomeData
from bot.usecases.interests import Interests
from bot.usecases.saved import SavedItem
from storage import Paper
from tests.bot.slack.views.test_messages import HOSTILE, hostile_paper, texts


def check_view(view: dict) -> None:
    """Valid Block Kit within Slack's limits: 100 blocks, titles of 24, sections of 3000, buttons of 75."""
    assert 1 <= len(view["blocks"]) <= HOME_BLOCKS
    for block in view["blocks"]:
        Block.parse(block).validate_json()
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_LIMIT
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= HEADER_LIMIT
        buttons = [block.get("accessory") or {}] + list(block.get("elements") or [])
        for button in buttons:
            if button.get("type") == "button":
                assert len(button["text"]["text"]) <= BUTTON_LIMIT and len(button["value"]) <= 2000
    View(**view).validate_json()  # checks the title, submit and close labels too
    if view["type"] == "modal":
        assert len(view["title"]["text"]) <= MODAL_TITLE
        assert len(view.get("private_metadata", "")) <= 3000


def interests(**changes) -> Interests:
    info = Interests(topics=["graph neural networks"], liked=2, disliked=1, digest_time="08:30",
                     digest_enabled=True, tz="Europe/Berlin")
    for name, value in changes.items():
        setattr(info, name, value)
    return info


def data(info: Interests | None = None, saved: int = 0, new: bool = False) -> HomeData:
    items = [SavedItem(hostile_paper(), "2026-01-01T00:00:00+00:00") for _ in range(min(saved, 5))]
    return HomeData(info or interests(), items, saved, new)


def actions_of(view: dict) -> list[tuple[str, str]]:
    found = []
    for block in view["blocks"]:
        for element in [block.get("accessory") or {}] + list(block.get("elements") or []):
            if element.get("type") == "button":
                found.append((element["action_id"], element["value"]))
    return found


def test_home_shows_everything_with_a_button_for_each():
    info = interests(feeds={"robotics": ["grasping"], "theory": ["bandits"]}, authors=["Andrea Bajcsy"],
                     muted=["blockchain"], digest_weekday=4, alerts=["graph transformers"])
    view = home_view(data(info, saved=7))
    check_view(view)
    text = json.dumps(view)
    for seen in ("graph neural networks", "robotics", "grasping", "bandits", "Andrea Bajcsy", "blockchain",
                 "*Alerts:* graph transformers", "weekly on Fridays at 08:30 (Europe/Berlin time)",
                 "2 liked, 1 disliked", "and 2 more"):
        assert seen in text, seen
    assert set(actions_of(view)) == {(TOPICS_ACTION, MAIN), (TOPICS_ACTION, "robotics"),
                                     (TOPICS_ACTION, "theory"), (NEW_FEED_ACTION, "new"),
                                     (AUTHORS_ACTION, "edit"), (MUTES_ACTION, "edit"),
                                     (SCHEDULE_ACTION, "edit"), (SUGGEST_ACTION, "on"),
                                     (ALERTS_ACTION, "edit"), (FOLLOWUPS_ACTION, "off")}
    assert "*Follow-ups:* on" in text


def test_only_someone_new_is_offered_the_round():
    assert (ROUND_ACTION, "start") in actions_of(home_view(data(new=True)))
    assert ROUND_ACTION not in {a for a, _ in actions_of(home_view(data(new=False)))}
    off = home_view(data(interests(digest_enabled=False, topics=[])))
    assert "*Digest:* off" in json.dumps(off) and "none yet" in json.dumps(off)


def test_long_lists_are_cut_to_stay_within_limits_and_everything_is_escaped():
    many = [f"{HOSTILE} topic {i} " + "x" * 60 for i in range(50)]
    info = interests(topics=many, feeds={f"feed{i}": many for i in range(10)}, authors=many, muted=many,
                     tz=HOSTILE, alerts=many[:20])
    view = home_view(data(info, saved=500, new=True), notice="Not saved: " + HOSTILE.replace("<", "&lt;"))
    check_view(view)
    assert "more" in json.dumps(view)
    for text in texts(view["blocks"]):
        assert "<!channel>" not in text and "<@U123>" not in text


@pytest.mark.parametrize("build", [
    lambda: topics_modal(MAIN, ["graph neural networks", HOSTILE]),
    lambda: topics_modal("robotics", ["grasping"]),
    lambda: topics_modal("robotics", ["x" * 100] * 40),  # too long for one input
    new_feed_modal,
    lambda: authors_modal(["Andrea Bajcsy", HOSTILE]),
    lambda: authors_modal([]),
    lambda: mutes_modal(["blockchain"]),
    lambda: alerts_modal([]),
    lambda: alerts_modal([HOSTILE[:100], *(f"{'x' * 95} {i}" for i in range(19))]),  # the most there can be
    lambda: schedule_modal(interests()),
    lambda: schedule_modal(interests(digest_enabled=False, digest_time=None, tz=None)),
    lambda: schedule_modal(interests(digest_weekday=6, tz=HOSTILE * 20)),
    wait_modal,
    lambda: too_long_modal("A title much longer than twenty-four", "topics"),
    lambda: round_modal([], {}),
])
def test_every_modal_is_valid_block_kit(build):
    check_view(build())


def test_a_form_holds_the_current_value_unless_it_is_too_long_for_one():
    view = topics_modal("robotics", ["grasping", "sim2real"])
    field = next(b for b in view["blocks"] if b.get("block_id") == TOPICS_BLOCK)
    assert field["element"]["initial_value"] == "grasping, sim2real" and not field["optional"]
    assert json.loads(view["private_metadata"]) == {"feed": "robotics"}
    main = next(b for b in topics_modal(MAIN, [])["blocks"] if b.get("block_id") == TOPICS_BLOCK)
    assert main["optional"] and "initial_value" not in main["element"]
    crowded = topics_modal(MAIN, ["x" * 100] * 40)
    assert "submit" not in crowded and len(", ".join(["x" * 100] * 40)) > INPUT_LIMIT


def test_the_round_shows_each_paper_with_its_rating():
    papers = [hostile_paper(50), Paper(id="b", title="Plain", abstract="An abstract."),
              *[Paper(id=f"p{i}", title=f"Paper {i}", abstract="Words " * 200) for i in range(8)]]
    view = round_modal(papers, {"b": 1, "p0": -1})
    check_view(view)
    assert json.loads(view["private_metadata"]) == [p.id for p in papers]
    text = json.dumps(view, ensure_ascii=False)
    assert "2 of 10 rated" in text and "👍 Liked" in text and "👎 Not for me" in text
    assert {(a, v) for a, v in actions_of(view)} >= {(ROUND_LIKE, "b"), (ROUND_DISLIKE, "p0")}
    for text in texts(view["blocks"]):
        assert "<!channel>" not in text


def test_home_says_when_the_newest_paper_arrived_in_the_reader_s_own_timezone():
    assert arrival_text("2026-12-05T10:14:00+00:00") == (
        "*Newest paper:* arrived <!date^1796465640^{date_short_pretty} at {time}|2026-12-05 10:14 UTC>")
    assert "none yet" in arrival_text(None) and "paperbot ingest" in arrival_text(None)
    view = home_view(HomeData(interests(), [], 0, False, "2026-12-05T10:14:00+00:00"))
    assert "<!date^1796465640^" in json.dumps(view)
