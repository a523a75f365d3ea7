"""`why`: whether paperbot holds a paper named by a link, an id or title words, since when and from which
source, and what picking makes of it for the person asking: when it was shown to them, or what keeps it
out of their digest (a rule of :class:`~bot.usecases.picking.LeftOut`, its rank below the cut, …).

The fate is told by the digest's own choosing (:meth:`bot.usecases.digests.choose.Chooser.fate`): the
same steps, asked about one paper, never a second copy of their rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from bot.errors import Missing, NotAPaperName, PaperNotHeld
from bot.sources.arxiv_ids import find_arxiv_ids, find_dois
from bot.state.context import Context
from bot.usecases.authors import is_new, name_key, same_person
from bot.usecases.digest_due import local_date
from bot.usecases.digests.choose import Chooser
from bot.usecases.lookup import held_by_arxiv_id, papers_by_doi
from bot.usecases.picking import Fate, local_today
from bot.usecases.recommend import search
from bot.usecases.show import looks_like_doi
from storage import Paper

#: Past days of the person's digests looked at for one that was empty or failed after the paper came.
DIGEST_DAYS = 14
#: Papers title words may answer with: the best match, then the others named.
TITLE_MATCHES = 3
#: Characters of a name echoed back.
ECHO = 120

_QUOTES = "\"“”„«»'‘’"
_OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf|attachment)/?\?(?:[^#]*&)?id=([\w-]+)", re.I)
_PUBMED = re.compile(r"(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d+)", re.I)
_ACL = re.compile(r"aclanthology\.org/([A-Za-z0-9][\w.-]*?)(?:\.pdf|\.bib)?/?$", re.I)
_RXIV = re.compile(r"(?:bio|med)rxiv\.org/content/(10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.)?\d+)", re.I)
_LINK = re.compile(r"^(?:https?://|www\.)\S+$", re.I)
_PREFIXED = re.compile(r"^(?:arxiv|doi|pmid|openreview|acl):\S+$", re.I)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Shown:
    """When the paper was shown to the person (their local day), and whether in that day's digest."""

    on: str
    in_digest: bool


@dataclass(frozen=True)
class DigestDay:
    """One of the person's digests after the paper came that brought nothing: "empty" or "failed"."""

    local_date: str
    status: str


@dataclass(frozen=True)
class Why:
    """The answer about one paper for one person.

    ``held_since``: when paperbot first stored it (ISO UTC); ``sources``: where it came from (arxiv,
    openreview, pubmed, acl, biorxiv, medrxiv, doi, other), its own id's first, then those of the records
    merged into it. ``fate``: what choosing the person's digest of local day ``today`` makes of it;
    ``shown``: when they were shown it; ``quiet_days``: their digests since it came that were empty or
    failed; ``followed_author``: an author of it they follow, when the paper is too old to come for
    that; ``also``: other papers the title words name (best match first: ``paper``); ``digest_on``: whether
    the person gets digests at all (without, nothing is sent unless they ask)."""

    asked: str
    paper: Paper
    held_since: str
    sources: tuple[str, ...]
    fate: Fate
    today: date
    shown: Shown | None = None
    quiet_days: tuple[DigestDay, ...] = ()
    followed_author: str | None = None
    also: tuple[Paper, ...] = ()
    digest_on: bool = True


def why(ctx: Context, user_id: str, text: str, now: datetime | None = None) -> Why:
    """What paperbot knows of the paper ``text`` names (see :func:`find_paper`) and what picking makes of
    it for ``user_id`` at ``now``. Raises Missing("why"), NotAPaperName, PaperNotHeld, NoPapers."""
    now = now or datetime.now(UTC)
    paper, also = find_paper(ctx, text)
    held = ctx.store.paper_held(paper.id)
    added, aliases = (held[0], held[2]) if held else ("", [])
    today = local_today(ctx, user_id, now)
    fate = Chooser(ctx, record_feeds=False).fate(user_id, today, paper.id)
    person = ctx.store.get_person(user_id)
    tz = person.tz if person else None
    return Why(asked=text.strip(), paper=paper, held_since=added, sources=_sources(paper, aliases), fate=fate,
               today=today, shown=_shown(ctx, user_id, paper.id, tz),
               quiet_days=_quiet_days(ctx, user_id, added, today, tz),
               followed_author=_followed_not_new(ctx, user_id, paper, today, fate), also=tuple(also),
               digest_on=person is not None and person.digest_enabled)


