"""One person's digest for one local day, sent exactly once.

* **Once**: each day's digest is a row in ``digests``, a lease (``storage.leases``): claimed by one
  atomic statement together with the papers chosen for it, so it holds on a database without an
  exclusive transaction (PostgreSQL) as on SQLite. No row: claim it. "sent" / "empty" / "failed":
  done for the day. "sending": skip it while its owner lives and its lease runs; take it over when
  the lease ran out or, on this host, the owner's process is gone (the store's compare-and-set
  decides; this module only tells it which owners are dead). The lease is renewed after every
  message, and every write after the claim names the owner, so a sender that lost it changes nothing.
* **Resume**: whoever takes a digest over posts only the papers not yet confirmed (not in ``shown``),
  and the header only if it never went out, so a digest cut off by a crash is finished without
  repeats. Slack offers no idempotent post, so the message in flight when a process died may have
  landed unrecorded: before posting, a resumed digest asks the courier what the DM already holds
  (``find_posted``) and records that. Slack carries out a post it received even when its poster died
  meanwhile, a moment later: a digest taken over at once from a dead owner first lets that moment
  pass (the courier's ``settle``, counted from the dead owner's last renewal).
* **Faults**: a paper that fails is tried again in a later run, at most :data:`MAX_ATTEMPTS` times; a
  person who can't be reached (:class:`~bot.errors.Unreachable`) is done for the day.
* **Outages**: when Slack itself is down, overloaded or too slow (:class:`~bot.errors.Outage`), the
  digest stops at once (no hammering) and is given back to be retried with a growing pause
  (:func:`outage_backoff`), counted against neither its papers nor its attempts. Only the end of the
  person's local day ends it: "failed" when nothing went out. A digest that delivered no paper is
  never "sent".

Slack-free: the caller passes a :class:`~bot.usecases.digest_vocabulary.Courier` of plain callables,
which also puts into words what a digest says besides its papers (its header, the note on a day nothing
matched: data here).
"""

from __future__ import annotations

import logging
from contextlib import suppress
from datetime import UTC, date, datetime, time, timedelta
from time import sleep
from typing import Literal

from bot.errors import NoInterests, NoPapers, Outage, Unreachable
from bot.state.context import Context
from bot.state.owner import owner_alive, owner_id
from bot.usecases.digest_due import zone
from bot.usecases.digest_vocabulary import (
    DATABASE_AWAY,
    Alive,
    Clock,
    Courier,
    DigestHeader,
    Note,
    NothingMatched,
    Outcome,
    error_note,
    utc_now,
)
from bot.usecases.digests.choose import Chooser
from bot.usecases.feeds import label, sections
from bot.usecases.followups import Followup, claim_followups
from bot.usecases.followups import give_back as give_back_followups
from bot.usecases.mutes import muter
from bot.usecases.recommend import Recommendation, remember_shown
from bot.usecases.social import with_saved_counts
from bot.usecases.subjects import is_channel
from storage import DigestRecord, Person
from storage.leases import DIGEST
from storage.moments import iso_utc

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=10)  # longer than any one message can take, 429 retries included
#: A digest claimed ahead (nothing chosen, nothing posted) waits only for a worker of its run: if that
#: process dies, another host may take it over after this, not after LEASE. Renewed to LEASE on starting.
AHEAD_LEASE = timedelta(minutes=2)
RETRY_AFTER = timedelta(minutes=2)  # before a digest with something left to send is tried again
MAX_ATTEMPTS = 3  # per paper, and per digest for failures to reach the person at all
OUTAGE_BACKOFF_CAP = timedelta(minutes=30)  # the longest pause between tries while Slack is down
LAST_TRY_BEFORE_MIDNIGHT = timedelta(minutes=1)  # a digest waiting out an outage is tried once more then

def outage_backoff(outages: int) -> timedelta:
    """The pause before the next try of a digest cut short by its ``outages``-th Slack outage:
    RETRY_AFTER, then doubling (2, 4, 8 … minutes), at most OUTAGE_BACKOFF_CAP."""
    return min(RETRY_AFTER * 2 ** max(0, min(outages - 1, 16)), OUTAGE_BACKOFF_CAP)


