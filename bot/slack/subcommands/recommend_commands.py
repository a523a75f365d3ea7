"""`/papers recommend [N]` (the best papers now, sent to the DM) and `/papers search QUERY` (matching
papers, shown only to the caller): :mod:`bot.usecases.recommend`."""

from __future__ import annotations

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.reasons import shorten
from bot.slack.dm import send_papers
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import DEFAULT_RECOMMEND, ECHO_LIMIT, Command, HelpTopic, Reply, Subcommand, papers
from bot.slack.views.messages import fit, results_blocks
from bot.state.context import Context
from bot.usecases import recommend, search
from bot.usecases.delivery import Delivery
from bot.usecases.recommend import MAX_RECOMMEND

SEARCH_RESULTS = 5


def _recommend(arg: str) -> Command:
    return Command("recommend", count=_count(arg))


def _count(arg: str) -> int:
    if not arg:
        return DEFAULT_RECOMMEND
    # ASCII digits only (str.isdigit() also takes "²", which int() refuses, and int() takes "٣"), and
    # few of them: int() refuses more than 4,300 digits.
    if not (arg.isascii() and arg.isdigit() and len(arg) <= 9) or not 1 <= int(arg) <= MAX_RECOMMEND:
        raise BadArgument(f"`{COMMAND} recommend N` takes a number from 1 to {MAX_RECOMMEND}, "
                          f"not “{shorten(arg, 40)}”.")
    return int(arg)


def reply_recommend(rt: Runtime, client: WebClient, user_id: str, cmd: Command) -> Reply:
    ctx = rt.ctx
    with rt.locks.hold(user_id):
        recs = recommend(ctx, user_id, cmd.count, remember=False)
        if not recs:
            return {"text": "Nothing new matches your interests right now. Try again after new papers "
                            f"arrive, or `{COMMAND} follow` more topics."}
        header = f":books: {papers(len(recs))} picked for you. React :+1: or :-1: to tune what comes next."
        delivery = send_papers(ctx, client, user_id, recs, header)
    return {"text": _delivered(delivery)}


def _delivered(delivery: Delivery) -> str:
    delivered, failed, unsure = delivery.delivered, delivery.failed, delivery.unconfirmed
    unsure_text = (f"Slack didn't confirm {papers(len(unsure))} in time and I couldn't check, so look "
                   "in our direct messages; I won't send it again." if unsure else "")
    if not delivered and not unsure:
        if delivery.outage:
            return ("Sorry, Slack isn't answering right now, so nothing was sent. "
                "Please try again in a few minutes.")
        return "Sorry, Slack didn't accept the messages, so nothing was sent. Please try again in a minute."
    text = f"I sent you {papers(len(delivered))} in our direct messages." if delivered else ""
    if unsure:
        text = f"{text} {unsure_text}".strip()
    if failed:
        text += f" {papers(len(failed))} couldn't be delivered; they may come again later."
    return text


def reply_search(ctx: Context, user_id: str, cmd: Command) -> Reply:
    recs = search(ctx, cmd.arg, SEARCH_RESULTS)
    query = fit(" ".join(cmd.arg.split()), ECHO_LIMIT)
    if not recs:
        return {"text": f"No paper matches “{query}”."}
    intro = f"*{papers(len(recs))} matching “{query}”:*"
    return {"text": intro, "blocks": results_blocks(intro, recs)}


RECOMMEND = Subcommand(
    "recommend",
    f"• `{COMMAND} recommend` or `{COMMAND} recommend 10`: the best new papers for you now, in a DM "
    f"(default {DEFAULT_RECOMMEND}, at most {MAX_RECOMMEND})",
    _recommend, lambda req, cmd: reply_recommend(req.rt, req.client, req.user, cmd))
SEARCH = Subcommand(
    "search",
    f"• `{COMMAND} search contrastive learning`: papers matching a query, shown only to you; an "
    f"author's name finds their papers (`{COMMAND} search bajcsy safety`: Bajcsy's papers on safety "
    "first)",
    lambda arg: Command("search", arg), lambda req, cmd: reply_search(req.rt.ctx, req.user, cmd))
SUBCOMMANDS = (RECOMMEND, SEARCH)
TOPIC = HelpTopic("recommend", f"`{COMMAND} recommend` · `search contrastive learning` · "
                               "`conference ICML 2025`: papers now, or a venue's",
                  SUBCOMMANDS)
