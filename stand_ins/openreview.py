"""A stand-in for the OpenReview API v2's ``GET /notes``, on localhost, answering in its real format
(:data:`FORMAT`, recorded in ``openreview_format.json`` with where it comes from) from notes a test makes up.

    with OpenReview() as api:
        api.add(venue_of_notes("ICML.cc/2025/Conference", 2500))
        fetcher = api.fetcher()          # openreview_url aimed here, no spacing
        api.busy = {2: "1"}              # the 2nd request is answered 429 (RateLimitError), Retry-After: 1
        api.broken = {3: b"<html>…"}     # the 3rd is answered this body (HTML, a truncated page)

``/notes?content.venueid=V&limit=L&offset=K`` answers ``{"notes": […], "count": N}``: the notes whose
``content.venueid`` is V, in the order added, L of them (1,000 when not asked) from K, and how many there
are; a venue nobody added answers no notes and a count of 0, as the API does for an id it doesn't know.
A limit over 1,000 or a bad offset is answered 400 (a ValidationError), any other path 404 (NotFoundError),
in the API's error format. A note may be raw JSON text (a malformed one), listed under a venue given.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Answering

FORMAT = json.loads(Path(__file__).with_name("openreview_format.json").read_text(encoding="utf-8"))
#: The API's largest page.
LIMIT = 1000
_WORDS = ("transformer", "diffusion", "bandit", "kernel", "graph", "policy", "attention", "sparsity",
          "calibration", "distillation", "contrastive", "equivariant", "retrieval", "pruning")
_JSON = {"Content-Type": "application/json; charset=utf-8"}


def note(forum: str, venue_id: str, *, title: str | None = None, abstract: str | None = None,
         authors: list[Any] | None = None, keywords: list[str] | None = None, venue: str | None = None,
         accepted: datetime | None = None, number: int = 1) -> dict[str, Any]:
    """One accepted note as the API writes it: the recorded example's fields, these values in them."""
    made = copy.deepcopy(FORMAT["page"]["notes"][0])
    seed = sum(map(ord, forum))
    words = " ".join(_WORDS[(seed + i) % len(_WORDS)] for i in range(3))
    names = authors if authors is not None else ["Ada Lovelace", "Alan Turing"]
    title = title if title is not None else f"On {words} of {forum}"
    content = made["content"]
    content["title"]["value"] = title
    content["abstract"]["value"] = (abstract if abstract is not None
                                    else f"We study {words}. We find that the {words} of {forum} generalise.")
    content["authors"]["value"] = names
    content["authorids"]["value"] = [f"~{str(n).replace(' ', '_')}1" for n in names]
    content["keywords"]["value"] = keywords if keywords is not None else words.split()[:2]
    content["venue"]["value"] = venue or f"{venue_id.split('.')[0]} {venue_id.split('/')[1]} poster"
    content["venueid"]["value"] = venue_id
    content["_bibtex"]["value"] = content["_bibtex"]["value"].replace("AbCdEfGh12", forum).replace(
        "Example Title of an Accepted Paper", title)
    made.update({"id": forum, "forum": forum, "number": number, "domain": venue_id,
                 "invitations": [i.replace("ICML.cc/2025/Conference", venue_id).replace("1234", str(number))
                                 for i in made["invitations"]]})
    if accepted is not None:
        made["pdate"] = int(accepted.timestamp() * 1000)
    return made


def venue_of_notes(venue_id: str, n: int, *, first: int = 0,
                   accepted: datetime = datetime(2025, 5, 1, tzinfo=UTC)) -> list[dict[str, Any]]:
    """``n`` accepted notes of ``venue_id``, each with a forum id of its own."""
    tag = "".join(ch for ch in venue_id if ch.isalnum())[:4]
    return [note(f"{tag}{first + i:06d}", venue_id, accepted=accepted, number=first + i + 1)
            for i in range(n)]


class OpenReview(Answering):
    """The stand-in (see the module); :attr:`requests` holds the paths asked, in order."""

    broken_type = "application/json"

    def __init__(self) -> None:
        super().__init__("openreview-stand-in")
        self.notes: list[tuple[str, bytes]] = []  # (venue id listed under, the note's JSON)

    def fetcher(self, **kwargs) -> Fetcher:
        """A Fetcher aimed here, its requests not spaced."""
        kwargs.setdefault("limiter", RateLimiter(0))
        return Fetcher(openreview_url=self.base_url, **kwargs)

    def add(self, notes: list[Any], *, venue_id: str | None = None) -> None:
        """Add notes, each listed under its own ``content.venueid``, or ``venue_id`` (a malformed note
        given as raw JSON text, or one listed where its venueid says otherwise)."""
        with self._lock:
            for item in notes:
                raw = item if isinstance(item, bytes) else json.dumps(item).encode()
                self.notes.append((venue_id or item["content"]["venueid"]["value"], raw))

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        status, headers, body = super().answer(path)
        if status == 429:  # the API says why in its own error format
            return status, {**headers, **_JSON}, json.dumps(FORMAT["rate_limited"]).encode()
        return status, headers, body

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        if parts.path != "/notes":
            return 404, _JSON, json.dumps(FORMAT["not_found"]).encode()
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        try:
            limit, offset = int(query.get("limit", LIMIT)), int(query.get("offset", 0))
        except ValueError:
            limit = offset = -1
        if not 0 < limit <= LIMIT or offset < 0:
            error = {"name": "ValidationError", "message": "must be a valid limit and offset", "status": 400,
                     "details": {"path": "limit/offset"}}
            return 400, _JSON, json.dumps(error).encode()
        wanted = query.get("content.venueid")
        found = [raw for venue, raw in self.notes if wanted is None or venue == wanted]
        page = found[offset:offset + limit]
        return 200, _JSON, b'{"notes":[' + b",".join(page) + b'],"count":' + str(len(found)).encode() + b"}"
