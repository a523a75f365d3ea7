"""The check every model-written summary passes before it may be shown: a pure function of the summary, the
paper's title and its abstract (:func:`check_summary`).

A summary is refused (with a reason code, :class:`Verdict`) when it is empty, cut off (the model stopped
for its length, or the text ends mid-sentence), longer than :data:`MOST_CHARACTERS`, a copy of the abstract
(its words run on from the abstract's for most of its length), or when any number or name in it does not
occur in the title or abstract:

- a number (``93.5%``, ``3.5x``, ``1,000``, ``7B``, ``two``…``twenty``) must be one of the values the
  title or abstract writes (``1,000`` is ``1000``; ``93.5%`` is ``93.5``; ``7B`` is 7 or 7 billion);
- a name is a token with a capital after its first letter (``BERT``, ``ResNet``, ``mT5``), a token
  mixing letters and digits (``word2vec``, ``L2``), or a capitalised word that does not begin a sentence
  (``Transformer`` mid-sentence); a capitalised word that begins one is a name unless its lower-case form
  is in the source or is one of the plain words a summary begins with (:data:`PLAIN_STARTS`). Names are
  matched whatever their case, a plural or possessive ``s`` aside;
- a hyphenated token (``CIFAR-10``, ``GPT-4``, ``ViT-based``) occurs whole in the source, or else it holds
  at most one name or number, which occurs: ``CIFAR-100`` is not ``CIFAR-10`` and ``100``.

What it can't see: a wrong claim made of the abstract's own words and numbers (a number attached to the wrong
thing, a result turned around, "not" dropped), and a lower-case invented term (``mixup``). docs/summaries.md
says so to the people reading the summaries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.text.tex import tex_to_text

#: The most characters a summary may have.
MOST_CHARACTERS = 280

# Reason codes (stored with a refused summary, counted in /metrics by code).
EMPTY = "empty"
CUT_OFF = "cut_off"
TOO_LONG = "too_long"
COPIED = "copied"
NUMBER = "invented_number"
NAME = "invented_name"
#: Every reason a summary is refused for (a small fixed set: a metric's label).
REASONS = (EMPTY, CUT_OFF, TOO_LONG, COPIED, NUMBER, NAME)

#: Of a summary's runs of :data:`_RUN` words, the share found in the abstract above which it is a copy.
COPIED_SHARE = 0.6
_RUN = 5


@dataclass(frozen=True)
class Verdict:
    """Whether a summary may be shown; if not, ``reason`` (one of :data:`REASONS`) and ``detail`` (the
    number or name not found, for the log and the database)."""

    ok: bool
    reason: str | None = None
    detail: str = ""


OK = Verdict(True)

#: Words a summary's sentence may begin with, capitalised, that are no names.
PLAIN_STARTS = frozenset("""
a an the this that these those it its their they we our he she his her there here
in on at by for from with without to of as into over under across between among through using via
while when where whereas although though because since after before unlike compared given based
proposes propose proposed presents present introduces introduce introduced shows show shown demonstrates
develops describes studies study studied analyzes analyses analyse analyze investigates explores
evaluates finds find found reports argues addresses tackles offers provides extends improves builds
achieves applies learns trains uses leverages combines formulates derives proves establishes releases
authors researchers experiments results both each all most many several some
new novel key main first second finally overall instead moreover additionally also however thus
such other further paper work method approach model framework system technique algorithm
specifically notably importantly crucially together empirically theoretically experimentally extensive
evaluated tested trained applied compared combining leveraging building focusing motivated inspired
beyond despite toward towards unlike experiments theory analysis evaluation training inference
reduces outperforms enables allows yields reaches matches beats surpasses scales cuts lowers raises boosts
gives makes sets keeps replaces reveals suggests highlights identifies characterizes quantifies measures
compares generalizes unifies connects bridges adapts tunes pretrains distills compresses accelerates
speeds predicts estimates detects generates encodes aligns retrieves ranks recommends translates answers
solves optimizes approximates bounds guarantees certifies verifies
""".split())

#: Number words read as numbers ("one" and "zero" are left out: "one of", "zero-shot" say no number).
NUMBER_WORDS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split()) if i >= 2}
NUMBER_WORDS |= {"thirty": 30.0, "forty": 40.0, "fifty": 50.0, "hundred": 100.0, "thousand": 1000.0,
                 "dozen": 12.0, "twice": 2.0, "double": 2.0, "triple": 3.0, "half": 0.5}
_SCALES = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}

# A token: letters and digits, with inner hyphens, apostrophes and decimal points.
_TOKEN = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)(?:\s*(?:%|x|×|k|m|b|t|bn|pp)\b)?", re.IGNORECASE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SENTENCE_END = re.compile(r"[.!?:;]['\")\]]*\s*$")
_ENDS_WELL = re.compile(r"[.!?]['\"”’)\]]*$")


def check_summary(summary: str, title: str, abstract: str, finish_reason: str | None = None) -> Verdict:
    """Whether ``summary`` may be shown for the paper of ``title`` and ``abstract`` (see the module);
    ``finish_reason``: the endpoint's (``"length"``: it was cut off at its token limit)."""
    text = _plain(summary)
    if not _TOKEN.search(text):  # nothing but blanks and marks
        return Verdict(False, EMPTY)
    if len(text) > MOST_CHARACTERS:
        return Verdict(False, TOO_LONG, str(len(text)))
    if finish_reason == "length" or not _ENDS_WELL.search(text) or text.endswith(("...", "…")):
        return Verdict(False, CUT_OFF, text[-20:])
    if _copied(text, _plain(abstract)):
        return Verdict(False, COPIED)
    return check_facts(text, title, abstract)


