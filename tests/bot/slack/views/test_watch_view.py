"""The scoop watch's blocks and words (bot/slack/views/watch.py): the form and an alert at their largest are
Block Kit Slack takes; the passages stand side by side; the buttons name the watch and paper; everything
echoed is escaped; each refusal is one line saying what works."""

from __future__ import annotations

from slack_sdk.models.views import View

from bot.slack.views import watch as view
from bot.usecases import watches as usecase
from storage import Paper
from storage.models import Watch, WatchAlert
from tests.bot.slack.views.test_block_kit import check_blocks
from tests.bot.slack.views.test_messages import HOSTILE, texts

AT = "2026-03-02T00:00:00+00:00"
WATCH = Watch("T1", "U1", "01abcdef12", HOSTILE * 3, "x" * 3000, 0, 0, 0, None, 0, AT)
ALERT = WatchAlert("T1", "U1", "01abcdef12", "arxiv:2401.00001", 512_345, "sending", 1, AT)
VALUE = "01abcdef12:arxiv:2401.00001"


def news(passages: int = 3) -> usecase.WatchNews:
    paper = Paper(id="arxiv:2401.00001", title=HOSTILE * 20, abstract=HOSTILE * 50, authors=[HOSTILE] * 40,
                  url="https://arxiv.org/abs/2401.00001", venue=HOSTILE)
    found = tuple(usecase.Passage(HOSTILE * 40, "word " * 500, 0.5) for _ in range(passages))
    return usecase.WatchNews(ALERT, WATCH, paper, 0.512345, found)


def test_an_alert_at_its_largest_is_block_kit_with_passages_side_by_side_and_two_buttons():
    blocks = view.alert_blocks(news())
    check_blocks(blocks)
    sides = [b["fields"] for b in blocks if b["type"] == "section" and "fields" in b]
    assert len(sides) == 3 and all(f[0]["text"].startswith("_Paper:_") and f[1]["text"].startswith("_Yours:_")
                                   for f in sides)
    [actions] = [b for b in blocks if b["type"] == "actions"]
    assert [(e["action_id"], e["value"]) for e in actions["elements"]] == [
        (view.CLOSE_ACTION, VALUE), (view.STRICTER_ACTION, VALUE)]
    assert all("<!channel>" not in t for t in texts(blocks))
    assert "closeness 0.51" in blocks[0]["text"]["text"]
    assert view.alert_metadata(news())["event_payload"] == {"owner": "U1", "watch_id": "01abcdef12",
                                                            "paper_id": "arxiv:2401.00001"}
    check_blocks(view.alert_blocks(news(0)))  # no passage worth showing: the paper and buttons alone


def test_the_form_is_a_modal_slack_takes_and_its_submission_reads_back():
    for owner in ("U1", "C42"):
        form = view.form(owner)
        View(**form).validate_json()
    state = {"values": {view.TITLE_BLOCK: {view.TITLE_INPUT: {"value": "Reefs"}},
                        view.TEXT_BLOCK: {view.TEXT_INPUT: {"value": "Coral reefs bleach."}}}}
    assert view.submitted({"private_metadata": "U1", "state": state}) == (
        "U1", "Reefs", "Coral reefs bleach.")
    assert view.submitted({"private_metadata": "U1", "state": {"values": {}}}) == ("U1", None, "")


def test_each_refusal_is_one_line_saying_what_works():
    said = [view.refusal(e) for e in (usecase.EmptyWatch(), usecase.WatchTooLong(3000, 3456),
                                      usecase.WatchTooLong(150, 200, "title"), usecase.TooManyWatches(10),
                                      usecase.NoSuchWatch(9, 2), usecase.NoSuchWatch(1, 0),
                                      usecase.NoSuchAlert("w", "p"))]
    assert all(s and "\n" not in s for s in said)
    assert all("`/papers watch" in s for i, s in enumerate(said) if i not in (1, 2))
    assert "shorten it" in said[2]
    assert "at most 3,000 characters, not 3,456" in said[1]
    assert said[4].startswith("There is no watch 9: you have 2 (1 to 2)")


def test_the_list_escapes_and_numbers_as_remove_counts():
    listed = view.listed([WATCH, WATCH], "U1")
    assert listed.startswith("*Your watches* (2 of 10):") and "\n2. " in listed and "<!channel>" not in listed