def day_end(tz_name: str | None, day: date) -> datetime:
    """The instant local ``day`` ends in the person's timezone (the next local midnight)."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone(tz_name)).astimezone(UTC)


def wants_compact(courier: Courier, user_id: str, person: Person | None, n: int) -> bool:
    """Whether ``n`` papers go to a person (``person``: their settings) as one message: they asked for
    that (a channel never does), and the courier can post that many in one."""
    if courier.post_compact is None or n > courier.compact_most or is_channel(user_id):
        return False
    return bool(person and person.digest_compact)


# -- claiming ---------------------------------------------------------------------------------------

def remember_unreturned(ctx: Context, user_id: str, local_date: str, owner: str) -> None:
    """A digest ``owner`` (this process) claimed and could not give back, the database being away: the
    next run gives it back first (:func:`give_back_unreturned`), instead of it waiting out its lease."""
    with ctx.unreturned_lock:
        ctx.unreturned_digests.add((user_id, local_date, owner))


def hand_back(ctx: Context, user_id: str, local_date: str, owner: str, now: datetime) -> None:
    """Give ``owner``'s claim of a digest back, to be taken again from ``now`` by any process (this one's
    next run too), uncounted: the database, not the digest, stopped it."""
    ctx.store.release_lease(DIGEST, (user_id, local_date), owner, iso_utc(now))


def give_back_unreturned(ctx: Context, now: datetime) -> int:
    """Give back the digests :func:`remember_unreturned` kept, to be taken again at once; those the
    database still can't take stay kept. Returns how many were given back."""
    with ctx.unreturned_lock:
        kept = sorted(ctx.unreturned_digests)
    given = 0
    for user_id, local_date, owner in kept:
        try:
            hand_back(ctx, user_id, local_date, owner, now)
        except DATABASE_AWAY as exc:
            log.warning("%d digest(s) of this process wait for the database to be given back: %s",
                        len(kept) - given, exc)
            return given
        with ctx.unreturned_lock:
            ctx.unreturned_digests.discard((user_id, local_date, owner))
        given += 1
    return given


def report_database_away(outcomes: list[Outcome]) -> None:
    """One warning for the digests of a run that the database failed under (the first one's error names
    the database and what to do), rather than one per person: a restart stops them all at once."""
    away = [outcome for outcome in outcomes if outcome.database_away]
    if away:
        log.warning("%d digest(s) stopped when the database failed: %s; they go out again once it answers",
                    len(away), away[0].note.detail if away[0].note else None)


class Unread:
    """A digest's row not read yet (:func:`claim_ahead`'s ``seen`` when the caller has not read it)."""


UNREAD = Unread()
#: A digest's row as a caller read it (None: it had none), or UNREAD.
Seen = DigestRecord | None | Unread


def digest_row(ctx: Context, user_id: str, local_date: str, seen: Seen) -> DigestRecord | None:
    """The digest's row as ``seen``, or as it is now when it was not read."""
    return ctx.store.get_digest(user_id, local_date) if isinstance(seen, Unread) else seen


def claim_digest(ctx: Context, user_id: str, day: date, owner: str, clock: Clock = utc_now,
                 alive: Alive = owner_alive,
                 chosen: list[Recommendation] | None = None) -> DigestRecord | None:
    """Take the day's digest for ``owner``, or None if it ended or someone else is on it.

    Returns the record as claimed: new, with ``chosen`` recorded as its papers in the same transaction
    (``papers`` None without them), or taken over (resume from it; ``chosen`` is then ignored).
    """
    return _claim(ctx, user_id, day, owner, clock, alive, chosen)[0]


def _claim(ctx: Context, user_id: str, day: date, owner: str, clock: Clock, alive: Alive,
           chosen: list[Recommendation] | None, now_asked: bool = False,
           lease_for: timedelta = LEASE, seen: Seen = UNREAD) -> Claimed:
    """:func:`claim_digest`, whether the claim is new (False when taken over), and for a digest taken
    over from an owner whose process is gone, when that owner last renewed it (else None).
    ``now_asked``: the person asked for it, so a digest waiting out an outage's pause is tried at once.
    ``seen``: its row as the caller read it just now (None: there was none), not to be read again."""
    store = ctx.store
    now = clock()
    lease, at, key = iso_utc(now + lease_for), iso_utc(now), day.isoformat()
    fresh: dict = {"started_at": at}
    if chosen is not None:
        fresh.update(papers=[r.paper.id for r in chosen], reasons={r.paper.id: r.reason for r in chosen})
    record = digest_row(ctx, user_id, key, seen)
    dead: set[str] = set()
    expired = False
    if record is not None:
        # Whether the lease ran out is the store's to decide, in the same statement that takes it; this
        # read only spares the write when it can't succeed, and learns whose process is gone.
        if record.status != "sending":
            return None, False, None
        expired = record.lease_until is None or datetime.fromisoformat(record.lease_until) <= now
        # No owner: given back after an outage; its lease is the backoff, whoever asks.
        expired = expired or (now_asked and record.owner is None)
        if record.owner is not None and alive(record.owner) is False:
            dead.add(record.owner)
        if not expired and not dead:
            return None, False, None
    taken = store.take_lease(DIGEST, (user_id, key), owner, lease, at, dead=dead, early=now_asked,
                             fresh=fresh)
    if taken == "new":
        return _claimed_new(user_id, key, owner, lease, at, fresh), True, None
    if taken is None:
        return None, False, None
    log.info("taking over the %s digest of %s from %s (%s)", key, user_id, record.owner,
             "lease ran out" if expired else "owner is gone")
    # Its lease is renewed after every message, to LEASE from then: the dead owner's last sign of life.
    last_heard = None if expired else datetime.fromisoformat(record.lease_until) - LEASE
    record = store.get_digest(user_id, key)  # as it is now: its previous owner may have written since
    if record is None or record.owner != owner:  # forgotten, or lost again at once
        return None, False, None
    return record, False, last_heard


