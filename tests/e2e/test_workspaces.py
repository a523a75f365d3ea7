"""End to end: one paperbot serving two workspaces installed through OAuth, on both backends.

Each workspace is its own world: the same user id is two people, one workspace's likes never shape
the other's picks or reasons, each gets its digests with its own token, and one whose token Slack
refuses holds up nobody else's digests. The bot runs its real scheduler, ticking twice a second.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.state.context import Context
from bot.usecases import record_feedback
from bot.usecases.feedback import LIKE
from stand_ins.slack import SlackStandIn, Workspace
from tests.e2e.harness import (
    opened,
    process_environment,
    user_ids,
    zone_far_from_midnight,
)
from tests.e2e.oauth_flow import command, install, oauth_bot, oauth_environment

new_user = user_ids("UWS")
TICK = 0.5  # seconds between the scheduler's looks for due digests


@pytest.fixture(scope="module")
def running(standin, db_path):
    """The bot in OAuth mode with its digest scheduler."""
    with oauth_bot(standin, db_path, digest_interval=TICK) as bot:
        yield bot


@pytest.fixture(scope="module")
def workspaces(running, standin) -> tuple[Workspace, Workspace]:
    """Two workspaces, installed through the real flow."""
    first = standin.add_workspace("T0WSAAAA", installer="UADMINWSA")
    second = standin.add_workspace("T0WSBBBB", installer="UADMINWSB")
    for workspace in (first, second):
        assert install(running, workspace).finished.status == 200
    return first, second


def ask(slack, standin: SlackStandIn, workspace: Workspace, user: str, text: str) -> str:
    """`/papers TEXT` from ``user`` of ``workspace``; the reply's text."""
    status, _, key = command(slack, user, text, workspace.team_id)
    assert status == 200
    return standin.wait_for(lambda: standin.responses(key), what=f"the reply to {text!r}")[0].params["text"]


def posts(standin: SlackStandIn, workspace: Workspace, user: str) -> list:
    """Paper messages posted into ``user``'s DM with ``workspace``'s token, oldest first."""
    return [c for c in standin.calls("chat.postMessage", channel="D" + user)
            if c.status == 200 and c.token == workspace.token and c.params.get("blocks")]


def headers(standin: SlackStandIn, workspace: Workspace, user: str) -> list:
    return [c for c in standin.calls("chat.postMessage", channel="D" + user)
            if c.status == 200 and c.token == workspace.token and not c.params.get("blocks")]


def in_workspace(db_path, ws: str, work) -> None:
    """Run ``work(ctx)`` on the context of workspace ``ws`` (for setting up likes and schedules)."""
    ctx = Context.open(str(db_path))
    try:
        work(ctx.for_workspace(ws))
    finally:
        ctx.close()


def test_the_same_user_id_in_two_workspaces_is_two_people(workspaces, slack, standin):
    first, second = workspaces
    user = new_user()
    assert "robot grasping" in ask(slack, standin, first, user, "follow robot grasping")
    assert "quantum qubits" in ask(slack, standin, second, user, "follow quantum qubits")
    mine, theirs = (ask(slack, standin, w, user, "interests") for w in (first, second))
    assert "robot grasping" in mine and "quantum" not in mine
    assert "quantum qubits" in theirs and "robot" not in theirs


def test_likes_in_one_workspace_never_shape_the_others_picks_or_reasons(workspaces, slack, standin, db_path,
                                                                       store):
    first, second = workspaces
    colleagues, here, there = [new_user(), new_user()], new_user(), new_user()

    def likes(people: list[str], papers: list[str]):
        def work(ctx):
            for person in people:
                for paper in papers:
                    record_feedback(ctx, person, paper, LIKE)
        return work

    # In the first workspace two colleagues liked a cats paper together with a quantum paper.
    in_workspace(db_path, first.key, likes(colleagues, ["cats-0", "quantum-5"]))
    in_workspace(db_path, first.key, likes([here], ["cats-0"]))
    in_workspace(db_path, second.key, likes([there], ["cats-0"]))
    quantum = store.get_paper("quantum-5").title
    ask(slack, standin, first, here, "recommend 8")
    ask(slack, standin, second, there, "recommend 8")
    shown_here = json.dumps([c.params["blocks"] for c in posts(standin, first, here)])
    shown_there = json.dumps([c.params["blocks"] for c in posts(standin, second, there)])
    # The control: in the colleagues' workspace their likes bring the quantum paper, and say so.
    assert quantum in shown_here and "People who liked" in shown_here
    # The other workspace's same taste gets neither the paper nor the reason.
    assert posts(standin, second, there)
    assert quantum not in shown_there and "People who liked" not in shown_there


