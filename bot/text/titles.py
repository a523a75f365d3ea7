"""Titles for papers that come without one: a short, title-like line derived from the abstract.

Most abstracts say what the paper contributes in one of their first sentences ("We propose X, a …",
"This paper studies …"): that object names the paper much as its real title does, so it is the title,
cut where a part of the phrase ends. Of several, one that names something particular wins over one made
of words every paper says ("a principled approach with provable performance guarantees"), and what is
made or studied over a finding or a question ("how to …"). Without one, the first sentence's main clause
is, after any opener that says nothing ("It is well known that"). Whichever way, a title never ends on
a function word, a verb left without its object or a noun asking for more ("for its ability"). Measured
against real titles by ``benchmarks/derived_titles.py``. Pure string work: no parser, no model.
"""

from __future__ import annotations

import re

from bot.text.tex import tex_to_text
from bot.text.whitespace import collapse_ws

#: Longest derived title, "…" included.
TITLE_LIMIT = 90
#: Most words of a derived title: about what a paper's real title has…
MAX_TITLE_WORDS = 12
#: …or a little more when it is a whole first sentence, which reads better than one cut.
MAX_SENTENCE_WORDS = 16
#: A first clause this short ("In this paper", "Recently") leads in and is left out of the title.
MAX_LEAD_IN_WORDS = 4
# First words of a short opening clause that leads in ("In this work,", "Recently,", "However,").
_LEAD_IN_STARTS = frozenset(
    "in here recently however moreover furthermore additionally nowadays today traditionally typically "
    "currently historically consequently therefore thus hence specifically notably importantly "
    "although though while despite unlike to for as over with since given motivated inspired".split()
)
# Openers of a first sentence that say nothing of the paper: what follows them is the title.
_OPENER = re.compile(
    r"(?:it (?:is|has been|was|has long been) (?:(?:well|widely|commonly|generally|now|often|long|"
    r"increasingly|empirically) )?(?:known|shown|observed|believed|accepted|recognized|recognised|"
    r"established|argued|noted|understood|acknowledged|conjectured|reported) that|(?:recent|prior|previous|"
    r"much|a lot of|a large body of|extensive|empirical) (?:work|works|studies|research|results|evidence|"
    r"literature) (?:has|have) (?:shown|demonstrated|suggested|found|established) that)\s+",
    re.IGNORECASE)
#: A shorter clause says too little to be a title…
MIN_CLAUSE_WORDS = 3
#: …and one shorter than this takes the next clause too when that fits.
ENOUGH_CLAUSE_WORDS = 6
# Words a title-like line must not end on: it would read as cut off. Function words…
_DANGLING = frozenset(
    "a an and are as at based but by for from in including into is its like of on or our such than that the "
    "their these this to using via was we were which while whose with within without onto upon over under "
    "about after before during between among across through towards toward against per versus vs unlike "
    "despite beyond behind when where whether if how what why who whom his her those not no".split()
) | frozenset(  # …verbs left without their object or complement ("to use", "named", "It is well known")…
    "use uses enables enable enabling allows allow allowing makes make making provides provide providing "
    "yields yield achieves achieve requires require leverages leverage exploits exploit gives give shows "
    "show propose proposes present presents introduce introduces called termed named dubbed known aims aim "
    "seeks seek tries try lets let involves include includes become becomes consists relies depends refers "
    "lies".split()
) | frozenset(  # …and words that ask for what follows ("for its ability [to …]", "capable [of]").
    "ability abilities capability capabilities capacity inability tendency propensity capable able unable"
    .split()
)
# Endings of adverbs ("jointly", "efficiently"), kept apart from "family", "anomaly", "supply".
_ADVERB_ENDINGS = ("ally", "ently", "antly", "ively", "ously", "ately", "edly", "ingly", "ibly", "ably",
                   "ctly", "rly", "tly", "sely", "vely", "ply")

# A sentence ends at . ! or ? followed by a capitalised word (or the end). Requiring the capital
# keeps "e.g., route planning" and "en.wikipedia.org" inside their sentence; "Merullo et al. (2024)
# showed", "i.e. X" and "Fig. 2" go on too.
_SENTENCE_END = re.compile(r"(?<!\bet al)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)(?<!\bFig)(?<!\bEq)"
                           r"(?<!\bresp)[.!?](?=\s+[A-Z\"'(\[]|\s*$)")
