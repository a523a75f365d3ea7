"""Three `paperbot run` replicas on one PostgreSQL database, requests spread over them as a load balancer
would (docs/operations.md, "Run on PostgreSQL, several processes").

Real processes (`paperbot run --port 0`, their digest scheduler ticking every second:
tests/e2e/quick_ticks.py), one throwaway PostgreSQL database, one Slack stand-in in this process. The
replicas start once for the file; the digest test kills one with SIGKILL mid-run and then replaces it, as an
orchestrator would, so the later tests again have three. Skips without a PostgreSQL server (fails under
PAPERBOT_REQUIRE_POSTGRES=1).

The digest test makes 45 digests due at this minute, all at one moment (one transaction), so the three
replicas' next tick (the same second for all) finds them together; it then waits for the survivors to
finish what the killed replica left: at once when one was waiting on that person, else at the next tick.
Posts take 0.3 s, so the kill leaves a post in flight that Slack carries out after its poster died. No
test waits for the wall clock's minute.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.slack.delivery.digests import HEADER_EVENT, PAPER_EVENT
from bot.state.context import Context
from bot.usecases import follow
from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from tests.e2e.forgetting import forget_me
from tests.e2e.harness import (
    DIGEST_TOPICS,
    TEAM_ID,
    Reply,
    new_database,
    opened,
    process_environment,
    query,
    seed_papers,
    table_columns,
)
from tests.e2e.replicas import Replica, Replicas

DIGEST_SIZE = 3
DIGEST_PEOPLE = 45
#: Zones a whole hour, half an hour and three quarters off UTC, on both sides of it.
ZONES = ("Asia/Kolkata", "America/New_York", "Asia/Kathmandu", "Europe/Berlin", "Australia/Adelaide", "UTC")
POST_SECONDS = 0.3  # each chat.postMessage takes this long: the digests are still going when the kill comes
DIGEST_WAIT = 90.0  # hang guard: the replicas' next tick (every second), then 45 digests on two busy cores
REPLY_WAIT = 60.0  # hang guard for a command's reply (recommend posts a few messages first)
FOLD_IN_WAIT = 60.0  # hang guard: a replica pulls in new papers at its next index refresh (every 1 s here)

#: What the digest test saw, for the last test to check that nothing went out again later.
DIGESTS_SEEN: dict[str, list[dict]] = {}


@pytest.fixture(scope="module")
def standin():
    with SlackStandIn(default_tz="Europe/Berlin") as s:
        yield s


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    with new_database(tmp_path_factory.mktemp("replicas"), backend="postgres") as db:
        seed_papers(db)
        yield db


@pytest.fixture(scope="module")
def replicas(standin, database):
    with Replicas(standin, database, database.parent / "run", count=3, digest_size=DIGEST_SIZE) as r:
        yield r


@pytest.fixture
def store(database):
    with opened(database) as s:
        yield s


# -- helpers ----------------------------------------------------------------------------------------

def dm(user: str) -> str:
    return "D" + user


def messages(standin: SlackStandIn, user: str) -> list[dict]:
    """What the person's DM holds, oldest first (the stand-in's record of landed posts)."""
    return list(standin.history.get(dm(user), []))


def event_type(message: dict) -> str | None:
    return (message.get("metadata") or {}).get("event_type")


def paper_messages(standin: SlackStandIn, user: str) -> list[tuple[str, str]]:
    """(paper id, ts) of every paper message in the person's DM, oldest first."""
    return [(m["metadata"]["event_payload"]["paper_id"], m["ts"])
            for m in messages(standin, user) if event_type(m) == PAPER_EVENT]


def feedback_of(store, user: str) -> dict[str, int]:
    rows = query(store, "select paper_id, value from feedback where user_id = ?", [user])
    return {r["paper_id"]: r["value"] for r in rows}


def ask(replica: Replica, user: str, text: str) -> Reply:
    """`/papers TEXT` through ``replica``: the reply the caller sees (the wait is only a hang guard)."""
    return replica.slack.ask(user, text, timeout=REPLY_WAIT)


def start_person(replicas: Replicas, user: str, topics: str, first: int = 0) -> None:
    """Follow ``topics`` through one replica and turn the scheduled digest off through the next, so no
    digest at 09:00 (a first follow's default) comes in the middle of a test."""
    assert "Now following" in ask(replicas[first], user, f"follow {topics}").text
    assert "Daily digests are off" in ask(replicas[first + 1], user, "digest off").text


