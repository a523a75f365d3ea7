"""Scoop watch end to end (issue 43), on both backends: `/papers watch` in the DM opens the form (a signed
request to the real bot), the form's submission makes the watch, a `paperbot ingest` brings a paper close
to it, and the next runs post one DM with the overlapping passages and the two buttons, once; Not close
makes the watch stricter."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from bot.slack.views import watch as view
from tests.e2e.digests_support import cli
from tests.e2e.harness import TEAM_ID, posts_to, process_environment, query, user_ids

new_user = user_ids("UWAT")
PROJECT = ("Coral reef bleaching under marine heat waves. We measure how reef corals lose their symbiotic "
           "algae when the sea warms. Thermal stress is counted in degree heating weeks across reef sites.")
SCOOP = {"id": "reef-scoop-1", "title": "Coral bleaching in marine heat waves", "authors": ["Rae Coral"],
         "abstract": "Reef corals lose their symbiotic algae when the sea warms. Thermal stress in degree "
                     "heating weeks predicts bleaching across reef sites. We survey forty reefs.",
         "url": "https://example.org/reef-scoop-1"}


@pytest.fixture(scope="module")
def db_path(tmp_path_factory, backend, seeded_copy):
    """A copy of the seeded database (the close paper comes in the test)."""
    with seeded_copy(tmp_path_factory.mktemp(f"watch-{backend}"), backend) as path:
        yield path


def open_form(slack, standin, user: str) -> dict:
    """`/papers watch` typed in the person's DM with paperbot; the modal it opened."""
    body, key = slack.command_body(user, "watch", channel="D" + user)
    assert slack.post(body, "application/x-www-form-urlencoded")[0] == 200
    [call] = standin.wait_for(lambda: standin.calls("views.open", trigger_id=f"{key}.trigger"),
                              what="the watch form")
    form = call.params["view"]
    return json.loads(form) if isinstance(form, str) else form


def submit(slack, user: str, form: dict, title: str, text: str) -> None:
    payload = {
        "type": "view_submission", "team": {"id": TEAM_ID, "domain": "standin"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0PAPERBOT",
        "token": "legacy-verification-token", "trigger_id": f"sub{time.monotonic_ns()}.trigger",
        "view": {"id": "VWATCH", "type": "modal", "team_id": TEAM_ID, "callback_id": form["callback_id"],
                 "private_metadata": form["private_metadata"], "state": {"values": {
                     view.TITLE_BLOCK: {view.TITLE_INPUT: {"type": "plain_text_input", "value": title}},
                     view.TEXT_BLOCK: {view.TEXT_INPUT: {"type": "plain_text_input", "value": text}}}}},
    }
    status, body, _ = slack.interaction(payload)
    assert status == 200 and not body.startswith(b"{"), body  # no errors under a field


def alerts_to(standin, user: str) -> list:
    return [p for p in posts_to(standin, "D" + user)
            if (p.params.get("metadata") or {}).get("event_type") == view.ALERT_EVENT]


def test_a_watch_from_the_form_brings_one_dm_with_passages_and_buttons_when_a_close_paper_arrives(
        slack, standin, store, db_path, tmp_path):
    user = new_user()
    form = open_form(slack, standin, user)
    assert form["callback_id"] == view.FORM_CALLBACK and form["private_metadata"] == user
    submit(slack, user, form, "Reef bleaching", PROJECT)
    standin.wait_for(lambda: store.get_watches(user), what="the watch stored")
    standin.wait_for(lambda: [p for p in posts_to(standin, "D" + user) if "Watching for papers close to"
                              in p.params.get("text", "")], what="the watch confirmed")

    feed = tmp_path / "scoop.jsonl"
    feed.write_text(json.dumps(SCOOP) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "ingest", str(feed)], cwd=tmp_path, timeout=120,
                          env=process_environment(tmp_path, {"PAPERBOT_DB": str(db_path)}),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r["status"] for r in query(store, "select status from watch_alerts where user_id = ?", [user])] \
        in (["due"], ["sending"], ["sent"])  # recorded by the ingest (the bot's own tick may post it first)

    for _ in range(2):  # the second run (or the bot's scheduler meanwhile) posts nothing more
        code, out, err = cli(standin, db_path)
        assert code == 0, out + err
    standin.wait_for(lambda: alerts_to(standin, user), what="the alert")
    [alert] = alerts_to(standin, user)
    blocks = alert.params["blocks"]
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    said = json.dumps(blocks)
    assert "Coral bleaching in marine heat waves" in said and "Reef bleaching" in said
    assert "_Paper:_" in said and "_Yours:_" in said  # passages side by side
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert [b["text"]["text"] for b in buttons] == ["Close: keep me posted", "Not close: be stricter"]
    assert [r["status"] for r in query(store, "select status from watch_alerts where user_id = ?", [user])] \
        == ["sent"]

    # Not close: the watch is stricter from now on.
    payload, key = slack.click_payload(user, view.STRICTER_ACTION, "D" + user, alert.response["ts"])
    payload["actions"][0]["value"] = buttons[1]["value"]
    assert slack.interaction(payload)[0] == 200
    [answer] = standin.wait_for(lambda: standin.responses(key), what="the verdict's answer")
    assert "stricter" in answer.params["text"]
    assert store.get_watches(user)[0].stricter == 1