# Where a clause ends inside a sentence: a comma, semicolon or colon, a dash, an opening bracket.
_CLAUSE_END = re.compile(r"[,;:](?=\s)|\s[–—]\s|\s--?\s|\s(?=\()")


def derive_title(abstract: str, limit: int = TITLE_LIMIT) -> str:
    """A short, title-like line for an untitled paper (see :func:`split_title`)."""
    return split_title(abstract, limit)[0]


def split_title(abstract: str, limit: int = TITLE_LIMIT) -> tuple[str, str]:
    """A title-like line for ``abstract``, and the abstract text to show below it.

    The title comes from the contribution sentence when one of the first few says what the paper does:
    "We propose DRAGO, a novel approach for …" gives "DRAGO: An approach for …", "This paper studies the
    problem of X" gives "X", "We show that X" gives "X", "a framework that casts …" reads "a framework
    casting …". It is cut to at most ``MAX_TITLE_WORDS`` words and ``limit`` characters where a part of
    the phrase ends (before "that", "for", "by", a bracket, at a comma…), never on a function word, a
    dangling verb ("named", "to use") or a noun asking for more ("its ability"), nor inside brackets or
    ``$…$``. A contribution naming nothing particular, or a question ("how to …"), gives way to another.
    Without such a sentence it is the first sentence's main clause (see :func:`first_sentence_title`), cut
    the same way rather than with "…" when the clause is too long.

    What is shown below never repeats the title at its start: when the title came from the first
    sentence, it is the text after what the title took (led by "…" inside a sentence, "" when nothing is
    left); when it came from a later sentence, the title is a phrase from the middle and the abstract
    is shown whole, as under a real title.
    """
    text = collapse_ws(abstract)
    sentences = _sentences(text)
    # (whether it names nothing, how well it names the paper, sentence, title, where what it took ends)
    found = []
    for k, (begin, end) in enumerate(sentences[:MAX_CONTRIBUTION_SENTENCE]):
        contribution = _contribution_title(text[begin:end], begin, limit)
        if contribution is not None:
            title, taken, kind = contribution
            # "We study how to X" asks a question; a question names the paper no better than a claim.
            rank = _KIND_RANK["claim" if title.split()[0].lower() in _QUESTIONS else kind]
            found.append((_says_little(title), rank, k, title, taken))
    if not found:
        return _whole_phrase(text, *_first_sentence_line(text, limit))
    *_rank, k, title, taken = min(found)
    return _whole_phrase(text, title, text if k else _rest_after(text, taken, sentences[0][1]))


_QUESTIONS = frozenset("how whether what why when which".split())
# Words every paper says of its contribution: a title of these only ("A principled approach with
# provable performance guarantees") names nothing.
_GENERIC = frozenset(
    "approach approaches method methods framework frameworks algorithm algorithms technique techniques "
    "model models principled provable provably performance guarantee guarantees novel new simple effective "
    "efficient general generic unified unifying theoretical analysis analyses study problem problems task "
    "tasks way ways scheme strategy solution solutions insight insights result results paper work theory "
    "practice practical empirical class family set number variety range important key fundamental "
    "challenging challenge recent widely popular state art strong improved better good first main "
    "alternative standard typical notion question limits attention significant field area areas "
    "application applications proposed thorough wide case cases setting settings rather".split()
)


def _is_named(title: str) -> bool:
    """Whether ``title`` names a method: a word spelled as a name ("DRAGO", "FlexTok", "UCB-TQL")."""
    return any(_NAME_LIKE.search(word) for word in title.split())


_NAME_LIKE = re.compile(r"^[(\[]?[A-Za-z0-9-]*(?:[a-z0-9][A-Z]|[A-Z]{2})")


def _says_little(title: str) -> bool:
    """Whether ``title`` names nothing particular: no name, and fewer than two words that are neither
    function words nor words every paper uses of its contribution."""
    if _is_named(title):
        return False
    words = [w.strip(".,;:()[]*\"'").lower() for w in title.split()]
    particular = [w for w in words if w.replace("-", "").isalpha() and w not in _GENERIC and not _dangles(w)
                  and w not in _ALSO_DANGLING and w not in _EMPTY_OBJECTS]
    return not particular