def due_now(users: list[str]):
    """Set-up work: ``users`` follow a topic each and their digests are due all day today."""
    def work(ctx):
        for i, user in enumerate(users):
            ctx.store.add_topics(user, ["feline cats whiskers" if i % 2 else "graph neural networks"])
            with ctx.store.transaction():
                ctx.store.set_timezone(user, "Asia/Kolkata")
                ctx.store.set_digest_schedule(user, "00:00", True, since="2020-01-01T00:00:00+00:00")
    return work


def test_a_rate_limited_workspace_holds_up_no_other_workspaces_digests(running, workspaces, standin, db_path):
    first, second = workspaces
    # Every post with the first workspace's token is refused with 429 (Retry-After 1 s) until the other
    # workspace's digests are all out and one more refusal has come after them, at most eight times (about
    # 12 s, within what a digest waits out). Had the other workspace's digests queued behind these 429s,
    # they would have waited for refusals that end only after them: the waits below would run out.
    # Both workspaces' digests fall due together.
    release = standin.fail("chat.postMessage", status=429, times=8, retry_after=1, token=first.token)
    slow, quick = [new_user()], [new_user(), new_user()]
    in_workspace(db_path, first.key, due_now(slow))
    in_workspace(db_path, second.key, due_now(quick))
    for user in quick:
        standin.wait_for(lambda u=user: len(posts(standin, second, u)) >= 3, timeout=30, what="a digest")
    quick_done = max(c.at for user in quick for c in posts(standin, second, user))
    still_refused(standin, first, after=quick_done)
    release()
    standin.wait_for(lambda: len(posts(standin, first, slow[0])) >= 3, timeout=60, what="the waited digest")
    # Told by order, not by a time limit: the other workspace's digests were all out while this one was
    # still being refused, so they did not queue behind its 429s.
    assert quick_done < max(c.at for c in refused(standin, first))
    assert len(headers(standin, first, slow[0])) == 1 and len(posts(standin, first, slow[0])) == 3


def test_digests_due_while_another_workspace_waits_out_slack_go_out_at_once(running, workspaces, standin,
                                                                            db_path):
    """The first workspace's run is under way, waiting out 429s, when the second's digest falls due: the
    next tick serves it (a run of the scheduler used to serve every workspace, and the next waited for
    the whole run to end)."""
    first, second = workspaces
    before = len(refused(standin, first))
    # 429s of 1 s each, until the second workspace's digest is out and a refusal has come after it (at
    # most six: the first workspace's run waits about 9 s; the second's digest takes well under).
    release = standin.fail("chat.postMessage", status=429, times=6, retry_after=1, token=first.token)
    slow, quick = [new_user()], [new_user()]
    in_workspace(db_path, first.key, due_now(slow))
    standin.wait_for(lambda: len(refused(standin, first)) > before, timeout=30, what="the first 429")
    in_workspace(db_path, second.key, due_now(quick))
    standin.wait_for(lambda: len(posts(standin, second, quick[0])) >= 3, timeout=30, what="a digest")
    quick_done = max(c.at for c in posts(standin, second, quick[0]))
    still_refused(standin, first, after=quick_done)
    release()
    standin.wait_for(lambda: len(posts(standin, first, slow[0])) >= 3, timeout=60, what="the waited digest")
    assert quick_done < max(c.at for c in refused(standin, first))  # out while the first still waited
    assert len(headers(standin, first, slow[0])) == 1 and len(headers(standin, second, quick[0])) == 1


def still_refused(standin, workspace, after) -> None:
    """Wait for a 429 to ``workspace``'s token later than ``after``: its digest was still being refused."""
    standin.wait_for(lambda: any(c.at > after for c in refused(standin, workspace)), timeout=30,
                     what="a 429 after the other workspace's digests")


