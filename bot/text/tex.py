"""TeX in titles and abstracts (``$\\Omega(\\sqrt{T})$``, ``{\\underline b}andits``) as readable Unicode.

Papers are stored as ingested; this runs when a paper is shown. Every formula (``$…$``, ``$$…$$``,
``\\(…\\)``, ``\\[…\\]``) reads as text: Greek letters and operators as their symbols, scripts as Unicode
sub- and superscripts (``θₜ₊₁``) or, where Unicode has none, as a compact span (``x^(2/3)``),
``\\frac{a}{b}`` as ``a/b``, ``\\sqrt{x}`` as ``√x``. No letter or digit of a formula is ever dropped, and
no ``\\command`` is ever shown: a command paperbot doesn't know shows its name (``\\manifoldmixup`` as
"manifoldmixup"), a wrapper it doesn't know (``\\foo{x}``) its argument. Outside formulas, accents,
quotes and dashes are rendered, and what abstracts hold that is not TeX is kept: a bare ``%`` or ``&``,
a lone ``$`` ("costs $10").

The reading is paperbot's own (a tokenizer and a small recursive reader): it never raises on malformed
input; a text too deeply nested to read shows without its backslashes and braces, and one whose
rendering leaves nothing shows as it is. pylatexenc's table of symbols is
consulted for the symbols not listed here.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import get_default_latex_context_db

log = logging.getLogger(__name__)

# Text without any of these has no TeX to render (most abstracts): it is returned as it is.
_TEX_MARK = re.compile(r"[\\${}]|``|''|--")
_TOKEN = re.compile(r"\\([A-Za-z]+)\*?|\\(.)|(\s+)|(.)", re.DOTALL)
RENDERED_KEPT = 4096  # texts whose rendering is kept (a few MB at most)

_SUPERSCRIPT = dict(zip(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφϕχ⊤′'*∗",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵠᵡᵀ′′**", strict=True))
_SUBSCRIPT = dict(zip("0123456789+-−=()aehijklmnoprstuvxβγρφϕχ",
                      "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵩᵪ", strict=True))

#: Symbols, beyond (or instead of) what pylatexenc's table says.
_SYMBOLS = {
    "le": "≤", "leq": "≤", "leqslant": "⩽", "ge": "≥", "geq": "≥", "geqslant": "⩾", "geqq": "≧",
    "leqq": "≦", "ne": "≠", "neq": "≠", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "cup": "∪", "cap": "∩", "sum": "∑", "prod": "∏",
    "int": "∫", "iint": "∬", "oint": "∮", "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "gets": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "Leftrightarrow": "⇔", "leftrightarrow": "↔",
    "implies": "⟹", "iff": "⟺", "mapsto": "↦", "longrightarrow": "⟶", "times": "×", "cdot": "·",
    "cdots": "⋯", "ldots": "…", "dots": "…", "approx": "≈", "sim": "∼", "simeq": "≃", "propto": "∝",
    "nabla": "∇", "partial": "∂", "pm": "±", "mp": "∓", "equiv": "≡", "forall": "∀", "exists": "∃",
    "neg": "¬", "lnot": "¬", "land": "∧", "wedge": "∧", "lor": "∨", "vee": "∨", "oplus": "⊕",
    "otimes": "⊗", "circ": "∘", "ast": "∗", "star": "⋆", "bullet": "•", "emptyset": "∅",
    "varnothing": "∅", "ell": "ℓ", "hbar": "ℏ", "prime": "′", "langle": "⟨", "rangle": "⟩",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "|": "‖", "Vert": "‖", "lVert": "‖",
    "rVert": "‖", "vert": "|", "lvert": "|", "rvert": "|", "mid": "|", "top": "⊤", "bot": "⊥",
    "perp": "⊥", "parallel": "∥", "ll": "≪", "gg": "≫", "lesssim": "≲", "gtrsim": "≳", "cong": "≅",
    "triangleq": "≜", "coloneqq": "≔", "setminus": "∖", "colon": ":", "Re": "ℜ", "Im": "ℑ",
    "div": "÷", "lbrace": "{", "rbrace": "}", "epsilon": "ϵ", "varepsilon": "ε", "eps": "ε",
    "textless": "<", "textgreater": ">", "textendash": "–", "textemdash": "—", "texttimes": "×",
    "textmu": "µ", "textbackslash": "\\", "copyright": "©", "textregistered": "®", "S": "§", "P": "¶",
    "pounds": "£", "euro": "€", "degree": "°", "textdegree": "°", "textbullet": "•", "item": "•",
    "LaTeX": "LaTeX", "TeX": "TeX", "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "etc": "etc.",
    "micro": "µ", "metre": "m", "meter": "m", "percent": "%", "R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ",
    "C": "ℂ", "E": "𝔼", "RR": "ℝ", "NN": "ℕ", "ZZ": "ℤ", "QQ": "ℚ", "CC": "ℂ", "EE": "𝔼", "PP": "ℙ",
    "Reals": "ℝ", "otilde": "Õ", "Ot": "Õ", "tO": "Õ", "tlO": "Õ", "softO": "Õ", "i": "ı", "j": "ȷ",
    ",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "-": "", "/": "", "@": "", "quad": " ",
    "qquad": " ", "enspace": " ", "thinspace": " ", "newline": " ", "par": " ",
    "{": "{", "}": "}", "%": "%", "$": "$", "#": "#", "&": "&", "_": "_",
}
#: Operators written as words (``\\log n``), and macros papers define for them.
_WORDS = {name: name for name in (
    "log ln lg exp max min sin cos tan cot sec csc sinh cosh tanh arcsin arccos arctan lim sup inf arg det "
    "dim ker hom deg gcd Pr argmax argmin poly polylog rank diag sign sgn softmax tr Tr Var Cov KL").split()}
_WORDS |= {"liminf": "lim inf", "limsup": "lim sup", "trace": "tr"}
#: Commands dropped with the arguments they take (layout, labels, citations).
_DROPPED = {"label": 1, "ref": 1, "eqref": 1, "cite": 1, "citep": 1, "citet": 1, "citealp": 1,
            "citeauthor": 1, "citeyear": 1, "hspace": 1, "vspace": 1, "phantom": 1, "hphantom": 1,
            "vphantom": 1, "color": 1, "nonumber": 0, "notag": 0, "displaystyle": 0, "textstyle": 0,
            "scriptstyle": 0, "limits": 0, "nolimits": 0, "mathstrut": 0, "strut": 0, "noindent": 0,
            "centering": 0, "small": 0, "large": 0, "Large": 0, "footnotesize": 0, "normalsize": 0,
            "huge": 0, "tiny": 0, "left": 0, "right": 0, "middle": 0, "big": 0, "Big": 0, "bigg": 0,
            "Bigg": 0, "bigl": 0, "bigr": 0, "Bigl": 0, "Bigr": 0, "biggl": 0, "biggr": 0, "Biggl": 0,
            "Biggr": 0, "char": 0, "protect": 0, "relax": 0, "ensuremath": 0}
#: Commands whose argument is shown as it is: text (read in text mode) or maths in a font.
_TEXT_BODY = {"text", "textrm", "textit", "textbf", "texttt", "textsf", "textsc", "textnormal", "emph",
              "mbox", "hbox", "textup", "textsl", "textmd", "fbox", "underline", "uline"}
_MATH_BODY = {"mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathnormal", "boldsymbol", "bm",
              "operatorname", "mathop", "mathrel", "mathbin", "mathord", "pmb", "substack", "mat", "vb"}
_DECLARATIONS = {"bf", "it", "em", "rm", "sc", "sl", "sf", "tt", "bfseries", "itshape", "scshape",
                 "rmfamily", "sffamily", "ttfamily", "upshape", "mdseries", "normalfont", "boldmath"}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
            "bar": "\u0304", "overline": "\u0305", "vec": "\u20d7", "overrightarrow": "\u20d7",
            "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306", "acute": "\u0301",
            "grave": "\u0300", "mathring": "\u030a"}
_LINES = {"\u0304", "\u0305", "\u0331"}
_TEXT_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
                 "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
                 "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331"}
_FRACTIONS = {"frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac"}
_DELIMITED = {"norm": ("‖", "‖"), "abs": ("|", "|"), "paren": ("(", ")"), "set": ("{", "}"),
              "ceil": ("⌈", "⌉"), "floor": ("⌊", "⌋"), }
#: Relations and operators given a space on both sides when the source spaced either side.
_SPACED = set("≤≥≠≈∼∝∈∉⊂⊆⊃⊇→←⇒⇐⇔↔↦⟹⟺⟶≪≫≲≳≡≃≅≜≔⩽⩾≦≧∋∖×±∓∪∩∧∨⊕⊗")
#: Outside brackets, any of these makes a fraction's part or a root's body need parentheses.
_OPERATORS = set(" +-−=<>±∓×·/,;:|≤≥≠≈∼∝∈∉⊂⊆∪∩→←⇒⇔↦∧∨⊕⊗∘…")
_SCRIPT_SIMPLE = re.compile(r"(\d+(\.\d+)?|\w[\u0300-\u036f\u20d7]*)[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ₐ-ₜᵢ-ᵪ₀-₎ᵃ-ᶿ′*]*")
#: What is left out of a text that can't be read: commands' backslashes, braces and dollars.
_UNREAD = re.compile(r"\\+([A-Za-z]*)|[{}$]")
#: One term as a denominator: "1/√n", "∂f/∂x".
_TERM = re.compile("[∂∇√]?" + _SCRIPT_SIMPLE.pattern)
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?)\]])(?=\s|$)")


def _alphabet(start: int, exceptions: str = "", letters: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ") -> dict:
    table = {ch: chr(start + i) for i, ch in enumerate(letters)}
    table.update(dict(zip(exceptions[::2], exceptions[1::2], strict=True)))
    return table


_MATHBB = _alphabet(0x1D538, "CℂHℍNℕPℙQℚRℝZℤ") | _alphabet(0x1D7D8, letters="0123456789")
_MATHCAL = _alphabet(0x1D49C, "BℬEℰFℱHℋIℐLℒMℳRℛ")
_MATHFRAK = _alphabet(0x1D504, "CℭHℌIℑRℜZℨ")
#: Commands that set their argument (``\\mathbb{R}``) in an alphabet; declarations (``{\\cal O}``) that set
#: the rest of their group.
_ALPHABETS = {"mathbb": _MATHBB, "Bbb": _MATHBB, "bbm": _MATHBB, "mathds": _MATHBB, "mathcal": _MATHCAL,
              "mathscr": _MATHCAL, "mathfrak": _MATHFRAK}
_ALPHABET_DECLARATIONS = {"cal": _MATHCAL, "scr": _MATHCAL, "frak": _MATHFRAK}


def tex_to_text(text: str) -> str:
    """``text`` with its TeX rendered as Unicode, whitespace collapsed; the raw text (collapsed) when the
    rendering leaves nothing. Never raises."""
    if not text or not _TEX_MARK.search(text):
        return " ".join(text.split())
    return _rendered(text)


def math_to_text(formula: str) -> str:
    """One formula's body (no ``$``) as Unicode text, whitespace collapsed."""
    return _tidy(_Reader(formula, math=True).read())