def _whole_phrase(text: str, title: str, rest: str) -> tuple[str, str]:
    """``title`` without the words it would end on mid-phrase ("The notion of", a whole abstract that
    short), which go back to the start of ``rest`` when that goes on from the title; a title of such
    words only is left as it is."""
    words = title.removesuffix("…").split(" ")
    kept = list(words)
    while len(kept) > 1 and _ends_mid_phrase(kept):
        kept.pop()
    if len(kept) == len(words):
        return title, rest
    short = " ".join(kept).rstrip(" ,;:-–—(")
    if rest == text:  # a phrase from a later sentence: the abstract is shown whole below it
        return short, rest
    tail = " ".join(words[len(kept):])
    body = rest.removeprefix("…")
    at = text.rfind(tail, 0, len(text) - len(body) if body else len(text))
    return short, ("…" + text[at:] if at >= 0 else rest)


def _ends_mid_phrase(words: list[str]) -> bool:
    """Whether ``words`` end on a word they must not end on, as a reader sees them: a TeX macro the
    reader never sees ("proving that \\rsgd") does not end them."""
    if "\\" in words[-1]:
        shown = tex_to_text(" ".join(words)).split()
        return not shown or _dangles(shown[-1])
    return _dangles(words[-1])


def _sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends (its full stop left out)."""
    spans, begin = [], 0
    for end in _SENTENCE_END.finditer(text):
        spans.append((begin, end.start()))
        begin = end.end() + (len(text[end.end():]) - len(text[end.end():].lstrip()))
    if begin < len(text):
        spans.append((begin, len(text)))
    return spans


def _rest_after(text: str, taken: int, sentence_end: int) -> str:
    """The text after the first ``taken`` characters, a sentence's end (at ``sentence_end``) skipped."""
    if taken >= sentence_end:
        return text[sentence_end + 1:].strip()
    return _continued(text, taken)


def _first_sentence_line(text: str, limit: int) -> tuple[str, str]:
    """:func:`first_sentence_title`, with a too-long clause ended where a part of it ends instead of "…"."""
    title, rest = first_sentence_title(text, limit)
    if not title.endswith("…"):
        return title, rest
    end = _SENTENCE_END.search(text)
    sentence = text[: end.start()] if end else text
    start = _opener_end(sentence, _lead_in_end(sentence))
    taken = _phrase(_tokens(sentence, start, 0), MAX_TITLE_WORDS, limit, MIN_CLAUSE_WORDS)
    if taken is None:
        return title, rest
    tidy = _capitalised if start else str
    return tidy(_joined(taken)), _continued(text, taken[-1][1])


def first_sentence_title(abstract: str, limit: int = TITLE_LIMIT) -> tuple[str, str]:
    """A title-like line from the start of ``abstract``, and the abstract text after what it took.

    An opener that says nothing of the paper ("It is well known that", "Recent work has shown that") is
    left out. The title is the first sentence when it is short (at most ``MAX_SENTENCE_WORDS`` words and
    ``limit`` characters, full stop dropped), else that sentence's first clause (with the next ones while
    it is very short), after a short lead-in such as "In this paper," (which is skipped). Only when no clause
    is short enough is it cut at a word, before any dangling "of", "the", "such as"…, ending in "…".
    The rest is what a reader has not seen yet: the next sentences, or the remainder of the first one
    led by "…"; "" when the title took everything.
    """
    text = collapse_ws(abstract)
    end = _SENTENCE_END.search(text)
    sentence = text[: end.start()] if end else text
    after = text[end.end():].strip() if end else ""
    lead = _lead_in_end(sentence)
    start = _opener_end(sentence, lead)
    if start > lead and _words(sentence[start:]) <= MAX_SENTENCE_WORDS and len(sentence) - start <= limit:
        return _capitalised(sentence[start:]), after  # "It is well known that X." is X
    if start == lead and _words(sentence) <= MAX_SENTENCE_WORDS and len(sentence) <= limit:
        return sentence, after
    tidy = _capitalised if start else str
    best = None  # (clause, where it ends)
    for boundary in _CLAUSE_END.finditer(sentence, start):
        clause = sentence[start: boundary.start()].strip()
        if not _fits(clause, limit):
            break
        if _words(clause) >= MIN_CLAUSE_WORDS and not _dangles(clause.split()[-1]):
            best = clause, boundary.start()
            if _words(clause) >= ENOUGH_CLAUSE_WORDS:  # "We propose DRAGO" takes its ", a …" too
                break
    if best is not None:
        return tidy(best[0]), _continued(text, best[1])
    title = _cut(sentence[start:], limit)
    return tidy(title) + "…", _continued(text, start + len(title))


