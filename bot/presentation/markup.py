"""Markup that papers arrive with, read as plain text; and plain text made safe for Slack's mrkdwn.

Titles and abstracts come from many sources: some carry Markdown emphasis (``**Blockwise** LR``), HTML
entities (``&amp;``, ``&#39;``) or simple HTML and JATS tags (``<i>``, ``<sub>2</sub>``, ``<br>``).
:func:`clean_markup` reads them as the plain text they stand for (``<sub>2</sub>`` as ``₂``), leaving
formulas (``$x_t$``) for the TeX reader and never touching what only looks like markup: ``snake_case``
words, "p < 0.05*", "a * b". :func:`mrkdwn` then makes plain text safe to place in a Slack message
(:func:`escape`, the one escaping of Slack's control characters, and no more).
"""

from __future__ import annotations

import html
import re

from bot.text.tex import formula_spans, scripted

#: An entity with its semicolon (``&amp;``, ``&#39;``, ``&#x2019;``); "R&D" and "AT&T;" stay.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ATTRIBUTES = r"""(?:\s+[\w:-]+=(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>]+))*\s*"""
#: An inline tag with its closing tag (``<i>x</i>``, ``<jats:italic>``), or a tag that breaks a line
#: or a paragraph (``<br/>``, ``</p>``): "p < 0.05 and q > 1" and "x <b and y>" hold none.
_PAIRED = re.compile(r"<((?:jats:)?(?:i|b|em|strong|u|tt|code|sc|small|big|span|font|italic|bold|"
                     r"sc|underline|monospace))" + _ATTRIBUTES + r">(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_SCRIPT_TAG = re.compile(r"<((?:jats:)?(sub|sup))" + _ATTRIBUTES + r">([^<>]{0,40})</\1\s*>", re.IGNORECASE)
_BREAK = re.compile(r"</?(?:jats:)?(?:br|p|div|title|sec)" + _ATTRIBUTES + r"/?>", re.IGNORECASE)
#: Markdown emphasis: a pair of markers hugging non-space text, neither inside a word (``snake_case``,
#: ``2*3*4``); strong before single so that ``*A **B** c*`` comes apart. Then code spans and links.
_MARKDOWN = [
    re.compile(r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])"),
    re.compile(r"(?<![\w_\\])__(?=\S)(.+?)(?<=\S)__(?![\w_])"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])"),
    re.compile(r"(?<![\w_\\])_(?=[^\s_])(.+?)(?<=[^\s_\\])_(?![\w_])"),
    re.compile(r"(?<![`\w])`([^`\n]+)`(?![`\w])"),
    re.compile(r"\[([^\[\]\n]+)\]\((?:https?://|www\.)[^()\s]+\)"),
]
#: Slack mrkdwn's formatting characters, each with a look-alike that formats nothing.
_LOOK_ALIKES = {"*": "∗", "_": "ˍ", "~": "∼", "`": "ˋ"}
#: A formatting character that could open or close formatting: not between two letters or digits.
_FORMATTING = re.compile(r"(?<![^\W_])[*_~`]|[*_~`](?![^\W_])")


def clean_markup(text: str) -> str:
    """``text`` with its HTML entities decoded, simple HTML tags read (``<sub>2</sub>`` as ``₂``, a
    ``<br>`` as a space, ``<i>x</i>`` as ``x``) and Markdown emphasis, code spans and links taken off,
    outside its formulas."""
    if not text or not any(mark in text for mark in "&<*_`["):
        return text
    text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    text = _SCRIPT_TAG.sub(lambda m: scripted("_" if m.group(2).lower() == "sub" else "^", m.group(3)), text)
    for _ in range(3):  # <b><i>x</i></b>: a few levels deep
        text = _PAIRED.sub(r"\2", text)
    text = _BREAK.sub(" ", text)
    return _outside_formulas(text, _markdown_off)


def escape(text: str) -> str:
    """Escape Slack's three control characters, and only those: the one place text is made so."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(text: str) -> str:
    """Plain ``text`` as Slack mrkdwn that shows it as it is: ``&``, ``<`` and ``>`` escaped (so it can
    never form a mention or a link), and each ``*``, ``_``, ``~`` or backtick that could start or end
    formatting replaced by a look-alike (``∗``, ``ˍ``, ``∼``, ``ˋ``); one inside a word stays."""
    return _FORMATTING.sub(lambda m: _LOOK_ALIKES[m.group(0)], escape(text))


def _markdown_off(text: str) -> str:
    for pattern in _MARKDOWN:
        text = pattern.sub(r"\1", text)
    return text


def _outside_formulas(text: str, change) -> str:
    out, last = [], 0
    for start, _, _, end in formula_spans(text):
        out += [change(text[last:start]), text[start:end]]
        last = end
    out.append(change(text[last:]))
    return "".join(out)
