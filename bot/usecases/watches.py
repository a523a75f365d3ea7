"""Scoop watch (issue 43, docs/watch.md): a private project description (a working title and a description
or draft abstract), and a message at once when a new paper comes too close to it.

A watch is its owner's alone (a person, or a channel for a channel's): its text is never shown to anyone
else nor sent anywhere, and forgetting deletes it first. Every paper an ingest stores is compared with
every watch as it arrives (:func:`compare_new_papers`, called where an ingest ends), in the index's TF-IDF
space (:mod:`recommender.watch`). A watch's bar is set from how close the last :data:`WINDOW` of papers
came to it: the score its :data:`ALERTS_IN_WINDOW`-th closest reached (about one a week), halved in count at
each "be stricter" and never below the closest paper its owner called not close, nor below
:data:`LEAST`. At most one alert a watch a day, unless a paper is closer than any before.

Each alert is decided once by the database (a (watch, paper) row, written with the watch's day in one
transaction) and posted under a lease on that row (:func:`send_watch_alerts`): a process that dies
mid-send leaves it to the next, which first looks whether its message landed. Returned as data; the
Slack views word it.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.errors import BadArgument, NotFound, _Fielded
from bot.state.context import Context
from bot.text.sentences import sentence_spans
from recommender.watch import bars, closeness, overlaps, watch_rows
from storage import Paper
from storage.models import Watch, WatchAlert
from storage.moments import iso_utc

log = logging.getLogger(__name__)

#: A watch's description (or draft abstract) is at most this long; its title at most TITLE_MOST.
TEXT_MOST = 3000
TITLE_MOST = 150
#: Watches a person (or channel) may have.
MOST_WATCHES = 10
#: The papers a watch's bar is set from: those of this window (published, else added).
WINDOW = timedelta(days=90)
#: So many of the window's papers would have passed the bar: about one a week.
ALERTS_IN_WINDOW = 13
#: No bar is lower than this cosine (a young corpus, a window with few papers).
LEAST = 0.12
#: One alert a watch in this long, unless a paper is closer than any before.
QUIET = timedelta(days=1)
#: How long a process holds an alert it is posting; a process dead for longer leaves it to the next.
LEASE = timedelta(minutes=5)
#: Posts begun of one alert before it is given up.
MOST_ATTEMPTS = 5
#: Passages shown side by side, at most.
PASSAGES = 3
#: Scores are stored in millionths of a cosine.
SCALE = 1_000_000


@dataclass(eq=False, repr=True)
class EmptyWatch(_Fielded, BadArgument):
    """A watch with no description."""

    what: str = "watch"


@dataclass(eq=False, repr=True)
class WatchTooLong(_Fielded, BadArgument):
    """A description longer than ``most`` characters (``length``), or a title (``what`` "title")."""

    most: int
    length: int
    what: str = "watch"


@dataclass(eq=False, repr=True)
class TooManyWatches(_Fielded, BadArgument):
    """Already ``most`` watches."""

    most: int


@dataclass(eq=False, repr=True)
class NoSuchWatch(_Fielded, NotFound):
    """``watch remove N`` of a number with no watch: ``count`` watches there are."""

    number: int
    count: int


@dataclass(eq=False, repr=True)
class NoSuchAlert(_Fielded, NotFound):
    """A button of an alert (or a watch) since removed or forgotten."""

    watch_id: str
    paper_id: str


@dataclass(frozen=True)
class Passage:
    """Where a paper and a project overlap: a sentence of the abstract and one of the watch's text."""

    paper: str
    watch: str
    score: float


@dataclass(frozen=True)
class WatchNews:
    """An alert to post: the watch (for its title), the paper, how close (a cosine), the passages."""

    alert: WatchAlert
    watch: Watch
    paper: Paper
    score: float
    passages: tuple[Passage, ...]


# -- a person's watches -------------------------------------------------------------------------------

def check_watch(title: str | None, text: str) -> tuple[str | None, str]:
    """A watch's title and text, tidied; raises EmptyWatch or WatchTooLong (nothing written)."""
    body = (text or "").strip()
    heading = " ".join((title or "").split()) or None
    if not body:
        raise EmptyWatch()
    if len(body) > TEXT_MOST:
        raise WatchTooLong(TEXT_MOST, len(body))
    if heading is not None and len(heading) > TITLE_MOST:
        raise WatchTooLong(TITLE_MOST, len(heading), "title")
    return heading, body


