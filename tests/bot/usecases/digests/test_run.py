"""Daily digests as use cases: who is due, the claim that makes a digest go out once, resuming one cut
short, faults, feeds, fresh papers. No Slack: a recording courier stands in for it."""

from __future__ import annotations

import json
import threading
from contextlib import nullcontext
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.errors import NoInterests, Unreachable
from bot.slack.views.digest_texts import NOTHING_MATCHED, phrase
from bot.state.context import Context
from bot.usecases import follow, record_feedback
from bot.usecases.digest_schedule import due_digests, next_digest
from bot.usecases.digest_vocabulary import Courier, Note
from bot.usecases.digests.choose import choose_papers
from bot.usecases.digests.run import (
    FEED_JOB,
    ingest_feeds_if_due,
    preview_digests,
    run_daily,
    send_digest_now,
    send_due_digests,
)
from bot.usecases.digests.send import (
    AHEAD_LEASE,
    LEASE,
    MAX_ATTEMPTS,
    RETRY_AFTER,
    claim_ahead,
    claim_digest,
    send_claimed_digest,
    send_digest,
)
from bot.usecases.mutes import mute
from bot.usecases.settings import set_quiet_days
from stand_ins.corpus import make_corpus
from storage import Paper, Person, StorageError, StoreUnavailable
from storage.models import InboxEntry
from tests.fakes import Clock, Death, FakeCourier
from tests.storage.conftest import pg_database  # noqa: F401 - a fixture: the throwaway PostgreSQL database


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def recorder(**options) -> FakeCourier:
    """A courier that records what it posts (tests/fakes.py); it looks at what the DM holds (find_posted)
    only when given ``history``: else a digest resumes from its records alone."""
    return FakeCourier(find_posted="history" in options, **options)


def person(ctx: Context, user: str, topics: str, tz: str, hhmm: str, since: datetime | None = None) -> None:
    follow(ctx, user, topics)
    ctx.store.set_timezone(user, tz)
    ctx.store.set_digest_schedule(user, hhmm, True, since=(since or utc(2026, 1, 1)).isoformat())


ALIVE = lambda owner: True  # noqa: E731 - every other owner is alive (only the lease can free a claim)
DEAD = lambda owner: False  # noqa: E731


# -- who is due -------------------------------------------------------------------------------------

def people(*rows) -> list[Person]:
    return [Person(user, tz, hhmm, True, since) for user, tz, hhmm, since in rows]


def due_ids(rows, now, statuses=None, force=False):
    due, _ = due_digests(people(*rows), statuses or {}, now, force)
    return [(d.user_id, d.local_date.isoformat()) for d in due]


def test_due_in_each_persons_own_zone_half_hours_included():
    rows = [("KOL", "Asia/Kolkata", "09:00", None), ("BER", "Europe/Berlin", "09:00", None),
            ("NYC", "America/New_York", "09:00", None)]
    # 03:29 UTC is 08:59 in Kolkata; 03:30 is 09:00 there, 05:30 in Berlin, 23:30 of the 14th in New
    # York, where the 14th's digest is still due if it has not gone out (a missed one is caught up).
    assert due_ids(rows, utc(2026, 7, 15, 3, 29)) == [("NYC", "2026-07-14")]
    sent = {("NYC", "2026-07-14"): "sent"}
    assert due_ids(rows, utc(2026, 7, 15, 3, 29), sent) == []
    assert due_ids(rows, utc(2026, 7, 15, 3, 30), sent) == [("KOL", "2026-07-15")]
    assert due_ids(rows, utc(2026, 7, 15, 7, 0), sent) == [("KOL", "2026-07-15"), ("BER", "2026-07-15")]
    # New York at 09:00 EDT is 13:00 UTC; until then its local day of the 15th has no digest yet.
    assert ("NYC", "2026-07-15") not in due_ids(rows, utc(2026, 7, 15, 12, 59), sent)
    assert ("NYC", "2026-07-15") in due_ids(rows, utc(2026, 7, 15, 13, 0), sent)


def test_new_york_across_the_dst_changes():
    rows = [("NYC", "America/New_York", "09:00", None)]
    # Spring forward on 2026-03-08: 09:00 is 14:00 UTC the day before, 13:00 UTC that day.
    assert due_ids(rows, utc(2026, 3, 7, 13, 59)) == []
    assert due_ids(rows, utc(2026, 3, 7, 14, 0)) == [("NYC", "2026-03-07")]
    assert due_ids(rows, utc(2026, 3, 8, 12, 59)) == []
    assert due_ids(rows, utc(2026, 3, 8, 13, 0)) == [("NYC", "2026-03-08")]
    # Fall back on 2026-11-01: 09:00 is 14:00 UTC again.
    assert due_ids(rows, utc(2026, 11, 1, 13, 59)) == []
    assert due_ids(rows, utc(2026, 11, 1, 14, 0)) == [("NYC", "2026-11-01")]
    # A time in the skipped hour (02:30 on 2026-03-08) is due at 03:30 EDT, once.
    skipped = [("NYC", "America/New_York", "02:30", None)]
    assert due_ids(skipped, utc(2026, 3, 8, 7, 29)) == []
    assert due_ids(skipped, utc(2026, 3, 8, 7, 30)) == [("NYC", "2026-03-08")]


