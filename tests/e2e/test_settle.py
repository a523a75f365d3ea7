"""End to end: a database from before workspaces (one workspace, its rows keyed by nobody) moves into the
workspace SLACK_BOT_TOKEN belongs to, with nothing lost, on both backends, whichever starts first: the bot
or `paperbot digest`."""

from __future__ import annotations

import subprocess
import sys

from bot.state.context import Context
from bot.usecases import interests, record_feedback
from bot.usecases.feedback import LIKE
from tests.e2e.harness import (
    TEAM_ID,
    FakeSlack,
    bot_environment,
    opened,
    posts_to,
    process_environment,
    serving,
    user_ids,
)

new_user = user_ids("UST")


def old_person(db_path, user: str, topic: str, liked: str) -> None:
    """A person as an older paperbot stored them: in no workspace (the store as opened)."""
    ctx = Context.open(str(db_path))
    try:
        assert ctx.workspace == ""
        ctx.store.add_topics(user, [topic])
        record_feedback(ctx, user, liked, LIKE)
        with ctx.store.transaction():
            ctx.store.set_timezone(user, "Asia/Kolkata")
            ctx.store.set_digest_schedule(user, "00:00", True, since="2020-01-01T00:00:00+00:00")
    finally:
        ctx.close()


def test_the_bot_takes_an_old_database_into_its_workspace(standin, fresh_db):
    user = new_user()
    old_person(fresh_db, user, "robot grasping", "robots-1")
    with serving(standin, fresh_db) as bot:
        reply = FakeSlack(bot.url, standin).ask(user, "interests").text
    assert "robot grasping" in reply and "1 liked" in reply, reply
    with opened(fresh_db, "") as unassigned, opened(fresh_db, TEAM_ID) as mine:
        assert unassigned.get_person(user) is None and unassigned.get_topics(user) == []
        assert mine.get_topics(user) == ["robot grasping"]
        assert [f.paper_id for f in mine.get_feedback(user)] == ["robots-1"]


def test_paperbot_digest_takes_an_old_database_into_its_workspace(standin, fresh_db):
    user = new_user()
    old_person(fresh_db, user, "feline cats whiskers", "cats-2")
    environ = process_environment(fresh_db.parent, bot_environment(standin, fresh_db))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "digest"], env=environ, cwd=fresh_db.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len([c for c in posts_to(standin, "D" + user) if c.params.get("blocks")]) == 3
    ctx = Context.open(str(fresh_db))
    try:
        mine = ctx.for_workspace(TEAM_ID)
        assert interests(mine, user).topics == ["feline cats whiskers"]
        assert len(mine.store.shown_paper_ids(user)) == 3
        assert ctx.store.get_person(user) is None  # nothing left behind, unassigned
    finally:
        ctx.close()