def claim_ahead(ctx: Context, user_id: str, day: date, owner: str, clock: Clock = utc_now,
                alive: Alive = owner_alive, seen: Seen = UNREAD) -> Claimed:
    """Claim the day's digest before choosing its papers (a run claims a few ahead, then scores only
    those it got): the record as claimed, or None; whether the claim is new; and for one taken over
    from a dead owner, when that owner was last heard of. Send it with :func:`send_claimed_digest`.
    ``seen``: the digest's row as read just now (None: none), when the caller read a batch's at once."""
    return _claim(ctx, user_id, day, owner, clock, alive, None, lease_for=AHEAD_LEASE, seen=seen)


Claimed = tuple[DigestRecord | None, bool, datetime | None]


def claim_new_ahead(ctx: Context, wanted: list[tuple[str, date]], owner: str,
                    clock: Clock = utc_now) -> dict[tuple[str, date], Claimed]:
    """:func:`claim_ahead` at once for every digest of ``wanted`` (user id, local day) not begun yet, in
    one statement (each still a claim of its own: a row, a lease, an owner): what it returns for each
    claimed, by (user id, day). Those begun already are left out, for :func:`claim_ahead` to look at
    one by one (taken over, or not, as it decides)."""
    now = clock()
    lease, at = iso_utc(now + AHEAD_LEASE), iso_utc(now)
    new = ctx.store.start_digests([(user_id, day.isoformat()) for user_id, day in wanted], owner, lease, at)
    return {(user_id, day): (_claimed_new(user_id, day.isoformat(), owner, lease, at, {}), True, None)
            for user_id, day in wanted if (user_id, day.isoformat()) in new}


def _claimed_new(user_id: str, key: str, owner: str, lease: str, at: str, fresh: dict) -> DigestRecord:
    """The record of a digest just claimed new, as its row now holds it (``fresh``: the papers and
    reasons it was claimed with, if any)."""
    return DigestRecord(user_id, key, "sending", owner, lease, papers=fresh.get("papers"),
                        reasons=fresh.get("reasons", {}), started_at=at)


# -- sending ----------------------------------------------------------------------------------------

def send_digest(ctx: Context, user_id: str, day: date, courier: Courier, owner: str | None = None,
                clock: Clock = utc_now, alive: Alive = owner_alive, explicit: bool = False,
                chooser: Chooser | None = None) -> Outcome:
    """Claim, choose (or resume), post and record one person's digest for local ``day``.

    ``explicit`` (someone asked for it now): when there is nothing to send, nothing is recorded, so
    the scheduled digest may still come later that day; NoInterests and NoPapers are raised for the
    caller to answer. ``chooser`` chooses the papers (a run's, batching).
    """
    owner = owner or owner_id()
    chooser = chooser or Chooser(ctx)
    key = day.isoformat()
    chosen = None
    if ctx.store.get_digest(user_id, key) is None:
        # A new digest: choose first (no lock held meanwhile), then claim it with its papers at once.
        chosen = _choose(ctx, user_id, day, explicit, chooser)
        if not chosen and explicit:
            return Outcome(user_id, day, "empty")
    record, new, last_heard = _claim(ctx, user_id, day, owner, clock, alive, chosen, now_asked=explicit)
    if record is None:
        current = ctx.store.get_digest(user_id, key)
        if current is not None and current.status == "sending" and current.owner is None:
            return Outcome(user_id, day, "incomplete", note=waiting(current), outage=True)
        return Outcome(user_id, day, "busy" if current and current.status == "sending" else "done")
    outcome = _send_claimed(ctx, record, day, courier, owner, clock, explicit, chooser,
                            chosen if new and chosen is not None else None, last_heard)
    report_database_away([outcome])
    return outcome


def send_claimed_digest(ctx: Context, record: DigestRecord, new: bool, day: date, courier: Courier,
                        owner: str, clock: Clock = utc_now, chooser: Chooser | None = None,
                        last_heard: datetime | None = None) -> Outcome:
    """Choose (or resume), post and record a digest :func:`claim_ahead` claimed for ``owner``
    (``new`` and ``last_heard`` as it returned them)."""
    return _send_claimed(ctx, record, day, courier, owner, clock, False, chooser or Chooser(ctx),
                         last_heard=last_heard, fresh=new)