def check_facts(summary: str, title: str, abstract: str) -> Verdict:
    """The numbers-and-names part of :func:`check_summary` alone: every number and name of ``summary`` is
    in the title or abstract (OK), or the verdict refusing the first that is not."""
    facts = _Facts(_plain(f"{title}\n{abstract}"))
    for token, initial in _tokens(_plain(summary)):
        problem = facts.unsupported(token, initial)
        if problem is not None:
            return problem
    return OK


def _plain(text: str) -> str:
    """``text`` as compared: TeX rendered, Unicode's compatibility forms folded (``ﬁ``, full-width digits),
    thousands separators gone, whitespace one space."""
    text = unicodedata.normalize("NFKC", tex_to_text(text or ""))
    text = _THOUSANDS.sub("", text.replace("\u00a0", " "))
    return " ".join(text.split())


def _words(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _copied(summary: str, abstract: str) -> bool:
    """Whether the summary is the abstract's own text: its words run on from the abstract's for most of
    their runs of five (or, for a short one, it is a run of the abstract's words)."""
    said, source = _words(summary), _words(abstract)
    if not said or not source:
        return False
    if len(said) < _RUN:
        return f" {' '.join(said)} " in f" {' '.join(source)} " and len(said) >= 3
    runs = [tuple(said[i:i + _RUN]) for i in range(len(said) - _RUN + 1)]
    known = {tuple(source[i:i + _RUN]) for i in range(len(source) - _RUN + 1)}
    return sum(run in known for run in runs) / len(runs) >= COPIED_SHARE


def _tokens(text: str) -> list[tuple[str, bool]]:
    """The summary's tokens, each with whether it begins a sentence (the text's start, or after ``.``,
    ``!``, ``?``, ``:`` or ``;``), an opening bracket or quote skipped."""
    found = []
    for match in _TOKEN.finditer(text):
        before = text[:match.start()].rstrip(" \"'“‘([")
        found.append((match.group(), not before or bool(_SENTENCE_END.search(before))))
    return found


def _number(token: str) -> float | None:
    """The value a number token writes (``93.5%``, ``3.5x``, ``7B``, ``1000``), or None."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(%|x|×|k|m|b|t|bn|pp|st|nd|rd|th|s)?", token, re.IGNORECASE)
    return float(match.group(1)) if match else None


def _values(token: str) -> set[float]:
    """Every value a number token of the source may stand for: as written, and scaled (``7B``: 7e9)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kmbt]|bn)?", token, re.IGNORECASE)
    if not match:
        value = _number(token)
        return set() if value is None else {value}
    value = float(match.group(1))
    scale = _SCALES.get((match.group(2) or "")[:1].lower())
    return {value, value * scale} if scale else {value}


