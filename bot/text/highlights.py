"""What a paper does, in the abstract's own words: the sentence stating the contribution (*what*) and the
one stating the main finding (*result*).

Each sentence of the abstract (``bot/text/sentences.py``) is described by a few features: cue phrases
("we propose", "this paper introduces", "called X" for a contribution; "outperforms", "experiments show",
a percentage for a finding; "recently", "however", "existing methods" for background), whether it names
something (an acronym, a CamelCase word), and where it stands. A sentence's score is the sum of its
features' weights (:data:`WHAT_WEIGHTS`, :data:`RESULT_WEIGHTS`, set by hand and checked against weights
fitted offline, see docs/highlights.md). The best *what* is taken first; the *result* is the best of the
other sentences, or None when no sentence scores as a finding. Both are returned exactly as the abstract
has them (whitespace collapsed), never rewritten: rendering TeX and cutting to length are presentation's.

Pure string work, a few hundred microseconds an abstract; never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.text.sentences import sentence_spans
from bot.text.whitespace import collapse_ws

#: Abstracts longer than this (characters) are read only this far: what a paper does is said early, and
#: a 5,000-word "abstract" (a whole paper pasted in) must cost no more than a long one.
READ_AT_MOST = 6000
#: Sentences longer than this are no line to quote (a run-on of a badly split or unpunctuated text).
LONGEST_SENTENCE = 1200


@dataclass(frozen=True)
class Highlights:
    """The abstract's contribution sentence and its main-finding sentence (None when it has none); never
    the same sentence, each exactly as the abstract has it (whitespace collapsed)."""

    what: str | None
    result: str | None


def _cue(*phrases: str) -> re.Pattern[str]:
    # Matched against the lower-cased sentence: case-blind matching costs Python's re twice the time.
    return re.compile(r"\b(?:" + "|".join(phrases) + r")")


_WE = (r"(?:we|this (?:paper|work|article|study|note)|the (?:present|current) (?:paper|work)"
       r"|our (?:paper|work))")
_MAKE = (r"(?:propos|introduc|present|develop|design|devis|describ|formulat|construct|build|creat|offer"
         r"|provid|put forward|deriv|establish|give|suggest|tackl)")
#: Cue phrases, one pattern a feature.
_CUES: dict[str, re.Pattern[str]] = {
    # "We propose X", "this paper introduces", "we then present".
    "makes": _cue(_WE + r"(?: (?:also|further|first|then|here|thus|therefore|instead|now|next|finally))?"
                  + r",? " + _MAKE + r"\w*"),
    # "A new framework is proposed", "are introduced": the contribution in the passive (never "has been").
    "made": _cue(r"(?:is|are) (?:\w+ )?(?:proposed|introduced|presented|developed|designed|devised)\b"
                 r"(?! (?:by|in)\b)"),
    # "In this paper, we …", "Here we …", "To this end, we …", "In response, we …".
    "this_paper": _cue(r"in this (?:paper|work|article|study|note)|here,? we|to this end|in response"
                       r"|(?:purpose|goal|aim|objective) of this (?:paper|work)"
                       r"|to (?:address|tackle|overcome|bridge|solve|mitigate|fill|remedy|alleviate)"
                       r" (?:this|these|th[ae]t?|the) \w+"),
    # "We study / consider / analyze / investigate / address …": the question more than the answer.
    "studies": _cue(_WE + r" (?:stud|consider|analy[sz]|investigat|address|focus|explor|examin|revisit|"
                    r"tackl|initiat|identif|seek|aim|set out|cast|view|reformulat|generali[sz]|extend|"
                    r"improv|bridge|resolve|combine|apply|use|employ|adopt|leverag|exploit|remove|"
                    r"eliminat)\w*"),
    # "called X", "named", "dubbed", "termed", "our key idea", "the main contribution".
    "names": _cue(r"(?:called|named|dubbed|termed|coined)\b|(?:key|main|core|central|primary) "
                  r"(?:idea|insight|contribution|ingredient|novelty)|which we call|we call|our "
                  r"(?:main )?contributions?"),
    "novel": _cue(r"novel|new\b|first\b|first-ever"),
    "method_noun": _cue(r"(?:algorithm|method|framework|approach|model|technique|architecture|scheme|"
                        r"procedure|system|estimator|objective|loss|layer|module|network|mechanism|"
                        r"strategy|paradigm|formulation|benchmark|dataset)s?\b"),
    # Background and motivation: what others did, what is known, what is hard.
    "background": re.compile(
        r"^(?:\w+ ){0,3}?(?:recent(?:ly)?|however|despite|although|while|nowadays|traditionally|typically|"
        r"currently|existing|previous(?:ly)?|prior|current|conventional|popular|standard|state-of-the-art|"
        r"many|most|such|these|it is|there (?:is|are|has|have))\b|\b(?:ha(?:s|ve) (?:recently |long |"
        r"widely |often )?(?:been|become|emerged|gained|shown|attracted|received|achieved|led)|is (?:well|"
        r"widely|commonly) |well[- ]known|it is (?:well )?known|remains?|poorly understood|lacks?|suffers?|"
        r"(?<!this )(?<!these )limitations?|in contrast|fails?)\b"),
    # The question more than the answer: "we consider the problem of …".
    "problem": _cue(r"(?:the|a|this) (?:problem|task|question|setting|challenge) of|" + _WE
                    + r" (?:stud|consider|address|investigat|focus on|tackl|examin)\w* (?:the |a |an )?"
                    r"(?:\w+ ){0,2}?(?:problem|task|question|setting|case|interplay|effect|role|issue)s?\b"),
    # A comparison with others' work: a finding's more than a contribution's.
    "versus": _cue(r"existing|previous|prior|baselines?|compared (?:to|with)|than\b|over (?:the )?"
                   r"(?:state|existing|prior|previous|baseline|standard|vanilla|competing)|competing|"
                   r"counterparts?|alternatives?"),
    # Hopes and asides, no finding: "we believe", "future work", "could be used".
    "hedge": _cue(r"we believe|we hope|future (?:work|research)|(?:could|may|might) (?:be|have|also)|"
                  r"we (?:also |further )?discuss|open (?:problem|question)s?"),
    # A finding: a comparison, a gain, a proof, what experiments showed.
    "finding": _cue(r"outperform\w*|state[- ]of[- ]the[- ]art|sota\b|surpass\w*|beat\w*\b|superior"
                    r"|improv\w*|achiev\w*|attain\w*|reduc\w*|speed[- ]?ups?|faster|fewer|better|higher|"
                    r"lower|significant\w*|substantial\w*|consistent(?:ly)?\b|competitive|comparabl\w*|favou?rabl\w*|"
                    r"match(?:es|ing)\b|robust\w*|effective(?:ness|ly)?\b|efficien\w*|gains?\b|advantage"),
    "shows": _cue(r"(?:experiment\w*|results?|evaluations?|simulations?|studies|analys[ie]s|"
                  r"benchmarks?|tests?|findings?|evidence)(?: \w+){0,6}? (?:show|demonstrat|indicat|"
                  r"suggest|confirm|reveal|validat|verif|corroborat|illustrat|highlight|prove)\w*"
                  r"|empirical(?:ly)?\b|experimentally\b|in experiments|on (?:the )?\w+ (?:dataset|"
                  r"benchmark)s?|we (?:\w+ )?(?:show|prove|find|found|observe|demonstrate|establish|obtain|"
                  r"report|verify|confirm)\w*|our (?:main )?results?\b|this result"
                  r"|(?:leads?|leading) to|yield\w*|enabl\w*|guarantee\w*|converge\w*|bound\w*|"
                  r"optimal\w*|rate\b|tight\b"),
    # Numbers a finding quotes: 93.5%, 2×, 1.43x, "by 14.7", "10 times".
    "number": re.compile(r"\d\s*(?:%|\\%|×|x\b|times\b|-fold)|\d+(?:\.\d+)?\s*(?:points?|pp|db|bleu|"
                         r"f1|auc|accuracy)|\bby (?:up to |roughly |about |over |nearly )?\d|\$\d"),
    # What says nothing of the finding: code, data, availability.
    "availability": _cue(r"code (?:is|are|and \w+ (?:is|are)) (?:publicly |freely )?available|available "
                         r"(?:at|online|here)|github|https?://|open[- ]sourc\w*|we (?:release|make)"),
    "evaluate_only": _cue(r"we (?:evaluate|test|apply|validate|illustrate|compare|benchmark|conduct|run)"
                          r"\w*|we (?:\w+ )?(?:demonstrate|illustrate|showcase) (?:the |our )?(?:\w+ )?"
                          r"(?:approach|method|procedure|properties|utility|framework|algorithm|model|technique)"
                          r"s?\b(?: (?:by|on|through|in|with)\b|\.)"),
}
# A name a method is given: "DeepProbLog", "MCTS-AHD", "BRITS", "UCB-TQL", "(S2GA)".
_NAME = re.compile(r"(?<![\w$\\])(?:[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[\w-]*|[A-Za-z]+-[A-Z]{2,}\w*)")
# A sentence asking a question or cut off without its end is a poor line.
_ENDED = re.compile(r"[.!?]['\")\]’”$]*$")

#: Weights of the *what*: which features make a sentence the contribution.
WHAT_WEIGHTS: dict[str, float] = {
    "makes": 3.0, "made": 2.0, "this_paper": 1.5, "studies": 1.2, "names": 1.5, "novel": 0.8,
    "method_noun": 0.6, "name": 0.6, "background": -1.5, "problem": -1.5, "versus": -0.3, "hedge": -1.0,
    "finding": -0.5, "shows": -0.6, "number": -0.8, "availability": -4.0, "evaluate_only": -1.0,
    "first": 0.2, "early": 0.5, "last": -0.8, "unended": -2.5, "long": -0.5,
}
#: Weights of the *result*: which features make a sentence the main finding.
RESULT_WEIGHTS: dict[str, float] = {
    "makes": -1.0, "made": -0.5, "this_paper": -0.8, "studies": -0.8, "names": -0.3, "novel": 0.0,
    "method_noun": 0.0, "name": 0.2, "background": -1.0, "problem": -1.0, "versus": 0.6, "hedge": -1.5,
    "finding": 1.2, "shows": 1.4, "number": 1.2, "availability": -4.0, "evaluate_only": -0.8,
    "first": -1.5, "early": -0.5, "last": 0.4, "unended": -2.0, "long": 0.0,
}
#: A result scores at least this, else the abstract states none.
RESULT_THRESHOLD = 1.0


def highlights(title: str, abstract: str) -> Highlights:
    """The *what* and *result* sentences of ``abstract`` (``title`` breaks ties between contribution
    sentences: the one naming the title's words wins). Both None for an abstract with no sentence in it."""
    return weighed(title, abstract, WHAT_WEIGHTS, RESULT_WEIGHTS, RESULT_THRESHOLD)


def weighed(title: str, abstract: str, what_weights: dict[str, float], result_weights: dict[str, float],
            threshold: float) -> Highlights:
    """:func:`highlights` with other weights (``benchmarks/highlights_fit.py`` compares fitted ones)."""
    try:
        return _highlights(title or "", abstract or "", what_weights, result_weights, threshold)
    except Exception:  # a line missing is better than an ingest stopped by one abstract
        return Highlights(None, None)


def _highlights(title: str, abstract: str, what_weights: dict[str, float], result_weights: dict[str, float],
                threshold: float) -> Highlights:
    text = collapse_ws(abstract)
    if not any(ch.isalpha() for ch in text[:READ_AT_MOST]):
        return Highlights(None, None)
    spans = [(s, e) for s, e in sentence_spans(text[:READ_AT_MOST]) if _has_words(text[s:e])]
    if not spans:
        return Highlights(None, None)
    count = len(spans)
    title_words = _words(title)
    described = [features(text[s:e], k, count) for k, (s, e) in enumerate(spans)]
    what_scores = [score(f, what_weights) + _title_overlap(text[s:e], title_words)
                   for f, (s, e) in zip(described, spans, strict=True)]
    what = max(range(count), key=lambda k: (what_scores[k], -k))
    result_scores = [score(f, result_weights) for f in described]
    others = [k for k in range(count) if k != what]
    result = max(others, key=lambda k: (result_scores[k], k), default=None)
    if result is not None and result_scores[result] < threshold:
        result = None
    line = _line(text, spans[what])
    return Highlights(line, _line(text, spans[result]) if result is not None else None)


# Formulas and TeX commands, which say no word of a sentence's own.
_TEX = re.compile(r"\$[^$]*\$|\\[A-Za-z]+")
# A word: two letters in a row (any script).
_WORD_LETTERS = re.compile(r"[^\W\d_]{2}")


def _has_words(sentence: str) -> bool:
    """Whether ``sentence`` holds a word outside its formulas: a formula alone is no line to quote."""
    return bool(_WORD_LETTERS.search(_TEX.sub(" ", sentence) if "$" in sentence or "\\" in sentence
                                     else sentence))


def _line(text: str, span: tuple[int, int]) -> str:
    """The sentence at ``span``; of a run-on longer than :data:`LONGEST_SENTENCE`, its start, up to a word."""
    start, end = span
    if end - start <= LONGEST_SENTENCE:
        return text[start:end]
    head = text[start:start + LONGEST_SENTENCE]
    return head.rsplit(" ", 1)[0] if " " in head else head


def features(sentence: str, position: int, count: int) -> dict[str, float]:
    """What :data:`WHAT_WEIGHTS` and :data:`RESULT_WEIGHTS` weigh of one sentence, the ``position``-th of
    ``count``: each cue phrase present (1.0), a name, where it stands, whether it ends."""
    lowered = sentence.lower()
    found = {name: 1.0 for name, pattern in _CUES.items() if pattern.search(lowered)}
    if _NAME.search(sentence):
        found["name"] = 1.0
    if position == 0:
        found["first"] = 1.0
    if count > 1 and position < count / 2:
        found["early"] = 1.0
    if count > 2 and position == count - 1:
        found["last"] = 1.0
    if not _ENDED.search(sentence):
        found["unended"] = 1.0
    if len(sentence) > 400:
        found["long"] = 1.0
    return found


def score(found: dict[str, float], weights: dict[str, float]) -> float:
    """A sentence's score: its features' values times their weights."""
    return sum(value * weights.get(name, 0.0) for name, value in found.items())


_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")
_COMMON = frozenset("with from that this their towards toward using based learning via into over under "
                    "through models model method methods approach data deep neural networks network".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def _title_overlap(sentence: str, title_words: set[str]) -> float:
    """A small lift for a sentence naming the title's own words (the contribution restated)."""
    if not title_words:
        return 0.0
    shared = len(_words(sentence) & title_words) / len(title_words)
    return 0.8 * shared