@lru_cache(maxsize=RENDERED_KEPT)
def _rendered(text: str) -> str:
    # Kept: a paper message shows its title and abstract several times over (text, blocks, reasons,
    # the message updated after feedback).
    raw = " ".join(text.split())
    try:
        chunks = split_formulas(text)
        rendered = _tidy("".join(_Reader(chunk, math=is_math).read() for chunk, is_math in chunks))
    except Exception as exc:  # nesting too deep to read, or a reader's bug: never a lost message
        log.warning("showing TeX unrendered (%s: %s)", type(exc).__name__, exc)
        rendered = ""
    # What can't be read, or reads as nothing, shows without its backslashes and braces, else as it is.
    return rendered or _tidy(_UNREAD.sub(r"\1", raw)) or raw


def _tidy(text: str) -> str:
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)


def split_formulas(text: str) -> list[tuple[str, bool]]:
    """``text`` as (chunk, is a formula) pairs, formulas without their delimiters. A ``$`` without a
    partner, or one opening "$10 … $" (money, not maths), is text."""
    out: list[tuple[str, bool]] = []
    last = 0
    for start, body, end, after in formula_spans(text):
        out += [(text[last:start], False), (text[body:end], True)]
        last = after
    out.append((text[last:], False))
    return [(chunk, is_math) for chunk, is_math in out if chunk]