def recommend(replicas: Replicas, i: int, user: str, n: int) -> list[tuple[str, str]]:
    """`/papers recommend N` through replica ``i``: the (paper id, ts) of the papers it posted."""
    before = len(paper_messages(replicas.standin, user))
    reply = ask(replicas[i], user, f"recommend {n}")
    assert f"I sent you {n} papers" in reply.text, reply.text
    return paper_messages(replicas.standin, user)[before:]


def react(replicas: Replicas, i: int, user: str, name: str, ts: str, added: bool = True,
          event_id: str | None = None, retry_num: int | None = None) -> None:
    status = replicas[i].slack.reaction(user, name, dm(user), ts, added=added, event_id=event_id,
                                        retry_num=retry_num)
    assert status == 200


def rows_naming(store, user: str) -> dict[str, int]:
    """Rows of every table (every column read as text; binary ones as hex too) that mention ``user``."""
    found = {}
    for table, columns in table_columns(store).items():
        where = " or ".join(f'cast("{c}" as text) like ? or cast("{c}" as text) like ?' for c in columns)
        args = [f"%{user}%", f"%{user.encode().hex()}%"] * len(columns)
        n = query(store, f'select count(*) as n from "{table}" where {where}', args)[0]["n"]
        if n:
            found[table] = n
    return found


# -- 1. digests due at one minute, exactly once, with a replica killed mid-run --------------------

PREFIX = "URDIG"


def make_due_together(database, zones: dict[str, str], at: datetime) -> None:
    """People (``zones``: person -> time zone) who follow a topic each, their digests set to ``at`` in their
    own zones in one transaction: they fall due at one moment, whichever replica ticks first."""
    opened_ctx = Context.open(str(database))
    ctx = opened_ctx.for_workspace(TEAM_ID)
    try:
        for i, user in enumerate(zones):
            follow(ctx, user, DIGEST_TOPICS[i % len(DIGEST_TOPICS)])
        with ctx.store.transaction():
            for user, tz in zones.items():
                ctx.store.set_timezone(user, tz)
                ctx.store.set_digest_schedule(user, f"{at.astimezone(ZoneInfo(tz)):%H:%M}", True,
                                              since=(at - timedelta(minutes=1)).isoformat(timespec="seconds"))
    finally:
        opened_ctx.close()


def test_digests_due_at_one_minute_go_out_once_each_while_a_replica_is_killed(replicas, standin, database,
                                                                           store):
    users = [f"{PREFIX}{i:03d}" for i in range(DIGEST_PEOPLE)]
    zones = {user: ZONES[i % len(ZONES)] for i, user in enumerate(users)}
    standin.timezones.update(zones)
    standin.delay("chat.postMessage", POST_SECONDS)
    at = datetime.now(UTC).replace(second=0, microsecond=0)  # this minute, begun: due at once
    victim = None
    try:
        make_due_together(database, zones, at)
        # Kill whichever replica is first seen to have posted a digest's header: its digest is under way.
        def posting() -> list[dict]:
            return query(store, "select user_id, owner from digests where user_id like ?"
                                " and status = 'sending' and header_ts is not null", [PREFIX + "%"])

        first = wait_until(posting, DIGEST_WAIT, "a replica to start posting digests", pause=0.01)[0]
        victim = replicas.owner_of(first["owner"])
        assert victim is not None, first
        victim.kill()
        survivors = [r for r in replicas if r is not victim]

        def all_sent() -> bool:
            rows = query(store, "select status from digests where user_id like ?", [PREFIX + "%"])
            return len(rows) == len(users) and all(r["status"] == "sent" for r in rows)

        wait_until(all_sent, DIGEST_WAIT, "every digest to be sent", pause=0.2)
        done = datetime.now(UTC)
        standin.reset()
        check_digests_once(standin, store, users)
        # The kill came mid-digest, and another replica finished what the dead one had started.
        takeovers = [line for r in survivors for line in r.lines
                     if "taking over the" in line and f":{victim.pid}:" in line and "(owner is gone)" in line]
        assert takeovers, "no survivor took a digest over from the killed replica:\n" + "\n".join(
            r.log for r in survivors)
        assert all(r.alive for r in survivors)
        owners = Counter(replicas.owner_of(r["owner"]).name for r in query(
            store, "select owner from digests where user_id like ?", [PREFIX + "%"]))
        print(f"\n{len(users)} digests due at {at:%H:%M} UTC, all sent {(done - at).total_seconds():.1f} s "
              f"after; {victim.name} killed after its first header, {len(takeovers)} of its digests taken "
              f"over; sent by {dict(sorted(owners.items()))}")
    finally:
        standin.reset()
        if victim is not None and not victim.alive:  # an orchestrator restarts it: three again for the rest
            replicas.replace(replicas.members.index(victim))


