"""What became of a paper between two records of it (issue 42, docs/followups.md): a pure function of the
stored paper before an ingest merged a record into it and the paper after, :func:`events`. The ingest's
store writes what it returns beside the paper, in the same transaction; nothing else is decided here.

Kinds (stored as they are, never renamed): ``version`` (a new version changed the abstract; detail: "vN",
or a fingerprint of the new abstract where there are no arXiv versions), ``accepted`` (a venue or journal
where there was only a preprint server or nothing; detail: the venue), ``doi`` (a DOI where there was none;
detail: the DOI), ``code`` (a GitHub, GitLab, Hugging Face or Zenodo link the text did not hold; detail:
the link), ``withdrawn`` (the record now says the paper was withdrawn; detail: "").
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from storage.identity import is_published_venue, normal_doi
from storage.models import Paper

VERSION, ACCEPTED, DOI, CODE, WITHDRAWN = "version", "accepted", "doi", "code", "withdrawn"
#: The kinds, in the order a follow-up lists a paper's events.
KINDS = (WITHDRAWN, ACCEPTED, DOI, VERSION, CODE)
#: A code link's hosts (a subdomain such as ``www.`` counts as its host).
CODE_HOSTS = ("github.com", "gitlab.com", "huggingface.co", "zenodo.org")
#: At most this many new links of one merge become events (a list of URLs is not a dozen follow-ups).
MOST_LINKS = 3

_LINK = re.compile(r"(?:https?://)?(?:www\.)?(?:" + "|".join(re.escape(h) for h in CODE_HOSTS)
                   + r")/[^\s<>\"'(){}\[\]]+", re.IGNORECASE)
#: What a link's end may hold that belongs to the sentence around it, not to the link.
_TRAILING = ".,;:!?"
#: What arXiv's withdrawal notices and bioRxiv's withdrawn records say (in the abstract, or the title).
_WITHDRAWN = re.compile(
    r"\b(?:this|the) (?:paper|article|manuscript|preprint|submission|work) (?:has been|is being|was|is)"
    r" withdrawn\b|\bauthors? (?:have|has) (?:withdrawn|decided to withdraw) (?:this|their|the)"
    r" (?:paper|article|manuscript|preprint|submission)\b",
    re.IGNORECASE)
_WITHDRAWN_TITLE = re.compile(r"^\s*\W*withdrawn\b", re.IGNORECASE)

#: One event: (kind, detail).
Event = tuple[str, str]
#: What the store asks of an ingest's merge: the events between a stored paper and what it became.
Detector = Callable[[Paper, Paper], list[Event]]


def events(before: Paper, after: Paper) -> list[Event]:
    """What happened to a stored paper (``before``) when a record was merged into it (``after``), as
    (kind, detail) pairs in :data:`KINDS` order; none when nothing worth telling changed."""
    found: list[Event] = []
    withdrawn = is_withdrawn(after) and not is_withdrawn(before)
    if withdrawn:
        found.append((WITHDRAWN, ""))
    accepted = is_published_venue(after.venue) and not is_published_venue(before.venue)
    if accepted:
        found.append((ACCEPTED, " ".join((after.venue or "").split())))
    doi = normal_doi(after.doi)
    if doi and not normal_doi(before.doi):
        found.append((DOI, doi))
    # A journal's record merging into a preprint without arXiv versions brings its own abstract: that is
    # the acceptance, not a new version.
    if not withdrawn and _new_version(before, after) and not (accepted and not after.arxiv_version):
        found.append((VERSION, _version_detail(after)))
    if not withdrawn:
        known = {link.casefold() for link in code_links(f"{before.title} {before.abstract}")}
        new = [link for link in code_links(f"{after.title} {after.abstract}") if link.casefold() not in known]
        found += [(CODE, link) for link in new[:MOST_LINKS]]
    return found


def code_links(text: str | None) -> list[str]:
    """The GitHub, GitLab, Hugging Face and Zenodo links ``text`` holds, each once, as https links
    without the sentence's punctuation after them."""
    out: dict[str, None] = {}
    for match in _LINK.finditer(text or ""):
        link = match.group(0).rstrip(_TRAILING).rstrip("/")
        if not link.lower().startswith(("http://", "https://")):
            link = "https://" + link
        if "/" in link.split("://", 1)[1]:  # a host alone names no code
            out.setdefault(link, None)
    return list(out)


def is_withdrawn(paper: Paper) -> bool:
    """Whether a paper's record says it was withdrawn (arXiv's notice in the abstract, bioRxiv's
    "WITHDRAWN:" title)."""
    return bool(_WITHDRAWN.search(paper.abstract or "") or _WITHDRAWN_TITLE.search(paper.title or ""))


def _plain(text: str | None) -> str:
    """An abstract as compared: spacing and case aside."""
    return " ".join((text or "").split()).casefold()


def _new_version(before: Paper, after: Paper) -> bool:
    """Whether ``after`` is a new version whose abstract changed: a later arXiv version, or a paper
    without arXiv versions whose own record now says otherwise (another source's fuller text merged
    into an arXiv paper is no new version)."""
    if not before.abstract or _plain(before.abstract) == _plain(after.abstract):
        return False
    if after.arxiv_version and before.arxiv_version:
        return after.arxiv_version > before.arxiv_version
    return not after.arxiv_version


def _version_detail(after: Paper) -> str:
    if after.arxiv_version:
        return f"v{after.arxiv_version}"
    return "text " + hashlib.sha256(_plain(after.abstract).encode()).hexdigest()[:12]
