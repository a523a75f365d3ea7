"""What a person reads when a use case refuses (the named errors of :mod:`bot.errors`, told by their
fields): the sentence, with the command to try written for the command that was answered (``/papers``,
or ``/papers channel`` for a channel's own). The CLI says the same sentences.

Plain text, not escaped: the caller escapes it for Slack as it does any error's text.
"""

from __future__ import annotations

from bot.errors import (
    AuthorAmongTopics,
    BadAuthorPicks,
    BadFeedName,
    BadTime,
    FeedGone,
    Missing,
    NoInterests,
    NoPapers,
    NotAPaperName,
    NothingStored,
    NoWords,
    OutOfRange,
    PaperNotHeld,
    PersonInSeveral,
    TooLong,
    TooMany,
    Unchosen,
    UnknownPaper,
    UnknownPerson,
    UnknownVenue,
)
from bot.slack.manifest import COMMAND

ALERT_EXAMPLE = "alert graph transformers"
NO_INTERESTS = "You don't follow anything yet: try `{c} follow diffusion models, robotics`"
NO_PAPERS = "There are no papers yet: an admin needs to run `paperbot ingest`"

#: Missing(what), by what; ``{c}``: the command, ``{name}``: the feed's.
MISSING = {
    "follow": "Tell me what to follow, e.g. `{c} follow diffusion models, 2401.12345`",
    "unfollow": "Say which topic to unfollow, or `{c} unfollow all`",
    "author": "Say whom to follow, e.g. `{c} follow author: Andrea Bajcsy`",
    "mute": "Say what to mute, e.g. `{c} mute blockchain, large language model`",
    "unmute": "Say which word to unmute, or `{c} unmute all`",
    "search": "Say what to search for, e.g. `{c} search contrastive learning`",
    "conference": "Say which venue, e.g. `{c} conference ICML 2025`",
    "alert": "Say what to watch for, e.g. `{c} " + ALERT_EXAMPLE + "`.",
    "feed_name": "Name the feed: `{c} feed add robotics: grasping, legged locomotion`",
    "feed_colon": ("Say the feed's name, a colon, then its topics: "
                   "`{c} feed add robotics: grasping, legged locomotion`"),
    "feed_topics": "Give the feed “{name}” some topics: `{c} feed add {name}: grasping, sim2real`",
    "form_topics": ("Give this feed at least one topic, e.g. grasping, sim2real "
                    "(`{c} feed remove NAME` deletes a feed)"),
    "why": ("Say which paper: `{c} why` with its link or id (arXiv, DOI, OpenReview, PubMed, ACL Anthology, "
            "bioRxiv) or “title words” in quotes"),
}
#: What `why` takes, told when it got something else.
WHY_TAKES = ("`{c} why` takes a paper's link or id (arXiv, DOI, OpenReview, PubMed, ACL Anthology, bioRxiv) "
             "or “title words” in quotes")
#: PaperNotHeld(name, kind), by kind.
NOT_HELD = {
    "arxiv": "I don't hold arXiv:{name}: none of the sources I read brought it",
    "doi": "I hold no paper with the DOI {name}",
    "openreview": "I hold no paper of the OpenReview forum {name}",
    "pubmed": "I hold no paper with the PubMed id {name}",
    "acl": "I hold no paper {name} of the ACL Anthology",
    "id": "I hold no paper with the id {name}",
    "url": "I hold no paper at {name}",
    "title": "No paper I hold has a title with the words “{name}”",
}
#: TooLong(what, most), by what.
TOO_LONG = {
    "topic": "A topic can be at most {most} characters long",
    "author": "An author's name can be at most {most} characters long",
    "mute": "A muted word or phrase can be at most {most} characters long",
    "search": "A search can be at most {most} characters long",
    "alert": ("An alert can be at most {most} characters long; try a shorter phrase, e.g. `{c} "
              + ALERT_EXAMPLE + "`."),
}
#: TooMany(what, most): one added past the most (a command), by what.
TOO_MANY = {
    "topics": "You can follow at most {most} topics; `{c} unfollow` some first",
    "feed_topics": "A feed can have at most {most} topics",
    "authors": "You can follow at most {most} authors; `{c} unfollow author: NAME` some first",
    "mutes": "You can mute at most {most} words; `{c} unmute` some first",
    "feeds": "You can have at most {most} feeds; `{c} feed remove NAME` one first",
    "alerts": ("You have {most} alerts, the most there can be; `{c} alert remove PHRASE` one first "
               "(`{c} alerts` lists them)."),
}
#: TooMany(what, most, given): a form holding too many, by what.
TOO_MANY_GIVEN = {
    "feed_topics": "A feed can have at most {most} topics, not {given}",
    "authors": "You can follow at most {most} authors, not {given}",
    "mutes": "You can mute at most {most} words, not {given}",
    "alerts": "You can have at most {most} alerts, not {given}",
}
#: NoWords(what, text), by what (and whether from a form).
NO_WORDS = {
    ("author", False): "“{text}” is not a name I can look for; try `{c} follow author: Andrea Bajcsy`",
    ("mute", False): "“{text}” has no letters or digits to mute; try `{c} mute blockchain`",
    ("mute", True): "“{text}” has no letters or digits to mute",
    ("alert", False): "“{text}” has no letters or digits to watch for; try `{c} " + ALERT_EXAMPLE + "`.",
}
OUT_OF_RANGE = {
    "recommend": "I can recommend between {least} and {most} papers at a time",
    "poll": "A poll has {least} to {most} papers, not {given}",
}
UNCHOSEN = {
    "schedule": "Choose daily, weekly or off",
    "weekday": "Choose the day of the week for your weekly digest",
}
FIXED = {
    AuthorAmongTopics: "Authors go in “Authors you follow”, not among the topics",
    NoPapers: NO_PAPERS,
}
NOTHING_STORED = {
    "papers": ("You have no saved or liked papers to export yet: save one with its Save button or the "
               ":bookmark: reaction, or like one with :+1:."),
    "data": "paperbot stores nothing about you.",
}