def formula_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Where each formula of ``text`` is: (its start, its body's start, its body's end, its end)."""
    spans = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1:i + 2] in ("(", "["):
            closer = "\\)" if text[i + 1] == "(" else "\\]"
            end = text.find(closer, i + 2)
            if end > 0:
                spans.append((i, i + 2, end, end + 2))
                i = end + 2
                continue
            i += 2
        elif ch == "\\":
            i += 2
        elif ch == "$":
            delimiter = "$$" if text.startswith("$$", i) else "$"
            start = i + len(delimiter)
            end = _closing(text, delimiter, start)
            if end > 0 and not (text[start:start + 1].isdigit() and text[end - 1].isspace()):
                spans.append((i, start, end, end + len(delimiter)))
                i = end + len(delimiter)
                continue
            i = start
        else:
            i += 1
    return spans


def _closing(text: str, delimiter: str, start: int) -> int:
    at = text.find(delimiter, start)
    while at > 0 and text[at - 1] == "\\":
        at = text.find(delimiter, at + 1)
    return at


@lru_cache(maxsize=512)
def _known_symbol(name: str) -> str | None:
    """pylatexenc's Unicode for a symbol command it knows (``\\aleph``), or None."""
    spec = get_default_latex_context_db().get_macro_spec(name)
    repl = getattr(spec, "simplify_repl", None)
    if isinstance(repl, str) and repl.strip() and "%" not in repl and "\\" not in repl:
        return repl
    return None


