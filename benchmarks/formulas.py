"""Does every formula in titles and abstracts read as text? Figures over real papers, run by hand.

    .venv/bin/python benchmarks/formulas.py           # prints the figures
    .venv/bin/python benchmarks/formulas.py --show 10 # and up to 10 failing formulas, source beside shown

Papers: the bundled ICML 2025 sample (``bot/data/icml2025-abstracts.txt``, titles derived as at ingest),
the shared NeurIPS 2018 and ICML 2019 files (titles and abstracts) and the CiteULike papers (abstracts).
A formula is ``$…$``, ``$$…$$``, ``\\(…\\)`` or ``\\[…\\]`` (an unescaped ``$`` without a partner is
money, not a formula). Each paper is shown with the code paper messages use (``shown_title``,
``shown_abstract``), with an invisible marker around each formula, so that the span each formula became
can be told apart from the words around it. A formula

- **lost a letter or digit** when the letters and digits of its source (HTML entities decoded: ``&lt;``
  is ``<``), outside command names (``\\alpha``) and the environment names of ``\\begin{…}`` /
  ``\\end{…}``, do not all appear, in order, among the letters and digits of its shown span, once that
  span is NFKD-normalised (so ``²`` counts as ``2``, ``ₜ`` as ``t``, ``ℝ`` as ``R``, ``Õ`` as ``O``;
  what the commands became, α or ≤, is extra and never in the way); a formula whose span is nowhere to
  be seen lost everything;
- **shows a command** when its shown span holds a backslash followed by a letter.

Beside the formulas, every title and abstract holding a backslash is counted ("TeX texts"), and so are
those whose shown text holds a ``\\command`` anywhere, inside a formula or not ("command").
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.append(str(ROOT))

from bot.presentation.paper_view import shown_abstract, shown_title  # noqa: E402
from bot.sources import read_source  # noqa: E402
from bot.sources.normalize import build_paper  # noqa: E402
from storage import Paper  # noqa: E402

SHARED_DATA = ROOT.parent / "shared" / "data"
SAMPLE = ROOT / "bot" / "data" / "icml2025-abstracts.txt"
#: (file, whether its titles count): CiteULike's titles are plain, its abstracts are what has maths.
SHARED = (("neurips2018.jsonl", True), ("icml2019.jsonl", True), ("citeulike-a/papers.jsonl", False))

#: Markers around a formula: private-use characters no paper holds and no renderer touches.
OPEN, CLOSE, FIRST_INDEX = "\ue000", "\ue001", 0xE100
_SPAN = re.compile(OPEN + "([\ue100-\ue8ff])(.*?)" + CLOSE, re.DOTALL)
_COMMAND = re.compile(r"\\[A-Za-z]+")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}")


@dataclass(frozen=True)
class Formula:
    """One formula: where it was found, its source (delimiters included) and the span it was shown as
    (None when it was nowhere to be seen)."""

    where: str
    source: str
    shown: str | None

    @property
    def lost(self) -> bool:
        """Whether a letter or digit of the source is missing from the shown span (see the module)."""
        source = html.unescape(_ENVIRONMENT.sub(" ", self.source))
        return self.shown is None or not _in_order(_alnum(source, True), _alnum(self.shown))

    @property
    def command_shown(self) -> bool:
        """Whether a ``\\command`` shows."""
        return self.shown is not None and _COMMAND.search(self.shown) is not None


def find_formulas(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every formula in ``text``, delimiters included, in order."""
    spans, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1:i + 2] in ("(", "["):
            closer = "\\)" if text[i + 1] == "(" else "\\]"
            end = text.find(closer, i + 2)
            if end > 0:
                spans.append((i, end + 2))
                i = end + 2
                continue
            i += 2
        elif ch == "\\":
            i += 2  # an escaped character, \$ among them
        elif ch == "$":
            closer = "$$" if text.startswith("$$", i) else "$"
            end = _unescaped(text, closer, i + len(closer))
            if end > 0:
                spans.append((i, end + len(closer)))
                i = end + len(closer)
                continue
            i += len(closer)
        else:
            i += 1
    return spans


def _unescaped(text: str, needle: str, start: int) -> int:
    at = text.find(needle, start)
    while at > 0 and text[at - 1] == "\\":
        at = text.find(needle, at + 1)
    return at


def _alnum(text: str, source: bool = False) -> str:
    if source:
        text = _COMMAND.sub(" ", text)
    # NFKD: ² is 2 and ℝ is R, and an accent (Õ) comes apart from its letter, which counts alone.
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if ch.isalnum())