def test_day_boundaries_and_the_once_a_day_rule():
    rows = [("TOK", "Asia/Tokyo", "00:30", None), ("LAX", "America/Los_Angeles", "23:30", None)]
    now = utc(2026, 6, 1, 15, 45)  # 00:45 on the 2nd in Tokyo; 08:45 on the 1st in Los Angeles
    assert due_ids(rows, now) == [("TOK", "2026-06-02")]
    # Yesterday's digest doesn't count for today; today's, once ended in any way, does.
    for status in ("sent", "empty", "failed"):
        assert due_ids(rows, now, {("TOK", "2026-06-01"): "sent", ("TOK", "2026-06-02"): status}) == []
    assert due_ids(rows, now, {("TOK", "2026-06-01"): "sent"}) == [("TOK", "2026-06-02")]
    # One under way stays due, so that a dead sender's digest is resumed.
    assert due_ids(rows, now, {("TOK", "2026-06-02"): "sending"}) == [("TOK", "2026-06-02")]
    # Missed while down: still due until the local day ends (23:59 in Tokyo is 14:59 UTC).
    assert due_ids(rows, utc(2026, 6, 2, 14, 59)) == [("TOK", "2026-06-02")]
    assert due_ids(rows, utc(2026, 6, 2, 15, 1)) == []  # 00:01 on the 3rd: not yet
    assert due_ids(rows, utc(2026, 6, 2, 15, 30)) == [("TOK", "2026-06-03")]
    # --force: regardless of the time of day, still never a second digest on one local day.
    assert due_ids(rows, now, force=True) == [("TOK", "2026-06-02"), ("LAX", "2026-06-01")]
    assert due_ids(rows, now, {("LAX", "2026-06-01"): "sent"}, force=True) == [("TOK", "2026-06-02")]


def test_a_schedule_set_after_todays_time_starts_tomorrow_but_the_current_minute_counts():
    now = utc(2026, 7, 15, 10, 0, 40)  # 15:30:40 in Kolkata
    set_later = [("KOL", "Asia/Kolkata", "09:00", "2026-07-15T10:00:00+00:00")]
    due, not_due = due_digests(people(*set_later), {}, now)
    assert due == [] and not_due[0].why == "starts_tomorrow" and not_due[0].kind == "later"
    assert due_ids(set_later, utc(2026, 7, 16, 3, 30)) == [("KOL", "2026-07-16")]
    this_minute = [("KOL", "Asia/Kolkata", "15:30", "2026-07-15T10:00:30+00:00")]
    assert due_ids(this_minute, now) == [("KOL", "2026-07-15")]
    set_before = [("KOL", "Asia/Kolkata", "09:00", "2026-07-14T10:00:00+00:00")]
    assert due_ids(set_before, now) == [("KOL", "2026-07-15")]


def test_the_next_digest_is_today_or_tomorrow(ctx):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00", since=utc(2026, 7, 15, 8, 30))  # 10:30 there
    assert next_digest(ctx, "U1", utc(2026, 7, 15, 8, 30)) == date(2026, 7, 16)  # set after today's time
    ctx.store.set_digest_schedule("U1", "11:00", True, since=utc(2026, 7, 15, 8, 30).isoformat())
    assert next_digest(ctx, "U1", utc(2026, 7, 15, 8, 30)) == date(2026, 7, 15)
    send_digest(ctx, "U1", date(2026, 7, 15), recorder().courier(), "me:1:1")
    assert next_digest(ctx, "U1", utc(2026, 7, 15, 8, 31)) == date(2026, 7, 16)  # today's went out
    ctx.store.set_digest_schedule("U1", "11:00", False)
    assert next_digest(ctx, "U1", utc(2026, 7, 15, 8, 31)) is None


def test_people_with_digests_off_or_without_a_zone():
    off = [Person("OFF", "Europe/Berlin", "09:00", False)]
    due, not_due = due_digests(off, {}, utc(2026, 7, 15, 12, 0))
    assert due == [] and not_due[0].why == "off" and not_due[0].kind == "off"
    assert due_ids([("UTC", None, "09:00", None)], utc(2026, 7, 15, 9, 0)) == [("UTC", "2026-07-15")]


# -- claims -----------------------------------------------------------------------------------------

DAY = date(2026, 7, 15)


def crashed(ctx: Context, dying: FakeCourier) -> list[str]:
    """U1's digest for DAY, sent by a process that dies on ``dying``'s cue; the papers its claim holds."""
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, dying.courier(), "host:100:1")
    return ctx.store.get_digest("U1", "2026-07-15").papers


def test_a_claim_is_taken_once_and_freed_only_by_an_expired_lease_or_a_dead_owner(ctx):
    clock = Clock(utc(2026, 7, 15, 4, 0))
    first = claim_digest(ctx, "U1", DAY, "hostA:1:1", clock, ALIVE)
    assert first is not None and first.papers is None
    assert claim_digest(ctx, "U1", DAY, "hostB:2:2", clock, ALIVE) is None  # live owner, lease runs
    assert claim_digest(ctx, "U1", DAY, "hostA:1:1", clock, ALIVE) is None  # not even the same owner twice
    taken = claim_digest(ctx, "U1", DAY, "hostB:2:2", clock, DEAD)  # the owner's process is gone
    assert taken is not None and taken.owner == "hostB:2:2"
    clock.advance(LEASE + timedelta(seconds=1))
    again = claim_digest(ctx, "U1", DAY, "hostC:3:3", clock, ALIVE)  # its lease ran out
    assert again is not None and ctx.store.get_digest("U1", "2026-07-15").owner == "hostC:3:3"
    # Writes by an owner who lost the claim change nothing.
    assert not ctx.store.renew_digest_lease("U1", "2026-07-15", "hostB:2:2", "2099-01-01T00:00:00+00:00")
    with ctx.store.transaction():
        assert ctx.store.finish_digest("U1", "2026-07-15", "hostC:3:3", "sent", "2026-07-15T04:20:00+00:00")
    assert claim_digest(ctx, "U1", DAY, "hostD:4:4", clock, DEAD) is None  # sent: done for the day
    assert claim_digest(ctx, "U1", DAY + timedelta(days=1), "hostD:4:4", clock, DEAD) is not None


def test_a_digest_is_posted_once_header_first(ctx):
    person(ctx, "U1", "feline cats whiskers", "Asia/Kolkata", "09:00")
    courier = recorder()
    outcome = send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1")
    assert (outcome.status, outcome.delivered) == ("sent", 3)
    assert [kind for _, kind, _ in courier.posts] == ["header", "paper", "paper", "paper"]
    assert "Your digest for Wednesday 15 July: 3 papers" in courier.posts[0][2]
    assert all(p.startswith("cats-") for p in courier.papers("DU1"))
    record = ctx.store.get_digest("U1", "2026-07-15")
    assert record.status == "sent" and record.papers == courier.papers("DU1") and record.header_ts
    assert ctx.store.shown_paper_ids("U1") == set(record.papers)
    again = send_digest(ctx, "U1", DAY, courier.courier(), "other:2:2", alive=DEAD)
    assert again.status == "done" and len(courier.posts) == 4


