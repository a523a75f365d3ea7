"""TeX in titles and abstracts (``$\\Omega(\\sqrt{T})$``, ``{\\underline b}andits``) as readable Unicode.

Papers are stored as ingested; this runs when a paper is shown. pylatexenc does the reading. Around it,
what abstracts hold that is not TeX is kept: a bare ``%`` or ``&`` (a comment and a table column to TeX),
a lone ``$`` ("costs $10"). Malformed TeX, or a rendering that loses most of the text, shows the raw text.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

log = logging.getLogger(__name__)

# Text without any of these has no TeX to render (most abstracts): it is returned as it is.
_TEX_MARK = re.compile(r"[\\${}]|``|''|--")
_BARE = re.compile(r"(?<!\\)([%&#])")
_DOLLAR = re.compile(r"(?<!\\)\$")
_MATH = re.compile(r"(?<!\\)\$(?:\\.|[^$\\])+(?<!\\)\$")
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}\\]*)\}|([0-9A-Za-z+\-=()]))")

_SUPERSCRIPT = dict(zip("0123456789+-=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ", strict=True))
_SUBSCRIPT = dict(zip("0123456789+-=()aeioxhklmnpstjruv", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢₒₓₕₖₗₘₙₚₛₜⱼᵣᵤᵥ", strict=True))

#: A rendering shorter than this share of the raw text lost words (an unclosed group, a stray
#: ``\begin``): the raw text is the better read then.
KEPT_AT_LEAST = 0.5
RENDERED_KEPT = 4096  # texts whose rendering is kept (a few MB at most)


@lru_cache(maxsize=1)
def _converter() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


def tex_to_text(text: str) -> str:
    """``text`` with its TeX rendered as Unicode, whitespace collapsed; the raw text (collapsed) when the
    TeX can't be read. Never raises."""
    if not text or not _TEX_MARK.search(text):
        return " ".join(text.split())
    return _rendered(text)


@lru_cache(maxsize=RENDERED_KEPT)
def _rendered(text: str) -> str:
    # Kept: rendering takes milliseconds of CPU, and a paper message shows its title and abstract
    # several times over (text, blocks, reasons, the message updated after feedback).
    try:
        rendered = " ".join(_converter().latex_to_text(_prepared(text)).split())
    except Exception as exc:  # pylatexenc raises assorted errors on malformed input
        log.debug("showing raw TeX (%s: %s)", type(exc).__name__, exc)
        return " ".join(text.split())
    raw = " ".join(text.split())
    if len(rendered) < KEPT_AT_LEAST * len(raw) - 10 or not any(ch.isalnum() for ch in rendered):
        return raw
    return rendered


def _prepared(text: str) -> str:
    """``text`` with what TeX would swallow escaped, and math scripts turned into Unicode first."""
    text = _BARE.sub(r"\\\1", text)
    dollars = list(_DOLLAR.finditer(text))
    if len(dollars) % 2:  # a lone "$" is money, not math: the last one, so earlier pairs still render
        last = dollars[-1].start()
        text = text[:last] + "\\$" + text[last + 1:]
    return _MATH.sub(lambda m: _SCRIPT.sub(_script, m.group(0)), text)


def _script(match: re.Match[str]) -> str:
    """``^2`` as ``²``, ``_{ij}`` as ``ᵢⱼ``…; what has no Unicode script stays, grouped as ``^(2/3)``."""
    mark, body = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    table = _SUPERSCRIPT if mark == "^" else _SUBSCRIPT
    if body and all(ch in table for ch in body):
        return "".join(table[ch] for ch in body)
    return f"{mark}({body})" if len(body) > 1 else match.group(0)
