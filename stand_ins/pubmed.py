"""A stand-in for NCBI's E-utilities (``esearch.fcgi`` and ``efetch.fcgi`` of db=pubmed), on localhost,
answering in their formats (``pubmed_esearch.json`` and ``pubmed_efetch.xml``, with where they come from)
from records a test makes up.

    with Pubmed() as api:
        api.add(day_of_records(date(2026, 12, 7), 450, "crispr"))
        fetcher = api.fetcher()          # pubmed_url aimed here, no spacing
        api.busy = {2: "1"}              # the 2nd request is answered 429 with Retry-After: 1
        api.broken = {3: b"<html>…"}     # the 3rd is answered this body (HTML, a truncated page)

``esearch.fcgi?term=…&datetype=edat&mindate=…&maxdate=…&retstart=…&retmax=…&retmode=json`` answers the
PMIDs of the records entered from ``mindate`` to ``maxdate`` whose title or abstract holds every word of
``term`` (a stand-in's search, not PubMed's), newest first as PubMed sorts; ``efetch.fcgi?id=…`` answers
those records as a PubmedArticleSet, in the order asked. A record may be raw XML (a malformed one).
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Answering

_HERE = Path(__file__).parent
SEARCH_FORMAT = json.loads((_HERE / "pubmed_esearch.json").read_text(encoding="utf-8"))
_TEMPLATE = ET.fromstring((_HERE / "pubmed_efetch.xml").read_bytes()).find("PubmedArticle")
_HEAD = (b'<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January '
         b'2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n<PubmedArticleSet>\n')
_WORDS = ("enhancer", "guide", "knockout", "organoid", "T cell", "tumour", "screen", "promoter", "variant",
          "microglia", "isoform", "kinase")


@dataclass
class Entry:
    """One record the stand-in holds: its PMID, the day it entered PubMed, its searchable text, its XML."""

    pmid: str
    entered: date
    text: str
    xml: bytes


def article(pmid: str, *, title: str, abstract: str | dict[str, str], doi: str | None = None,
            journal: str = "Nature biotechnology", authors: tuple[str, ...] = ("Ada B|Surname",),
            published: tuple[str, str, str] = ("2026", "12", "05")) -> bytes:
    """One PubmedArticle, the recorded example's with these values: ``abstract`` a text or labelled
    sections; ``authors`` "ForeName|LastName" or a collective name; ``published`` the ArticleDate (an
    empty year drops it)."""
    record = copy.deepcopy(_TEMPLATE)
    citation = record.find("MedlineCitation")
    citation.find("PMID").text = pmid
    entry = citation.find("Article")
    entry.find("Journal/Title").text = journal
    heading = entry.find("ArticleTitle")
    heading.clear()
    heading.text = title
    box = entry.find("Abstract")
    for section in box.findall("AbstractText"):
        box.remove(section)
    sections = abstract if isinstance(abstract, dict) else {"": abstract}
    for position, (label, text) in enumerate(sections.items()):
        section = ET.Element("AbstractText", {"Label": label, "NlmCategory": label} if label else {})
        section.text = text
        box.insert(position, section)
    listed = entry.find("AuthorList")
    for old in list(listed):
        listed.remove(old)
    for name in authors:
        author = ET.SubElement(listed, "Author", {"ValidYN": "Y"})
        if "|" in name:
            fore, last = name.split("|")
            ET.SubElement(author, "LastName").text = last
            ET.SubElement(author, "ForeName").text = fore
        else:
            ET.SubElement(author, "CollectiveName").text = name
    location = entry.find("ELocationID")
    ids = record.find("PubmedData/ArticleIdList")
    for item in list(ids):
        ids.remove(item)
    ET.SubElement(ids, "ArticleId", {"IdType": "pubmed"}).text = pmid
    if doi:
        location.text = doi
        ET.SubElement(ids, "ArticleId", {"IdType": "doi"}).text = doi
    else:
        entry.remove(location)
    dated = entry.find("ArticleDate")
    if published[0]:
        for part, value in zip(("Year", "Month", "Day"), published, strict=True):
            dated.find(part).text = value
    else:
        entry.remove(dated)
    return ET.tostring(record, encoding="utf-8", xml_declaration=False)


def day_of_records(day: date, n: int, topic: str = "crispr", first_pmid: int = 40_000_000) -> list[Entry]:
    """``n`` records entered on ``day``, each about ``topic`` (so a search for it finds them)."""
    made = []
    for i in range(n):
        pmid = str(first_pmid + day.toordinal() % 1000 * 10_000 + i)
        words = " ".join(_WORDS[(int(pmid) + k) % len(_WORDS)] for k in range(3))
        title = f"The {words} of {topic} record {pmid}"
        abstract = {"BACKGROUND": f"We study the {words} by {topic}.",
                    "RESULTS": f"The {words} of {pmid} vary."}
        made.append(entry(pmid, day, article(pmid, title=title, abstract=abstract,
                                             doi=f"10.5555/pm.{pmid}")))
    return made


def entry(pmid: str, day: date, xml: bytes, text: str | None = None) -> Entry:
    """A record as the stand-in keeps it; its search text is its XML's text unless given (a malformed one)."""
    if text is None:
        text = " ".join(ET.fromstring(xml).itertext())
    return Entry(pmid, day, text.lower(), xml)


class Pubmed(Answering):
    """The stand-in (see the module); :attr:`requests` holds the paths asked, in order."""

    broken_type = "text/xml"

    def __init__(self) -> None:
        super().__init__("pubmed-stand-in")
        self.entries: dict[str, Entry] = {}

    def fetcher(self, **kwargs) -> Fetcher:
        """A Fetcher aimed here, its requests not spaced."""
        kwargs.setdefault("limiter", RateLimiter(0))
        return Fetcher(pubmed_url=self.base_url, **kwargs)

    def add(self, entries: list[Entry]) -> None:
        with self._lock:
            for item in entries:
                self.entries[item.pmid] = item

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        if parts.path == "/esearch.fcgi":
            return self._search(query)
        if parts.path == "/efetch.fcgi":
            wanted = query.get("id", "").split(",")
            body = _HEAD + b"".join(self.entries[p].xml + b"\n" for p in wanted if p in self.entries)
            return 200, {"Content-Type": "text/xml; charset=UTF-8"}, body + b"</PubmedArticleSet>\n"
        return 404, {"Content-Type": "text/html"}, b"<html><body>Not Found</body></html>"

    def _search(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        lo, hi = (date(*map(int, query[key].split("/"))) for key in ("mindate", "maxdate"))
        words = re.findall(r"\w+", query.get("term", "").lower())
        found = sorted((e for e in self.entries.values()
                        if lo <= e.entered <= hi and all(w in e.text for w in words)),
                       key=lambda e: (e.entered, e.pmid), reverse=True)
        retstart, retmax = int(query.get("retstart", 0)), int(query.get("retmax", 20))
        page = [e.pmid for e in found[retstart:retstart + retmax]]
        answer = copy.deepcopy(SEARCH_FORMAT["answer"])
        answer["esearchresult"].update({"count": str(len(found)), "retmax": str(len(page)),
                                        "retstart": str(retstart), "idlist": page,
                                        "querytranslation": f"{query.get('term', '')} AND "
                                                            f"{lo:%Y/%m/%d}:{hi:%Y/%m/%d}[edat]"})
        return 200, {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(answer).encode()