def _send_claimed(ctx: Context, record: DigestRecord, day: date, courier: Courier, owner: str,
                  clock: Clock, explicit: bool, chooser: Chooser,
                  chosen: list[Recommendation] | None = None, last_heard: datetime | None = None,
                  fresh: bool = False) -> Outcome:
    """Post what a claimed digest has left. ``chosen``: the record was claimed just now with these
    papers, so none of them can have been posted yet, and its lease was just set. ``last_heard``:
    taken over from a dead owner, last heard of then (see :func:`_let_land`). ``fresh``: it was
    claimed new without papers, so nothing of it can have been posted either."""
    sending = _Sending(ctx, record, day, courier, owner, clock, chosen)
    try:
        return sending.send(explicit, chooser, last_heard, fresh)
    except Unreachable as exc:
        log.warning("can't reach %s for their digest: %s", record.user_id, exc)
        if record.header_ts is None:  # its follow-ups went nowhere: told another time
            with suppress(Exception):
                give_back_followups(ctx, record.user_id, record.local_date)
        return sending.finish("failed", Note("unreachable", detail=str(exc)))
    except Outage as exc:  # Slack's trouble, not this digest's: wait for it, count nothing
        return sending.finish.postpone(str(exc))
    except (NoInterests, NoPapers):
        raise
    except DATABASE_AWAY as exc:  # the database's trouble, not this digest's: count nothing
        # One line per digest only at INFO: a run's caller says it once for all (see report_database_away).
        log.info("the %s digest of %s stopped: %s; it goes out again once the database answers",
                 record.local_date, record.user_id, exc)
        return sending.finish.give_back(str(exc))
    except Exception as exc:
        log.exception("the %s digest of %s failed; it will be tried again", record.local_date, record.user_id)
        return sending.finish.retry(Note("crashed", detail=error_note(exc)))


