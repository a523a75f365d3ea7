"""A small renderer of Slack's Block Kit to HTML that looks like Slack, for the README's pictures.

It knows the blocks paperbot's messages and App Home use (header, section with mrkdwn or plain text and a
button accessory, context, actions with buttons, divider) and Slack's mrkdwn (bold, italic, strike, code,
links, ``<!date^…>``, the emoji shortcodes paperbot writes). A block or element it doesn't know raises
ValueError, so a view that starts sending something new fails ``make pictures`` instead of being drawn wrong.
Independent of paperbot: plain dicts in, an HTML page out.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

#: The shortcodes paperbot writes, as Slack shows them.
EMOJI = {
    "newspaper": "📰", "+1": "👍", "-1": "👎", "thumbsup": "👍", "thumbsdown": "👎", "bookmark": "🔖",
    "warning": "⚠️", "heart": "❤️", "star": "⭐", "fire": "🔥", "hourglass_flowing_sand": "⏳",
    "wave": "👋", "tada": "🎉", "white_check_mark": "✅", "mag": "🔍", "books": "📚",
}

_SPECIAL = re.compile(r"<([^<>]*)>")
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")
_EMOJI = re.compile(r":([a-z0-9_+\-]+):")


class Renderer:
    """Block Kit to HTML as seen by a reader in ``tz`` (Slack formats ``<!date^…>`` in their timezone)."""

    def __init__(self, tz: str = "UTC"):
        self.tz = ZoneInfo(tz)

    # -- mrkdwn ------------------------------------------------------------------------------------

    def mrkdwn(self, text: str) -> str:
        """Slack mrkdwn (escaped as Slack wants: ``&amp;``, ``&lt;``, ``&gt;``) as HTML; a line that
        starts with ``>`` is a quote, drawn with a bar at its left as Slack draws it."""
        lines = text.split("\n")
        out = []
        for i, line in enumerate(lines):
            if line.startswith(">"):
                out.append(f'<span class="quote">{self._line(line[1:].lstrip())}</span>')
            else:
                out.append(self._line(line) + ("<br>" if i < len(lines) - 1 else ""))
        return "".join(out)

    def _line(self, text: str) -> str:
        out, last = [], 0
        for match in _SPECIAL.finditer(text):
            out.append(self._formatted(text[last:match.start()]))
            out.append(self._special(match.group(1)))
            last = match.end()
        out.append(self._formatted(text[last:]))
        return "".join(out)

    def _formatted(self, text: str) -> str:
        codes: list[str] = []

        def keep_code(match: re.Match) -> str:
            codes.append(f"<code>{_plain(match.group(1))}</code>")
            return f"\x00{len(codes) - 1}\x00"

        text = _CODE.sub(keep_code, text)
        text = _plain(text)
        text = _BOLD.sub(r"<b>\1</b>", text)
        text = _ITALIC.sub(r"<i>\1</i>", text)
        text = _STRIKE.sub(r"<s>\1</s>", text)
        text = _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text)
        return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)

    def _special(self, inner: str) -> str:
        target, _, label = inner.partition("|")
        if target.startswith("!date^"):
            return html.escape(self._date(target, label))
        if target.startswith(("@", "#", "!")):
            return f'<span class="mention">{html.escape(label or target)}</span>'
        shown = self._formatted(label) if label else _plain(target)
        return f'<a href="{html.escape(_unescaped(target))}">{shown}</a>'

    def _date(self, target: str, fallback: str) -> str:
        """``!date^TIMESTAMP^FORMAT``: the tokens paperbot uses, as Slack shows them in English."""
        parts = target.split("^")
        try:
            at = datetime.fromtimestamp(int(parts[1]), UTC).astimezone(self.tz)
        except (IndexError, ValueError):
            return _unescaped(fallback)
        text = parts[2] if len(parts) > 2 else "{date_short_pretty}"
        tokens = {"{date_short_pretty}": f"{at:%b} {ordinal(at.day)}, {at.year}",
                  "{date_long}": f"{at:%A}, {at:%B} {ordinal(at.day)}, {at.year}",
                  "{time}": f"{at:%I:%M %p}".lstrip("0")}
        for token, value in tokens.items():
            text = text.replace(token, value)
        return text

    # -- blocks ------------------------------------------------------------------------------------

    def text_object(self, obj: dict) -> str:
        if obj.get("type") == "mrkdwn":
            return self.mrkdwn(obj["text"])
        if obj.get("type") == "plain_text":
            text = _plain(obj["text"])
            return _EMOJI.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text) if obj.get("emoji") else text
        raise ValueError(f"unknown text object {obj.get('type')!r}")

    def element(self, element: dict) -> str:
        kind = element.get("type")
        if kind == "button":
            style = element.get("style")
            css = f"button {style}" if style in ("primary", "danger") else "button"
            return f'<span class="{css}">{self.text_object(element["text"])}</span>'
        if kind in ("mrkdwn", "plain_text"):
            return f"<span>{self.text_object(element)}</span>"
        raise ValueError(f"unknown element {kind!r}")

    def block(self, block: dict) -> str:
        kind = block.get("type")
        if kind == "header":
            return f'<div class="header">{self.text_object(block["text"])}</div>'
        if kind == "divider":
            return '<hr class="divider">'
        if kind == "section":
            unknown = set(block) - {"type", "text", "accessory", "block_id"}
            if unknown:
                raise ValueError(f"a section with {sorted(unknown)}")
            accessory = block.get("accessory")
            side = f'<div class="accessory">{self.element(accessory)}</div>' if accessory else ""
            return (f'<div class="section"><div class="text">{self.text_object(block["text"])}</div>'
                    f"{side}</div>")
        if kind == "context":
            items = "".join(self.element(e) for e in block["elements"])
            return f'<div class="context">{items}</div>'
        if kind == "actions":
            items = "".join(self.element(e) for e in block["elements"])
            return f'<div class="actions">{items}</div>'
        raise ValueError(f"unknown block {kind!r}")

    def blocks(self, blocks: list[dict]) -> str:
        return "".join(self.block(b) for b in blocks)

    def message(self, message: dict) -> str:
        """One chat.postMessage's content: its blocks, or its text when it has none (as Slack shows it)."""
        if message.get("blocks"):
            return self.blocks(message["blocks"])
        return f'<div class="section"><div class="text">{self.mrkdwn(message["text"])}</div></div>'