class _Reader:
    """Reads TeX tokens into text; ``math`` says whether it is inside a formula."""

    def __init__(self, source: str, math: bool) -> None:
        self.tokens = [(m.lastindex, m.group(m.lastindex)) for m in _TOKEN.finditer(source)]
        self.at = 0
        self.math = math

    # Token kinds, by the group of _TOKEN that matched.
    COMMAND, SYMBOL, SPACE, CHAR = 1, 2, 3, 4

    def peek(self) -> tuple[int, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def next(self) -> tuple[int, str]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def skip_spaces(self) -> None:
        while (token := self.peek()) is not None and token[0] == self.SPACE:
            self.at += 1

    def read(self) -> str:
        """Everything up to the end, stray closing braces dropped."""
        out = []
        while self.peek() is not None:
            out.append(self.sequence())
            if self.peek() is not None:
                self.next()  # a "}" that closes nothing
        return "".join(out)

    def sequence(self) -> str:
        """Tokens up to the ``}`` that ends the current group (left for the caller) or the end."""
        out = ""
        while (token := self.peek()) is not None:
            kind, value = token
            if kind == self.CHAR and value == "}":
                return out
            self.at += 1
            if kind == self.SPACE:
                out += " "
            elif kind == self.CHAR:
                out += self.char(value, out)
            elif kind == self.SYMBOL:
                out += self.symbol(value)
            elif value in ("over", "choose", "atop"):
                rest = self.sequence()
                return _fraction(out, rest) if value == "over" else f"({out.strip()} choose {rest.strip()})"
            elif value in _ALPHABET_DECLARATIONS or value in _DECLARATIONS:
                rest = self.sequence()  # a declaration ({\cal O}, {\bf x}) holds to the group's end
                return out + _mapped(rest, _ALPHABET_DECLARATIONS.get(value, {}))
            else:
                if value in _WORDS and (out[-1:].isalnum() or out[-1:] in (")", "]", "′")):
                    out += " "  # \Delta_i\log T: the operator is a word of its own
                shown = self.command(value)
                if shown in _SPACED and (out[-1:] == " " or (self.peek() or (0, ""))[0] == self.SPACE):
                    out = out.rstrip() + f" {shown} "  # "x ≤y" and "x≤ y" read as "x ≤ y"
                    self.skip_spaces()
                    continue
                out += shown
                if out[-1:] in ("∂", "∇", "¬"):
                    self.skip_spaces()  # \partial f is ∂f: the operator binds to what follows
        return out

    def group(self) -> str:
        """A ``{…}`` group (its opening brace already read), its closing brace consumed."""
        inside = self.sequence()
        if self.peek() is not None:
            self.next()
        return inside

    def argument(self, math: bool | None = None) -> str:
        """The next argument: a group, a command, or one character; ``math`` switches the mode."""
        was, self.math = self.math, self.math if math is None else math
        try:
            self.skip_spaces()
            token = self.peek()
            if token is None:
                return ""
            if token == (self.CHAR, "}"):
                return ""  # a missing argument: the brace closes the group around it
            kind, value = self.next()
            if kind == self.CHAR and value == "{":
                return self.group()
            if kind == self.CHAR:
                return self.char(value, "")
            return self.symbol(value) if kind == self.SYMBOL else self.command(value)
        finally:
            self.math = was

    def optional(self) -> str | None:
        """An optional ``[…]`` argument, or None."""
        token = self.peek()
        if token is None or token != (self.CHAR, "["):
            return None
        self.next()
        out = ""
        while (token := self.peek()) is not None and token not in ((self.CHAR, "]"), (self.CHAR, "}")):
            out += self.argument()
        if self.peek() is not None:
            self.next()
        return out

    def verbatim(self) -> str:
        """A ``{…}`` argument as typed (a URL), less its backslashes."""
        self.skip_spaces()
        if self.peek() != (self.CHAR, "{"):
            return self.argument()
        self.next()
        out, depth = "", 0
        while self.peek() is not None:
            kind, value = self.next()
            if kind == self.CHAR and value == "}" and depth == 0:
                break
            depth += {"{": 1, "}": -1}.get(value, 0) if kind == self.CHAR else 0
            # \_ and \% in a URL are escapes; a command in one is no URL, and its backslash never shows
            out += "" if value == "\\" else value
        return out

    def char(self, ch: str, before: str) -> str:
        if ch == "{":
            return self.group()
        if ch == "\\":
            return ""  # a chunk's last character: the backslash of nothing
        if self.math:
            if ch in "^_":
                return self.script(ch)
            return {"~": " ", "&": " ", "'": "′"}.get(ch, ch)
        if ch in "^_" and self.peek() == (self.CHAR, "{") and before[-1:].isalnum():
            return self.script(ch)  # 10^{4} outside a formula
        if ch == "~":  # a tie ("Fig.~3") is a space; "by ~10%" means about
            return "~" if not before or before[-1].isspace() else " "
        if ch in "-`'":
            return self.ligature(ch)
        return ch

    def ligature(self, ch: str) -> str:
        """``--`` and ``---`` as dashes, two backticks or quotes as curly quotes."""
        run = 1
        while run < 3 and self.peek() == (self.CHAR, ch):
            self.next()
            run += 1
        if ch == "-":
            return {1: "-", 2: "–", 3: "—"}[run]
        pairs = {"`": ("‘", "“"), "'": ("’", "”")}[ch]
        return (pairs[1] * (run // 2)) + (pairs[0] * (run % 2)) if ch == "`" or run > 1 else "'"

    def script(self, mark: str, body: str | None = None) -> str:
        """A sub- or superscript: ``body``, else the next argument (see :func:`scripted`)."""
        return scripted(mark, self.argument(math=True) if body is None else body)

    def symbol(self, ch: str) -> str:
        if not self.math and ch in _TEXT_ACCENTS:
            return _accented(self.argument(), _TEXT_ACCENTS[ch])
        if ch == "\\":
            return " ; " if self.math else " "  # a new row of an array, a new line of text
        return _SYMBOLS.get(ch, ch)

    def command(self, name: str) -> str:
        """One command with its arguments."""
        if name in _DROPPED:
            return self.dropped(name)
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _WORDS:
            return _WORDS[name]
        if name in _TEXT_BODY:
            return self.argument(math=False)
        if name in _MATH_BODY:
            return self.argument()
        if name in _ALPHABETS:
            return _mapped(self.argument(), _ALPHABETS[name])
        if name in _ACCENTS or (not self.math and name in _TEXT_ACCENTS):
            return _accented(self.argument(), _ACCENTS.get(name) or _TEXT_ACCENTS[name])
        if name in _DELIMITED:
            opening, closing = _DELIMITED[name]
            return opening + self.argument() + closing
        if self.math and name in ("l", "r") and (self.peek() or (0, ""))[1] in ("(", ")", "[", "]", "|"):
            return ""  # \l( … \r): a paper's shorthand for \left( … \right)
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, name)
        if len(name) == 2 and name[0] in "cb" and name[1].isupper():
            return _MATHCAL[name[1]] if name[0] == "c" else name[1]  # \cA, \bX: a paper's own shorthand
        symbol = _known_symbol(name)
        if symbol is not None:
            return symbol
        if self.peek() == (self.CHAR, "{"):
            return ""  # a wrapper we don't know (\foo{x}): its argument shows, read next
        return name  # a paper's own macro (\vocabulary): its name reads better than nothing

    def dropped(self, name: str) -> str:
        for _ in range(_DROPPED[name]):
            self.optional()
            self.argument()
        if name in ("left", "right", "middle") and self.peek() == (self.CHAR, "."):
            self.next()
        return ""

    def environment(self, name: str) -> str:
        environment = self.argument()
        if name == "begin" and environment in ("array", "tabular"):
            self.argument()  # the column specification
        return " "

    def fraction(self, name: str) -> str:
        if name == "binom":
            shown = f"({self.argument().strip()} choose {self.argument().strip()})"
        else:
            shown = _fraction(self.argument(), self.argument())
        following = self.peek()
        if following is not None and (following[0] == self.COMMAND or following[1].isalnum()):
            shown += " "  # \frac{1}{2}\log n: what follows is no part of the denominator
        return shown

    def root(self, name: str) -> str:
        return _root(self.optional(), self.argument())

    def negation(self, name: str) -> str:
        negated = self.argument()
        return {"=": "≠", "∈": "∉", "⊂": "⊄", "⊆": "⊈", "|": "∤"}.get(negated, negated + "\u0338")

    def stacked(self, name: str) -> str:
        over, base = self.argument(), self.argument()
        return base + ("_" if name == "underset" else "^") + (f"({over})" if len(over) > 1 else over)

    def text_script(self, name: str) -> str:
        return self.script("^" if name == "textsuperscript" else "_", self.argument())

    def link(self, name: str) -> str:
        if name == "url":
            return self.verbatim()
        self.verbatim()
        return self.argument()

    def second(self, name: str) -> str:
        """\\textcolor{red}{x}: the second argument."""
        self.argument()
        return self.argument()

    def footnote(self, name: str) -> str:
        # No brackets around it: a footnote holding a formula is read in pieces, around the formula.
        return " " + self.argument()

    def units(self, name: str) -> str:
        return self.argument() + (" " + self.argument() if name == "SI" else "")


_HANDLERS = {
    "begin": _Reader.environment, "end": _Reader.environment, "binom": _Reader.fraction,
    **dict.fromkeys(_FRACTIONS, _Reader.fraction), "sqrt": _Reader.root, "not": _Reader.negation,
    "overset": _Reader.stacked, "stackrel": _Reader.stacked, "underset": _Reader.stacked,
    "textsuperscript": _Reader.text_script, "textsubscript": _Reader.text_script, "url": _Reader.link,
    "href": _Reader.link, "textcolor": _Reader.second, "footnote": _Reader.footnote, "SI": _Reader.units,
    "si": _Reader.units,
}


def scripted(mark: str, body: str) -> str:
    """``body`` as a superscript (``mark`` "^") or subscript ("_"): in Unicode when every character has
    a form (``ₜ₊₁``), else kept readable as ``^x`` or ``_(t+s)``."""
    body = " ".join(body.split())
    table = _SUPERSCRIPT if mark == "^" else _SUBSCRIPT
    compact = body.replace(" ", "")
    if not compact:
        return ""
    if all(ch in table for ch in compact):
        return "".join(table[ch] for ch in compact)
    if compact in ("*", "∗", "′", "′′") and mark == "^":
        return compact
    if len(compact) == 1 or _bracketed(body):
        return mark + body
    return f"{mark}({body})"


def _mapped(text: str, alphabet: dict[str, str]) -> str:
    return "".join(alphabet.get(ch, ch) for ch in text)


def _accented(body: str, mark: str) -> str:
    """``body`` with ``mark`` (a combining accent) on its first letter, or on every letter for a line
    over or under it (``\\overline{AB}`` as A̅B̅)."""
    body = body.replace("ı", "i").replace("ȷ", "j")  # \"\i is ï
    every = mark in _LINES
    out, marked = [], False
    for ch in body:
        out.append(ch + mark if ch.isalnum() and (every or not marked) else ch)
        marked = marked or ch.isalnum()
    return "".join(out)


def _bracketed(text: str) -> bool:
    """Whether ``text`` is one bracketed group: "(a+b)" but not "(a)+(b)"."""
    if len(text) < 2 or (text[0], text[-1]) not in (("(", ")"), ("[", "]"), ("{", "}")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def _simple(text: str) -> bool:
    """Whether ``text`` reads as one term (no operator or space outside brackets)."""
    depth = 0
    for ch in text:
        depth += 1 if ch in "([{⟨" else -1 if ch in ")]}⟩" else 0
        if depth == 0 and ch in _OPERATORS:
            return False
    return True


def _fraction(numerator: str, denominator: str) -> str:
    """a/b, a part in parentheses where it would read wrong: a numerator with an operator ("(n-1)/n"),
    a denominator of more than one term ("1/(αϵ)")."""
    top, bottom = " ".join(numerator.split()), " ".join(denominator.split())
    top = top if _simple(top) or _bracketed(top) else f"({top})"
    if not (not bottom or _TERM.fullmatch(bottom) or _bracketed(bottom.lstrip("∂∇√"))):
        bottom = f"({bottom})"
    return f"{top}/{bottom}"


def _root(degree: str | None, body: str) -> str:
    body = " ".join(body.split())
    radical = "√"
    if degree:  # ³√x rather than ∛x: the degree stays a digit to search and copy
        degree = degree.strip()
        radical = ("".join(_SUPERSCRIPT[c] for c in degree) if all(c in _SUPERSCRIPT for c in degree)
                   else f"({degree})") + "√"
    return radical + (body if _SCRIPT_SIMPLE.fullmatch(body) or _bracketed(body) else f"({body})")