def test_killed_after_two_of_five_papers_the_next_run_posts_the_other_three(ctx):
    ctx.digest_size = 5
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    dying = recorder(kill_after=2)
    chosen = crashed(ctx, dying)
    assert len(chosen) == 5 and dying.papers("DU1") == chosen[:2]
    assert ctx.store.shown_paper_ids("U1") == set(chosen[:2])
    # The same papers, even if new ones would rank higher now.
    ctx.store.upsert_papers([Paper(id="cats-best", title="Feline cats whiskers kittens",
                                   abstract="feline cats whiskers kittens purring litter cats kittens")])
    ctx.engine.refresh()
    # Another process, while the dead one's lease still runs: it is gone, so the digest is taken over.
    restarted = recorder()
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert (outcome.status, outcome.delivered) == ("sent", 3)
    assert restarted.papers("DU1") == chosen[2:]
    assert restarted.headers("DU1") == []  # the header went out before the crash
    assert ctx.store.shown_paper_ids("U1") == set(chosen)
    assert ctx.store.get_digest("U1", "2026-07-15").status == "sent"


def test_a_resumed_digest_does_not_send_a_paper_holding_a_word_muted_since_it_was_chosen(ctx):
    ctx.digest_size = 5
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    chosen = crashed(ctx, recorder(kill_after=2))
    muted = chosen[3]
    mute(ctx, "U1", f"number {muted.split('-')[1]}")  # "... in setting number 3." : that paper only
    restarted = recorder()
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert restarted.papers("DU1") == [pid for pid in chosen[2:] if pid != muted]
    assert (outcome.status, outcome.delivered) == ("sent", 2)
    record = ctx.store.get_digest("U1", "2026-07-15")
    assert record.status == "sent" and muted not in ctx.store.shown_paper_ids("U1")


def test_a_resumed_digest_whose_papers_left_are_all_muted_now_ends_without_posting(ctx):
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    chosen = crashed(ctx, recorder(kill_after=0))  # the header went out, no paper
    mute(ctx, "U1", "cats, feline, whiskers, kittens")
    restarted = recorder()
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert restarted.posts == [] and len(chosen) == 3
    assert outcome.status == "empty" and ctx.store.get_digest("U1", "2026-07-15").status == "empty"


