"""`forget` racing with work in flight: after "Done", nothing of the person remains anywhere.

Two bots (as two processes would) share one database: one is still busy for the person (a follow
waiting on a slow ``users.info``, a recommend posting into a slow Slack) when the other forgets them.
On SQLite and on PostgreSQL (where two bots on one database is the deployment the README describes).
"""

from __future__ import annotations

import pytest

from tests.e2e.forgetting import forget_me, press, pressed, ticket_of
from tests.e2e.harness import FakeSlack, PostgresTarget, opened, query, serving, table_columns, user_ids
from tests.fault.probe import scaled

ROUNDS = scaled(3)
race_user = user_ids("UFORGETRACE", 3)
posting_user = user_ids("UFORGETPOST", 3)


@pytest.fixture(scope="module")
def running_bots(standin, db_path):
    with serving(standin, db_path) as one, serving(standin, db_path) as other:
        yield one, other


@pytest.fixture(scope="module")
def two_bots(standin, running_bots):
    return [FakeSlack(bot.url, standin) for bot in running_bots]


def settle(bots) -> None:
    """Until both bots have carried out the work after every ack so far."""
    for bot in bots:
        bot.settle()


def leftovers(db_path, user: str) -> tuple[dict[str, int], int]:
    """Rows about ``user`` per table, and how often the id appears anywhere else: in the raw SQLite file
    and its WAL, or in any row of any PostgreSQL table read as text."""
    with opened(db_path) as store:
        rows = {table: n for table, n in store.rows_about(user).items() if n}
        if isinstance(db_path, PostgresTarget):
            return rows, sum(query(store, f"select count(*) as n from {table} as t where t::text like ?",
                                   [f"%{user}%"])[0]["n"] for table in table_columns(store))
    return rows, sum(raw_count(path, user) for path in db_path.parent.glob(db_path.name + "*"))


def raw_count(path, user: str) -> int:
    """How often the id appears in the file; 0 if it is gone (the inbox journal's files come and go)."""
    try:
        return path.read_bytes().count(user.encode())
    except FileNotFoundError:
        return 0


def stored_topics(db_path, user: str) -> int:
    """How many topics rows the person has (read through the store: the journal files beside a SQLite file
    come and go while the bot works)."""
    with opened(db_path) as store:
        return store.rows_about(user).get("topics", 0)


def reply(slack: FakeSlack, answer) -> str:
    calls = slack.standin.wait_for(lambda: slack.standin.responses(answer.key), 30, "a reply")
    return calls[0].params["text"]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_forget_while_a_follow_waits_on_a_slow_users_info(two_bots, running_bots, standin, db_path, round_,
                                                          tally):
    here, there = two_bots
    tally.tried()
    user = race_user()
    standin.reset()
    release = standin.hold("users.info")
    try:
        follow = here.command(user, "follow feline cats, quantum circuits")
        # The follow is stored; its timezone lookup waits on Slack until the forget is done.
        standin.wait_for(lambda: stored_topics(db_path, user), what="the follow stored")
        assert "deleted everything" in forget_me(there, user)
    finally:
        release()
    assert "Now following" in reply(here, follow)  # the follow's lookup came back after the forget
    settle(running_bots)
    assert leftovers(db_path, user) == ({}, 0)
    tally.held()


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_forget_while_a_recommend_is_posting(two_bots, running_bots, standin, db_path, round_, tally):
    here, there = two_bots
    tally.tried()
    user = posting_user()
    standin.reset()
    here.ask(user, "follow graph neural networks, robot grasping")
    posted = len(standin.calls("chat.postMessage"))
    release = standin.hold("chat.postMessage", after=1)
    try:
        recommend = here.command(user, "recommend 4")
        # The header is out; the papers wait on Slack until the Forget me press is acknowledged (its work
        # then waits for the recommend's).
        standin.wait_for(lambda: len(standin.calls("chat.postMessage")) > posted, what="the header")
        key = press(there, user, ticket_of(there.ask(user, "forget")))
    finally:
        release()
    assert "deleted everything" in pressed(there, key).text
    reply(here, recommend)
    settle(running_bots)
    assert leftovers(db_path, user) == ({}, 0)
    tally.held()