def say(error: Exception, command: str = COMMAND) -> str:  # noqa: C901 (one flat dispatch)
    """The sentence for ``error``: a refusal phrased from its fields, any other error's own text.
    ``command``: the slash command answered (its subcommands follow it in what to try)."""
    c = command
    match error:
        case Missing(what=what, name=name):
            return MISSING[what].format(c=c, name=name)
        case TooLong(what=what, most=most, text=text, length=length):
            said = TOO_LONG[what].format(c=c, most=most)
            return said if text is None else f"{said}; “{text}…” is {length}"
        case TooMany(what=what, most=most, given=given):
            if given is None:
                return TOO_MANY[what].format(c=c, most=most)
            return TOO_MANY_GIVEN[what].format(most=most, given=given)
        case NoWords(what=what, text=text, form=form):
            return NO_WORDS[what, form].format(c=c, text=text)
        case OutOfRange(what=what, least=least, most=most, given=given):
            return OUT_OF_RANGE[what].format(least=least, most=most, given=given)
        case BadFeedName(name=name, most=most, main=main):
            if main:
                return f"“main” is your main feed: add to it with `{c} follow TOPICS`"
            return (f"A feed's name is one or two words (at most {most} characters), not “{name}”; "
                    f"e.g. `{c} feed add robotics: grasping`")
        case BadTime(text=text):
            return f"“{text}” is not a time from 00:00 to 23:59; pick one like 08:30"
        case BadAuthorPicks(word=word, most=most, default=default):
            return (f"Say how many papers by authors you follow a digest may hold, from 0 (none) to {most} "
                    f"(default {default}), e.g. `{c} digest authors {default}`, not “{word}”")
        case Unchosen(what=what):
            return UNCHOSEN[what]
        case FeedGone(name=name):
            return f"You have no feed “{name}” any more"
        case PersonInSeveral(user_id=user_id, workspaces=workspaces):
            return f"{user_id} is a person in workspaces {', '.join(workspaces)}: say which with --team"
        case NotAPaperName() | PaperNotHeld():
            return _paper_named(error, c)
        case UnknownPaper(paper_id=paper_id):
            return f"I don't know a paper with id {paper_id}"
        case UnknownPerson(user_id=user_id, team=team):
            return f"paperbot knows no person {user_id}" + ("" if team is None else
                                                           f" in workspace {team or '(none)'}")
        case UnknownVenue(asked=asked, known=known):
            if not known:
                return f"I hold no papers of “{asked}”, nor of any venue yet"
            return f"I hold no papers of “{asked}”; I hold papers of {', '.join(known)}"
        case NothingStored(what=what):
            return NOTHING_STORED[what]
        case NoInterests():
            return NO_INTERESTS.format(c=c)
        case AuthorAmongTopics() | NoPapers():
            return FIXED[type(error)]
    return str(error)


def _paper_named(error: NotAPaperName | PaperNotHeld, c: str) -> str:
    """`why`'s refusals: a text naming no paper, or a paper not held."""
    if isinstance(error, PaperNotHeld):
        return NOT_HELD[error.kind].format(name=error.name)
    said = f"{error.text} is no paper's page I can read" if error.link else f"“{error.text}” names no paper"
    return f"{said}: " + WHY_TAKES.format(c=c)
