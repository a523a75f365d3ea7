"""`/papers saved` (the reading list, newest first) and `/papers export [data]` (a BibTeX file of the saved
and liked papers, or everything stored about the person as JSON, in the DM): :mod:`bot.usecases.saved`,
:mod:`bot.usecases.export`."""

from __future__ import annotations

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.presentation.paper_view import title_url
from bot.presentation.reasons import shorten
from bot.slack.delivery.files import upload_to_dm
from bot.slack.manifest import COMMAND
from bot.slack.runtime import Runtime
from bot.slack.subcommands import Command, HelpTopic, Reply, Subcommand, nothing_after, papers
from bot.slack.views.messages import (
    FALLBACK_LIMIT,
    MESSAGE_BLOCKS,
    SECTION_LIMIT,
    byline,
    fit,
    link,
    title_of,
)
from bot.state.context import Context
from bot.usecases.export import bibtex_export, data_export
from bot.usecases.saved import SavedItem, saved_page

#: Newest saved papers `saved` lists at most (fewer when the message is full first); the rest are counted
#: and left to `export`. A cold title costs about a millisecond: this keeps the answer well under 0.3 s.
SAVED_SHOWN = 100


def _export(arg: str) -> Command:
    word = arg.lower()
    if not arg:
        return Command("export-bibtex")
    if word == "data":
        return Command("export-data")
    raise BadArgument(f"`{COMMAND} export` takes nothing, or `data`, not “{shorten(arg, 40)}”: "
                      f"`{COMMAND} export` for a BibTeX file of your saved and liked papers, "
                      f"`{COMMAND} export data` for everything paperbot stores about you.")


def reply_saved(ctx: Context, user_id: str) -> Reply:
    page = saved_page(ctx, user_id, SAVED_SHOWN)
    items = page.items
    if not items:
        return {"text": "You have no saved papers yet: click Save on a paper I sent you, or react to it "
                        "with :bookmark:."}
    intro = f"*Your saved papers* ({page.total}), newest first:"
    # Only the newest are read, and lines are made only as far as they fit (a title costs about a
    # millisecond): a list of thousands answers as fast as a short one.
    lines: list[str] = []
    blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn", "text": intro}}]
    chunk: list[str] = []
    for item in items:
        line = _saved_line(item)
        if sum(len(x) + 1 for x in chunk) + len(line) > SECTION_LIMIT - 100:
            if len(blocks) + 3 > MESSAGE_BLOCKS:  # this section, the one after it, the "and N more" line
                break
            blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(chunk)}})
            chunk = []
        chunk.append(line)
        lines.append(line)
    shown = len(lines)
    if chunk:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(chunk)}})
    if shown < page.total:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text":
                       f"and {page.total - shown} more: `{COMMAND} export` has them all."}]})
    return {"text": f"{intro}\n" + "\n".join(lines[:20])[:FALLBACK_LIMIT - 200], "blocks": blocks}


def _saved_line(item: SavedItem) -> str:
    paper = item.paper
    line = "• " + link(title_url(paper), fit(title_of(paper), 200))
    by = byline(paper)
    return line + (f" · {by}" if by else "") + f" · saved {item.saved_at[:10]}"


def reply_export(rt: Runtime, client: WebClient, user_id: str, cmd: Command) -> Reply:
    ctx = rt.ctx
    if cmd.name == "export-data":
        file = data_export(ctx, user_id)
        upload_to_dm(ctx, client, user_id, file, "Everything paperbot stores about you",
                     "Everything paperbot stores about you, as JSON.")
        return {"text": f"I put a JSON file of everything I store about you ({file.count} rows) in our "
                        "direct messages."}
    file = bibtex_export(ctx, user_id)
    comment = f"Your saved and liked papers as BibTeX ({papers(file.count)})."
    upload_to_dm(ctx, client, user_id, file, "Your saved and liked papers", comment)
    return {"text": f"I put a BibTeX file of your {papers(file.count)} (saved and liked) in our direct "
                    "messages; a reference manager imports it."}


SAVED = Subcommand(
    "saved", f"• `{COMMAND} saved`: your saved papers, newest first, with links",
    nothing_after("saved"), lambda req, cmd: reply_saved(req.rt.ctx, req.user))
EXPORT = Subcommand(
    "export",
    f"• `{COMMAND} export`: a BibTeX file of your saved and liked papers, in our DM; `{COMMAND} export "
    "data` a JSON file of everything paperbot stores about you",
    _export, lambda req, cmd: reply_export(req.rt, req.client, req.user, cmd))
SUBCOMMANDS = (SAVED, EXPORT)
TOPIC = HelpTopic("saved", f"`{COMMAND} saved` · `export`: your reading list, as BibTeX too", SUBCOMMANDS)