def add_watch(ctx: Context, user_id: str, title: str | None, text: str, now: datetime) -> Watch:
    """Add a watch for ``user_id`` (a person, or a channel), compared with the papers stored from now on.
    Raises EmptyWatch, WatchTooLong or TooManyWatches, writing nothing."""
    heading, body = check_watch(title, text)
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)  # the count and the add: one step per owner
        mine = store.get_watches(user_id)
        if len(mine) >= MOST_WATCHES:
            raise TooManyWatches(MOST_WATCHES)
        # Ordered after the owner's others even at the same instant; random, so an old button never
        # names a watch added since.
        watch_id = f"{len(mine) + 1:02d}{secrets.token_hex(5)}"
        store.add_watch(user_id, watch_id, heading, body, store.max_paper_seq(), iso_utc(now))
    return next(w for w in store.get_watches(user_id) if w.watch_id == watch_id)


def watches(ctx: Context, user_id: str) -> list[Watch]:
    """The owner's watches, oldest first (``watch remove N`` counts from 1 in this order)."""
    return ctx.store.get_watches(user_id)


def remove_watch(ctx: Context, user_id: str, number: int) -> Watch:
    """Remove the owner's ``number``-th watch (from 1), and its alerts; NoSuchWatch when there is none."""
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        mine = ctx.store.get_watches(user_id)
        if not 1 <= number <= len(mine):
            raise NoSuchWatch(number, len(mine))
        ctx.store.remove_watch(user_id, mine[number - 1].watch_id)
    return mine[number - 1]


def watch_text(watch: Watch) -> str:
    """What is compared: the title, then the description."""
    return f"{watch.title}. {watch.text}" if watch.title else watch.text


def alerts_in_window(stricter: int) -> int:
    """How many of the window's papers a watch's bar lets pass: halved at each "be stricter", at least 1."""
    return max(1, ALERTS_IN_WINDOW >> max(0, stricter))


# -- comparing new papers, as they arrive -------------------------------------------------------------

def compare_new_papers(ctx: Context, now: datetime) -> int:
    """Compare the papers stored since each watch last looked with every watch of every workspace, and
    record an alert for each one that came too close (:func:`storage.Store.record_watch_alert`: once per
    watch and paper, one a day unless closer than any before). Returns the alerts recorded. Called as an
    ingest ends; nothing is posted here (:func:`send_watch_alerts` is)."""
    everywhere = ctx.store.watches_everywhere()
    if not everywhere:
        return 0
    with ctx.engine.index() as index:  # rows copied out: the scoring holds no lock others wait on
        if index is None:
            return 0
        since = min(w.seen_seq for w in everywhere)
        changed = [(seq, p) for seq, p in ctx.store.papers_changed_since(since) if p.id in index.row_of]
        if not changed:
            return 0
        ids = [p.id for _, p in changed]
        new = set(ids)
        history = [pid for pid in index.known(
            sorted(ctx.store.recent_paper_ids((now - WINDOW).date().isoformat()))) if pid not in new]
        model, paper_rows, history_rows = index.model, index.rows(ids), index.rows(history)
    newest = max(seq for seq, _ in changed)
    rows = watch_rows(model, [watch_text(w) for w in everywhere])
    scores = closeness(paper_rows, rows)
    bar = bars(history_rows, rows, [alerts_in_window(w.stricter) for w in everywhere], LEAST)
    recorded = 0
    day_began = iso_utc(now - QUIET)
    for j, watch in enumerate(everywhere):
        store = ctx.store.for_workspace(watch.ws)
        floor = watch.floor / SCALE
        passed = [(float(scores[i, j]), changed[i][1].id) for i in range(len(changed))
                  if changed[i][0] > watch.seen_seq and scores[i, j] >= bar[j] and scores[i, j] > floor]
        for score, paper_id in sorted(passed, reverse=True):
            if store.record_watch_alert(watch.user_id, watch.watch_id, paper_id, round(score * SCALE),
                                        iso_utc(now), day_began):
                recorded += 1
                break
        store.set_watch_seen(watch.user_id, watch.watch_id, newest)
    return recorded


def watch_bar(ctx: Context, watch: Watch, now: datetime) -> float | None:
    """The cosine a paper must reach to bring ``watch`` an alert now (None: no papers indexed yet)."""
    with ctx.engine.index() as index:
        if index is None:
            return None
        history = index.known(sorted(ctx.store.recent_paper_ids((now - WINDOW).date().isoformat())))
        model, history_rows = index.model, index.rows(history)
    rows = watch_rows(model, [watch_text(watch)])
    bar = bars(history_rows, rows, [alerts_in_window(watch.stricter)], LEAST)
    return max(float(bar[0]), watch.floor / SCALE)


