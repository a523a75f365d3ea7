"""Named errors, turned into short friendly messages at the edges (CLI, Slack).

The use cases' refusals (from :class:`Missing` on) carry fields, never a sentence: the adapters phrase
them (:mod:`bot.slack.views.refusals`), knowing which command they answer.
"""

from dataclasses import dataclass, fields


class PaperbotError(Exception):
    """Base of every error paperbot reports to a person. ``str(e)`` is the message, except for a
    refusal's (a class with fields), which the adapters phrase."""


class ConfigError(PaperbotError):
    """A setting is missing or malformed."""


class BadArgument(PaperbotError):
    """A command got an argument it can't use."""


class NotFound(PaperbotError):
    """A paper or person that was asked for does not exist."""


class NoInterests(PaperbotError):
    """A person asked for papers before following anything."""


class NoPapers(PaperbotError):
    """There are no papers to recommend from yet."""


class Unreachable(PaperbotError):
    """A person can't be reached at all (deleted account, closed DM): trying again today won't help."""


class Outage(PaperbotError):
    """The messaging service is down, overloaded or did not answer in time: nothing is wrong with the
    person or the message, so it is worth trying again later (and is not counted against either).

    ``maybe_delivered``: the request reached the service and may have been carried out (a timed-out
    post can land anyway), so look before sending the same message again.
    """

    def __init__(self, message: str, maybe_delivered: bool = False):
        super().__init__(message)
        self.maybe_delivered = maybe_delivered


class TokenRefused(Outage):
    """The messaging service refused the workspace's token (revoked, expired, account inactive): no
    one in that workspace can be reached until it is installed again, so its work waits, counted
    against no one, and other workspaces carry on."""


# -- refusals: named by their class, told by their fields ----------------------------------------------


class _Fielded:
    """An error whose class and fields say it all: ``str()`` is its repr (for the logs), ``args`` its
    fields (so it pickles)."""

    def __post_init__(self) -> None:
        Exception.__init__(self, *(getattr(self, f.name) for f in fields(self)))  # type: ignore[arg-type]

    def __str__(self) -> str:
        return repr(self)


@dataclass(eq=False, repr=True)
class Missing(_Fielded, BadArgument):
    """Nothing given where ``what`` was wanted: "follow" (topics or papers), "unfollow", "author",
    "mute", "unmute", "search", "alert", "feed_name", "feed_colon" (a feed's name without ``: TOPICS``),
    "feed_topics" (``name``'s), "form_topics" (a named feed's form left empty)."""

    what: str
    name: str = ""


@dataclass(eq=False, repr=True)
class TooLong(_Fielded, BadArgument):
    """A ``what`` ("topic", "author", "mute", "search", "alert") longer than ``most`` characters; from a
    form, ``text`` is the one and ``length`` its length."""

    what: str
    most: int
    text: str | None = None
    length: int = 0


@dataclass(eq=False, repr=True)
class TooMany(_Fielded, BadArgument):
    """More than ``most`` of ``what`` ("topics", "feed_topics", "authors", "mutes", "feeds", "alerts");
    from a form, ``given`` is how many it held (None: one more added past the limit)."""

    what: str
    most: int
    given: int | None = None


@dataclass(eq=False, repr=True)
class NoWords(_Fielded, BadArgument):
    """``text`` has nothing to look for as a ``what`` ("author", "mute", "alert"); ``form``: typed in a
    form (no command to try)."""

    what: str
    text: str
    form: bool = False


@dataclass(eq=False, repr=True)
class OutOfRange(_Fielded, BadArgument):
    """A count of ``what`` ("recommend", "poll") outside ``least`` … ``most``."""

    what: str
    least: int
    most: int
    given: int


@dataclass(eq=False, repr=True)
class BadFeedName(_Fielded, BadArgument):
    """A feed's ``name`` that is not one or two words of at most ``most`` characters, or (``main``) the
    main feed's own name."""

    name: str
    most: int
    main: bool = False


@dataclass(eq=False, repr=True)
class AuthorAmongTopics(_Fielded, BadArgument):
    """A form's topics holding an ``author: NAME``."""


@dataclass(eq=False, repr=True)
class BadTime(_Fielded, BadArgument):
    """``text`` is no time of day (24-hour ``HH:MM``): the one refusal of a time, which each caller
    (a form, `/papers digest …`) words its own way."""

    text: str


@dataclass(eq=False, repr=True)
class BadAuthorPicks(_Fielded, BadArgument):
    """``word`` is no count of followed authors' papers from 0 to ``most`` (``default`` unless asked)."""

    word: str
    most: int
    default: int


@dataclass(eq=False, repr=True)
class Unchosen(_Fielded, BadArgument):
    """A form's ``what`` ("schedule": daily, weekly or off; "weekday") left unchosen."""

    what: str


@dataclass(eq=False, repr=True)
class FeedGone(_Fielded, BadArgument):
    """A form for the feed ``name``, which was removed meanwhile."""

    name: str


@dataclass(eq=False, repr=True)
class PersonInSeveral(_Fielded, BadArgument):
    """``user_id`` is a person in each of ``workspaces``: say which."""

    user_id: str
    workspaces: tuple[str, ...]


@dataclass(eq=False, repr=True)
class UnknownPaper(_Fielded, NotFound):
    """No paper has the id ``paper_id``."""

    paper_id: str


@dataclass(eq=False, repr=True)
class UnknownPerson(_Fielded, NotFound):
    """No person ``user_id`` (in workspace ``team``, when given)."""

    user_id: str
    team: str | None = None


@dataclass(eq=False, repr=True)
class NothingStored(_Fielded, NotFound):
    """Nothing to export: ``what`` is "papers" (none saved or liked) or "data" (no row at all)."""

    what: str


@dataclass(eq=False, repr=True)
class NotAPaperName(_Fielded, BadArgument):
    """``text`` names no paper: no paper id, arXiv id or link, DOI, OpenReview, PubMed, ACL Anthology or
    bioRxiv/medRxiv page, nor ``"title words"`` in quotes; ``link``: it is a link, to some other page."""

    text: str
    link: bool = False


@dataclass(eq=False, repr=True)
class PaperNotHeld(_Fielded, NotFound):
    """No paper held answers to ``name``, read as a ``kind`` of name ("arxiv", "doi", "openreview",
    "pubmed", "acl", "id", "url", or "title": no title holds those words)."""

    name: str
    kind: str


@dataclass(eq=False, repr=True)
class UnknownVenue(_Fielded, NotFound):
    """No paper held is of a venue matching ``asked``; ``known``: a few venues that are held (none: no
    paper names a venue)."""

    asked: str
    known: tuple[str, ...] = ()
