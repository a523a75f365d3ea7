"""What people type in paperbot's DM (``message.im``): the `/papers` subcommands without `/papers`,
answered in the DM from the same declarations as the slash command
(:data:`bot.slack.subcommands.personal.REGISTRY`).

Anything that is no subcommand gets the help, except a message that only shares paper links (its
arxiv.org links unfurl into cards: :mod:`bot.slack.listeners.unfurls`). paperbot's own messages, edits,
deletions and other subtypes are ignored; each message is answered once (claimed by its event id).
"""

from __future__ import annotations

import http.client
import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from bot.errors import BadArgument, PaperbotError
from bot.slack.error_handler import BUSY, SORRY, UNSAVED
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Reply, Request, clean
from bot.slack.subcommands.personal import REGISTRY, reply_help
from bot.slack.views.messages import escape
from bot.slack.views.refusals import say
from bot.sources.arxiv_ids import find_arxiv_ids, find_dois
from storage import StorageError, StoreBusy

log = logging.getLogger(__name__)

NOT_UNDERSTOOD = "I didn't understand that. Here is what you can type here (without `{command}`):\n\n"
HELP_AGAIN = " Type `help` for everything I understand."


def typed_command(text: str) -> str:
    """The subcommand in a DM's text: as typed, with a leading `/papers` or `papers` dropped."""
    words = clean(text)
    first, _, rest = words.partition(" ")
    if first.lower() in (COMMAND, COMMAND.lstrip("/")):
        return rest.strip()
    return words


def dm_reply(rt: Runtime, client: WebClient, user: str, text: str, channel: str = "") -> Reply | None:
    """The answer to a DM's ``text`` (typed in ``channel``, the DM); None when it needs none (it only
    shares paper links)."""
    typed = typed_command(text)
    first = typed.split(None, 1)[0].lower() if typed else "help"
    if first not in REGISTRY.names:
        if find_arxiv_ids(typed) or find_dois(typed):
            return None
        return {"text": NOT_UNDERSTOOD.format(command=COMMAND) + reply_help()["text"]}
    try:
        return REGISTRY.answer(Request(user, channel, rt, client), typed)
    except BadArgument as exc:
        return {"text": escape(say(exc)) + HELP_AGAIN}
    except PaperbotError as exc:
        return {"text": escape(say(exc))}
    except StoreBusy:
        return {"text": BUSY}
    except StorageError as exc:
        log.warning("%s", exc)
        return {"text": UNSAVED}
    except Exception:
        log.exception("answering a DM failed")
        return {"text": SORRY}


def is_typed_message(event: dict) -> bool:
    """Whether a ``message`` event is someone typing in paperbot's DM (not a bot, not an edit)."""
    return (event.get("channel_type") == "im" and not event.get("bot_id") and not event.get("subtype")
            and isinstance(event.get("user"), str) and bool(event.get("user"))
            and isinstance(event.get("text"), str) and bool(event["text"].strip())
            and isinstance(event.get("channel"), str) and bool(event.get("channel")))


def register(app: App, runtime: Runtime) -> None:
    """Register the listener of DM messages."""

    @app.event("message")
    def on_message(event: dict, body: dict, client: WebClient, context) -> None:
        if not is_typed_message(event):
            return
        user, channel = event["user"], event["channel"]

        def work(rt: Runtime) -> None:
            reply = dm_reply(rt, client, user, event["text"], channel)
            if reply is None:
                return
            try:
                client.chat_postMessage(channel=channel, text=reply["text"], blocks=reply.get("blocks"),
                                        unfurl_links=False, unfurl_media=False)
            except (SlackClientError, OSError, http.client.HTTPException) as exc:
                log.warning("could not answer a DM in %s: %s", channel, exc)

        runtime.after_ack(context, body, work)  # claimed by the event id: a redelivery is not answered again
