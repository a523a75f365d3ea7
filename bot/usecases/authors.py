"""Followed authors: their new papers are picked even when they match none of the person's topics.

Names are matched as people write them: case and accents ignored, "Bajcsy, Andrea" is "Andrea Bajcsy",
and an initial stands for any given name it starts ("A. Bajcsy" is Andrea Bajcsy, and so is "Bajcsy").

"New" means recent, not just added: a paper published in the :data:`NEW_DAYS` days before the person's
local day, or, for a paper without a date (a conference's list: "NeurIPS 2018"), one whose venue names
the current year and that was added in those days. A paper with neither is never new by authorship, so
following a prolific author does not bring back their old papers when a source adds them today. At most
:data:`DEFAULT_AUTHOR_PICKS` of them come a digest unless the person asks for more (``author_picks``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from bot.errors import Missing, NoWords, TooLong, TooMany
from bot.presentation import reasons
from bot.state.context import Context
from bot.text.tex import tex_to_text
from recommender.authors import fold  # the same folding as search by author
from storage import Paper

MAX_AUTHORS = 50
MAX_NAME_LENGTH = 100
#: How many days before the person's local day a followed author's paper may be published and be new.
NEW_DAYS = 30
#: Followed authors' new papers a digest holds, unless the person says otherwise…
DEFAULT_AUTHOR_PICKS = 2
#: …from 0 (none) to this many.
MAX_AUTHOR_PICKS = 10
# A year in a venue's name: "ICML 2019", "NeurIPS'24" is not one (two digits say too little).
_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")


def name_key(name: str) -> str:
    """A name as matched: accents dropped, case folded, punctuation gone, "Last, First" turned round."""
    if name.count(",") == 1:
        last, first = name.split(",")
        name = f"{first} {last}"
    return " ".join(w for w in fold(name) if w.strip("_"))


def same_person(followed: str, author: str) -> bool:
    """Whether an author's name (as a paper writes it) is someone followed as ``followed`` (a key):
    the same surname, and the first given names agree or one is the other's initial (a missing given
    name agrees with any)."""
    return _same(followed.split(), name_key(author).split())


def _same(mine: Sequence[str], theirs: Sequence[str]) -> bool:
    """:func:`same_person` of two keys cut into words."""
    if not mine or not theirs or mine[-1] != theirs[-1]:
        return False
    if len(mine) == 1 or len(theirs) == 1:
        return True
    a, b = mine[0], theirs[0]
    return a == b or (min(len(a), len(b)) == 1 and a[0] == b[0])


@dataclass
class AuthorPick:
    """A followed author's new paper, and that author's name as the paper writes it."""

    paper_id: str
    author: str


def reason(author: str) -> str:
    """Why a followed author's paper was picked."""
    return reasons.followed_author(author)


def check_name(name: str) -> str:
    """A name to follow, tidied. Raises BadArgument for one that can't be matched."""
    name = " ".join(name.split())
    if not name:
        raise Missing("author")
    if len(name) > MAX_NAME_LENGTH:
        raise TooLong("author", MAX_NAME_LENGTH)
    if not name_key(name):
        raise NoWords("author", name[:40])
    return name


def add_author(ctx: Context, user_id: str, name: str) -> bool:
    """Follow an author (inside the caller's transaction, the person locked); False if followed already.
    Raises BadArgument past :data:`MAX_AUTHORS`."""
    store = ctx.store
    key = name_key(name)
    followed = store.get_followed_authors(user_id)
    if any(k == key for k, _ in followed):
        return False
    if len(followed) >= MAX_AUTHORS:
        raise TooMany("authors", MAX_AUTHORS)
    return store.follow_author(user_id, key, name)


def remove_author(ctx: Context, user_id: str, name: str) -> list[str]:
    """Stop following an author, matched as :func:`same_person` does (inside the caller's transaction);
    returns the names removed as they were followed."""
    key = name_key(name)
    if not key:
        return []
    store = ctx.store
    gone = [removed] if (removed := store.unfollow_author(user_id, key)) else []
    for other, _ in store.get_followed_authors(user_id):
        if same_person(other, name) or same_person(key, other):
            if (removed := store.unfollow_author(user_id, other)) is not None:
                gone.append(removed)
    return gone