class _Sending:
    """One claimed digest on its way out, step by step (:meth:`send`). ``chosen``: its papers were
    chosen for this claim, so none of them can have been posted yet. Unreachable and Outage go up to
    :func:`_send_claimed`, which ends or postpones the digest."""

    def __init__(self, ctx: Context, record: DigestRecord, day: date, courier: Courier, owner: str,
                 clock: Clock, chosen: list[Recommendation] | None):
        self.ctx, self.record, self.day, self.courier = ctx, record, day, courier
        self.owner, self.clock = owner, clock
        self.chosen = chosen
        self.finish = _Finisher(ctx, record, day, owner, clock)
        # When the lease was last set to run LEASE (one claimed ahead runs shorter, so it counts as
        # older): it is renewed before the first post once a quarter of that has gone.
        self.leased_at = datetime.fromisoformat(record.lease_until) - LEASE if record.lease_until else None

    def send(self, explicit: bool, chooser: Chooser, last_heard: datetime | None, fresh: bool) -> Outcome:
        """Its papers, what is left of them, a lease still ours, the header if it never went out,
        then each paper."""
        recs = self._papers(explicit, chooser, fresh)
        if isinstance(recs, Outcome):
            return recs
        if not recs:
            if self.finish.skipped:
                return self.finish.done()
            outcome = self.finish("empty")
            if outcome.status == "empty":  # this process ended it: the one note of the day, if any
                self._tell_nothing_matched(chooser)
            return outcome
        left = self._left(recs, last_heard)
        if isinstance(left, Outcome):
            return left
        channel, todo, shown = left
        if not self._lease_kept():
            return Outcome(self.record.user_id, self.day, "busy")
        if wants_compact(self.courier, self.record.user_id, chooser.person(self.record.user_id), len(todo)):
            return self._post_compact(channel, recs, todo, chooser)
        if self.record.header_ts is None and not shown:
            self._post_header(channel, recs, chooser)
        return self._post_papers(channel, todo)

    def _tell_nothing_matched(self, chooser: Chooser) -> None:
        """Tell a person (not a channel) whose digest had nothing worth sending, unless they asked for
        quiet: silence reads as a broken bot. Told at most once (after the day's digest ended "empty",
        by the process that ended it); a note that can't be posted is let go."""
        user_id = self.record.user_id
        person = chooser.person(user_id)
        if is_channel(user_id) or (person is not None and person.digest_quiet):
            return
        note = self.courier.phrase(NothingMatched(weekly=chooser.weekly(user_id)))
        try:
            self.courier.post_text(self.courier.open(user_id), note)
        except Exception as exc:  # a note, not a digest: nothing to retry
            log.info("could not tell %s that nothing matched: %s", user_id, exc)

    def _post_compact(self, channel: str, recs: list[Recommendation], todo: list[Recommendation],
                      chooser: Chooser) -> Outcome:
        """The header and every paper left in one message, then all of it recorded in one step: each
        paper as shown with that message's ts, the header too, the digest "sent". A failure counts
        against each of its papers (tried again later, as one message again)."""
        user_id = self.record.user_id
        header = self.courier.phrase(DigestHeader(len(recs), self.day, tuple(sections(recs)),
                                                  weekly=chooser.weekly(user_id), compact=True,
                                                  followups=self._followups(chooser)))
        assert self.courier.post_compact is not None  # checked by _compact
        try:
            posted = self.courier.post_compact(channel, header, todo)
        except (Unreachable, Outage):
            raise
        except Exception:  # counted against each of its papers; the digest is tried again later
            log.exception("could not post the compact digest of %s", user_id)
            for rec in todo:
                self.finish.failed += 1
                if not self._record_failure(rec):
                    return Outcome(user_id, self.day, "busy", self.finish.delivered, self.finish.failed)
            return self.finish.after_posting()
        if not self._record_compact(todo, posted):
            log.warning("lost the %s digest of %s to another process; stopping", self.record.local_date,
                        user_id)
            return Outcome(user_id, self.day, "busy", self.finish.delivered, self.finish.failed)
        return Outcome(user_id, self.day, "sent", self.finish.delivered, self.finish.failed)

    def _record_compact(self, todo: list[Recommendation], posted: tuple[str, str]) -> bool:
        """Record a compact digest Slack has, in one transaction (a crash leaves all of it or none of it
        recorded; none: whoever resumes finds the message by its metadata): the header, and each paper
        as shown, the last ending the digest "sent". Whether the digest is still ours; a digest lost
        meanwhile (not forgotten) still has its papers remembered as shown: they did go out."""
        store, user_id, key = self.ctx.store, self.record.user_id, self.record.local_date
        lease = iso_utc(self.clock() + LEASE)
        with store.transaction():
            store.lock_person(user_id)  # first, as everywhere (forget takes it first too)
            mine = store.record_digest_header(user_id, key, self.owner, posted[1], lease)
            for rec in todo:
                ended = iso_utc(self.clock()) if rec is todo[-1] else None
                mine = mine and store.record_posted(user_id, key, self.owner, rec.paper.id, rec.reason,
                                                    *posted, lease_until=lease, finished_at=ended)
            if not mine and store.get_digest(user_id, key) is not None:
                for rec in todo:
                    remember_shown(self.ctx, user_id, rec, *posted)
        self.record.header_ts = posted[1]
        self.finish.delivered += len(todo)
        return mine

    def _papers(self, explicit: bool, chooser: Chooser, fresh: bool) -> list[Recommendation] | Outcome:
        """The digest's papers: those chosen for this claim; else chosen now, for a digest taken over
        from a sender that died before recording its choice (or claimed ahead: ``fresh``); else those
        it recorded, resumed. An Outcome when it ends here."""
        ctx, record, store = self.ctx, self.record, self.ctx.store
        user_id, key = record.user_id, record.local_date
        if self.chosen is not None:
            return self.chosen
        if record.papers is not None:
            recs = with_saved_counts(ctx, resumed(ctx, record))  # chosen ones were counted with the choice
            # Chosen before a crash or an outage: a word muted since then still holds.
            self.finish.skipped = set(record.papers) - {r.paper.id for r in recs}
            return recs
        recs = _choose(ctx, user_id, self.day, explicit, chooser, claimed=record)
        # Choosing took a while: the lease is renewed with the choice, in one statement.
        self.leased_at = self.clock()
        if not recs and explicit:
            with store.transaction():
                store.drop_digest(user_id, key, self.owner)
            return Outcome(user_id, self.day, "empty")
        if recs and not store.set_digest_papers(user_id, key, self.owner, [r.paper.id for r in recs],
                                                {r.paper.id: r.reason for r in recs},
                                                lease_until=iso_utc(self.leased_at + LEASE)):
            return Outcome(user_id, self.day, "busy")
        record.papers = [r.paper.id for r in recs]
        if fresh:  # no earlier attempt: nothing to look for in the DM
            self.chosen = recs
        return recs

    def _left(self, recs: list[Recommendation],
              last_heard: datetime | None) -> tuple[str, list[Recommendation], set[str]] | Outcome:
        """The DM's channel, the papers left to post (not shown, not failed too often) and those shown
        already; for a digest an earlier attempt may have posted, after recording what the DM shows it
        posted unrecorded. An Outcome when nothing is left."""
        record = self.record
        shown = set() if self.chosen is not None else self.ctx.store.shown_among(record.user_id,
                                                                                 record.papers or [])
        todo = [r for r in recs
                if r.paper.id not in shown and record.failures.get(r.paper.id, 0) < MAX_ATTEMPTS]
        if not todo:
            return self.finish.done()
        channel = self.courier.open(record.user_id)
        if self.chosen is None:  # an earlier attempt may have posted more than it recorded
            _let_land(self.courier, self.clock, last_heard)
            shown |= _recover(self.ctx, record, self.courier, channel, todo)
            todo = [r for r in todo if r.paper.id not in shown]
            if not todo:
                return self.finish.done()
        return channel, todo, shown

    def _lease_kept(self) -> bool:
        """Whether the digest is still ours, its lease renewed first when a quarter of it has gone."""
        if self.leased_at is not None and self.clock() - self.leased_at <= LEASE / 4:
            return True
        # Still ours, with a fresh lease, before the first message (one statement: atomic alone).
        return self.ctx.store.renew_digest_lease(self.record.user_id, self.record.local_date, self.owner,
                                                 iso_utc(self.clock() + LEASE))

    def _post_header(self, channel: str, recs: list[Recommendation], chooser: Chooser) -> None:
        """The digest's first message; when it fails (Slack down aside), the papers go out without it."""
        user_id = self.record.user_id
        followups = self._followups(chooser)
        try:
            said = DigestHeader(len(recs), self.day, tuple(sections(recs)), weekly=chooser.weekly(user_id),
                                channel=is_channel(user_id), followups=followups)
            ts = self.courier.post_text(channel, self.courier.phrase(said))
        except (Unreachable, Outage):  # an outage: the header goes out first when Slack is back
            raise
        except Exception:  # the papers matter more than their header: go on without it
            log.exception("could not post the digest header for %s", user_id)
            if followups:  # they went nowhere: told another time
                give_back_followups(self.ctx, user_id, self.record.local_date)
        else:
            # Renewed after every message, the header too: a taker-over counts from this.
            self.ctx.store.record_digest_header(user_id, self.record.local_date, self.owner, ts,
                                                iso_utc(self.clock() + LEASE))

    def _followups(self, chooser: Chooser) -> tuple[Followup, ...]:
        """What became of the papers the person saved or liked, claimed for this digest before its header
        goes out (a retry of the header claims the same ones): said in the header. None when claiming
        fails: a follow-up must not stop a digest. A digest on its first attempt asks only for someone
        the run knows has news (one statement a run); a resumed one may hold an earlier attempt's claim."""
        user_id, now = self.record.user_id, self.clock()
        if self.chosen is not None and not chooser.has_followups(user_id, now):
            return ()
        try:
            return claim_followups(self.ctx, user_id, self.record.local_date, now, chooser.person(user_id))
        except DATABASE_AWAY:
            raise
        except Exception:
            log.exception("could not claim the follow-ups of %s", self.record.user_id)
            return ()

    def _post_papers(self, channel: str, todo: list[Recommendation]) -> Outcome:
        """Post each paper left, each recorded as shown once Slack has it; "sent" with the last one,
        "busy" as soon as the digest turns out to be someone else's."""
        finish = self.finish
        for rec in todo:
            posted = self._post_paper(channel, rec)
            if posted is None:
                still_mine = self._record_failure(rec)
            else:
                # Everything left went out with this one: the digest ends "sent" in the same step.
                last = rec is todo[-1] and not finish.failed
                still_mine = self._record_posted(rec, posted, last)
                if still_mine and last:
                    return Outcome(self.record.user_id, self.day, "sent", finish.delivered, finish.failed)
            if not still_mine:
                log.warning("lost the %s digest of %s to another process; stopping", self.record.local_date,
                            self.record.user_id)
                return Outcome(self.record.user_id, self.day, "busy", finish.delivered, finish.failed)
        return finish.after_posting()

    def _post_paper(self, channel: str, rec: Recommendation) -> tuple[str, str] | None:
        """One paper through the courier: where it landed, or None when that failed (counted)."""
        try:
            return self.courier.post_paper(channel, rec)
        except (Unreachable, Outage):
            raise
        except Exception:  # one paper must not stop the others; it is tried again in a later run
            log.exception("could not post paper %s to %s", rec.paper.id, self.record.user_id)
            self.finish.failed += 1
            return None

    def _record_failure(self, rec: Recommendation) -> bool:
        """Count a paper's failed post, renewing the lease; whether the digest is still ours."""
        store, user_id, key = self.ctx.store, self.record.user_id, self.record.local_date
        lease = iso_utc(self.clock() + LEASE)
        with store.transaction():
            still_mine = store.renew_digest_lease(user_id, key, self.owner, lease)
            store.record_digest_failure(user_id, key, self.owner, rec.paper.id)
        return still_mine

    def _record_posted(self, rec: Recommendation, posted: tuple[str, str], last: bool) -> bool:
        """Record a paper Slack has as shown, renewing the lease (and, with ``last``, ending the digest
        "sent" in the same step); whether the digest is still ours. A paper posted by a sender that lost
        the digest still counts as shown, unless the person was forgotten meanwhile."""
        store, user_id, key = self.ctx.store, self.record.user_id, self.record.local_date
        lease = iso_utc(self.clock() + LEASE)
        ended = iso_utc(self.clock()) if last else None
        # Shown only while the digest's row is there (forgetting deletes both), in one step.
        still_mine = store.record_posted(user_id, key, self.owner, rec.paper.id, rec.reason, *posted,
                                         lease_until=lease, finished_at=ended)
        if still_mine:
            self.finish.delivered += 1
        elif store.get_digest(user_id, key) is not None:  # lost, not forgotten: it did go out
            remember_shown(self.ctx, user_id, rec, *posted)
            self.finish.delivered += 1
        return still_mine


