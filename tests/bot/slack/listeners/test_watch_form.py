"""The watch form's submission (bot/slack/listeners/watch_form.py): a wrong description is shown under its
field in the ack, nothing stored; someone else's form is refused; a good one acks empty."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from bot.slack.views import watch as view
from tests.bot.slack.conftest import signed


def submission(text: str, title: str = "", owner: str = "U1", user: str = "U1"):
    values = {view.TITLE_BLOCK: {view.TITLE_INPUT: {"type": "plain_text_input", "value": title}},
              view.TEXT_BLOCK: {view.TEXT_INPUT: {"type": "plain_text_input", "value": text}}}
    payload = {"type": "view_submission", "team": {"id": "T1"}, "user": {"id": user}, "api_app_id": "A1",
               "trigger_id": "t.sub",
               "view": {"id": "V1", "type": "modal", "callback_id": view.FORM_CALLBACK,
                        "private_metadata": owner, "state": {"values": values}}}
    return signed(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")


@pytest.mark.parametrize(("text", "title", "block", "says"), [
    ("   ", "", view.TEXT_BLOCK, "Describe your project"),
    ("x" * 3001, "", view.TEXT_BLOCK, "at most 3,000 characters, not 3,001"),
    ("ok", "t" * 151, view.TITLE_BLOCK, "at most 150 characters"),
])
def test_a_wrong_form_is_shown_under_its_field_and_nothing_is_stored(slack_bot, ctx, text, title, block,
                                                                     says):
    response = slack_bot.app.dispatch(submission(text, title))
    body = json.loads(response.body)
    assert body["response_action"] == "errors" and says in body["errors"][block]
    assert ctx.store.get_watches("U1") == []


def test_someone_elses_form_is_refused(slack_bot, ctx):
    body = json.loads(slack_bot.app.dispatch(submission("Coral reefs.", owner="U2")).body)
    assert "out of date" in body["errors"][view.TEXT_BLOCK]


def test_a_good_form_acks_empty(slack_bot):
    response = slack_bot.app.dispatch(submission("Coral reefs bleach in heat waves.", "Reefs"))
    assert response.status == 200 and not response.body.startswith("{")
