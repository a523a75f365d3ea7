"""`/papers feed add NAME: TOPICS` and `/papers feed remove NAME`: named feeds, each with its own section
in the digest (:mod:`bot.usecases.feeds`)."""

from __future__ import annotations

from slack_sdk import WebClient

from bot.errors import BadArgument
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import ECHO_LIMIT, Command, HelpTopic, Reply, Request, Subcommand, quoted, where
from bot.slack.timezones import refresh_timezone
from bot.slack.views.messages import fit
from bot.state.context import Context
from bot.usecases.feeds import add_feed, feed_name, parse_feed_add, remove_feed


def _feed(arg: str) -> Command:
    parts = arg.split(None, 1)
    action, rest = (parts[0].lower(), parts[1].strip() if len(parts) > 1 else "") if parts else ("", "")
    if action == "add":
        parse_feed_add(rest)  # a wrong argument is answered at once, before anything is written
        return Command("feed-add", rest)
    if action == "remove":
        feed_name(rest)
        return Command("feed-remove", rest)
    raise BadArgument(f"Say `{COMMAND} feed add NAME: TOPICS` or `{COMMAND} feed remove NAME`, "
                      f"e.g. `{COMMAND} feed add robotics: grasping, sim2real`.")


def reply_feed_add(ctx: Context, client: WebClient, user_id: str, cmd: Command) -> Reply:
    result = add_feed(ctx, user_id, cmd.arg)
    name = fit(result.feed, ECHO_LIMIT)
    lines = []
    if result.added:
        lines.append(f"Feed “{name}” now follows " + quoted(result.added) + ".")
    if result.already:
        lines.append(f"Feed “{name}” already follows " + quoted(result.already) + ".")
    if result.digest_turned_on:
        tz = refresh_timezone(ctx, client, user_id)
        lines.append(f"Daily digests are on at {result.digest_time} {where(tz)}; change that with "
                     f"`{COMMAND} digest HH:MM`.")
    lines.append(f"Its papers come in a section of their own; `{COMMAND} feed remove {name}` deletes it.")
    return {"text": "\n".join(lines)}


def reply_feed_remove(ctx: Context, user_id: str, cmd: Command) -> Reply:
    removed = remove_feed(ctx, user_id, cmd.arg)
    if removed is None:
        return {"text": f"You have no feed “{fit(cmd.arg, ECHO_LIMIT)}”. "
                        f"`{COMMAND} interests` lists your feeds."}
    return {"text": f"Deleted the feed “{fit(removed, ECHO_LIMIT)}” and its topics."}


def _answer_feed(req: Request, cmd: Command) -> Reply:
    if cmd.name == "feed-add":
        return reply_feed_add(req.rt.ctx, req.client, req.user, cmd)
    return reply_feed_remove(req.rt.ctx, req.user, cmd)


FEED = Subcommand(
    "feed",
    f"• `{COMMAND} feed add robotics: grasping, sim2real`: a feed of its own (a name of one or two "
    f"words), with its own section in your digest; `{COMMAND} feed remove robotics` deletes it",
    _feed, lambda req, cmd: _answer_feed(req, cmd), changes_home=True)
SUBCOMMANDS = (FEED,)
TOPIC = HelpTopic("feeds", f"`{COMMAND} feed add robotics: grasping, sim2real`: a feed of its own",
                  SUBCOMMANDS)
