"""Conference plans end to end (issue 43), on both backends: `/papers conference ICML 2025` through a signed
request to the real bot answers with the plan (papers of the venue only, in the order their sessions
start), a Going click as Slack sends it redraws it, and the scheduler, on a clock the test moves, sends the
reminder into the DM once, 15 minutes before the session."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bot.config import Settings
from bot.slack.delivery.digests import DigestScheduler, one_workspace
from bot.slack.views.conference_plans import GOING_ACTION, chosen_in
from bot.state.context import Context
from tests.e2e.harness import bot_environment, posts_to, query, user_ids
from tests.fakes import Clock

new_user = user_ids("UCONF")
#: Far in the future: the running bot's own scheduler, on the wall clock, never finds them due.
FIRST = datetime(2030, 7, 15, 18, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def extra_papers() -> list[dict]:
    """Four ICML 2025 posters about cats, with sessions (the latest-starting first in the file)."""
    return [{"id": f"icml-{i}", "title": f"Feline whiskers and purring kittens, part {i}",
             "abstract": f"We study feline cats whiskers purring kittens in poster number {i}.",
             "venue": "ICML 2025 poster", "session": f"Poster Session {4 - i}",
             "starts_at": (FIRST + timedelta(hours=3 - i)).isoformat(), "location": f"East Hall #E-{i}"}
            for i in range(4)]


def buttons(blocks) -> list[dict]:
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]]


def reminders(standin, user: str) -> list[str]:
    return [p.params["text"] for p in posts_to(standin, "D" + user)
            if p.params.get("text", "").startswith(":alarm_clock:")]


def test_a_plan_a_going_click_and_one_reminder_15_minutes_before(slack, standin, store, db_path):
    user = new_user()
    assert "Now following" in slack.ask(user, "follow feline cats whiskers").text
    plan = slack.ask(user, "conference ICML 2025")
    assert plan.text.startswith("Your plan for icml 2025: 4 papers"), plan.text
    going = [b for b in buttons(plan.blocks) if b["action_id"] == GOING_ACTION]
    order = [chosen_in(b["value"])[1] for b in going]
    assert order == ["icml-3", "icml-2", "icml-1", "icml-0"]  # the soonest session first
    assert "East Hall #E-3" in json.dumps(plan.blocks)
    assert slack.ask(user, "conference NeurIPS 2031").text.startswith("I hold no papers of “NeurIPS 2031”")

    payload, key = slack.click_payload(user, GOING_ACTION, "D" + user, "1700000000.000001")
    payload["actions"][0]["value"] = going[0]["value"]
    assert slack.interaction(payload)[0] == 200
    [redrawn] = standin.wait_for(lambda: standin.responses(key), what="the plan redrawn")
    assert redrawn.params.get("replace_original") is True
    assert "1 marked Going" in redrawn.params["text"]
    assert query(store, "select paper_id, choice from conference_plans where user_id = ?"
                 " and choice is not null", [user]) == [{"paper_id": "icml-3", "choice": "going"}]

    # The scheduler of `paperbot run`, on the test's clock: not yet 16 minutes before; once at 14.
    settings = Settings.load(environ=bot_environment(standin, db_path), dotenv=None)
    ctx = Context.open(str(db_path), digest_size=3)
    clock = Clock(FIRST - timedelta(minutes=16))
    scheduler = DigestScheduler(ctx, one_workspace(settings), interval=0.2, clock=clock)
    try:
        scheduler.start()
        standin.wait_for(lambda: scheduler.runs >= 2, timeout=20, what="ticks before the reminder is due")
        assert reminders(standin, user) == []
        clock.advance(timedelta(minutes=2))
        standin.wait_for(lambda: reminders(standin, user), timeout=20, what="the reminder")
        ticks = scheduler.runs
        standin.wait_for(lambda: scheduler.runs >= ticks + 3, timeout=20, what="more ticks")
    finally:
        scheduler.shutdown()
        ctx.close()
    [said] = reminders(standin, user)
    assert "Feline whiskers and purring kittens, part 3" in said and "East Hall #E-3" in said

