"""Named errors, turned into short friendly messages at the edges (CLI, Slack)."""


class PaperbotError(Exception):
    """Base of every error paperbot reports to a person. ``str(e)`` is the message."""


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