def test_the_papers_are_recorded_with_the_claim_before_anything_is_posted(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    courier = recorder()
    seen = []
    original = courier.post_text

    def header(channel, text):
        record = ctx.store.get_digest("U1", "2026-07-15")
        seen.append((record.status, record.papers))
        return original(channel, text)

    courier.post_text = header
    outcome = send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1")
    assert outcome.status == "sent" and seen == [("sending", courier.papers("DU1"))]


def test_a_claim_taken_over_before_its_papers_were_chosen_is_chosen_and_sent(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    assert claim_digest(ctx, "U1", DAY, "dead:1:1", clock, ALIVE).papers is None
    courier = recorder()
    outcome = send_digest(ctx, "U1", DAY, courier.courier(), "me:2:2", clock, DEAD)
    assert (outcome.status, outcome.delivered, len(courier.headers("DU1"))) == ("sent", 3, 1)
    assert ctx.store.get_digest("U1", "2026-07-15").papers == courier.papers("DU1")


def test_a_paper_posted_but_not_recorded_before_a_crash_is_found_in_the_dm_not_posted_again(ctx):
    ctx.digest_size = 4
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    dying = recorder(die_after=2)
    chosen = crashed(ctx, dying)
    assert dying.papers("DU1") == chosen[:2] and ctx.store.shown_paper_ids("U1") == {chosen[0]}
    restarted = recorder(history=dying)
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert (outcome.status, outcome.delivered) == ("sent", 2)
    assert restarted.papers("DU1") == chosen[2:] and restarted.headers("DU1") == []
    assert ctx.store.shown_paper_ids("U1") == set(chosen)


def test_a_paper_in_flight_is_found_in_the_dm_under_an_id_merged_away_since(ctx):
    ctx.digest_size = 4
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    dying = recorder(die_after=2)
    chosen = crashed(ctx, dying)
    # Its message names the paper as it was; another source's copy has taken that name over since.
    in_flight = ctx.store.get_paper(chosen[1])
    ctx.store.upsert_papers([Paper(id="elsewhere:copy", title=in_flight.title, abstract="Short.",
                                   authors=in_flight.authors)])
    assert ctx.store.get_paper("elsewhere:copy").id == chosen[1]
    dying.posts = [(c, kind, "elsewhere:copy" if what == chosen[1] else what)
                   for c, kind, what in dying.posts]
    restarted = recorder(history=dying)
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert (outcome.status, restarted.papers("DU1")) == ("sent", chosen[2:])
    assert ctx.store.shown_paper_ids("U1") == set(chosen)


def test_a_header_posted_but_not_recorded_is_not_posted_again(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    dying = recorder(die_after=0)
    crashed(ctx, dying)
    restarted = recorder(history=dying)
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert (outcome.status, outcome.delivered, restarted.headers("DU1")) == ("sent", 3, [])
    assert ctx.store.get_digest("U1", "2026-07-15").header_ts == "1.0"


def test_without_a_look_at_the_dm_the_message_in_flight_is_posted_again_and_nothing_is_lost(ctx):
    ctx.digest_size = 4
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    dying = recorder(die_after=2)
    chosen = crashed(ctx, dying)
    restarted = recorder(history=RuntimeError("missing_scope"))  # looking fails: go on without
    outcome = send_digest(ctx, "U1", DAY, restarted.courier(), "host:200:2", alive=DEAD)
    assert (outcome.status, outcome.delivered) == ("sent", 3)
    assert restarted.papers("DU1") == chosen[1:]
    assert ctx.store.shown_paper_ids("U1") == set(chosen)


def test_a_live_owners_digest_is_left_alone_until_its_lease_runs_out(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, recorder(kill_after=1).courier(), "elsewhere:1:1", clock, ALIVE)
    second = recorder()
    assert send_digest(ctx, "U1", DAY, second.courier(), "me:2:2", clock, ALIVE).status == "busy"
    assert second.posts == []
    clock.advance(LEASE)
    outcome = send_digest(ctx, "U1", DAY, second.courier(), "me:2:2", clock, ALIVE)
    assert (outcome.status, outcome.delivered, len(second.headers("DU1"))) == ("sent", 2, 0)


def test_a_digest_claimed_ahead_is_held_briefly_and_renewed_before_its_first_post(ctx):
    """A run claims digests ahead of its workers: if it dies then, another host takes them over after
    AHEAD_LEASE, not LEASE; a worker that starts on one later first renews it to LEASE."""
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    record, new, _ = claim_ahead(ctx, "U1", DAY, "me:1:1", clock, ALIVE)
    assert new and datetime.fromisoformat(record.lease_until) == clock() + AHEAD_LEASE
    clock.advance(AHEAD_LEASE - timedelta(seconds=1))  # its worker starts just before the claim runs out
    dm, leases = recorder(), []
    courier = dm.courier()
    post_text = courier.post_text

    def header(channel: str, text: str) -> str:  # the lease as the first post goes out
        leases.append(ctx.store.get_digest("U1", DAY.isoformat()).lease_until)
        return post_text(channel, text)

    courier.post_text = header
    assert send_claimed_digest(ctx, record, new, DAY, courier, "me:1:1", clock).status == "sent"
    assert datetime.fromisoformat(leases[0]) == clock() + LEASE  # renewed before the first post


def test_a_digest_taken_over_ahead_is_renewed_before_its_first_post(ctx):
    """Taken over from a dead sender (its papers chosen) by a run's claim ahead: the short lease is
    renewed before anything is posted, however soon the worker starts on it."""
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    with pytest.raises(Death):
        send_digest(ctx, "U1", DAY, recorder(kill_after=1).courier(), "dead:1:1", clock, ALIVE)
    clock.advance(timedelta(minutes=1))
    record, new, _ = claim_ahead(ctx, "U1", DAY, "me:2:2", clock, DEAD)
    assert not new and record.papers and datetime.fromisoformat(record.lease_until) == clock() + AHEAD_LEASE
    courier, leases = recorder(), []
    courier.on_paper = lambda rec: leases.append(ctx.store.get_digest("U1", DAY.isoformat()).lease_until)
    outcome = send_claimed_digest(ctx, record, new, DAY, courier.courier(), "me:2:2", clock)
    assert outcome.status == "sent" and datetime.fromisoformat(leases[0]) == clock() + LEASE


def test_a_digest_claimed_ahead_and_taken_over_once_its_short_lease_ran_out_is_not_sent_twice(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    record, new, _ = claim_ahead(ctx, "U1", DAY, "slow:1:1", clock, ALIVE)
    clock.advance(AHEAD_LEASE + timedelta(seconds=1))  # its run is still busy with others: the claim ran out
    other = recorder()
    assert send_digest(ctx, "U1", DAY, other.courier(), "other:2:2", clock, ALIVE).status == "sent"
    late = recorder()
    assert send_claimed_digest(ctx, record, new, DAY, late.courier(), "slow:1:1", clock).status == "busy"
    assert late.posts == [] and len(other.papers("DU1")) == 3


def test_a_sender_that_lost_its_claim_stops_posting(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    courier = recorder()

    def taken_over(rec):
        if courier.papers("DU1"):  # after the first paper, someone else takes the digest over
            with ctx.store.transaction():
                ctx.store.take_over_digest("U1", "2026-07-15", "thief:9:9", "2099-01-01T00:00:00+00:00")

    courier.on_paper = taken_over
    outcome = send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1")
    assert outcome.status == "busy" and len(courier.papers("DU1")) == 2  # the post under way, then stop
    assert len(ctx.store.shown_paper_ids("U1")) == 2  # and what went out is remembered


def test_a_paper_that_keeps_failing_is_given_up_after_three_tries(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    chosen = [r.paper.id for r in choose_papers(ctx, "U1", today=DAY)]
    courier = recorder(fail={chosen[1]: RuntimeError("Slack said no")})
    first = send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1", clock, ALIVE)
    assert (first.status, first.delivered, first.failed) == ("incomplete", 2, 1)
    # Given back with a pause: not retried at once, then retried by anyone.
    assert send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1", clock, ALIVE).status == "busy"
    for _ in range(MAX_ATTEMPTS - 1):
        clock.advance(RETRY_AFTER)
        outcome = send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1", clock, ALIVE)
        assert outcome.failed == 1 and outcome.delivered == 0
    assert outcome.status == "sent"
    record = ctx.store.get_digest("U1", "2026-07-15")
    assert record.failures == {chosen[1]: MAX_ATTEMPTS}
    assert courier.papers("DU1") == [chosen[0], chosen[2]] and len(courier.headers("DU1")) == 1
    assert chosen[1] not in ctx.store.shown_paper_ids("U1")  # not shown: it may come another day


def test_someone_unreachable_is_skipped_for_the_day_and_others_still_get_theirs(ctx):
    person(ctx, "GONE", "feline cats", "Europe/Berlin", "09:00")
    person(ctx, "U2", "quantum qubits", "Europe/Berlin", "09:00")
    good = recorder()
    unreachable = recorder(fail={"open": Unreachable("Slack refused direct messages (user_not_found)")})
    couriers = {"GONE": unreachable, "U2": good}
    courier = Courier(open=lambda u: couriers[u].open(u), post_text=good.post_text,
                      post_paper=good.post_paper, phrase=phrase)
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier)
    assert {o.user_id: o.status for o in run.outcomes} == {"GONE": "failed", "U2": "sent"}
    assert "user_not_found" in Note.read(ctx.store.get_digest("GONE", "2026-07-15").error).detail
    again = send_due_digests(ctx, utc(2026, 7, 15, 9, 0), courier)
    assert again.outcomes == []  # not retried all day


def test_a_person_slack_cant_reach_for_a_while_is_tried_three_times(ctx):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    courier = recorder(fail={"open": ConnectionError("Slack is down")})
    statuses = []
    for _ in range(MAX_ATTEMPTS):
        statuses.append(send_digest(ctx, "U1", DAY, courier.courier(), "me:1:1", clock, ALIVE).status)
        clock.advance(RETRY_AFTER)
    assert statuses == ["incomplete", "incomplete", "failed"]
    assert courier.posts == []


def test_nothing_worth_sending_is_recorded_for_the_day_and_said_once_in_a_short_note(ctx):
    person(ctx, "U1", "volcano magma eruptions", "Europe/Berlin", "09:00")  # matches no paper
    courier = recorder()
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier())
    assert [o.status for o in run.outcomes] == ["empty"]
    assert courier.posts == [("DU1", "header", NOTHING_MATCHED.format(when="today"))]  # no paper, one note
    assert ctx.store.get_digest("U1", "2026-07-15").status == "empty"
    assert send_due_digests(ctx, utc(2026, 7, 15, 12, 0), courier.courier()).outcomes == []
    assert len(courier.posts) == 1  # not again that day


def test_nothing_worth_sending_to_someone_who_asked_for_quiet_posts_nothing(ctx):
    person(ctx, "U1", "volcano magma eruptions", "Europe/Berlin", "09:00")
    set_quiet_days(ctx, "U1", True)
    courier = recorder()
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier())
    assert [o.status for o in run.outcomes] == ["empty"] and courier.posts == []


def test_a_note_slack_refuses_is_let_go_and_the_day_stays_empty(ctx):
    person(ctx, "U1", "volcano magma eruptions", "Europe/Berlin", "09:00")
    courier = recorder(fail={"header": RuntimeError("channel_not_found")})
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier())
    assert [o.status for o in run.outcomes] == ["empty"] and courier.posts == []
    assert ctx.store.get_digest("U1", "2026-07-15").status == "empty"


def acked(ctx: Context, user: str, key: str, owner: str = "bot:1:1") -> None:
    """A request of ``user``'s, acknowledged and being carried out by ``owner`` (a living process)."""
    at = "2026-07-15T07:59:00+00:00"
    ctx.store.inbox_put([InboxEntry(ctx.store.workspace, key, "command", user, "{}", at)])
    assert [i.entry.key for i in ctx.store.inbox_claim(owner, "2099-01-01T00:00:00+00:00",
                                                       "2026-07-15T08:00:00+00:00", 10)] == [key]


def test_a_digest_is_chosen_only_once_its_persons_acknowledged_follow_is_carried_out(ctx):
    person(ctx, "U1", "volcano magma eruptions", "Europe/Berlin", "09:00")  # matches no paper yet
    acked(ctx, "U1", "follow-cats")
    waited = []

    def carried_out_meanwhile(seconds: float) -> None:  # the process that holds it finishes it
        waited.append(seconds)
        follow(ctx, "U1", "feline cats whiskers")
        assert ctx.store.inbox_done(ctx.store.workspace, "follow-cats", "bot:1:1")

    courier = recorder()
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier(), sleep=carried_out_meanwhile)
    assert [o.status for o in run.outcomes] == ["sent"] and len(waited) == 1
    assert [kind for _, kind, _ in courier.posts].count("paper") == 3


def test_a_digest_whose_persons_requests_stay_unfinished_goes_to_the_next_run_and_no_one_else_waits(ctx):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00")
    person(ctx, "U2", "feline cats", "Europe/Berlin", "09:00")
    acked(ctx, "U1", "still-running")
    waited = []
    courier = recorder()
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier(), acked_wait=0.3,
                           sleep=waited.append)
    assert {o.user_id: (o.status, o.note) for o in run.outcomes} == {
        "U1": ("skipped", Note("requests_unfinished")), "U2": ("sent", None)}
    assert sum(waited) == pytest.approx(0.3) and {c for c, *_ in courier.posts} == {"DU2"}
    assert ctx.store.get_digest("U1", "2026-07-15") is None  # withdrawn: the next run sends it
    assert ctx.store.inbox_done(ctx.store.workspace, "still-running", "bot:1:1")
    again = send_due_digests(ctx, utc(2026, 7, 15, 8, 1), courier.courier(), sleep=waited.append)
    assert [(o.user_id, o.status) for o in again.outcomes] == [("U1", "sent")]