def check_digests_once(standin: SlackStandIn, store, users: list[str]) -> None:
    """Each person's DM holds one header and the digest's papers, each once, and the digests and shown
    rows say exactly that."""
    rows = query(store, "select * from digests where user_id like ?", [PREFIX + "%"])
    digests = {r["user_id"]: r for r in rows}
    assert sorted(digests) == sorted(users) and len(rows) == len(users)
    for user in users:
        held = messages(standin, user)
        headers = [m for m in held if event_type(m) == HEADER_EVENT]
        papers = paper_messages(standin, user)
        assert len(headers) == 1, (user, held)
        assert len(papers) == DIGEST_SIZE and len(held) == 1 + DIGEST_SIZE, (user, held)
        assert len({p for p, _ in papers}) == DIGEST_SIZE, (user, papers)
        assert not [t for t, n in Counter(m["text"] for m in held).items() if n > 1], (user, held)
        record = digests[user]
        assert record["status"] == "sent" and record["header_ts"] == headers[0]["ts"], record
        assert sorted(json.loads(record["papers"])) == sorted(p for p, _ in papers), record
        shown = {r["paper_id"]: (r["channel"], r["message_ts"])
                 for r in query(store, "select * from shown where user_id = ?", [user])}
        assert shown == {p: (dm(user), ts) for p, ts in papers}, user
        DIGESTS_SEEN[user] = held


# -- 2. one event delivered to two replicas is handled once ------------------------------------------

