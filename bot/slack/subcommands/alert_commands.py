"""`/papers alert PHRASE`, `/papers alert remove PHRASE` and `/papers alerts`: parsed (without the
database, so a wrong argument is answered in the ack), answered, every phrase echoed escaped, and
declared (:data:`SUBCOMMANDS`, :data:`TOPIC`); what an alert does is :mod:`bot.usecases.alerts`."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import BadArgument
from bot.slack.manifest import COMMAND
from bot.slack.subcommands import ECHO_LIMIT, HelpTopic, Reply, Subcommand, quoted
from bot.slack.views.messages import fit
from bot.state.context import Context
from bot.usecases.alerts import ALERTS_A_DAY, MAX_ALERTS, add_alert, alerts, check_phrase, remove_alert

EXAMPLE = f"`{COMMAND} alert graph transformers`"
#: How each alert line ends: how to take one back.
REMOVE_HINT = f"`{COMMAND} alert remove PHRASE` removes one."
ALERT_HELP = (
    f"• {EXAMPLE}: a new paper whose title or abstract says the phrase (whole words, any case) comes "
    f"first in your next digest, whatever its rank (at most {ALERTS_A_DAY} a day, {MAX_ALERTS} alerts); "
    f"`{COMMAND} alert remove graph transformers` removes it, `{COMMAND} alerts` lists them")


@dataclass(frozen=True)
class AlertCommand:
    """A parsed `alert` or `alerts`: ``action`` is "add", "remove" or "list"."""

    action: str
    phrase: str = ""


def parse_alert(arg: str) -> AlertCommand:
    """`alert PHRASE` or `alert remove PHRASE`. Raises BadArgument saying what was wrong."""
    first, _, rest = arg.partition(" ")
    if first.casefold() == "remove":
        if not rest.strip():
            raise BadArgument(f"Say which alert to remove, e.g. `{COMMAND} alert remove graph transformers` "
                              f"(`{COMMAND} alerts` lists yours).")
        return AlertCommand("remove", " ".join(rest.split()))
    if not arg.strip():
        raise BadArgument(f"Say what to watch for, e.g. {EXAMPLE}; `{COMMAND} alerts` lists your alerts.")
    return AlertCommand("add", check_phrase(arg))


def parse_alerts(arg: str) -> AlertCommand:
    """`alerts`, which takes nothing after it."""
    if arg.strip():
        raise BadArgument(f"`{COMMAND} alerts` takes nothing after it; {EXAMPLE} adds an alert.")
    return AlertCommand("list")


def reply_alert(ctx: Context, user_id: str, cmd: AlertCommand) -> Reply:
    """The answer to `alert …` or `alerts`."""
    if cmd.action == "list":
        return reply_alerts(ctx, user_id)
    if cmd.action == "remove":
        removed = remove_alert(ctx, user_id, cmd.phrase)
        if removed is None:
            return {"text": f"You have no alert “{fit(cmd.phrase, ECHO_LIMIT)}”. "
                            f"`{COMMAND} alerts` lists yours."}
        return {"text": f"Removed the alert “{fit(removed, ECHO_LIMIT)}”."}
    result = add_alert(ctx, user_id, cmd.phrase)
    phrase = fit(result.phrase, ECHO_LIMIT)
    if not result.added:
        return {"text": f"You already have the alert “{phrase}”. `{COMMAND} alerts` lists yours."}
    return {"text": f"Alert set: a new paper whose title or abstract says “{phrase}” comes first in your "
                    f"next digest, whatever its rank (at most {ALERTS_A_DAY} alert papers a day). "
                    f"`{COMMAND} alert remove PHRASE` removes it, `{COMMAND} alerts` lists your alerts."}


def reply_alerts(ctx: Context, user_id: str) -> Reply:
    """The person's alerts, and how to remove one."""
    mine = alerts(ctx, user_id)
    if not mine:
        return {"text": f"You have no alerts. {EXAMPLE} brings new papers that say a phrase into your "
                        "digest, whatever their rank."}
    return {"text": f"*Your alerts* ({len(mine)} of {MAX_ALERTS}): {alert_list(mine)}\n{REMOVE_HINT}"}


def alert_list(phrases: list[str]) -> str:
    """Alerts quoted and escaped, within a reply's room."""
    return quoted(phrases, 2000)


ALERT = Subcommand("alert", ALERT_HELP, parse_alert, lambda req, cmd: reply_alert(req.rt.ctx, req.user, cmd),
                   changes_home=True)
ALERTS = Subcommand("alerts", "",  # alert's line says it
                    parse_alerts, lambda req, cmd: reply_alert(req.rt.ctx, req.user, cmd))
SUBCOMMANDS = (ALERT, ALERTS)
TOPIC = HelpTopic("alerts", f"`{COMMAND} alert graph transformers` · `alerts`: new papers holding a phrase, "
                            "first in your digest", SUBCOMMANDS)