def refused(standin, workspace) -> list:
    """The posts Slack answered 429 for ``workspace``'s token."""
    return [c for c in standin.calls("chat.postMessage") if c.status == 429 and c.token == workspace.token]


def test_a_refused_token_holds_up_no_other_workspaces_digests(workspaces, running, standin, db_path, caplog):
    first, second = workspaces
    caplog.set_level(logging.WARNING)
    standin.revoke(first.token)  # the first workspace's token stops working (no event tells us)
    people = {first.key: [new_user(), new_user()], second.key: [new_user(), new_user()]}
    for ws, users in people.items():
        in_workspace(db_path, ws, due_now(users))
    for user in people[second.key]:  # served with the second workspace's own token
        standin.wait_for(lambda u=user: len(posts(standin, second, u)) >= 3, timeout=30, what="a digest")
        assert len(headers(standin, second, user)) == 1
    runs = running.scheduler.runs
    standin.wait_for(lambda: running.scheduler.runs >= runs + 4, timeout=30, what="more ticks")
    for user in people[first.key]:
        assert posts(standin, first, user) == []  # refused: nothing went out, nothing was faked
    refused = [r for r in caplog.records if "workspace T0WSAAAA" in r.getMessage()
               and "refused" in r.getMessage()]
    assert len(refused) == 1, [r.getMessage() for r in refused]  # logged once, not at every tick
    with opened(db_path, first.key) as mine:
        for user in people[first.key]:
            for record in [mine.get_digest(user, d) for d in _days()]:
                assert record is None or record.status == "sending"  # waiting, never "sent" or "failed"


def _days() -> list[str]:
    today = datetime.now(UTC).astimezone(ZoneInfo("Asia/Kolkata")).date()
    return [(today + timedelta(days=d)).isoformat() for d in (-1, 0)]


def test_paperbot_digest_serves_each_installed_workspace_with_its_own_token(workspaces, standin, db_path,
                                                                          tmp_path):
    first, second = workspaces  # the first one's token is refused since the test above
    tz = zone_far_from_midnight(("UTC", "Asia/Tokyo", "America/Los_Angeles"))
    user = new_user()

    def later_today(ctx):  # not due yet, so the running bot's scheduler leaves them to --force
        ctx.store.add_topics(user, ["diffusion models denoising"])
        with ctx.store.transaction():
            ctx.store.set_timezone(user, tz)
            ctx.store.set_digest_schedule(user, "23:59", True, since="2020-01-01T00:00:00+00:00")

    in_workspace(db_path, second.key, later_today)
    environ = process_environment(tmp_path, oauth_environment(standin, db_path))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "digest", "--force", "--user", user], env=environ,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert len(posts(standin, second, user)) == 3 and len(headers(standin, second, user)) == 1


def test_paperbot_workspaces_lists_both_and_remove_deletes_one(workspaces, running, db_path, tmp_path):
    first, second = workspaces

    def paperbot(*args: str) -> subprocess.CompletedProcess:
        env = process_environment(tmp_path, {"PAPERBOT_DB": str(db_path)})
        return subprocess.run([sys.executable, "-m", "bot.cli", *args], env=env, capture_output=True,
                              text=True, timeout=120)

    listed = paperbot("workspaces")
    assert listed.returncode == 0, listed.stderr
    assert first.key in listed.stdout and second.key in listed.stdout
    gone = paperbot("workspaces", "remove", "T0NOSUCH")
    assert gone.returncode == 1 and "no workspace" in gone.stderr and "Traceback" not in gone.stderr
    removed = paperbot("workspaces", "remove", second.key, "--yes")
    assert removed.returncode == 0 and "Removed workspace T0WSBBBB" in removed.stdout, removed.stderr
    with opened(db_path, second.key) as theirs:
        assert theirs.find_installation(second.key) is None
        assert theirs.workspaces() and second.key not in {w.ws for w in theirs.workspaces()}
    listed = paperbot("workspaces")
    assert first.key in listed.stdout and second.key not in listed.stdout