def test_digests_prefer_recent_papers_and_skip_weak_matches(ctx):
    ctx.store.upsert_papers([
        Paper(id="cats-new", title="Kittens and litter",
              abstract="feline kittens purring whiskers in the litter",
              published="2026-07-14"),
        Paper(id="cats-old", title="Feline cats whiskers", abstract="feline cats whiskers purring kittens",
              published="2019-01-01"),
        Paper(id="junk", title="A long survey of soil chemistry",
              abstract="soil chemistry nitrogen phosphorus minerals erosion sediment clay humus acidity "
                       "irrigation crops fertiliser runoff groundwater salinity and one stray cat"),
    ])
    ctx.engine.rebuild()
    with ctx.store.transaction():
        for p in make_corpus():  # the synthetic corpus counts as old here
            ctx.store.db.execute("update papers set published = '2020-01-01' where id = ?", [p.id])
    follow(ctx, "U1", "feline cats whiskers")
    picks = [r.paper.id for r in choose_papers(ctx, "U1", n=3, today=DAY)]
    assert picks[0] == "cats-new"  # the new one first, though an old one matches better
    assert "cats-old" in picks
    everything = [r.paper.id for r in choose_papers(ctx, "U1", n=20, today=DAY)]
    assert "junk" not in everything and all(p.startswith("cats-") for p in everything)


def test_nobody_to_rank_for_explicit_requests_leaves_no_claim(ctx):
    with pytest.raises(NoInterests):
        send_digest_now(ctx, "NOBODY", recorder().courier(), utc(2026, 7, 15, 8, 0))
    assert ctx.store.get_digest("NOBODY", "2026-07-15") is None


