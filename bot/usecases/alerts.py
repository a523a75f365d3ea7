"""Alerts: a phrase whose new papers join the person's next digest whatever their rank.

A paper matches an alert when its title or its abstract holds the phrase's words, in order, as whole
words, whatever their case ("graph" finds "Graph" but not "paragraph" or "graphs"; "graph transformers"
finds "graph-transformers" too, punctuation between words being no word). The words are cut as the
papers' full-text index cuts them (:func:`storage.fulltext.words`), and the index finds the candidates:
one statement a digest for all of a person's alerts (:meth:`storage.Store.new_papers_saying`), none
for someone without alerts. The index also holds the authors, so each candidate is checked here
against its title and abstract, each on its own (a phrase never spans the two).

"New" means added since the person's previous digest (of an earlier day) began, or for a first digest
within the digest's own window (a day, a week for a weekly one), never more than :data:`OLDEST_DAYS`
back. What picking leaves out for the person (shown, saved, liked, disliked, muted) stays out. At most
:data:`ALERTS_A_DAY` alert papers reach a person a local day, counted from what they were shown that day
with an alert's reason, so a second digest the same day can't exceed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bot.errors import Missing, NoWords, TooLong, TooMany
from bot.presentation import reasons
from bot.state.context import Context
from bot.usecases.digest_due import due_at
from storage.fulltext import words
from storage.moments import iso_utc

MAX_ALERTS = 20
MAX_ALERT_LENGTH = 100
#: Alert papers a person gets a local day, at most.
ALERTS_A_DAY = 3
#: How far back a paper may have been added and still be new to an alert, whatever the gap since the
#: previous digest (someone back from a month away gets this week's, not the month's).
OLDEST_DAYS = 8
#: What every alert paper's reason starts with: what counts the day's alert papers.
REASON_START = reasons.ALERT_START


@dataclass(frozen=True)
class AlertPick:
    """A new paper matching one of the person's alerts, and that alert's phrase as typed."""

    paper_id: str
    phrase: str


@dataclass(frozen=True)
class AlertAdded:
    """What ``alert PHRASE`` did: the phrase as stored, and whether it was new (False: the person had
    it already, in this or another spelling, ``phrase`` then being the one they had)."""

    phrase: str
    added: bool


def reason(phrase: str) -> str:
    """Why an alert's paper was picked (escaped where it is shown, like every reason)."""
    return reasons.alert(phrase)


def key(phrase: str) -> str:
    """An alert's identity: its words as the index cuts them, lowercased, single-spaced."""
    return " ".join(words(phrase))


def check_phrase(text: str) -> str:
    """A phrase to watch for, tidied (inner whitespace single spaces). Raises BadArgument, saying what
    was wrong, for none, one too long or one without a letter or digit."""
    phrase = " ".join(text.split())
    if not phrase:
        raise Missing("alert")
    if len(phrase) > MAX_ALERT_LENGTH:
        raise TooLong("alert", MAX_ALERT_LENGTH)
    if not key(phrase):
        raise NoWords("alert", phrase[:40])
    return phrase


def add_alert(ctx: Context, user_id: str, text: str) -> AlertAdded:
    """Add an alert (the same phrase in any case or spacing adds nothing). Raises BadArgument (writing
    nothing) for a phrase :func:`check_phrase` refuses, or past :data:`MAX_ALERTS`."""
    phrase = check_phrase(text)
    wanted = key(phrase)
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)  # the count and the add: one step per person
        alerts = store.get_alerts(user_id)
        had = next((typed for k, typed in alerts if k == wanted), None)
        if had is not None:
            return AlertAdded(had, False)
        if len(alerts) >= MAX_ALERTS:
            raise TooMany("alerts", MAX_ALERTS)
        store.ensure_person(user_id)
        return AlertAdded(phrase, store.add_alert(user_id, wanted, phrase))


def remove_alert(ctx: Context, user_id: str, text: str) -> str | None:
    """Remove the alert for a phrase (any case or spacing); its phrase as it was typed, or None when
    the person had no such alert."""
    wanted = key(text)
    if not wanted:
        return None
    with ctx.store.transaction():
        ctx.store.lock_person(user_id)
        return ctx.store.remove_alert(user_id, wanted)


def check_alerts(text: str) -> list[str]:
    """Alerts one a line (Home's form): each tidied and checked (:func:`check_phrase`), each once
    (by :func:`key`), at most :data:`MAX_ALERTS`. Raises BadArgument saying what was wrong."""
    phrases: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip():
            phrase = check_phrase(line)
            phrases.setdefault(key(phrase), phrase)
    if len(phrases) > MAX_ALERTS:
        raise TooMany("alerts", MAX_ALERTS, len(phrases))
    return list(phrases.values())


def save_alerts(ctx: Context, user_id: str, phrases: list[str]) -> None:
    """Have exactly these alerts (checked with :func:`check_alerts`): the others removed, the new ones
    added (one already had keeps its spelling)."""
    wanted = {key(p) for p in phrases}
    store = ctx.store
    with store.transaction():
        store.lock_person(user_id)
        for k, _ in store.get_alerts(user_id):
            if k not in wanted:
                store.remove_alert(user_id, k)
        for phrase in phrases:
            add_alert(ctx, user_id, phrase)


def alerts(ctx: Context, user_id: str) -> list[str]:
    """The person's alerts, as typed, oldest first."""
    return [phrase for _, phrase in ctx.store.get_alerts(user_id)]


def holds(text: str, phrase: tuple[str, ...]) -> bool:
    """Whether ``text``'s words (as the index cuts them) hold ``phrase``'s, in order and together."""
    found = words(text)
    n = len(phrase)
    return n > 0 and any(found[i:i + n] == phrase for i in range(len(found) - n + 1))


def alert_picks(ctx: Context, user_id: str, today: date, exclude: set[str], n: int,
                weekly: bool = False) -> list[AlertPick]:
    """Up to ``n`` (and the day's :data:`ALERTS_A_DAY` less those shown already today) new papers
    matching the person's alerts, none of ``exclude``, newest first, each with the first alert (in the
    order they were added) it matches. ``today`` is the person's local day; no query at all for someone
    without alerts (their alerts come from the person's snapshot when ``ctx`` reads one)."""
    mine = ctx.store.get_alerts(user_id)
    if not mine or n <= 0:
        return []
    person = ctx.store.get_person(user_id)
    tz = person.tz if person else None
    start = due_at(tz, "00:00", today)
    window = 7 if weekly else 1
    rows = ctx.store.new_papers_saying(user_id, [k for k, _ in mine], today.isoformat(),
                                       iso_utc(start - timedelta(days=window)),
                                       iso_utc(start - timedelta(days=OLDEST_DAYS)))
    phrases = [(tuple(k.split()), typed) for k, typed in mine]
    found = []
    for pid, title, abstract, added in rows:
        if pid in exclude:
            continue
        typed = next((t for p, t in phrases if holds(title, p) or holds(abstract, p)), None)
        if typed is not None:
            found.append((added, pid, AlertPick(pid, typed)))
    if not found:
        return []
    left = ALERTS_A_DAY - ctx.store.count_shown_with_reason(user_id, iso_utc(start), REASON_START)
    newest = sorted(found, key=lambda f: (f[0], f[1]), reverse=True)
    return [pick for *_, pick in newest[:max(0, min(n, left))]]