def _choose(ctx: Context, user_id: str, day: date, explicit: bool, chooser: Chooser,
            claimed: DigestRecord | None = None) -> list[Recommendation]:
    """The papers for a new digest. Nothing to rank by or from: an explicit request hears why
    (raised), a scheduled digest is tried again later (NoPapers raised) except that someone who
    follows nothing gets an empty digest for the day ([]). A ``claimed`` record is withdrawn before
    raising."""
    try:
        return chooser.choose(user_id, day)
    except (NoInterests, NoPapers) as exc:
        if explicit or isinstance(exc, NoPapers):
            if claimed is not None:
                with ctx.store.transaction():
                    ctx.store.drop_digest(user_id, claimed.local_date, claimed.owner)
            raise
        return []


def _let_land(courier: Courier, clock: Clock, last_heard: datetime | None) -> None:
    """Before a digest taken over from a dead owner looks at what the DM holds: wait until the post
    that owner may have had in flight when it died (sent just after its last renewal, ``last_heard``)
    can have landed, ``courier.settle`` after it. An owner on this host is found dead at once, while
    Slack may still be carrying its last post out; looking sooner would miss it and post it again."""
    if last_heard is None or courier.settle <= timedelta(0):
        return
    wait = min(last_heard + courier.settle - clock(), courier.settle).total_seconds()
    if wait > 0:
        log.info("waiting %.1f s for a post in flight when the previous sender died to land", wait)
        sleep(wait)