def find_paper(ctx: Context, text: str) -> tuple[Paper, list[Paper]]:
    """The paper ``text`` names, and for title words the other papers they name too (at most
    :data:`TITLE_MATCHES` in all, the best first): a paper's id (or one it was known by), an arXiv id or
    link (abs, pdf, html, any version), a DOI or doi.org link, an OpenReview forum, a PubMed, ACL
    Anthology, bioRxiv or medRxiv page, another link a paper held has, or ``"title words"`` in quotes.
    Only papers held: nothing is fetched. Raises Missing, NotAPaperName, PaperNotHeld."""
    name = _bare(text)
    if not name:
        raise Missing("why")
    shown = name[:ECHO]
    if len(name) > 1 and name[0] in _QUOTES and name[-1] in _QUOTES:
        return _by_title(ctx, name.strip(_QUOTES).strip())
    direct = ctx.store.get_paper(name) if " " not in name else None
    if direct is not None:
        return direct, []
    if " " in name:
        raise NotAPaperName(shown)
    if match := _OPENREVIEW.search(name):
        return _held(ctx.store.get_paper(f"openreview:{match.group(1)}"), match.group(1), "openreview"), []
    if match := _PUBMED.search(name):
        return _held(ctx.store.get_paper(f"pmid:{match.group(1)}"), match.group(1), "pubmed"), []
    if match := _RXIV.search(name):
        return _held(ctx.store.find_paper_by_doi(match.group(1)), match.group(1), "doi"), []
    if arxiv := find_arxiv_ids(name):
        return _held(held_by_arxiv_id(ctx, arxiv[:1]).get(arxiv[0]), arxiv[0], "arxiv"), []
    if looks_like_doi(name) and (dois := find_dois(name)):
        return _held(papers_by_doi(ctx, dois[:1]).get(dois[0]), dois[0], "doi"), []
    if match := _ACL.search(name):
        return _held(ctx.store.get_paper(f"acl:{match.group(1)}"), match.group(1), "acl"), []
    if _LINK.match(name):
        url = name if name.lower().startswith("http") else f"https://{name}"
        found = ctx.store.find_paper_by_url(url) or ctx.store.find_paper_by_url(url.rstrip("/"))
        if found is not None:
            return found, []
        raise NotAPaperName(shown, link=True)
    if _PREFIXED.match(name):
        raise PaperNotHeld(shown, "id")
    raise NotAPaperName(shown)


def _bare(text: str) -> str:
    """The name as typed: a Slack link's target (``<url|label>``), spaces squeezed."""
    name = " ".join((text or "").split())
    if name.startswith("<") and name.endswith(">"):
        name = name[1:-1].split("|", 1)[0]
    return name


def _held(paper: Paper | None, name: str, kind: str) -> Paper:
    if paper is None:
        raise PaperNotHeld(name[:ECHO], kind)
    return paper


def _by_title(ctx: Context, words: str) -> tuple[Paper, list[Paper]]:
    """The papers whose titles hold every one of ``words`` (as a phrase first), as search ranks them."""
    wanted = [w.casefold() for w in _WORD.findall(words)]
    if not wanted:
        raise Missing("why")
    found: dict[str, Paper] = {}
    for query in (f'"{words}"', words):
        for rec in search(ctx, query, 10):
            title = {w.casefold() for w in _WORD.findall(rec.paper.title)}
            if all(w in title for w in wanted):
                found.setdefault(rec.paper.id, rec.paper)
        if len(found) >= TITLE_MATCHES:
            break
    if not found:
        raise PaperNotHeld(words[:ECHO], "title")
    best, *others = list(found.values())[:TITLE_MATCHES]
    return best, others


def _sources(paper: Paper, aliases: list[str]) -> tuple[str, ...]:
    """Where the paper came from, by its ids: its own first, then its aliases', each once."""
    urls = [paper.url or "", *paper.other_urls]
    return tuple(dict.fromkeys(_source(pid, urls) for pid in [paper.id, *aliases]))


def _source(paper_id: str, urls: list[str]) -> str:
    prefix = paper_id.split(":", 1)[0].lower() if ":" in paper_id else ""
    if prefix == "doi" and paper_id.lower().startswith("doi:10.1101/"):
        for site in ("biorxiv", "medrxiv"):
            if any(f"{site}.org" in url for url in urls):
                return site
    return {"arxiv": "arxiv", "openreview": "openreview", "pmid": "pubmed", "acl": "acl",
            "doi": "doi"}.get(prefix, "other")


def _shown(ctx: Context, user_id: str, paper_id: str, tz: str | None) -> Shown | None:
    at = ctx.store.shown_at(user_id, paper_id)
    if at is None:
        return None
    when = datetime.fromisoformat(at)
    day = local_date(tz, when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()
    digest = ctx.store.get_digest(user_id, day)
    return Shown(day, digest is not None and paper_id in (digest.papers or []))


def _quiet_days(ctx: Context, user_id: str, added: str, today: date, tz: str | None) -> tuple[DigestDay, ...]:
    """The person's digests from the day the paper came to ``today`` (at most :data:`DIGEST_DAYS`) that
    were empty or failed."""
    start = today - timedelta(days=DIGEST_DAYS - 1)
    if added:
        when = datetime.fromisoformat(added)
        start = max(start, local_date(tz, when if when.tzinfo else when.replace(tzinfo=UTC)))
    keys = [(user_id, (start + timedelta(days=i)).isoformat()) for i in range((today - start).days + 1)]
    found = ctx.store.get_digests(keys) if keys else {}
    return tuple(DigestDay(day, found[(user_id, day)].status) for _, day in keys
                 if (user_id, day) in found and found[(user_id, day)].status in ("empty", "failed"))


def _followed_not_new(ctx: Context, user_id: str, paper: Paper, today: date, fate: Fate) -> str | None:
    """An author of the paper the person follows, when the paper is not new enough to come for them
    (:func:`bot.usecases.authors.is_new`, the rule picking keeps)."""
    if fate.kind == "author" or is_new(paper, today):
        return None
    followed = [key for key, _ in ctx.store.get_followed_authors(user_id)]
    for author in paper.authors:
        if name_key(author) and any(same_person(key, author) for key in followed):
            return author
    return None
