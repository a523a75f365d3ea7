"""A stand-in for the ACL Anthology's BibTeX files, on localhost: a volume's (``/volumes/{VOLUME}.bib``) and
each paper's own (``/{ID}.bib``), in the form the Anthology writes them (``acl_volume.bib``, recorded, with
where it comes from), from the recorded volume or entries a test makes up.

    with Anthology() as site:
        site.add_recorded()                       # 2025.acl-long: its frontmatter and three papers
        site.add("2025.acl-long", [entry("2025.acl-long", 7, abstract="…")])
        site.own["2025.acl-long.1185"] = entry("2025.acl-long", 1185, abstract="…")  # its own .bib
        fetcher = site.fetcher()                  # acl_url aimed here, no spacing
        site.busy = {2: "1"}                      # the 2nd request is answered 429 with Retry-After: 1
        site.broken = {1: b"<html>…"}             # the 1st is answered this body (HTML, a truncated file)

A paper's own file is its entry in the volume unless :attr:`own` says otherwise; anything else is 404 with
an HTML page, as the site answers.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from bot.sources.http import Fetcher, RateLimiter
from stand_ins.serving import Answering

RECORDED = (Path(__file__).parent / "acl_volume.bib").read_text(encoding="utf-8")
RECORDED_VOLUME = "2025.acl-long"
BOOKTITLE = ("Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics "
             "(Volume 1: Long Papers)")
_EDITORS = ("Che, Wanxiang", "Nabende, Joyce", "Shutova, Ekaterina", "Pilehvar, Mohammad Taher")
_WORDS = ("parsing", "retrieval", "translation", "summarization", "alignment", "tokenization", "dialogue",
          "entailment", "morphology", "grounding", "probing", "decoding")


def _quoted(value: str) -> str:
    # As the Anthology's make_bibtex_entry: double quotes, or braces around a value holding a quote.
    return f'"{value}"' if '"' not in value else f"{{{value}}}"


def bibtex(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    """One entry in the Anthology's form: a field a line, the month a macro, no comma after the last."""
    lines = [f"@{kind}{{{key},"]
    for name, value in fields:
        if value:
            lines.append(f"    {name} = {value if name == 'month' else _quoted(value)},")
    lines[-1] = lines[-1][:-1]
    return "\n".join([*lines, "}"])


def _names(names: tuple[str, ...]) -> str:
    return "  and\n      ".join(names)


def entry(volume: str, number: int, *, title: str | None = None, authors: tuple[str, ...] = ("Surname, Ada",),
          abstract: str | None = None, doi: bool = True, booktitle: str = BOOKTITLE, month: str = "jul",
          year: str = "2025") -> str:
    """Paper ``number`` of ``volume`` as the Anthology writes it; ``authors`` as BibTeX's "Last, First"."""
    anthology_id = f"{volume}.{number}"
    return bibtex("inproceedings", f"paper-{anthology_id.replace('.', '-')}", [
        ("title", title or f"Paper {number} of {volume}"), ("author", _names(authors)),
        ("editor", _names(_EDITORS)), ("booktitle", booktitle), ("month", month), ("year", year),
        ("address", "Vienna, Austria"), ("publisher", "Association for Computational Linguistics"),
        ("url", f"https://aclanthology.org/{anthology_id}/"),
        ("doi", f"10.18653/v1/{anthology_id}" if doi else ""), ("pages", f"{number}--{number + 9}"),
        ("ISBN", "979-8-89176-251-0"), ("abstract", abstract or "")])


def frontmatter(volume: str, booktitle: str = BOOKTITLE) -> str:
    """The volume's own entry, as the Anthology writes a frontmatter."""
    return bibtex("proceedings", volume.replace(".", "-"), [
        ("title", booktitle), ("editor", _names(_EDITORS)), ("month", "jul"), ("year", "2025"),
        ("address", "Vienna, Austria"), ("publisher", "Association for Computational Linguistics"),
        ("url", f"https://aclanthology.org/{volume}.0/"), ("ISBN", "979-8-89176-251-0")])


def volume_of(volume: str, n: int, *, first: int = 1, abstracts: bool = True) -> list[str]:
    """The frontmatter and ``n`` papers of ``volume``, each with a short abstract of its own (or none)."""
    made = [frontmatter(volume)]
    for number in range(first, first + n):
        words = " ".join(_WORDS[(number + k) % len(_WORDS)] for k in range(3))
        made.append(entry(volume, number, title=f"On {words}: study {number} of {volume}",
                          authors=(f"Author{number}, Ada", "Vuli{\\'c}, Ivan"),
                          abstract=(f"We study {words} in {{BERT}}-style models. Our method improves "
                                    f"{words} by {number % 9 + 1}.5{{\\%}} on study {number}."
                                    if abstracts else None)))
    return made


class Anthology(Answering):
    """The stand-in (see the module); :attr:`requests` holds the paths asked, in order."""

    broken_type = "application/x-bibtex"

    def __init__(self) -> None:
        super().__init__("acl-anthology-stand-in")
        #: Each volume's file, as it is served.
        self.volumes: dict[str, str] = {}
        #: Papers' own files where they differ from their entry in the volume (an abstract added; "": none,
        #: answered 404).
        self.own: dict[str, str] = {}

    def fetcher(self, **kwargs) -> Fetcher:
        """A Fetcher aimed here, its requests not spaced."""
        kwargs.setdefault("limiter", RateLimiter(0))
        return Fetcher(acl_url=self.base_url, **kwargs)

    def add_recorded(self) -> None:
        """The recorded volume (``acl_volume.bib``), as it is."""
        with self._lock:
            self.volumes[RECORDED_VOLUME] = RECORDED

    def add(self, volume: str, entries: list[str]) -> None:
        """``entries`` at the end of ``volume``'s file."""
        with self._lock:
            old = self.volumes.get(volume, "")
            self.volumes[volume] = (old.rstrip() + "\n\n" if old else "") + "\n\n".join(entries) + "\n"

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        name = urlsplit(path).path
        kind = {"Content-Type": "application/x-bibtex; charset=utf-8"}
        if (match := re.fullmatch(r"/volumes/(.+)\.bib", name)) and match[1] in self.volumes:
            return 200, kind, self.volumes[match[1]].encode()
        if match := re.fullmatch(r"/([^/]+)\.bib", name):
            paper = self.own[match[1]] if match[1] in self.own else self._entry(match[1])
            if paper:
                return 200, kind, (paper + "\n").encode()
        return 404, {"Content-Type": "text/html"}, b"<!DOCTYPE html><html><body>Page not found</body></html>"

    def _entry(self, anthology_id: str) -> str | None:
        for text in self.volumes.values():
            for block in re.split(r"\n(?=@)", text):
                if f'url = "https://aclanthology.org/{anthology_id}/"' in block:
                    return block.strip()
        return None