def _recover(ctx: Context, record: DigestRecord, courier: Courier, channel: str,
             todo: list[Recommendation]) -> set[str]:
    """Record what the DM shows an interrupted attempt at this digest posted but never recorded (the
    message in flight when a process died): those papers, and the header, are not posted again.
    Returns the paper ids found. Without a way to look (or when looking fails) finds nothing."""
    if courier.find_posted is None or not record.started_at:
        return set()
    try:
        found = courier.find_posted(channel, datetime.fromisoformat(record.started_at))
    except (Unreachable, Outage):  # Slack down: posting now could repeat what can't be seen; wait
        raise
    except Exception:  # looking is a courtesy: without it at most one message repeats
        log.warning("could not look for what an interrupted digest of %s already posted", record.user_id,
                    exc_info=True)
        return set()
    # A message names the paper as it was when posted: an id merged into another paper since is that one.
    posted = {paper.id: found.papers[asked] for asked, paper in ctx.store.get_papers(found.papers).items()}
    posted.update(found.papers)
    papers = [r for r in todo if r.paper.id in posted]
    header = found.header_ts if record.header_ts is None else None
    if papers or header:
        with ctx.store.transaction():
            ctx.store.lock_person(record.user_id)  # first, as in _send_claimed (forget takes it first too)
            if header:
                ctx.store.record_digest_header(record.user_id, record.local_date, record.owner or "", header)
            for rec in papers:
                remember_shown(ctx, record.user_id, rec, *posted[rec.paper.id])
        log.info("the interrupted %s digest of %s had posted %d more paper(s)%s than it recorded",
                 record.local_date, record.user_id, len(papers), " and its header" if header else "")
    record.header_ts = record.header_ts or header
    return {r.paper.id for r in papers}


def resumed(ctx: Context, record: DigestRecord) -> list[Recommendation]:
    """The recommendations a claimed digest already chose, in order: papers deleted since, and those
    holding a word the person muted since, left out (one query for the mutes, on papers loaded anyway)."""
    papers = ctx.store.get_papers(record.papers or [])
    muted = muter(ctx, record.user_id)
    return label(ctx, record.user_id, [Recommendation(papers[pid], 0.0, record.reasons.get(pid, ""))
                                       for pid in record.papers or [] if pid in papers
                                       and not muted.holds(papers[pid].text)])


def end_past_digests(ctx: Context, now: datetime, owner: str, clock: Clock = utc_now,
                     alive: Alive = owner_alive, users: set[str] | None = None) -> list[Outcome]:
    """End every digest still unfinished whose local day is over (no run came in time for its last
    retry, or its sender died late that day): "sent" if any of its papers went out, else "failed".
    Posts nothing; one left "sending" forever would look like a digest still on its way."""
    outcomes = []
    store = ctx.store
    # A few days back is plenty: every run ends the ones whose day just ended.
    for record in store.unfinished_digests((now.astimezone(UTC).date() - timedelta(days=3)).isoformat()):
        if users is not None and record.user_id not in users:
            continue
        person = store.get_person(record.user_id)
        day = date.fromisoformat(record.local_date)
        if now.astimezone(zone(person.tz if person else None)).date() <= day:
            continue  # still that day where they are: the schedule retries it
        running = record.lease_until and datetime.fromisoformat(record.lease_until) > now
        gone = {record.owner} if record.owner is not None and alive(record.owner) is False else set()
        if running and record.owner is not None and not gone:
            continue  # its sender is still at it
        # Given back to wait out an outage (no owner): its day is over, so it is taken at once.
        if not store.take_lease(DIGEST, (record.user_id, record.local_date), owner, iso_utc(now + LEASE),
                                iso_utc(now), dead=gone, early=True):
            continue  # someone else is on it, or it ended meanwhile
        current = store.get_digest(record.user_id, record.local_date)
        if current is None or current.owner != owner:
            continue
        why = Note.read(current.error)
        finish = _Finisher(ctx, current, day, owner, clock)
        outcome = finish.end(Note("day_ended", cause=why), unsent=Note("day_ended", cause=why))
        log.warning("the %s digest of %s ended with its day: %s", current.local_date, current.user_id,
                    outcome.status)
        outcomes.append(outcome)
    return outcomes