def _singular(word: str) -> str:
    for ending in ("'s", "’s", "s'"):
        if word.endswith(ending):
            return word[:-len(ending)] + ("s" if ending == "s'" else "")
    if word.endswith("es") and len(word) > 4 and word[-3] in "sxz":
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        return word[:-1]
    return word


def _kind(part: str) -> str:
    """What a token (or a part of a hyphenated one) is: "number", "name" (mixed case, capitals after the
    first letter, letters with digits), "capitalised" or "plain"."""
    if part.lower() in NUMBER_WORDS:
        return "number"
    if _number(part) is not None:
        return "number"
    if "." in part and any(len(piece) > 1 and piece.isalpha() for piece in part.split(".")[1:]):
        return "name"  # a domain or a dotted name (github.com, torch.nn), not "e.g"
    has_digit = any(ch.isdigit() for ch in part)
    has_letter = any(ch.isalpha() for ch in part)
    if has_digit and has_letter:
        return "name"
    if any(ch.isupper() for ch in part[1:]):
        return "name"
    if part[:1].isupper():
        return "capitalised"
    return "plain"


class _Facts:
    """The numbers and names of the title and abstract, as a summary's are matched against them."""

    def __init__(self, source: str):
        tokens = [t.lower() for t in _TOKEN.findall(source)]
        self.words: set[str] = set()
        self.numbers: set[float] = set()
        for token in tokens:
            for form in (token, *token.split("-")):
                self.words.update((form, _singular(form)))
                if form in NUMBER_WORDS:
                    self.numbers.add(NUMBER_WORDS[form])
                else:
                    self.numbers.update(_values(form))
        # Numbers written beside their unit or sign (``93.5 %``, ``3.5×``, ``$10^4$`` rendered) are found
        # by the number pattern too, wherever tokens split them.
        self.numbers.update(float(m.group(1)) for m in _NUMBER.finditer(source))

    def knows_word(self, word: str) -> bool:
        word = word.lower()
        return word in self.words or _singular(word) in self.words

    def knows_number(self, part: str) -> bool:
        word = part.lower()
        if word in NUMBER_WORDS:
            return NUMBER_WORDS[word] in self.numbers or word in self.words
        value = _number(part)
        return value is not None and (value in self.numbers or _values(part) & self.numbers != set())

    def unsupported(self, token: str, initial: bool) -> Verdict | None:
        """None when the token's numbers and names are in the source; else the verdict refusing it."""
        if self.knows_word(token):
            return None
        parts = [p for p in re.split(r"[-']", token) if p]
        kinds = [_kind(p) for p in parts]
        if len(parts) > 1:
            if sum(k in ("number", "name", "capitalised") for k in kinds) > 1:
                # Two names or numbers joined (CIFAR-100, GPT-4o-mini) say one thing: it occurs whole.
                return _refusal(kinds, token)
            for i, (part, kind) in enumerate(zip(parts, kinds, strict=True)):
                problem = self._part(part, kind, initial and i == 0, token)
                if problem is not None:
                    return problem
            return None
        return self._part(token, kinds[0], initial, token)

    def _part(self, part: str, kind: str, initial: bool, token: str) -> Verdict | None:
        if kind == "number":
            return None if self.knows_number(part) else Verdict(False, NUMBER, token)
        if kind == "plain" or self.knows_word(part):
            return None
        if kind == "capitalised" and initial and part.lower() in PLAIN_STARTS:
            return None
        if kind == "capitalised" and len(part) == 1:  # "A", "I"
            return None
        return Verdict(False, NAME, token)


def _refusal(kinds: list[str], token: str) -> Verdict:
    return Verdict(False, NUMBER if "name" not in kinds and "capitalised" not in kinds else NAME, token)