def test_digest_now_is_todays_digest_then_an_extra_one(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    courier = recorder()
    first = send_digest_now(ctx, "U1", courier.courier(), utc(2026, 7, 15, 5, 0))  # before 09:00
    assert (first.status, first.delivered) == ("sent", 3)
    assert ctx.store.get_digest("U1", "2026-07-15").status == "sent"
    # The scheduled one does not come again that day...
    assert send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier()).outcomes == []
    # ...and asking again sends an extra digest of papers not shown yet.
    second = send_digest_now(ctx, "U1", courier.courier(), utc(2026, 7, 15, 9, 0))
    assert (second.status, second.delivered) == ("extra", 3)
    assert "An extra digest" in courier.headers("DU1")[1]
    assert len(set(courier.papers("DU1"))) == 6


def test_two_senders_at_once_send_each_digest_exactly_once(tmp_path):
    db = tmp_path / "shared.db"
    setup = Context.open(str(db), digest_size=3)
    setup.store.upsert_papers(make_corpus())
    setup.engine.refresh()
    topics = ["feline cats", "graph neural networks", "diffusion denoising", "robot grasping",
              "quantum qubits"]
    users = [f"U{i:02d}" for i in range(20)]
    for i, user in enumerate(users):
        zone = ["Asia/Kolkata", "America/New_York", "Europe/Berlin"][i % 3]
        person(setup, user, topics[i % 5], zone, "06:00")
    setup.store.close()
    courier = recorder(delay=0.005)
    now = utc(2026, 7, 15, 12, 0)
    runs = []

    def sender(owner: str) -> None:  # the bot's scheduler and `paperbot digest`, each with its own store
        ctx = Context.open(str(db), digest_size=3)
        runs.append(send_due_digests(ctx, now, courier.courier(), owner=owner, workers=4))

    threads = [threading.Thread(target=sender, args=(f"host:{n}:1",)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for user in users:
        assert len(courier.headers("D" + user)) == 1, user
        papers = courier.papers("D" + user)
        assert len(papers) == 3 and len(set(papers)) == 3, user
    sent = [o for run in runs for o in run.outcomes if o.status == "sent"]
    assert sorted(o.user_id for o in sent) == users


def test_each_run_takes_the_due_digests_in_an_order_of_its_own_and_reports_them_in_the_schedule_s(ctx):
    # Two processes walking the same list in step would each wait on the other's hold of one person.
    users = [f"U{i:02d}" for i in range(12)]
    for user in users:
        person(ctx, user, "feline cats", "Europe/Berlin", "06:00")
    orders = []
    for day in (15, 16, 17):
        courier = recorder()
        run = send_due_digests(ctx, utc(2026, 7, day, 12, 0), courier.courier(), workers=1)
        assert [o.user_id for o in run.outcomes] == users and run.count("sent") == len(users)
        orders.append([channel[1:] for channel, kind, _ in courier.posts if kind == "header"])
    assert all(sorted(order) == users for order in orders)
    assert len({tuple(order) for order in orders}) > 1  # the same order thrice: 1 in 479,001,600², never


def test_a_digest_finished_elsewhere_since_the_run_began_is_done_without_waiting_for_the_person(
        ctx, monkeypatch):
    import bot.usecases.digests.run as daily

    person(ctx, "U1", "feline cats", "Europe/Berlin", "06:00")
    now = utc(2026, 7, 15, 12, 0)

    def found_due(*args, **kwargs):  # another process sends U1's digest just after this run looked
        due = find_due(*args, **kwargs)
        assert ctx.store.start_digest("U1", "2026-07-15", "elsewhere:1:1", "2099-01-01T00:00:00+00:00",
                                      "2026-07-15T12:00:00+00:00")
        assert ctx.store.finish_digest("U1", "2026-07-15", "elsewhere:1:1", "sent",
                                       "2026-07-15T12:00:01+00:00")
        return due

    held = []
    find_due = daily.find_due
    monkeypatch.setattr(daily, "find_due", found_due)
    courier = recorder()
    run = send_due_digests(ctx, now, courier.courier(), hold=lambda user: held.append(user) or nullcontext())
    assert [o.status for o in run.outcomes] == ["done"] and courier.posts == [] and held == []


def test_a_stop_request_starts_no_new_digest(ctx):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00")
    stop = threading.Event()
    stop.set()
    courier = recorder()
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier(), stop=stop)
    assert [o.status for o in run.outcomes] == ["skipped"] and courier.posts == []
    assert ctx.store.get_digest("U1", "2026-07-15") is None


def test_dry_run_preview_records_nothing(ctx):
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    person(ctx, "U2", "quantum qubits", "Asia/Tokyo", "23:00")
    previews, not_due = preview_digests(ctx, utc(2026, 7, 15, 8, 0))
    assert [p.due.user_id for p in previews] == ["U1"] and len(previews[0].recommendations) == 3
    assert [n.user_id for n in not_due] == ["U2"] and not_due[0].why == "due_later"
    assert (not_due[0].digest_time, not_due[0].tz) == ("23:00", "Asia/Tokyo")
    assert ctx.store.get_digest("U1", "2026-07-15") is None and ctx.store.shown_paper_ids("U1") == set()


# -- feeds ------------------------------------------------------------------------------------------

def test_feeds_are_ingested_once_per_utc_day_before_digests(ctx, tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"id": "feed-1", "title": "Whiskers of feline kittens",
                                "abstract": "feline cats whiskers kittens purring",
                                "published": "2026-07-15"})
                    + "\n")
    person(ctx, "U1", "feline cats whiskers kittens", "Europe/Berlin", "09:00")
    courier = recorder()
    clock = Clock(utc(2026, 7, 15, 8, 0))
    run = run_daily(ctx, [str(feed)], courier.courier(), clock=clock)
    assert run.feeds and run.feeds[0].added == 1
    assert courier.papers("DU1")[0] == "feed-1"  # ingested first, and fresh papers lead
    assert ingest_feeds_if_due(ctx, [str(feed)], clock=clock) is None  # once per UTC day
    clock.advance(timedelta(days=1))
    assert ingest_feeds_if_due(ctx, [str(feed)], clock=clock)[0].unchanged == 1


