"""A stand-in for api.biorxiv.org's ``details`` endpoint, on localhost, answering in its real format
(:data:`FORMAT`, recorded in ``biorxiv_format.json`` with where it comes from) from posts a test makes up.

    with Biorxiv() as api:
        api.post(day_of_posts("biorxiv", date(2026, 12, 7), 70, ("neuroscience", "genomics")))
        fetcher = api.fetcher()          # biorxiv_url aimed here, no spacing
        api.busy = {2: "1"}              # the 2nd request is answered 429 with Retry-After: 1
        api.broken = {3: b"<html>…"}     # the 3rd is answered this body (HTML, a truncated page)

``GET /details/{server}/{from}/{to}/{cursor}`` answers the records of ``server`` dated from ``from`` to
``to`` (both included; one record per version, in the order posted), :attr:`Biorxiv.page_size` of them
from the record offset ``cursor``, under ``messages[0]`` with the page's ``count`` and the interval's
``total`` (a string, as the API writes it); an interval without records answers "no posts found".
"""

from __future__ import annotations

import copy
import json
import re
from datetime import date
from pathlib import Path
from typing import Any

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Answering

FORMAT = json.loads(Path(__file__).with_name("biorxiv_format.json").read_text(encoding="utf-8"))
_DETAILS = re.compile(r"^/details/(?P<server>[a-z]+)/(?P<lo>[^/]+)/(?P<hi>[^/]+)/(?P<cursor>\d+)/?$")
_WORDS = ("neuron", "cortex", "synapse", "genome", "enhancer", "chromatin", "microglia", "plasticity",
          "transcript", "isoform", "zebrafish", "organoid", "receptor", "methylation", "dendrite", "axon")


def record(server: str, doi: str, day: date | str, category: str, *, version: int = 1,
           title: str | None = None, abstract: str | None = None, authors: str = "Surname, A.; Surname, B.",
           published: str = "NA") -> dict[str, Any]:
    """One record as the API writes it: the recorded example's fields, these values in them."""
    made = copy.deepcopy(FORMAT["interval_page"]["collection"][0])
    seed = int(doi[-6:]) if doi[-6:].isdigit() else len(doi)
    words = " ".join(_WORDS[(seed + i) % len(_WORDS)] for i in range(3))
    made.update({
        "doi": doi, "date": day.isoformat() if isinstance(day, date) else day, "version": str(version),
        "category": category, "authors": authors, "published": published,
        "server": {"biorxiv": "bioRxiv", "medrxiv": "medRxiv"}[server],
        "title": title or f"The {words} of {doi}",
        "abstract": abstract or (f"We study the {words} in {category}. We find that the {words} of {doi} "
                                 f"changes in version {version}."),
        "jatsxml": f"https://www.{server}.org/content/early/{made['date'][:4]}/{doi}.source.xml",
    })
    return made


def day_of_posts(server: str, day: date, n: int, categories: tuple[str, ...]) -> list[dict[str, Any]]:
    """``n`` first versions posted on ``day``, their categories in turn from ``categories``."""
    return [record(server, f"10.1101/{day:%Y.%m.%d}.{500000 + i:06d}", day, categories[i % len(categories)])
            for i in range(n)]


class Biorxiv(Answering):
    """The stand-in (see the module); :attr:`requests` holds the paths asked, in order."""

    broken_type = "application/json"

    def __init__(self, page_size: int = 30) -> None:
        super().__init__("biorxiv-stand-in")
        self.page_size = page_size
        self.records: list[tuple[str, str, Any]] = []  # (server, date as listed, record)

    def fetcher(self, **kwargs) -> Fetcher:
        """A Fetcher aimed here, its requests not spaced."""
        kwargs.setdefault("limiter", RateLimiter(0))
        return Fetcher(biorxiv_url=self.base_url, **kwargs)

    def post(self, records: list[Any], *, server: str | None = None, listed_on: str | None = None) -> None:
        """Add records; each is listed under its own server and date, or ``server`` and ``listed_on`` (a
        malformed record, or one whose date is strange)."""
        with self._lock:
            for item in records:
                where = server or item["server"].lower()
                self.records.append((where, listed_on or item["date"], item))

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        match = _DETAILS.match(path)
        if match is None:
            return 404, {"Content-Type": "text/html"}, b"<html><body>Not Found</body></html>"
        lo, hi = match["lo"], match["hi"]
        found = [item for server, day, item in self.records if server == match["server"] and lo <= day <= hi]
        cursor = int(match["cursor"])
        page = found[cursor:cursor + self.page_size]
        if not found:
            answer = copy.deepcopy(FORMAT["no_posts"])
        else:
            answer = {"messages": [copy.deepcopy(FORMAT["interval_page"]["messages"][0])], "collection": page}
            firsts = sum(1 for item in found if isinstance(item, dict) and item.get("version") == "1")
            answer["messages"][0].update({"interval": f"{lo}:{hi}", "cursor": cursor, "count": len(page),
                                          "count_new_papers": str(firsts), "total": str(len(found))})
        return 200, {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(answer).encode()