def author_picks(ctx: Context, user_id: str) -> int:
    """How many followed authors' new papers a digest of this person holds (their setting, else
    :data:`DEFAULT_AUTHOR_PICKS`)."""
    person = ctx.store.get_person(user_id)
    chosen = person.author_picks if person is not None else None
    return DEFAULT_AUTHOR_PICKS if chosen is None else chosen


def venue_year(venue: str | None) -> int | None:
    """The year a venue's name says ("ICML 2019": 2019), or None."""
    found = _YEAR.search(venue or "")
    return int(found.group()) if found else None


def is_new(paper: Paper, today: date) -> bool:
    """Whether a followed author's ``paper`` is new on the person's local day ``today`` (see the module):
    published on or after :data:`NEW_DAYS` days before it; without a date, of a venue of ``today``'s
    year."""
    if paper.published:
        return paper.published[:10] >= (today - timedelta(days=NEW_DAYS)).isoformat()
    return venue_year(paper.venue) == today.year


def new_papers_by(ctx: Context, user_id: str, today: date, exclude: set[str]) -> list[AuthorPick]:
    """The new papers (:func:`is_new` on the person's local day ``today``) by an author the person
    follows, not in ``exclude``, newest first (empty, and no query of the papers, for someone who follows
    no author)."""
    followed = [key for key, _ in ctx.store.get_followed_authors(user_id)]
    if not followed:
        return []
    since = (today - timedelta(days=NEW_DAYS)).isoformat()
    recent = _recent_authors(ctx, since)
    by_surname = _recent_surnames(ctx, since, recent)
    first: dict[str, tuple[int, str]] = {}  # paper id -> its first author someone followed, and where
    for key in followed:
        mine = key.split()
        for pid, position, author, theirs in by_surname.get(mine[-1], ()) if mine else ():
            if pid not in exclude and _same(mine, theirs) and position < first.get(pid, (position + 1,))[0]:
                first[pid] = (position, author)
    dated = [(recent[pid][1] or "", pid, AuthorPick(pid, author)) for pid, (_, author) in first.items()]
    papers = ctx.store.get_papers([pid for _, pid, _ in dated]) if dated else {}
    # Read by id, a paper merged since comes under the id it went into: that one must be new.
    new = [d for d in dated if d[1] in papers and is_new(papers[d[1]], today)]
    return [pick for *_, pick in sorted(new, key=lambda d: (d[0], d[1]), reverse=True)]


def _recent_authors(ctx: Context, since: str) -> dict[str, tuple[list[str], str]]:
    """The recent papers' authors: they change only with the day and with new papers, so a run of
    digests reads them once, not once a person."""
    def read() -> dict[str, tuple[list[str], str]]:
        rows = ctx.store.recent_paper_authors(since)
        return {pid: (_names(text), day) for pid, (text, day) in rows.items()}

    return ctx.engine.memo("recent authors", (since, ctx.store.max_paper_seq()), read)


#: A recent paper's author as the surname map holds it: paper id, place among its authors, the name as
#: written, and its key's words.
_Written = tuple[str, int, str, tuple[str, ...]]


def _recent_surnames(ctx: Context, since: str,
                     recent: dict[str, tuple[list[str], str]]) -> dict[str, list[_Written]]:
    """The recent papers' authors by surname (the last word of their key): a person's followed authors
    are looked up there, not matched against every recent paper's every author. Made once a run."""
    def make() -> dict[str, list[_Written]]:
        found: dict[str, list[_Written]] = {}
        for pid, (authors, _) in recent.items():
            for position, author in enumerate(authors):
                theirs = tuple(name_key(author).split())
                if theirs:
                    found.setdefault(theirs[-1], []).append((pid, position, author, theirs))
        return found

    return ctx.engine.memo("recent surnames", (since, ctx.store.max_paper_seq()), make)


def _names(text: str | None) -> list[str]:
    try:
        names = json.loads(text or "[]")
    except ValueError:
        return []
    # As shown (TeX accents rendered): "G\"odel" is Gödel, whom "follow author: Kurt Godel" follows.
    return [tex_to_text(n) for n in names if isinstance(n, str)] if isinstance(names, list) else []
