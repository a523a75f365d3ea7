"""Named errors, turned into short friendly messages at the edges (CLI, Slack)."""


class PaperbotError(Exception):
    """Base of every error paperbot reports to a person. ``str(e)`` is the message."""


class ConfigError(PaperbotError):
    """A setting is missing or malformed."""


class SourceError(PaperbotError):
    """A paper source can't be read at all (missing file, unreachable feed, unknown format)."""


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