def test_one_event_delivered_to_two_replicas_is_handled_once(replicas, standin, store):
    user = "URDUP0001"
    start_person(replicas, user, "quantum qubits entanglement", first=0)
    (first, first_ts), (second, second_ts) = recommend(replicas, 2, user, 2)

    # The same event reaches two replicas at the same moment (Slack retried while the first was slow).
    event_id = "EvREPLICAS0001"
    go = threading.Barrier(2)

    def deliver(i: int) -> None:
        go.wait(timeout=30)
        react(replicas, i, user, "+1", first_ts, event_id=event_id, retry_num=None if i == 0 else 1)

    threads = [threading.Thread(target=deliver, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    handled, skipped = f"{user} added +1 on {first}", f"skipping event:{event_id}: already handled"
    both = replicas[0], replicas[1]
    # Each of the two says what it did with it: handled it, or skipped it as already handled.
    wait_until(lambda: sum(r.log.count(handled) + r.log.count(skipped) for r in both) >= 2, 60,
               "both replicas to be done with the event")
    assert [r.log.count(handled) for r in both].count(1) == 1 and sum(r.log.count(handled) for r in both) == 1
    assert [r.log.count(skipped) for r in both].count(1) == 1 and sum(r.log.count(skipped) for r in both) == 1
    assert feedback_of(store, user) == {first: 1}

    # A like, taken back through another replica, and then the like's event again through a third:
    # handled again, it would bring the like back.
    react(replicas, 2, user, "thumbsup", second_ts, event_id="EvREPLICAS0002")
    wait_until(lambda: feedback_of(store, user).get(second) == 1, 60, "the second like")
    react(replicas, 0, user, "thumbsup", second_ts, added=False, event_id="EvREPLICAS0003")
    wait_until(lambda: second not in feedback_of(store, user), 60, "the like to be taken back")
    react(replicas, 1, user, "thumbsup", second_ts, event_id="EvREPLICAS0002", retry_num=1)
    wait_until(lambda: "skipping event:EvREPLICAS0002: already handled" in replicas[1].log
               or second in feedback_of(store, user), 60, "the redelivered event to be skipped (or handled)")
    assert feedback_of(store, user) == {first: 1}


# -- 3. feedback through one replica steers the next recommendation from another ---------------------

def test_feedback_through_one_replica_steers_the_next_recommendation_from_another(replicas, store):
    topics = "graph neural networks, robot grasping"
    likes = {"URSTEER01": "robots", "URSTEER02": "graphs"}  # same topics, opposite tastes
    for user, liked in likes.items():
        start_person(replicas, user, topics, first=0)
        firsts = recommend(replicas, 1, user, 4)
        for paper, ts in firsts:  # through the third replica: a like for the topic, a dislike otherwise
            react(replicas, 2, user, "+1" if paper.startswith(liked + "-") else "-1", ts)
        rated = len(firsts)
        wait_until(lambda user=user, rated=rated: len(feedback_of(store, user)) == rated, 60,
                   f"the feedback of {user}")
    for user, liked in likes.items():
        nexts = [paper for paper, _ in recommend(replicas, 0, user, 3)]  # through the first replica
        # Both follow both topics, so a topic they wrote may still bring one paper of the other: the
        # feedback steers, it doesn't erase a followed topic. Most go the way each one's feedback went.
        assert sum(paper.startswith(liked + "-") for paper in nexts) >= 2, (user, liked, nexts)


# -- 4. papers ingested meanwhile reach every replica ----------------------------------------------

NEW_WORD = "quokkanet"
NEW_PAPERS = [
    {"id": "quokka-1", "title": "QuokkaNet: Marsupial Attention for Sparse Sequences",
     "abstract": "We introduce quokkanet, a sparse attention layer inspired by marsupial foraging."},
    {"id": "quokka-2", "title": "Scaling QuokkaNet to Long Documents",
     "abstract": "quokkanet blocks stacked deep handle documents of a million tokens."},
]


def _search(replica, word: str) -> str:
    reply = ask(replica, "URSEARCH1", f"search {word}")
    return reply.text + json.dumps(reply.blocks)


def test_papers_ingested_meanwhile_reach_every_replica(replicas, database, tmp_path):
    for replica in replicas:  # each replica's index is built, and holds no such word
        assert "No paper matches" in _search(replica, NEW_WORD), replica.name
    feed = tmp_path / "new.jsonl"
    feed.write_text("".join(json.dumps(p) + "\n" for p in NEW_PAPERS), encoding="utf-8")
    environ = process_environment(tmp_path, {"PAPERBOT_DB": str(database)})
    done = subprocess.run([sys.executable, "-m", "bot.cli", "ingest", str(feed)], cwd=tmp_path, env=environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    with opened(database) as store:
        assert {p["id"] for p in NEW_PAPERS} <= {r["id"] for r in query(store, "select id from papers")}
    for replica in replicas:
        wait_until(lambda replica=replica: all(p["title"] in _search(replica, NEW_WORD) for p in NEW_PAPERS),
                   FOLD_IN_WAIT, f"{replica.name} to find the new papers", pause=1.0)


# -- 5. forget through one replica leaves no row anywhere ------------------------------------------

def test_forget_through_one_replica_leaves_no_row_anywhere_while_the_others_run(replicas, standin, store):
    user = "URFORGET1"
    assert "Now following" in ask(replicas[0], user, "follow diffusion models denoising").text
    (paper, ts), _ = recommend(replicas, 1, user, 2)
    react(replicas, 2, user, "+1", ts)
    wait_until(lambda: feedback_of(store, user) == {paper: 1}, 60, "the like")
    assert "I sent you" in ask(replicas[0], user, "digest now").text
    before = rows_naming(store, user)
    assert {"people", "topics", "shown", "feedback", "digests"} <= set(before), before

    reply = forget_me(replicas[1].slack, user, timeout=REPLY_WAIT)
    assert reply.startswith("Done: I deleted everything I had stored about you"), reply
    assert rows_naming(store, user) == {}
    # The others keep running and serving, and what they answer the forgotten person stores nothing.
    for i in (2, 0):
        assert replicas[i].alive
        assert "*Your topics:* none yet" in ask(replicas[i], user, "interests").text
        assert ask(replicas[i], "URFORGET2", "search diffusion denoising").blocks
    assert rows_naming(store, user) == {}


# -- afterwards --------------------------------------------------------------------------------------

def test_no_digest_went_out_again_and_every_replica_stops_cleanly(replicas, standin):
    if not DIGESTS_SEEN:  # `make test` runs a file on one worker, in order; a test picked alone can't see
        pytest.skip("checks what the digest test saw: run the whole file in one process")
    for user, held in DIGESTS_SEEN.items():  # the later ticks, and the replacement's catch-up, sent nothing
        assert messages(standin, user) == held, user
    running = list(replicas)
    replicas.stop()
    for replica in running:
        assert replicas.exit_codes[replica.name] == 0, replica.log
        assert "Traceback" not in replica.log, replica.log