def ordinal(day: int) -> str:
    """1st, 2nd, 3rd, 4th… as Slack writes a day of the month."""
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _unescaped(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _plain(text: str) -> str:
    """Slack-escaped text as HTML-escaped text."""
    return html.escape(_unescaped(text), quote=False)


CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #ffffff; color: #1d1c1d; font: 15px/1.46668 Lato, "Helvetica Neue", Helvetica,
       "Segoe UI", Arial, "Noto Color Emoji", sans-serif; -webkit-font-smoothing: antialiased; }
.window { width: 100%; border: 1px solid #dddddd; }
.bar { display: flex; align-items: center; gap: 10px; padding: 10px 20px 0;
       border-bottom: 1px solid #e2e2e2; }
.bar .name { font-weight: 900; font-size: 18px; padding-bottom: 8px; }
.bar .tabs { display: flex; gap: 18px; margin-left: 16px; font-size: 14px; color: #616061; }
.bar .tab { padding-bottom: 9px; }
.bar .tab.on { color: #1d1c1d; font-weight: 700; border-bottom: 2px solid #1264a3; }
.day { display: flex; align-items: center; margin: 14px 20px 4px; color: #1d1c1d; font-size: 13px;
       font-weight: 700; }
.day::before, .day::after { content: ""; flex: 1; border-top: 1px solid #e2e2e2; }
.day span { border: 1px solid #e2e2e2; border-radius: 24px; padding: 2px 14px; margin: 0 8px; }
.message { display: flex; gap: 8px; padding: 8px 20px; }
.message.more { padding-top: 2px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 6px; background: #e8f0fa; font-size: 22px;
          display: flex; align-items: center; justify-content: center; }
.message.more .avatar { visibility: hidden; height: 0; }
.body { flex: 1; min-width: 0; }
.who { margin-bottom: 2px; }
.who b { font-weight: 900; }
.badge { background: #e8e8e8; color: #616061; font-size: 10px; font-weight: 700; border-radius: 2px;
         padding: 1px 3px; margin: 0 4px; vertical-align: 2px; }
.when { color: #616061; font-size: 12px; }
.section { display: flex; gap: 12px; margin: 4px 0; }
.section .text { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.accessory { flex: 0 0 auto; }
.header { font-size: 18px; font-weight: 900; margin: 6px 0 8px; }
.context { color: #616061; font-size: 13px; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 10px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 4px; }
.button { display: inline-block; border: 1px solid #c4c4c4; border-radius: 4px; padding: 3px 12px;
          font-size: 13px; font-weight: 700; background: #ffffff; white-space: nowrap; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #ffffff; }
.button.danger { background: #e01e5a; border-color: #e01e5a; color: #ffffff; }
hr.divider { border: 0; border-top: 1px solid #e2e2e2; margin: 12px 0; }
a { color: #1264a3; text-decoration: none; }
code { font: 12px Menlo, Monaco, "DejaVu Sans Mono", monospace; color: #e01e5a; background: #f6f6f6;
       border: 1px solid #e2e2e2; border-radius: 3px; padding: 1px 3px; }
.mention { color: #1264a3; background: #e8f5fa; border-radius: 3px; padding: 0 2px; }
.quote { display: block; border-left: 4px solid #dddddd; padding-left: 12px; margin: 2px 0; }
.home { padding: 12px 28px 20px; }
"""


def page(title: str, body: str) -> str:
    """A whole HTML page around ``body``, with Slack-like styles."""
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>\n")


def bar(name: str, tabs: list[str], active: str) -> str:
    """The top of a conversation with an app: its name and tabs."""
    shown = "".join(f'<span class="tab{" on" if tab == active else ""}">{html.escape(tab)}</span>'
                    for tab in tabs)
    return (f'<div class="bar"><span class="name">{html.escape(name)}</span>'
            f'<div class="tabs">{shown}</div></div>')


def dm_page(app: str, day: str, when: str, messages: list[dict], tz: str = "UTC", avatar: str = "📰") -> str:
    """An app's messages in its DM, grouped under one name and avatar as Slack groups a burst of them."""
    renderer = Renderer(tz)
    parts = [bar(app, ["Home", "Messages", "About"], "Messages"),
             f'<div class="day"><span>{html.escape(day)}</span></div>']
    for i, message in enumerate(messages):
        who = (f'<div class="who"><b>{html.escape(app)}</b><span class="badge">APP</span>'
               f'<span class="when">{html.escape(when)}</span></div>') if i == 0 else ""
        more = "" if i == 0 else " more"
        parts.append(f'<div class="message{more}"><div class="avatar">{html.escape(avatar)}</div>'
                     f'<div class="body">{who}{renderer.message(message)}</div></div>')
    return page(f"{app}: messages", '<div class="window">' + "".join(parts) + "</div>")


def home_page(app: str, view: dict, tz: str = "UTC") -> str:
    """An app's Home tab showing ``view`` (a ``views.publish`` view of type home)."""
    if view.get("type") != "home":
        raise ValueError(f"not a Home view: {view.get('type')!r}")
    body = Renderer(tz).blocks(view["blocks"])
    return page(f"{app}: Home", f'<div class="window">{bar(app, ["Home", "Messages", "About"], "Home")}'
                                f'<div class="home">{body}</div></div>')