def _in_order(needed: str, shown: str) -> bool:
    it = iter(shown)
    return all(ch in it for ch in needed)


def _marked(text: str, first: int) -> tuple[str, list[str]]:
    """``text`` with markers around its formulas numbered from ``first``, and those formulas."""
    out, sources, last = [], [], 0
    for n, (start, end) in enumerate(find_formulas(text), first):
        out += [text[last:start], OPEN, chr(FIRST_INDEX + n), text[start:end], CLOSE]
        sources.append(text[start:end])
        last = end
    return "".join(out) + text[last:], sources


def paper_formulas(where: str, title: str, abstract: str, titles: bool = True) -> list[Formula]:
    """Every formula of one paper (``title`` "" for a paper whose title is derived at ingest; its title's
    formulas left out unless ``titles``), each with the span the paper's message shows it as."""
    marked_title, in_title = _marked(title, 0) if titles else (title, [])
    marked_abstract, in_abstract = _marked(abstract, len(in_title))
    sources = in_title + in_abstract
    if not sources:
        return []
    paper = build_paper(title=marked_title or None, abstract=marked_abstract, id=where)
    spans: dict[int, str] = {}
    for shown in (shown_title(paper), shown_abstract(paper)):
        for match in _SPAN.finditer(shown):
            spans.setdefault(ord(match.group(1)) - FIRST_INDEX, match.group(2))
    return [Formula(where, source, spans.get(n)) for n, source in enumerate(sources)]


@dataclass
class Corpus:
    """One corpus's figures: its formulas, and its shown texts that hold TeX and those that show a
    ``\\command`` anywhere (outside formulas too)."""

    name: str
    formulas: list[Formula] = field(default_factory=list)
    tex_texts: int = 0
    command_texts: list[tuple[str, str]] = field(default_factory=list)

    def add(self, where: str, title: str, abstract: str, titles: bool = True) -> None:
        """Count one paper (``title`` "" when it is derived at ingest)."""
        self.formulas += paper_formulas(where, title, abstract, titles)
        if "\\" not in (title if titles else "") + abstract:
            return
        paper = build_paper(title=title or None, abstract=abstract, id=where)
        for raw, shown in ((title if titles else "", shown_title(paper)), (abstract, shown_abstract(paper))):
            if "\\" in raw:
                self.tex_texts += 1
                if _COMMAND.search(shown):
                    self.command_texts.append((where, shown))


def corpora(shared: Path = SHARED_DATA) -> Iterator[Corpus]:
    """The figures of the sample, then of each shared file present."""
    sample = Corpus(SAMPLE.name)
    for paper in read_source(str(SAMPLE)):
        if isinstance(paper, Paper):
            sample.add(paper.id, "", paper.abstract)
    yield sample
    for name, titles in SHARED:
        path = shared / name
        if path.exists():
            corpus = Corpus(name)
            with path.open(encoding="utf-8") as lines:
                for line in lines:
                    if "$" not in line and "\\\\" not in line:
                        continue  # no TeX: most papers, skipped unparsed
                    record = json.loads(line)
                    title, abstract = record.get("title") or "", record.get("abstract") or ""
                    if abstract.strip():
                        corpus.add(str(record.get("id")), title, abstract, titles)
            yield corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N failing formulas and texts")
    args = parser.parse_args()
    failing: list[Formula] = []
    texts: list[tuple[str, str]] = []
    totals = [0, 0, 0, 0, 0]
    print(f"{'corpus':<28}{'formulas':>10}{'lost':>7}{'command':>9}{'TeX texts':>11}{'command':>9}")
    for corpus in corpora():
        formulas = corpus.formulas
        row = (len(formulas), sum(f.lost for f in formulas), sum(f.command_shown for f in formulas),
               corpus.tex_texts, len(corpus.command_texts))
        print(f"{corpus.name:<28}{row[0]:>10,}{row[1]:>7,}{row[2]:>9,}{row[3]:>11,}{row[4]:>9,}")
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        failing += [f for f in formulas if f.lost or f.command_shown]
        texts += corpus.command_texts
    print(f"{'all':<28}{totals[0]:>10,}{totals[1]:>7,}{totals[2]:>9,}{totals[3]:>11,}{totals[4]:>9,}")
    for f in failing[:args.show]:
        print(f"\n{f.where}: {f.source}\n  shown: {f.shown!r}")
    for where, shown in texts[:args.show]:
        print(f"\n{where} shows a command: {shown!r}")


if __name__ == "__main__":
    main()
