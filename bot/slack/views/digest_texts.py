"""What a digest says in Slack besides its papers: its header line, and the note to a person on a day
nothing matched. The digest pipeline hands these over as data (:class:`~bot.usecases.digest_vocabulary.
DigestHeader`, :class:`~bot.usecases.digest_vocabulary.NothingMatched`); :func:`phrase` is the Slack
courier's words for them."""

from __future__ import annotations

from datetime import date

from bot.slack.views.followup_texts import followup_block
from bot.usecases.digest_vocabulary import DigestHeader, NothingMatched, Said

#: A person's note on a day their digest had nothing worth sending (``when``: "today" or "this week").
NOTHING_MATCHED = ("Nothing new matched your interests {when}, so there is no digest. `/papers follow` more "
                   "topics to widen it, or `/papers recommend` for the best papers anyway. "
                   "(`/papers digest quiet on` stops these notes.)")


def header_text(n: int, day: date, extra: bool = False, by_feed: list[tuple[str, int]] | None = None,
                weekly: bool = False, channel: bool = False, compact: bool = False) -> str:
    """The digest's first message (mrkdwn); ``by_feed``: its sections, (feed name, papers) in order
    (feed names hold no Slack markup: :func:`bot.usecases.feeds.feed_name`); ``weekly``: the person's
    weekly digest; ``channel``: a channel's own digest, posted in the channel; ``compact``: the first
    line of a compact digest (a reaction on it can't name one of its papers: their buttons can)."""
    papers = f"{n} paper" if n == 1 else f"{n} papers"
    which = "An extra digest" if extra else "Your weekly digest" if weekly else "Your digest"
    if channel:
        which = "This channel's weekly digest" if weekly else "This channel's digest"
    if by_feed:
        papers += ", by feed: " + ", ".join(f"{feed} {count}" for feed, count in by_feed)
    tune = ("React :+1: or :-1: on a paper to tune what comes next here (it counts for you too)."
            if channel else "Click 👍 or 👎 on a paper to tune what comes next." if compact
            else "React :+1: or :-1: on a paper to tune what comes next.")
    return f":newspaper: {which} for {day:%A} {day.day} {day:%B}: {papers}. {tune}"


def phrase(said: Said) -> str:
    """The Slack text of what a digest says besides its papers."""
    if isinstance(said, NothingMatched):
        return NOTHING_MATCHED.format(when="this week" if said.weekly else "today")
    if isinstance(said, DigestHeader):
        text = header_text(said.papers, said.day, said.extra, list(said.by_feed), said.weekly, said.channel,
                           said.compact)
        if said.followups:  # what became of papers saved or liked (issue 42), under the header line
            text += "\n\n" + followup_block(said.followups, channel=said.channel)
        return text
    raise TypeError(f"nothing to say for {said!r}")