def test_a_failing_feed_never_stops_digests_and_is_retried_hourly(ctx, tmp_path):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00")
    courier = recorder()
    clock = Clock(utc(2026, 7, 15, 8, 0))
    run = run_daily(ctx, [str(tmp_path / "missing.jsonl")], courier.courier(), clock=clock)
    assert run.feeds[0].error and [o.status for o in run.outcomes] == ["sent"]
    job = ctx.store.get_job(FEED_JOB)
    assert job.status == "failed" and "missing.jsonl" in job.error
    clock.advance(timedelta(minutes=30))
    assert ingest_feeds_if_due(ctx, [str(tmp_path / "missing.jsonl")], clock=clock) is None
    clock.advance(timedelta(minutes=31))
    assert ingest_feeds_if_due(ctx, [str(tmp_path / "missing.jsonl")], clock=clock) is not None


def test_feeds_under_way_elsewhere_are_not_ingested_twice(ctx, tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"abstract": "feline cats"}) + "\n")
    now = utc(2026, 7, 15, 8, 0)
    with ctx.store.transaction():
        ctx.store.start_job(FEED_JOB, "2026-07-15", "other:1:1", "2026-07-15T08:20:00+00:00", now.isoformat())
    assert ingest_feeds_if_due(ctx, [str(feed)], now, alive=ALIVE) is None
    assert ingest_feeds_if_due(ctx, [str(feed)], now, alive=DEAD) is not None  # its owner died


def test_digest_reasons_are_the_ones_the_whole_corpus_gives(ctx):
    from bot.usecases.recommend import profile_for, with_papers
    from recommender import rank

    follow(ctx, "U1", "quantum qubits entanglement")
    record_feedback(ctx, "U1", "cats-0", 1)
    record_feedback(ctx, "U1", "robots-1", -1)
    recs = choose_papers(ctx, "U1", n=6, today=DAY)
    with ctx.engine.index() as index:
        full = {p.paper_id: p for p in rank(index, profile_for(ctx, "U1"), 6,
                                             candidates=[r.paper.id for r in recs])}
    expected = with_papers(ctx, [full[r.paper.id] for r in recs])
    assert [r.reason for r in recs] == [e.reason for e in expected]
    assert any(r.reason.startswith("Like “") for r in recs)  # some point at the liked paper
    assert any(not r.reason.startswith("Like “") for r in recs)


# -- claims decided by the database, on both backends -------------------------------------------------

@pytest.fixture(params=["sqlite", "postgres"])
def shared_db(request, tmp_path) -> str:
    """One database two "processes" (two stores, each with its own connections) share."""
    if request.param == "sqlite":
        return str(tmp_path / "shared.db")
    from tests.storage.conftest import reset_schema

    url = request.getfixturevalue("pg_database")  # skips, naming the setting, without a server
    reset_schema(url)
    return url


@pytest.fixture
def two_processes(shared_db):
    from bot.state.engine import Engine
    from storage import open_store
    from tests.storage.conftest import dispose

    stores = [open_store(shared_db) for _ in range(2)]
    yield [Context(s, Engine(s, refresh_every=3600)) for s in stores]
    for store in stores:
        dispose(store)


def stalled_after_judging_dead():
    """An ``alive`` that finds every owner dead, then stalls (until released) before the caller writes:
    another process acts in between, as it may on a database without an exclusive transaction."""
    judged, go = threading.Event(), threading.Event()

    def alive(owner):
        judged.set()
        assert go.wait(10)
        return False

    return alive, judged, go


def test_two_processes_that_find_a_digest_s_owner_dead_at_once_take_it_over_once(two_processes):
    a, b = two_processes
    a.store.start_digest("U1", DAY.isoformat(), "gone:1:1", "2099-01-01T00:00:00+00:00",
                         "2026-07-15T07:00:00+00:00")
    clock = Clock(utc(2026, 7, 15, 8, 0))
    alive, judged, go = stalled_after_judging_dead()
    got = {}
    slow = threading.Thread(target=lambda: got.update(a=claim_digest(a, "U1", DAY, "a:1:1", clock, alive)))
    slow.start()
    assert judged.wait(10)
    got["b"] = claim_digest(b, "U1", DAY, "b:2:2", clock, DEAD)  # b saw the same dead owner, and acts first
    go.set()
    slow.join(20)
    assert got["b"] is not None and got["b"].owner == "b:2:2"
    assert got["a"] is None  # a's takeover names the dead owner, which no longer holds it
    assert b.store.get_digest("U1", DAY.isoformat()).owner == "b:2:2"


def test_two_processes_that_find_the_feed_ingest_s_owner_dead_at_once_ingest_once(two_processes, tmp_path):
    a, b = two_processes
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"abstract": "feline cats"}) + "\n")
    now = utc(2026, 7, 15, 8, 0)
    a.store.start_job(FEED_JOB, "2026-07-15", "gone:1:1", "2026-07-15T08:20:00+00:00",
                      "2026-07-15T07:55:00+00:00")
    alive, judged, go = stalled_after_judging_dead()
    got = {}
    slow = threading.Thread(target=lambda: got.update(a=ingest_feeds_if_due(a, [str(feed)], now, "a:1:1",
                                                                             alive=alive)))
    slow.start()
    assert judged.wait(10)
    got["b"] = ingest_feeds_if_due(b, [str(feed)], now, "b:2:2", alive=DEAD)
    go.set()
    slow.join(20)
    assert got["b"] is not None and got["b"][0].added == 1
    assert got["a"] is None
    job = a.store.get_job(FEED_JOB)
    assert (job.owner, job.status) == ("b:2:2", "done")


def test_a_run_scores_only_the_digests_it_claimed(two_processes, monkeypatch):
    # Replicas on one database split the due digests: each claims a few ahead and scores just those,
    # never the ones another process already holds (scoring is most of a digest's cost).
    from bot.usecases.digests import choose as digest

    a, b = two_processes
    a.store.upsert_papers(make_corpus())
    for i in range(6):
        person(a, f"U{i}", "feline cats", "Europe/Berlin", "09:00")
    now = utc(2026, 7, 15, 8, 0)
    for i in range(3):  # another live process is on these
        assert claim_digest(b, f"U{i}", DAY, "b:2:2", Clock(now), ALIVE) is not None
    scored = []
    real = digest.wants
    monkeypatch.setattr(digest, "wants", lambda ctx, user, *rest, **named: scored.append(user)
                        or real(ctx, user, *rest, **named))
    courier = recorder()
    run = send_due_digests(a, now, courier.courier(), owner="a:1:1", clock=Clock(now), alive=ALIVE)
    assert sorted((o.user_id, o.status) for o in run.outcomes) == [
        ("U0", "busy"), ("U1", "busy"), ("U2", "busy"), ("U3", "sent"), ("U4", "sent"), ("U5", "sent")]
    assert sorted(scored) == ["U3", "U4", "U5"]
    assert courier.papers("DU0") == [] and len(courier.papers("DU3")) == a.digest_size