def _words(text: str) -> int:
    return len(text.split())


def _lead_in_end(sentence: str) -> int:
    """Where ``sentence`` starts after a short lead-in clause ("In this paper,", "Recently,"); 0 without."""
    first = _CLAUSE_END.search(sentence)
    if first and _is_lead_in(sentence[: first.start()]):
        return len(sentence) - len(sentence[first.end():].lstrip())
    return 0


def _opener_end(sentence: str, start: int) -> int:
    """Where ``sentence`` goes on after an opener that says nothing of the paper ("It is well known
    that", "Recent work has shown that") at ``start``; ``start`` without one."""
    found = _OPENER.match(sentence, start)
    return found.end() if found and found.end() < len(sentence) else start


def _is_lead_in(clause: str) -> bool:
    words = clause.split()
    return 0 < len(words) <= MAX_LEAD_IN_WORDS and words[0].lower() in _LEAD_IN_STARTS


def _fits(text: str, limit: int) -> bool:
    return _words(text) <= MAX_TITLE_WORDS and len(text) <= limit


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` of whole words that fits (with an "…" after it), without a dangling
    function word or punctuation at its end; a single word longer than that is cut inside."""
    words = text.split(" ")[:MAX_TITLE_WORDS]
    while len(words) > 1 and (len(" ".join(words)) > limit - 1 or _dangles(words[-1])
                              or " ".join(words).count("$") % 2):  # nor inside $…$
        words.pop()
    cut = " ".join(words)[: limit - 1]
    stripped = cut.rstrip(" ,;:-–—(")
    return stripped or cut


def _dangles(word: str) -> bool:
    return word.lower() in _DANGLING or word[-1:] in ",;:-–—(" or _is_adverb(word)


def _is_adverb(word: str) -> bool:
    """Whether ``word`` is an adverb in "-ly" ("densely", "jointly"): a title ending on one is cut off."""
    return word.isalpha() and word.lower().endswith(_ADVERB_ENDINGS)


def _capitalised(title: str) -> str:
    first = title.split(" ", 1)[0]
    if any(c.isupper() for c in first[1:]):  # "t-SNE", "pLSA" are spelled so on purpose
        return title
    return title[:1].upper() + title[1:]


def _continued(text: str, taken: int) -> str:
    """What follows the first ``taken`` characters of ``text``, led by "…" (it goes on a sentence)."""
    rest = text[taken:].lstrip(" ,;:-–—")
    return "…" + rest if rest else ""


# --- The contribution sentence: "We propose X, a …", "This paper studies X", "Here we show that X". ---

# Who contributes, and the verbs that say what: they make something (the object names the method), study
# something (the object names the problem) or claim something ("show that …": the clause is the finding).
_SUBJECT = r"(?:we|this (?:paper|work|article|note|study)|the present (?:paper|work)|our (?:paper|work))"
_MAKE_VERBS = ("propos|introduc|present|develop|design|describ|deriv|provid|formulat|offer|devis|build|"
               "construct|giv|creat|defin|contribut")
_STUDY_VERBS = "stud|consider|address|investigat|analy[sz]|tackl|explor|examin|revisit|focus"
_CLAIM_VERBS = "show|prov|demonstrat|find|argu|establish|observ"
_CONTRIBUTION = re.compile(
    rf"\b{_SUBJECT}\s+(?:(?:also|first|further|then|here|now|therefore|thus|instead|hence|newly|formally|"
    r"finally|additionally|rigorously|theoretically|empirically|carefully|systematically|have|will|can)\s+)*"
    rf"(?P<verb>(?:{_MAKE_VERBS}|{_STUDY_VERBS}|{_CLAIM_VERBS})(?:e|es|ed|e?s|y|ies|ied|ing)?)\s+"
    r"(?:(?:on|upon|here|in this (?:paper|work))\s+)?(?P<object>\S)",
    re.IGNORECASE,
)
_CLAIM = re.compile(rf"^(?:{_CLAIM_VERBS})", re.IGNORECASE)
_MAKE = re.compile(rf"^(?:{_MAKE_VERBS})", re.IGNORECASE)
_KIND_RANK = {"make": 0, "study": 0, "claim": 1}
#: Most words of a method's name ("Metadata Conditioning then Cooldown (MeCo)").
MAX_NAME_WORDS = 8
# Small words inside a name.
_NAME_JOINS = frozenset("of for and then with in on to via the a based".split())
#: Sentences looked at for a contribution: it is rarely later than this.
MAX_CONTRIBUTION_SENTENCE = 6
#: Text before "we propose" longer than this is no lead-in but a clause of its own ("… that we study").
MAX_CONTRIBUTION_LEAD = 6
# Objects that say nothing on their own ("we study this", "we propose it").
_EMPTY_OBJECTS = frozenset(
    "this these those it them that such our its their each both one two several all they there we he she"
    .split()
)
# Said of every contribution, so left out: "a novel framework" and "a simple yet effective framework" read
# "a framework".
_BOASTS = re.compile(r"^(?:(?:a|an|the) )?((?:(?:novel|new|simple|yet|and|but|effective|,) )+)",
                     re.IGNORECASE)
# A generic object named after a colon, "a new problem: weakly supervised captioning", is the named part.
_GENERIC_COLON = 3
# Lead-in phrases of a problem's object: "the problem of X" reads "X".
_PROBLEM_OF = re.compile(
    r"^(?:the|a) (?:(?:fundamental|important|classical|classic|general|challenging|open) )?"
    r"(?:problem|task|challenge|question|issue) of ", re.IGNORECASE)
# Words a phrase may be cut before, each starting a part the phrase reads complete without.
_BREAKS = frozenset(
    "that which where wherein whereby whose who while when whereas by using via through to for with without "
    "in on of at from under over and or based such including e.g. i.e. as into across between among within "
    "beyond than since because so thus yielding leading allowing enabling given called named termed".split()
)
# Words a title must not end on, beyond _DANGLING: auxiliaries and modals that leave a verb missing.
_ALSO_DANGLING = frozenset(
    "be been being has have had can could may might will would should must do does not also both either each "
    "than so if".split()
)
# Words in "-ed" that end a phrase well (the rest do not: "aimed", "designed", "based").
_NOT_PARTICIPLES = frozenset("supervised unsupervised semi-supervised self-supervised weakly-supervised "
                             "distributed randomized structured constrained unconstrained regularized "
                             "embedded need speed seed bed red".split())
# An acronym in brackets after the words it stands for.
_ACRONYM = re.compile(r"^\([A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*s?\)[,;:]?$")
# Words that start a relative clause: a title stops before one it could not turn into "-ing".
_RELATIVES = frozenset("that which where wherein whereby whose who whom".split())
# Words after "that" or "which" that make it no relative clause with a verb to turn into "-ing".
_NOT_VERBS = frozenset(
    "the a an is are was were has have had it its we they our their this these those there not no all each "
    "both any one only".split()
) | _ALSO_DANGLING
# Subjects that start a clause of their own after ", and".
_SUBJECTS = frozenset("we our it its this these they their the such".split())
# A second verb of the contribution ("we introduce X and describe Y"): the object ends before it.
_NEXT_VERB = re.compile(rf"^(?:{_MAKE_VERBS}|{_STUDY_VERBS}|{_CLAIM_VERBS}|use|appl|compar|evaluat|achiev|"
                        r"obtain|improv|extend|generaliz|learn|train|test)\w*$", re.IGNORECASE)
# Words after a verb that mark it as one (its object starts): "and mitigates its tendency".
_DETERMINERS = frozenset("the a an its their his her our this these those each every".split())
# Adverbs without "-ly" that come between "to" and its verb.
_ADVERBS = frozenset("first further also then both simultaneously instead".split())
_MODALS = frozenset("can could may might will would should must".split())
# Short verbs whose last consonant doubles before "-ing" ("maps" → "mapping"); "embed" is longer.
_DOUBLING = re.compile(r"^(?:[^aeiou]?[^aeiou][aeiou][bdgmnprt]|embed|admit|submit|omit|permit|transfer|"
                       r"refer|infer|prefer|control|compel|propel|regret|commit|emit|equip|begin|output|input)$")


def _contribution_title(sentence: str, start: int, limit: int) -> tuple[str, int, str] | None:
    """The title a contribution sentence gives, where in the text what it took ends and the kind of verb
    ("make", "study" or "claim"), or None.

    ``start`` is where ``sentence`` begins in the text."""
    match = _CONTRIBUTION.search(sentence)
    if match is None:
        return None
    lead = sentence[: match.start()]
    lead_words = lead.split()
    if len(lead_words) > MAX_CONTRIBUTION_LEAD and not lead.rstrip().endswith(","):
        return None
    if lead_words and lead_words[-1].lower() in ("that", "which", "who", "as", "than", "what", "how"):
        return None
    words = _tokens(sentence, match.start("object"), start)
    verb = match.group("verb")
    kind = "make" if _MAKE.match(verb) else "claim" if _CLAIM.match(verb) else "study"
    if kind == "claim":
        if not words or words[0][0].lower() != "that":
            return None  # "we show X" says little on its own; "we show that X" gives the finding X
        words = words[1:]
    elif words and words[0][0].lower() == "to" and len(words) > 1:  # "we propose to learn X": "Learning X"
        j = 1
        while j + 1 < len(words) and (words[j][0] in _ADVERBS or _is_adverb(words[j][0])):
            j += 1  # "to jointly learn X": "Jointly learning X"
        verb = words[j][0]
        if not verb.isalpha() or not verb.islower() or verb in _NOT_VERBS or verb in _BREAKS:
            return None
        words = [*words[1:j], (_ing(verb), words[j][1]), *words[j + 1:]]
    words = _without_problem_of(words)
    if not words or words[0][0].lower().rstrip(",") in _EMPTY_OBJECTS:
        return None
    words = _colon_named(_first_object(_without_boasts(words)))
    named = _appositive(words)
    if named is not None:
        head, tail = named
        room = MAX_TITLE_WORDS - len(head), limit - _chars(head) - len(": ")
        tail = _relative_as_ing(_without_boasts(tail))
        tail_words = _phrase(tail, *room, MIN_CLAUSE_WORDS) if tail else None
        if tail_words is None:
            return _capitalised(_joined(head)), head[-1][1], kind
        title = _joined(head) + ": " + _capitalised(_joined(tail_words))
        return _capitalised(title), max(head[-1][1], tail_words[-1][1]), kind
    taken = _phrase(_relative_as_ing(words), MAX_TITLE_WORDS, limit, MIN_CLAUSE_WORDS)
    if taken is None:
        return None
    return _capitalised(_joined(taken)), taken[-1][1], kind


def _tokens(sentence: str, begin: int, offset: int) -> list[tuple[str, int]]:
    """The words of ``sentence`` from ``begin`` on, each with where it ends in the text (``offset`` is where
    ``sentence`` starts there)."""
    return [(m.group(), offset + begin + m.end()) for m in re.finditer(r"\S+", sentence[begin:])]


def _without_boasts(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``words`` without the "novel" or "simple yet effective" every contribution claims."""
    match = _BOASTS.match(_joined(words))
    if match is None:
        return words
    first = len(_joined(words)[: match.start(1)].split())
    kept = [*words[:first], *words[first + len(match.group(1).split()):]]
    if first and len(kept) > first and kept[0][0].lower() in ("a", "an"):  # "a novel approach": "an approach"
        article = "an" if kept[first][0][:1].lower() in "aeiou" else "a"
        kept[0] = (article.capitalize() if kept[0][0][0].isupper() else article, kept[0][1])
    return kept


def _first_object(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``words`` up to a second verb of the contribution: "X, and describe Y" or "X and then show Y" is X."""
    for i in range(1, len(words) - 1):
        joins = words[i][0].lower() in ("and", "but", "while", "whereas")
        if joins and words[i - 1][0].endswith((",", ";")) and words[i + 1][0].lower() in _SUBJECTS:
            return words[:i]  # ", and our focus is …": a clause of its own
    for i in range(1, len(words)):
        previous = words[i - 1][0].lower()
        if _NEXT_VERB.match(words[i][0]) and (previous in ("and", "then") or previous.endswith(",")):
            keep = i - 1 if previous in ("and", "then") else i
            if keep > 0 and words[keep - 1][0].lower() in ("and", "then"):
                keep -= 1
            return words[:keep]
    return words


def _colon_named(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """What follows a colon after a few generic words: "a new problem: weakly supervised …" is the latter."""
    for i, (word, _end) in enumerate(words[:_GENERIC_COLON]):
        if word.endswith(":") and len(words) > i + 2:
            return words[i + 1:]
    return words


def _without_problem_of(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``words`` without a leading "the problem of" (the problem itself names the paper better)."""
    match = _PROBLEM_OF.match(_joined(words))
    return words[len(match.group().split()):] if match else words


def _appositive(words: list[tuple[str, int]]) -> tuple[list, list] | None:
    """A named contribution as (the name's words, the description's): "DRAGO, a novel approach for …",
    "TapNets, neural networks augmented …", or the other way round, "a sample-efficient framework,
    Variational Bayesian Monte Carlo (VBMC)"."""
    for i, (word, end) in enumerate(words[:MAX_LEAD_IN_WORDS + 2]):
        if not word.endswith(",") or i + 1 >= len(words):
            continue
        head = [w for w in [*words[:i], (word[:-1], end - 1)] if w[0]]  # "CURIOUS , an …" has a bare comma
        tail = words[i + 1:]
        if not head:
            return None
        if not _balanced(head):
            return None
        if tail[0][0].lower() in ("a", "an", "the") or (_is_name(head) and tail[0][0].islower()):
            if len(head) > 1 and head[0][0].lower() == "the":
                head = head[1:]
            return head, tail
        if tail[0][0].lower() in ("called", "termed", "named", "dubbed", "coined") and len(tail) > 1:
            tail = tail[1:]
        name = _name_at_start(tail)
        head = _without_boasts(head)
        if name and head[0][0].lower() in ("a", "an") and len(head) >= 2:
            return name, head if len(head) > 2 else []  # "a method, termed X" says no more than "X"
        return None
    return None


def _is_name(words: list[tuple[str, int]]) -> bool:
    """Whether ``words`` read as a name: a few words, each capitalised or in brackets ("DecaProp (DCAP)")."""
    if not words or len(words) > MAX_NAME_WORDS:
        return False
    if not words[-1][0][:1].isupper() and words[-1][0][:1] not in "([":
        return False
    return all(w[0][:1].isupper() or w[0][:1] in "([" or w[0] in _NAME_JOINS for w in words)


def _name_at_start(words: list[tuple[str, int]]) -> list[tuple[str, int]] | None:
    """The longest name ``words`` start with that ends there (at the end, a comma or a break): "Propagation
    and Optimization based Deep Model (PODM)", not "Propagation"."""
    best = None
    for n in range(1, min(len(words), MAX_NAME_WORDS) + 1):
        name = [*words[: n - 1], (words[n - 1][0].rstrip(",;:."), words[n - 1][1])]
        if name[-1][0] in _NAME_JOINS:
            continue
        if not _is_name(name):
            break
        ends = n == len(words) or words[n - 1][0].endswith((",", ";", ":")) or _breaks(words[n][0])
        if ends and _balanced(name):
            best = name
        if words[n - 1][0].endswith((",", ";", ":")):
            break
    return best


def _relative_as_ing(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """"a framework that casts exploration as …" as "a framework casting exploration as …": a title's way."""
    out = list(words)
    for i in range(1, len(out) - 1):
        if out[i][0].lower() not in ("that", "which", "who") or out[i - 1][0].endswith((",", ";", ":")):
            continue
        j = i + 1
        if out[j][0].lower() in _MODALS and j + 1 < len(out):  # "that can learn": "learning"
            j += 1
        adverbs = []
        while j + 1 < len(out) and out[j][0].endswith("ly") and out[j][0].isalpha():  # "that jointly learns"
            adverbs.append(out[j])
            j += 1
        verb = out[j][0]
        if not _third_person(verb):
            return out  # "that the …", "that given …", "that most …": no verb of the clause's own to turn
        rest = out[j + 1:]
        if verb.endswith("s"):  # "that retains X and mitigates its …": the second verb agrees, turn it too
            rest = _and_verb_as_ing(rest)
        return [*out[:i], *adverbs, (_ing(verb), out[j][1]), *rest]
    return out


def _third_person(word: str) -> bool:
    """Whether ``word`` reads as a verb in "-s" after "that" ("casts", "relies"), not "this" or "focus"."""
    return (word.isalpha() and word.islower() and word.endswith("s") and not word.endswith(("ss", "us", "is"))
            and word not in _NOT_VERBS and len(word) > 3)


def _and_verb_as_ing(words: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The first "and V-s the/its …" in ``words`` with V turned into "-ing"."""
    for k in range(1, len(words) - 1):
        verb = words[k][0]
        after_and = words[k - 1][0].lower() == "and"
        if after_and and _third_person(verb) and words[k + 1][0].lower() in _DETERMINERS:
            return [*words[:k], (_ing(verb), words[k][1]), *words[k + 1:]]
    return words


def _ing(verb: str) -> str:
    """The "-ing" form of a verb as it appears after "that": "casts" → "casting", "relies" → "relying"."""
    base = verb
    if verb.endswith("ies") and len(verb) > 4:
        base = verb[:-3] + "y"
    elif verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        base = verb[:-2]
    elif verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
        base = verb[:-1]
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")) and len(base) > 2:
        return base[:-1] + "ing"
    if _DOUBLING.match(base):
        return base + base[-1] + "ing"
    return base + "ing"


def _phrase(words: list[tuple[str, int]], max_words: int, limit: int, min_words: int) -> list | None:
    """The longest start of ``words`` that fits (at most ``max_words`` words and ``limit`` characters) and
    reads complete: it ends before a word starting a new part ("that", "by", "for", "(" …) or at a
    comma, never on a function word or inside brackets or ``$…$``, and before any relative clause ("that
    is …", "which can be …") when what comes before is long enough; None when no start of at least
    ``min_words`` words does."""
    relative = next((i for i, (word, _end) in enumerate(words) if word.lower() in _RELATIVES), len(words))
    if relative >= min_words:
        words = words[:relative]
    colon = next((i + 1 for i, (word, _end) in enumerate(words) if word.endswith((":", ";"))), len(words))
    if colon >= min_words:  # "a strategy: we formulate …" is two parts
        words = words[:colon]
    for n in range(min(len(words), max_words), min_words - 1, -1):
        taken = words[:n]
        last = taken[-1][0]
        if not (n == len(words) or last.endswith((",", ";", ":")) or _breaks_at(words, n)):
            continue
        trimmed = [*taken[:-1], (last.rstrip(",;:."), taken[-1][1] - (len(last) - len(last.rstrip(",;:."))))]
        if not trimmed[-1][0] or _dangles(trimmed[-1][0]) or trimmed[-1][0].lower() in _ALSO_DANGLING:
            continue
        if n < len(words) and _wants_more(trimmed):
            continue
        if _chars(trimmed) <= limit and _balanced(trimmed):
            return trimmed
    return None


def _wants_more(words: list[tuple[str, int]]) -> bool:
    """Whether a phrase cut here ends on a verb still missing its object: "an approach aimed", "a method,
    shifting", "without relying"."""
    last = words[-1][0].lower()
    if last.endswith("ed") and last not in _NOT_PARTICIPLES and len(last) > 3:
        return True
    if last.endswith("ing") and len(words) > 1:
        before = words[-2][0].lower()
        return before.endswith(",") or before in _DANGLING
    return False


def _breaks_at(words: list[tuple[str, int]], n: int) -> bool:
    """Whether a new part of the phrase starts at ``words[n]`` (also "implicitly defined by …")."""
    if _breaks(words[n][0]):
        return True
    return words[n][0].endswith("ly") and n + 1 < len(words) and _breaks(words[n + 1][0])


def _breaks(word: str) -> bool:
    if _ACRONYM.match(word):  # "large language model (LLM) pre-training" goes on after the bracket
        return False
    if word.endswith("ed") and len(word) > 4 and word.isalpha() and word.lower() not in _NOT_PARTICIPLES:
        return True  # "an approach aimed at …", "an agent designed to …": a clause of its own
    return word.startswith(("(", "[", "–", "—", "-")) or word.lower() in _BREAKS


def _balanced(words: list[tuple[str, int]]) -> bool:
    text = _joined(words)
    return (text.count("(") == text.count(")") and text.count("[") == text.count("]")
            and text.count("{") == text.count("}") and text.count("$") % 2 == 0)


def _joined(words: list[tuple[str, int]]) -> str:
    return " ".join(word for word, _end in words)


def _chars(words: list[tuple[str, int]]) -> int:
    return len(_joined(words))
