"""An abstract's sentences, as character spans of the text (whitespace already collapsed).

A sentence ends at ``.``, ``!`` or ``?`` (with any closing quotes or brackets after it) followed by a space
and a word that may start a sentence: a capital letter, a digit, a formula, a bracket or a quote. What
looks like an end and is not one is passed over: a full stop inside a formula (``$O(n^2).$``,
``\\(x.\\)``), after an abbreviation ("e.g.", "i.e.", "et al.", "Fig.", "vs.", "approx."), after an
initial ("J. Smith"), in a decimal ("93.5%") or a URL (no space follows those). Pure string work; never
raises.
"""

from __future__ import annotations

import re

from bot.text.tex import formula_spans

# A candidate end: terminal punctuation, closing quotes/brackets, then a space and what may start a
# sentence. A lower-case word after a full stop almost always means the stop was an abbreviation's.
_END = re.compile(r"[.!?]+['\")\]’”$]*(?= +(?:[A-Z0-9$\\(\[\"'‘“]|[^\x00-\x7f]))")
# Words whose full stop is an abbreviation's, never a sentence's end (lower-cased, without the stop).
# Words that also end sentences ("max", "app", "min") are left out: a missed abbreviation splits a
# sentence in two, a wrong one joins two.
_ABBREVIATIONS = frozenset(
    "e.g eg i.e ie al cf vs approx fig figs eq eqs sec secs ref refs resp no nos vol pp dr prof mr ms "
    "mrs jr sr inc ltd corp viz w.r.t wrt a.k.a aka ca incl esp dept univ thm lem def prop cor".split())
# The word before the candidate end: letters and the dots between them ("e.g", "w.r.t", "al").
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends (``text[start:end]``, its closing punctuation
    included, no surrounding spaces). Text without any end is one sentence; empty text has none."""
    if not text.strip():
        return []
    formulas = _formulas(text)
    spans: list[tuple[int, int]] = []
    begin = len(text) - len(text.lstrip())
    for match in _END.finditer(text):
        end = match.end()
        if end <= begin or _inside(formulas, match.start(), end) or _abbreviation(text, match.start()):
            continue
        if text[begin:match.start()].isdigit() and match.start() - begin <= 2:
            continue  # an item's number ("1. We propose …"), not a sentence of its own
        spans.append((begin, end))
        begin = end + 1
        while begin < len(text) and text[begin] == " ":
            begin += 1
    stop = len(text.rstrip())
    if begin < stop:
        spans.append((begin, stop))
    return spans


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, as they stand in it."""
    return [text[start:end] for start, end in sentence_spans(text)]


def _formulas(text: str) -> list[tuple[int, int]]:
    if "$" not in text and "\\(" not in text and "\\[" not in text:
        return []
    return [(start, after) for start, _body, _end, after in formula_spans(text)]


def _inside(formulas: list[tuple[int, int]], at: int, end: int) -> bool:
    """Whether the stop at ``at`` (its match ending at ``end``) is a formula's own: inside one, and not
    at its very end ("$O(n^2).$ We" ends a sentence as "$O(n^2)$. We" does)."""
    return any(start <= at < after and end != after for start, after in formulas)


def _abbreviation(text: str, at: int) -> bool:
    """Whether the stop at ``at`` closes an abbreviation or an initial rather than a sentence."""
    if text[at] != ".":
        return False
    word = _LAST_WORD.search(text, max(0, at - 12), at)
    if word is None:
        return False
    token = word.group(1)
    # "e.g." written as "e.g" + stop, "et al", "Fig": a known abbreviation, whatever follows.
    if token.lower().rstrip(".") in _ABBREVIATIONS:
        return token.lower() != "no" or text[at + 1:at + 3].lstrip()[:1].isdigit()
    # An initial: one capital letter standing alone ("J. Smith", "A. B. Jones"), followed by a name.
    before = text[word.start() - 1:word.start()] if word.start() else " "
    if len(token) == 1 and token.isupper() and before in (" ", ".", "-", "("):
        after = text[at + 1:].lstrip()
        next_word = after.split(" ", 1)[0]
        return next_word[:1].isupper() and next_word.rstrip(",.;:").isalpha() \
            and next_word.lower() not in _SENTENCE_STARTS and not _is_variable(text, word.start())
    return False


def _is_variable(text: str, start: int) -> bool:
    """Whether the capital letter at ``start`` is a name the sentence gave ("a set A."): the word before
    it is lower case, where an initial follows a first name or another initial."""
    before = text[:start].rstrip().rsplit(" ", 1)[-1]
    return bool(before) and before[:1].islower() and before not in ("and", "by", "with", "&")


# Words that start sentences, so that "the problem P. We show" ends a sentence at "P.".
_SENTENCE_STARTS = frozenset(
    "we the this our in these to a an it for finally moreover furthermore however as on with by using "
    "experiments experimental results extensive empirical here then next thus hence therefore also such "
    "unlike while although despite given when where what how one two many most all both each".split())