def test_a_run_claims_the_digests_not_begun_yet_in_one_statement_and_the_others_one_by_one(ctx, monkeypatch):
    for i in range(5):
        person(ctx, f"U{i}", "feline cats", "Europe/Berlin", "09:00")
    now = utc(2026, 7, 15, 8, 0)
    assert claim_digest(ctx, "U0", DAY, "gone:1:1", Clock(now), ALIVE) is not None  # its sender died
    batches = []
    real = ctx.store.start_digests
    monkeypatch.setattr(ctx.store, "start_digests", lambda keys, *rest: batches.append(sorted(keys))
                        or real(keys, *rest))
    courier = recorder()
    run = send_due_digests(ctx, now, courier.courier(), owner="a:1:1", clock=Clock(now), alive=DEAD)
    assert [o.status for o in run.outcomes] == ["sent"] * 5
    assert batches == [[(f"U{i}", "2026-07-15") for i in range(5)]]  # U0 then taken over on its own
    assert all(len(courier.papers(f"DU{i}")) == ctx.digest_size for i in range(5))

    # When that one statement fails, each digest is claimed on its own: every one still goes out once.
    for i in range(5, 8):
        person(ctx, f"U{i}", "feline cats", "Europe/Berlin", "09:00")

    def failing(*args):
        raise StorageError("busy")

    monkeypatch.setattr(ctx.store, "start_digests", failing)
    courier = recorder()
    run = send_due_digests(ctx, now, courier.courier(), users=["U5", "U6", "U7"], owner="a:1:1",
                           clock=Clock(now), alive=ALIVE)
    assert [o.status for o in run.outcomes] == ["sent"] * 3
    assert all(len(courier.papers(f"DU{i}")) == ctx.digest_size for i in range(5, 8))


def test_stopping_withdraws_the_digests_claimed_ahead(ctx):
    person(ctx, "U1", "feline cats", "Europe/Berlin", "09:00")
    person(ctx, "U2", "feline cats", "Europe/Berlin", "09:00")
    stop = threading.Event()
    courier = recorder()
    courier.on_paper = lambda rec: stop.set()  # stopping once the first digest is under way
    run = send_due_digests(ctx, utc(2026, 7, 15, 8, 0), courier.courier(), stop=stop, workers=1)
    assert sorted(o.status for o in run.outcomes) == ["sent", "skipped"]
    skipped = next(o for o in run.outcomes if o.status == "skipped")
    assert ctx.store.get_digest(skipped.user_id, "2026-07-15") is None  # the next run sends it at once


def test_a_digest_the_database_failed_mid_send_goes_out_at_the_next_run_not_after_its_lease(ctx, monkeypatch):
    # A blip: the database fails while a paper is recorded, and again when the digest is given back. The
    # process knows the claim is its own: its next run gives it back first and sends the rest at once.
    person(ctx, "U1", "feline cats whiskers", "Europe/Berlin", "09:00")
    clock, away = Clock(utc(2026, 7, 15, 7, 0)), [True]
    store = ctx.store
    record_posted, release_lease = store.record_posted, store.release_lease

    def blip(write):
        def written(*args, **kwargs):
            if away[0]:
                raise StoreUnavailable(f"can't reach the database {store.path}: connection refused")
            return write(*args, **kwargs)
        return written

    monkeypatch.setattr(store, "record_posted", blip(record_posted))
    monkeypatch.setattr(store, "release_lease", blip(release_lease))
    first = recorder()
    run = send_due_digests(ctx, clock(), first.courier(), owner="me:1:1", clock=clock, alive=ALIVE)
    assert [o.status for o in run.outcomes] == ["incomplete"]
    record = store.get_digest("U1", "2026-07-15")
    assert record.status == "sending" and record.owner == "me:1:1" and len(first.papers("DU1")) == 1
    away[0] = False
    clock.advance(timedelta(minutes=1))  # the lease has 9 more minutes to run
    second = recorder(history=first)  # the same DM: the paper whose record failed went out
    run = send_due_digests(ctx, clock(), second.courier(), owner="me:1:1", clock=clock, alive=ALIVE)
    assert [(o.status, o.delivered) for o in run.outcomes] == [("sent", 2)]  # the first was found in the DM
    posted_again = [p for _, kind, p in second.posts if kind == "paper"]
    assert second.headers("DU1") == [] and len(posted_again) == 2
    assert not set(posted_again) & set(first.papers("DU1"))  # nothing posted twice
    assert store.get_digest("U1", "2026-07-15").status == "sent"


def test_feeds_are_read_again_once_arxiv_renewed_its_listings_not_at_utc_midnight(ctx, tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"abstract": "feline cats"}) + "\n")
    for read_at, renewed in ((utc(2026, 7, 15, 8, 0), utc(2026, 7, 16, 4, 0)),  # New York on summer time
                             (utc(2026, 12, 7, 8, 0), utc(2026, 12, 8, 5, 0))):  # on standard time
        assert ingest_feeds_if_due(ctx, [str(feed)], clock=Clock(read_at)) is not None
        assert ingest_feeds_if_due(ctx, [str(feed)], clock=Clock(read_at.replace(hour=23, minute=59))) is None
        # Past UTC midnight, before the listing's half hour: not yet; then at once.
        assert ingest_feeds_if_due(ctx, [str(feed)], clock=Clock(renewed + timedelta(minutes=29))) is None
        assert ingest_feeds_if_due(ctx, [str(feed)], clock=Clock(renewed + timedelta(minutes=30))) is not None
