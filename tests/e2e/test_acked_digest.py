"""Acknowledged means counted (issue 39): `paperbot digest`, run by cron after the bot was stopped, first
carries out the follows the bot had acknowledged and not carried out yet (left in the inbox, or on SQLite
in the journal beside the database), so the digests it then sends follow them. On both backends."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import parse_qsl

from bot.slack.background import HOLD
from bot.slack.request_keys import kind_of, once_key
from bot.state.intake import Intake
from bot.state.owner import owner_id
from storage.models import InboxEntry
from storage.records import utcnow
from tests.e2e.harness import (
    DIGEST_TOPICS,
    TEAM_ID,
    FakeSlack,
    add_people,
    bot_environment,
    opened,
    process_environment,
    query,
)

#: A process of this host that is gone (no such pid): the bot that acknowledged the follows.
GONE = f"{owner_id().rsplit(':', 2)[0]}:4194305:1"
PEOPLE = 6
#: The synthetic corpus's papers of each of DIGEST_TOPICS: ids like ``cats-3`` (tests/conftest.py).
PREFIX = dict(zip(DIGEST_TOPICS, ("cats-", "graphs-", "diffusion-", "robots-", "quantum-"), strict=True))


def acknowledged(db, slack: FakeSlack, user: str, text: str) -> str:
    """`/papers TEXT` from ``user`` written down as the bot does before its ack (Background.submit), by
    a bot that then stopped: the request's response_url key."""
    body, key = slack.command_body(user, text)
    parsed = dict(parse_qsl(body))
    with opened(db) as store:
        entry = InboxEntry(TEAM_ID, once_key(parsed), kind_of(parsed), user,
                           json.dumps(parsed, separators=(",", ":")), utcnow(), GONE)
        assert Intake(store, HOLD).accept(entry)
    return key


def test_paperbot_digest_carries_out_the_follows_a_stopped_bot_acknowledged_first(standin, fresh_db):
    users = [f"UACKED{i:02d}" for i in range(PEOPLE)]
    add_people(fresh_db, users)  # each follows a topic already, with a digest due today
    slack = FakeSlack("http://127.0.0.1:9/slack/events", standin)  # only builds the requests here
    # Each then follows the next topic too, and unfollows the one they had: answered "Following …", not
    # carried out when the bot stopped.
    keys = {}
    for i, user in enumerate(users):
        new, old = DIGEST_TOPICS[(i + 1) % len(DIGEST_TOPICS)], DIGEST_TOPICS[i % len(DIGEST_TOPICS)]
        keys[user] = [acknowledged(fresh_db, slack, user, f"follow {new}"),
                      acknowledged(fresh_db, slack, user, f"unfollow {old}")]
    environ = process_environment(fresh_db.parent, bot_environment(standin, fresh_db))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "digest", "--force"], env=environ,
                          cwd=fresh_db.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with opened(fresh_db) as store:
        assert query(store, "select count(*) as n from inbox where status <> 'done'")[0]["n"] == 0
        for i, user in enumerate(users):
            new = DIGEST_TOPICS[(i + 1) % len(DIGEST_TOPICS)]
            assert store.get_topics(user) == [new]
            assert all(len(standin.responses(key)) == 1 for key in keys[user])  # each answered, once
            shown = store.shown_paper_ids(user)
            assert len(shown) == 3 and all(p.startswith(PREFIX[new]) for p in shown), (user, new, shown)
    assert len([c for c in standin.calls("chat.postMessage") if c.params.get("blocks")]) >= 3 * PEOPLE
