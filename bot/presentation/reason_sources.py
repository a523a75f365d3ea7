"""What a stored reason says a pick came from: the topics and the feed it names, or the kind of pick it was
(an alert, a followed author, a paper liked before, …). The ``shown`` table keeps each paper's reason as
its message said it (:mod:`bot.presentation.reasons` words them, and its words don't change), so the
reason is read back here, beside the words it is read from, for `/papers stats`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.presentation.reasons import ALERT_START, ONBOARDING, SUGGESTED

_WHOSE = r"(?:your|this channel's)"
_ALSO = r"(?:; also .*)?$"
_QUOTED = re.compile(r"“([^”]*)”")
#: 'Matches your interest(s) “A”, “B” and “C”; also x, y'
_MATCHES = re.compile(rf"Matches {_WHOSE} interests? (?P<topics>“.*”){_ALSO}", re.S)
#: 'Matches “A” and “B” in your feed “F”; also x'
_MATCHES_IN_FEED = re.compile(rf"Matches (?P<topics>“.*”) in {_WHOSE} feed “(?P<feed>[^”]*)”{_ALSO}", re.S)
#: 'Shares “w1” and “w2” with your interest “A”', 'Shares “w” with “A” in your feed “F”'
_SHARES = re.compile(rf"Shares .*? with {_WHOSE} interest “(?P<topic>[^”]*)”{_ALSO}", re.S)
_SHARES_IN_FEED = re.compile(rf"Shares .*? with “(?P<topic>[^”]*)” in {_WHOSE} feed “(?P<feed>[^”]*)”{_ALSO}",
                             re.S)
#: 'Matches your feed “F”: x, y', 'Close to your feed “F” overall' (and the same of all interests)
_WHOLE_FEED = re.compile(rf"(?:Matches|Close to) {_WHOSE} feed “(?P<feed>[^”]*)”(?::| overall)", re.S)
_WHOLE = re.compile(rf"(?:Matches|Close to) {_WHOSE} interests(?::| overall)", re.S)
_LIKED = re.compile(r"Like “.*”, which (?:you|this channel) (?:liked|saved)$", re.S)
_MORE_LIKE = re.compile(r"Like “.*”, which (?:you|someone here) asked for more of$", re.S)
_AUTHOR = re.compile(r"New from .*, whom you follow$", re.S)


@dataclass(frozen=True)
class Source:
    """Where a pick came from. ``kind``: "topics" (``topics`` named, of ``feed``: a named feed, or None
    for the main feed), "feed" (the whole of ``feed``'s interests, None: the main feed's), "liked" (like a
    paper liked or saved before), "colleagues" (people who liked a paper liked it too), "more_like" (More
    like this), "alert", "author" (a followed author), "suggested" (by a colleague), "onboarding" (the
    first round of ratings) or "other" (a reason worded before these, or none)."""

    kind: str
    topics: tuple[str, ...] = ()
    feed: str | None = None


OTHER = Source("other")


def source_of(reason: str | None) -> Source:
    """What ``reason`` (as stored when its paper was shown) says the pick came from."""
    text = (reason or "").strip()
    if m := _MATCHES_IN_FEED.match(text):
        return Source("topics", tuple(_QUOTED.findall(m["topics"])), m["feed"])
    if m := _MATCHES.match(text):
        return Source("topics", tuple(_QUOTED.findall(m["topics"])))
    if m := _SHARES_IN_FEED.match(text):
        return Source("topics", (m["topic"],), m["feed"])
    if m := _SHARES.match(text):
        return Source("topics", (m["topic"],))
    if m := _WHOLE_FEED.match(text):
        return Source("feed", feed=m["feed"])
    if _WHOLE.match(text):
        return Source("feed")
    if text.startswith("People who liked “"):
        return Source("colleagues")
    if _LIKED.match(text):
        return Source("liked")
    if _MORE_LIKE.match(text):
        return Source("more_like")
    if text.startswith(ALERT_START):
        return Source("alert")
    if _AUTHOR.match(text):
        return Source("author")
    if text.startswith(SUGGESTED):
        return Source("suggested")
    if text == ONBOARDING:
        return Source("onboarding")
    return OTHER
