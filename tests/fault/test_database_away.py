"""Nothing acknowledged is lost while PostgreSQL is away (issue 25): people react 👍 to their papers while
the database goes down for a while, its connections are terminated, and it restarts, seen by `paperbot run`
through a proxy the test cuts (tests/fault/pg_proxy.py; the shared server is never touched).

A reaction the bot can't write down is answered with an error, so Slack delivers it again; Slack's own
retries (at once, then after a minute, then after five) are scaled down to this outage. In the end every
reaction is feedback, once, and the bot's log holds no traceback.

How long the outage lasts: PAPERBOT_OUTAGE_SECONDS (5 by default, 4 for the reconnection test; CI: 15).
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from bot.state.intake import ACK_WAIT_SECONDS
from stand_ins.corpus import make_corpus
from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from storage import StorageError, open_store
from storage.models import InboxEntry
from storage.records import utcnow
from tests.e2e.harness import (
    FakeSlack,
    add_people,
    new_database,
    opened,
    query,
    seed_papers,
    zone_far_from_midnight,
)
from tests.e2e.replicas import Replica
from tests.fault.pg_proxy import proxy_to

OUTAGE = float(os.environ.get("PAPERBOT_OUTAGE_SECONDS") or 5)
PEOPLE = int(os.environ.get("PAPERBOT_OUTAGE_PEOPLE") or 30)  # people reacting; .ci/run: 60
RESTART = 2.0  # seconds the server is away while it restarts
#: Slack's redeliveries of an event it got no 200 for: at once, after a minute, after five; scaled to the
#: outage (each after the one before: the last comes well after the database is back).
SLACK_RETRIES = (0.0, 0.0, OUTAGE + 3.0, OUTAGE + 6.0)


def _terminate_backends(url: str) -> int:
    """pg_terminate_backend for every other connection to ``url``'s database: what a DBA's kill does."""
    with psycopg.connect(url, autocommit=True) as conn:
        return len(conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                                " where datname = current_database() and pid <> pg_backend_pid()").fetchall())


def shown_a_paper(target, users: list[str], paper: str) -> None:
    """The papers in ``target``, and ``paper`` shown to each of ``users`` in their DM (at ts 1700000000.i)."""
    seed_papers(target)
    with opened(target) as store:
        for i, user in enumerate(users):
            store.ensure_person(user)
            store.mark_shown(user, paper, "why", "D" + user, f"1700000000.{i:06d}")


def test_reactions_through_an_outage_terminated_connections_and_a_restart_are_all_kept(tmp_path):
    paper = make_corpus()[0].id
    users = [f"UAWAY{i:03d}" for i in range(PEOPLE)]
    with SlackStandIn() as standin, new_database(tmp_path, "postgres") as target:
        shown_a_paper(target, users, paper)
        with proxy_to(str(target)) as proxy:
            replica = Replica("away", standin, proxy.url(str(target)), tmp_path / "bot")
            try:
                slack = FakeSlack(replica.wait_until_listening(), standin)
                first_answers: dict[str, int | None] = {}
                refusals: list[float] = []  # how long each answer that was not a 200 took
                lock = threading.Lock()

                def deliver(i: int) -> bool:
                    user = users[i]
                    for attempt, pause in enumerate(SLACK_RETRIES):
                        time.sleep(pause)  # Slack's own pause before it delivers again
                        asked = time.monotonic()
                        try:
                            status = slack.reaction(user, "+1", "D" + user, f"1700000000.{i:06d}",
                                                    event_id=f"EvAWAY{i:03d}", retry_num=attempt or None)
                        except OSError:  # no answer at all: Slack retries that too
                            status = None
                        with lock:
                            first_answers.setdefault(user, status)
                            if status != 200:
                                refusals.append(time.monotonic() - asked)
                        if status == 200:
                            return True
                    return False

                spread = OUTAGE + RESTART + 4.0  # the reactions come all through the faults
                with ThreadPoolExecutor(PEOPLE) as pool:
                    sent = []
                    started = time.monotonic()
                    for i in range(PEOPLE):
                        time.sleep(max(0.0, started + i * spread / PEOPLE - time.monotonic()))  # spread
                        sent.append(pool.submit(deliver, i))
                        if i == PEOPLE // 6:  # the database goes away
                            proxy.cut()
                            threading.Timer(OUTAGE, proxy.restore).start()
                        if i == PEOPLE // 6 + int(PEOPLE * OUTAGE / spread) + 2:  # back; a DBA kills sessions
                            _terminate_backends(str(target))
                        if i == PEOPLE * 5 // 6:  # and then it restarts
                            proxy.cut()
                            threading.Timer(RESTART, proxy.restore).start()
                    delivered = [f.result() for f in sent]
                refused_first = sum(1 for status in first_answers.values() if status != 200)
                print(f"{PEOPLE} reactions through a {OUTAGE:.0f}-s outage, terminated sessions and a "
                      f"{RESTART:.0f}-s restart: {refused_first} answered with an error at first, "
                      f"{len(refusals)} errors in all, the slowest in {max(refusals, default=0):.1f} s "
                      f"({proxy.refused} connections refused meanwhile)")
                assert all(delivered), first_answers
                assert refused_first > 0, "the faults reached no reaction: the test tested nothing"
                with opened(target) as store:
                    def kept():
                        return query(store, "select user_id, paper_id, value from feedback")
                    wait_until(lambda: len(kept()) >= PEOPLE, timeout=120, what="every reaction kept")
                    assert sorted((r["user_id"], r["paper_id"], r["value"]) for r in kept()) == [
                        (user, paper, 1) for user in users]
                assert "Traceback" not in replica.log, "\n".join(
                    line for line in replica.lines if "Job" not in line)  # the scheduler's ticks aside
            finally:
                replica.stop()


BLIP = 6.0  # seconds the database is away in the middle of a morning's digests
DUE = 40


def test_digests_cut_short_by_a_database_blip_go_out_once_soon_after_it_not_after_their_lease(tmp_path):
    # The bot's own claims (10-minute leases) must not keep the digests it was sending when the database
    # went away waiting out those leases: it knows they are its own, and gives them back once it answers.
    users = [f"UBLIP{i:03d}" for i in range(DUE)]
    with SlackStandIn() as standin, new_database(tmp_path, "postgres") as target:
        seed_papers(target)
        add_people(target, users, tz=zone_far_from_midnight(("Asia/Kolkata", "America/New_York", "UTC")))
        standin.delay("chat.postMessage", 0.1)  # the run is under way when the blip comes
        with proxy_to(str(target)) as proxy:
            replica = Replica("blip", standin, proxy.url(str(target)), tmp_path / "bot")
            try:
                replica.wait_until_listening()

                def posted() -> list[str]:
                    return [str(c.params.get("channel")) for c in standin.calls("chat.postMessage")
                            if str(c.params.get("channel")).startswith("DUBLIP")]

                wait_until(lambda: len(posted()) >= 20, timeout=120, what="the digests under way")
                proxy.cut()
                with opened(target) as store:  # the test's own way in, past the proxy
                    def sent() -> int:
                        return len(query(store, "select user_id from digests where status = 'sent'"))
                    cut_short = DUE - sent()
                    time.sleep(BLIP)  # the outage's length
                    proxy.restore()
                    back = time.monotonic()
                    wait_until(lambda: sent() == DUE, timeout=300, what="every digest sent")
                took = time.monotonic() - back
                print(f"{DUE} digests, a {BLIP:.0f}-s database blip while {cut_short} were still to go out: "
                      f"the last sent {took:.0f} s after the database answered again")
                assert cut_short > 0, "the blip came after the digests: the test tested nothing"
                per_person = {user: posted().count("D" + user) for user in users}
                assert set(per_person.values()) == {1 + 3}, per_person  # a header and 3 papers, each once
                assert "Traceback" not in replica.log, "\n".join(
                    line for line in replica.lines if "Job" not in line)
            finally:
                replica.stop()


LOCKED = 5.0  # seconds a DBA holds the inbox table locked
LOCKED_PEOPLE = 4


def test_reactions_while_a_dba_holds_the_inbox_locked_are_refused_in_time_and_kept_when_sent_again(tmp_path):
    # The connections answer, but the table the ack writes to is locked (LOCK TABLE, a long migration):
    # the ack must still answer within Slack's 3 s, with an error that makes Slack send the event again.
    paper = make_corpus()[0].id
    users = [f"ULOCK{i:03d}" for i in range(LOCKED_PEOPLE)]
    with SlackStandIn() as standin, new_database(tmp_path, "postgres") as target:
        shown_a_paper(target, users, paper)
        replica = Replica("locked", standin, str(target), tmp_path / "bot")
        try:
            slack = FakeSlack(replica.wait_until_listening(), standin)
            answers: list[tuple[int, float]] = []
            with psycopg.connect(str(target)) as dba:
                dba.execute("lock table inbox in access exclusive mode")
                for i, user in enumerate(users):
                    asked = time.monotonic()
                    status = slack.reaction(user, "+1", "D" + user, f"1700000000.{i:06d}",
                                            event_id=f"EvLOCK{i:03d}")
                    answers.append((status, time.monotonic() - asked))
                time.sleep(max(0.0, LOCKED - sum(took for _, took in answers)))  # the lock's length
                dba.rollback()
            for i, user in enumerate(users):  # Slack's next try, after the lock
                again = slack.reaction(user, "+1", "D" + user, f"1700000000.{i:06d}",
                                       event_id=f"EvLOCK{i:03d}", retry_num=1)
                assert again == 200
            print(f"{LOCKED_PEOPLE} reactions while the inbox was locked: answered "
                  f"{sorted({status for status, _ in answers})}, the slowest in "
                  f"{max(took for _, took in answers):.1f} s")
            assert all(status != 200 for status, _ in answers), answers
            assert max(took for _, took in answers) < 3.0, answers  # within Slack's wait
            with opened(target) as store:
                def kept():
                    return query(store, "select user_id, paper_id, value from feedback")
                wait_until(lambda: len(kept()) >= LOCKED_PEOPLE, timeout=60, what="every reaction kept")
                assert sorted((r["user_id"], r["paper_id"], r["value"]) for r in kept()) == [
                    (user, paper, 1) for user in users]
            assert "Traceback" not in replica.log, replica.log
        finally:
            replica.stop()


#: A refusal after which psycopg_pool's own doubling pauses (1, 2, 4 s …, from the two failures at its
#: start) would next try to connect more than 2 s later.
REFUSAL = float(os.environ.get("PAPERBOT_OUTAGE_SECONDS") or 4)
BACK_WITHIN = 2.0  # seconds after the server answers again by which an ack must be written down again


def test_acks_are_written_down_again_within_two_seconds_of_the_database_coming_back(tmp_path):
    # Slack's redelivery of a 👍 soon after an outage must get its 200: the pool tries to connect again
    # often enough, however long the server refused it (the sweep's reads, every second, ran into it).
    with new_database(tmp_path, "postgres") as target, proxy_to(str(target)) as proxy:
        store = open_store(proxy.url(str(target)))
        try:
            store.inbox_pending_count()
            proxy.cut()
            cut = time.monotonic()
            for _ in range(2):  # a statement on a broken connection, then one waiting for a new connection
                with pytest.raises(StorageError), store.waiting_at_most(0.5):
                    store.inbox_pending_count()
            time.sleep(max(0.0, cut + REFUSAL - time.monotonic()))  # the outage's length
            proxy.restore()
            back = time.monotonic()
            tries = 0
            while True:  # acks, one after another, until one is written down
                tries += 1
                entry = InboxEntry("T1", f"EvBACK{tries}", "event", "U1", "{}", utcnow())
                try:
                    with store.waiting_at_most(ACK_WAIT_SECONDS):
                        assert store.inbox_put([entry]) == [entry]
                    break
                except StorageError:
                    assert time.monotonic() - back < 30, "the pool never connected again"
            took = time.monotonic() - back
            print(f"after a {REFUSAL:.0f}-s refusal of connections, an ack was written down again "
                  f"{took:.2f} s after the database answered ({tries} tries)")
            assert took < BACK_WITHIN
        finally:
            store.dispose()