def waiting(record: DigestRecord) -> Note:
    """What a digest given back after an outage is waiting for (its note says when it comes next)."""
    return Note.read(record.error) or Note("waiting_for_slack")


class _Finisher:
    """Ending a claimed digest: done for the day, or given back to be retried."""

    def __init__(self, ctx: Context, record: DigestRecord, day: date, owner: str, clock: Clock):
        self.ctx, self.record, self.day, self.owner, self.clock = ctx, record, day, owner, clock
        self.delivered = self.failed = 0  # papers posted and papers that failed in this run
        self.skipped: set[str] = set()  # its papers not to send after all (deleted, or muted since)

    def __call__(self, status: Literal["sent", "empty", "failed"], note: Note | None = None) -> Outcome:
        user_id, key = self.record.user_id, self.record.local_date
        with self.ctx.store.transaction():
            mine = self.ctx.store.finish_digest(user_id, key, self.owner, status, iso_utc(self.clock()),
                                                note.stored() if note else None)
        return Outcome(user_id, self.day, status if mine else "busy", self.delivered, self.failed, note)

    def after_posting(self) -> Outcome:
        store, user_id = self.ctx.store, self.record.user_id
        current = store.get_digest(user_id, self.record.local_date)
        papers = (current.papers if current else None) or []
        shown = store.shown_among(user_id, papers)
        left = [pid for pid in papers if pid not in shown and pid not in self.skipped
                and current.failures.get(pid, 0) < MAX_ATTEMPTS]
        if not left:
            return self.done()
        return self.retry(Note("undelivered_yet", len(left)))

    def done(self) -> Outcome:
        """Nothing left to try (every paper posted, or refused too often): see :meth:`end`."""
        return self.end(Note("none_posted", len(self.record.papers or [])))

    def end(self, failed: Note, unsent: Note | None = None) -> Outcome:
        """End the digest for good: "sent" if at least one of its papers reached the person (with
        ``unsent``, its note says how many did not, and ``unsent`` why), else "failed" with ``failed``:
        a digest that delivered nothing is never recorded as sent. Every paper left out since it was
        chosen (deleted, muted): "empty"."""
        papers = self.record.papers or []
        shown = self.ctx.store.shown_among(self.record.user_id, papers)
        if shown:
            left = len(papers) - len(shown)
            return self("sent", None if unsent is None else Note("undelivered", left, cause=unsent))
        if papers and set(papers) <= self.skipped:  # nothing left worth sending: not a failure
            return self("empty")
        return self("failed", failed)

    def postpone(self, error: str) -> Outcome:
        """Slack is unavailable: give the digest back, to be tried again after a growing pause, or end
        it once that pause would run past the person's local day ("failed" if nothing went out)."""
        store, record = self.ctx.store, self.record
        now = self.clock()
        person = store.get_person(record.user_id)
        # The last try comes just before the day ends, however long the pause would have been.
        last_try = day_end(person.tz if person else None, self.day) - LAST_TRY_BEFORE_MIDNIGHT
        retry_at = min(now + outage_backoff(record.outages + 1), last_try)
        if retry_at <= now:
            log.warning("Slack stayed unavailable until the end of %s for the digest of %s: %s",
                        record.local_date, record.user_id, error)
            why = Note("slack_until_day_end", detail=error)
            return self.end(why, why)
        note = Note("slack_unavailable", detail=error, retry_at=iso_utc(retry_at))
        with store.transaction():
            mine = store.postpone_digest(record.user_id, record.local_date, self.owner, iso_utc(retry_at),
                                         note.stored())
        log.warning("the %s digest of %s waits for Slack (%s); next try at %s UTC", record.local_date,
                    record.user_id, error, f"{retry_at.astimezone(UTC):%H:%M}")
        return Outcome(record.user_id, self.day, "incomplete" if mine else "busy", self.delivered,
                       self.failed, note, outage=True)

    def give_back(self, error: str) -> Outcome:
        """The database failed mid-digest: give the digest back to be taken again at once (by this
        process's next run, or any other's), not when its lease runs out. Raises the database's error
        when it can't be given back either; :func:`remember_unreturned` is then the caller's to call."""
        hand_back(self.ctx, self.record.user_id, self.record.local_date, self.owner, self.clock())
        return Outcome(self.record.user_id, self.day, "incomplete", self.delivered, self.failed,
                       Note("database_away", detail=error), database_away=True)

    def retry(self, note: Note | None = None) -> Outcome:
        """Give the digest back to be tried again after RETRY_AFTER, unless it failed too often."""
        store, user_id = self.ctx.store, self.record.user_id
        with store.transaction():
            attempts = store.release_digest(user_id, self.record.local_date, self.owner,
                                            iso_utc(self.clock() + RETRY_AFTER))
        if attempts >= MAX_ATTEMPTS:
            return self("failed", Note("gave_up", attempts, cause=note))
        return Outcome(user_id, self.day, "incomplete", self.delivered, self.failed, note)
