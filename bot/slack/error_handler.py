"""The one error handler of the Slack adapter, and the short answers it gives.

Bolt's listeners (``app.error``) and the work after the ack (:class:`bot.slack.runtime.Background`)
both end here, so a person always hears one short line and never a traceback.
"""

from __future__ import annotations

import logging

from slack_bolt import BoltResponse
from slack_sdk.errors import SlackClientError

from bot.errors import BadArgument, PaperbotError
from bot.slack.request_keys import log_fields, once_key
from bot.slack.views.messages import escape
from bot.slack.views.refusals import say
from storage import StorageError, StoreBusy, StoreUnavailable

SORRY = "Sorry, something went wrong on my side. Please try again in a minute."
HELP_POINTER = " See `/papers help`."

BUSY = ("Sorry, paperbot's database is busy right now, so I couldn't do that. "
        "Please try again in a minute.")
#: A request written down but not yet carried out, because the database can't be written now.
KEPT_FOR_LATER = ("paperbot's database is busy right now: I've kept your request and will carry it out "
                  "as soon as it can be written.")
UNSAVED = ("Sorry, paperbot can't save anything right now (a problem with its database). "
           "Please tell its admins.")
#: The database can't be reached (down, restarting, a connection cut): nothing was taken.
UNREACHABLE = ("Sorry, paperbot can't reach its database right now, so I couldn't take that. "
               "Please try again in a minute.")


def report_error(error: Exception, body: dict, respond, logger: logging.Logger,
                 response: BoltResponse | None = None) -> BoltResponse | None:
    """The one error handler: a PaperbotError's message, or a short apology (traceback logged here),
    to the person who asked. Never a traceback to a user."""
    fields = log_fields(body)  # named in JSON log lines, when no request is being handled on this thread
    if isinstance(error, PaperbotError):
        text = escape(say(error))
        if isinstance(error, BadArgument):  # a sentence of its own, after one that may lack its full stop
            text = text + ("" if text.endswith((".", "!", "?")) else ".") + HELP_POINTER
        logger.info("answered with an error: %s", error, extra=fields)
    elif isinstance(error, StorageError):  # the admins' problem, said in one line; the user hears what to do
        logger.warning("%s (%s)", error, once_key(body) or "a request", extra=fields)
        text = (BUSY if isinstance(error, StoreBusy) else UNREACHABLE if isinstance(error, StoreUnavailable)
                else UNSAVED)
    else:
        logger.error("a Slack listener failed", exc_info=error, extra=fields)
        text = SORRY
    if body.get("type") == "event_callback":
        return None  # an event has nobody to answer; the log has it
    if response is not None and body.get("command"):
        # A slash command that failed before ack(): the answer goes in the HTTP response itself.
        return BoltResponse(status=200, body={"response_type": "ephemeral", "text": text})
    if respond is not None:  # Bolt offers respond() when the request carried a response_url
        try:
            respond(text=text, response_type="ephemeral", replace_original=False)
        except (SlackClientError, OSError):
            logger.exception("could not tell the user about an error")
    return BoltResponse(status=200, body="") if response is not None else None