# -- posting alerts -----------------------------------------------------------------------------------

#: Posts an alert to its owner (their DM, or the channel): (channel, message ts); raises when it could not.
AlertPoster = Callable[[WatchNews], tuple[str, str]]
#: Whether an alert's message landed already (an earlier process died mid-send): its (channel, ts) or None.
AlertFinder = Callable[[WatchAlert], tuple[str, str] | None]


def news(ctx: Context, alert: WatchAlert, watch: Watch) -> WatchNews | None:
    """An alert as its message shows it: the paper and the passages where it and the watch overlap most
    (None when the paper is no longer stored)."""
    paper = ctx.store.get_paper(alert.paper_id)
    if paper is None:
        return None
    passages: tuple[Passage, ...] = ()
    mine = sentences(watch.text)
    theirs = sentences(paper.abstract)
    with ctx.engine.index() as index:
        model = index.model if index is not None else None
    if model is not None:
        found = overlaps(model, theirs, mine, PASSAGES)
        passages = tuple(Passage(theirs[i], mine[j], s) for i, j, s in found)
    return WatchNews(alert, watch, paper, alert.score / SCALE, passages)


def sentences(text: str) -> list[str]:
    """A text's sentences (whitespace collapsed), as :mod:`bot.text.sentences` cuts them."""
    flat = " ".join(text.split())
    return [flat[a:b] for a, b in sentence_spans(flat)]


def send_watch_alerts(ctx: Context, now: datetime, post: AlertPoster, find: AlertFinder, owner: str) -> int:
    """Post this workspace's due alerts, each taken by one compare-and-set (a lease of :data:`LEASE`); one
    begun before by a process that died is first looked for (``find``) and, if it landed, only recorded.
    A post that fails is due again, at most :data:`MOST_ATTEMPTS` times. Returns how many were posted."""
    sent = 0
    store = ctx.store
    for alert in store.due_watch_alerts(iso_utc(now)):
        if not store.take_watch_alert(alert, owner, iso_utc(now + LEASE), iso_utc(now)):
            continue  # another process has it
        watch = next((w for w in store.get_watches(alert.user_id) if w.watch_id == alert.watch_id), None)
        found = news(ctx, alert, watch) if watch is not None else None
        if found is None:
            store.release_watch_alert(alert, owner, failed=True)
            continue
        try:
            landed = find(alert) if alert.attempts > 0 else None
            channel, ts = landed or post(found)
        except Exception as exc:  # Slack's outage or refusal: another tick tries again
            log.warning("could not post a watch alert to %s: %s", alert.user_id, exc)
            store.release_watch_alert(alert, owner, failed=alert.attempts + 1 >= MOST_ATTEMPTS)
            continue
        if store.finish_watch_alert(alert, owner, channel, ts, iso_utc(now)) and landed is None:
            sent += 1
    return sent


# -- the alert's buttons -------------------------------------------------------------------------------

def keep_posted(ctx: Context, user_id: str, watch_id: str, paper_id: str) -> WatchAlert:
    """"Close: keep me posted": the owner agrees the paper is close; the watch stays as it is."""
    if not ctx.store.set_watch_verdict(user_id, watch_id, paper_id, "close"):
        raise NoSuchAlert(watch_id, paper_id)
    return _alert(ctx, user_id, watch_id, paper_id)


def be_stricter(ctx: Context, user_id: str, watch_id: str, paper_id: str) -> Watch:
    """"Not close: be stricter": the watch lets half as many papers pass, and never again one no closer
    than this. Returns the watch as it now is."""
    alert = ctx.store.get_watch_alert(user_id, watch_id, paper_id)
    if alert is None:
        raise NoSuchAlert(watch_id, paper_id)
    with ctx.store.transaction():
        ctx.store.set_watch_verdict(user_id, watch_id, paper_id, "not_close")
        if alert.verdict != "not_close":  # a second click is one step, not two
            ctx.store.make_watch_stricter(user_id, watch_id, alert.score)
    return next(w for w in ctx.store.get_watches(user_id) if w.watch_id == watch_id)


def _alert(ctx: Context, user_id: str, watch_id: str, paper_id: str) -> WatchAlert:
    found = ctx.store.get_watch_alert(user_id, watch_id, paper_id)
    if found is None:
        raise NoSuchAlert(watch_id, paper_id)
    return found

