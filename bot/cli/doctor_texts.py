"""What ``paperbot doctor`` prints for each check: the use case (:mod:`bot.usecases.doctor`) says what it
found as a :class:`~bot.usecases.doctor.Finding` and its facts, and this says it as ``name: detail``,
with what to do."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.usecases.doctor import Check, Finding

#: What to do without SLACK_BOT_TOKEN (or OAuth's settings).
SET_UP_SLACK = ("not set: create the Slack app from slack-manifest.*.json, install it in the workspace and "
                "copy its Bot User OAuth Token (xoxb-…, OAuth & Permissions) into SLACK_BOT_TOKEN; for many "
                "workspaces set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and PAPERBOT_SECRET_KEY instead (see "
                "'Connect to Slack' in the README)")


Facts = Mapping[str, Any]
F = Finding


def line(check: Check) -> str:
    """``name: detail``, as printed after the check's mark."""
    name, detail = said(check)
    return f"{name}: {detail}"


def said(check: Check) -> tuple[str, str]:
    """The check's name and what it found, in words."""
    return SAID[check.finding](check.facts)


def _not_made(f: Facts) -> tuple[str, str]:
    fill = ("and fills it from PAPERBOT_FEEDS" if f["feeds"] else
            "(with no PAPERBOT_FEEDS set, papers come only from `paperbot ingest`)")
    return _database(f), f"not made yet: the first `paperbot run` or `paperbot digest` makes it {fill}"


def _refused(f: Facts) -> tuple[str, str]:
    todo = ("copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page into "
            "SLACK_BOT_TOKEN" if f["workspace"] is None else "install the app in that workspace again")
    return _token(f), f"Slack refuses the token ({f['error']}): {todo}"


#: Each finding's name and words, from its facts.
SAID: dict[Finding, Callable[[Facts], tuple[str, str]]] = {
    F.SETTINGS_UNREADABLE: lambda f: ("settings", f["error"]),
    F.NOTHING_ELSE_CHECKED: lambda f: ("database, disk, Slack, clock and feeds",
                                       "skipped until the settings above parse"),
    F.SETTING_INVALID: lambda f: ("settings", f["error"]),
    F.SETTINGS_PARSE: lambda f: ("settings", "every setting parses"
                                 + (" (OAuth: many workspaces)" if f["oauth"] else "")),
    F.DATABASE_SKIPPED: lambda f: ("database and disk", "fix PAPERBOT_DB first"),
    F.DATABASE_NOT_MADE: _not_made,
    F.DATABASE_FOLDER_MISSING: lambda f: (
        _database(f), f"its folder {f['folder']} does not exist: create it, or change {_origin(f)}"),
    F.DATABASE_FOLDER_UNWRITABLE: lambda f: (
        _database(f), f"not made yet, and this user can't write in its folder {f['folder']}: fix its "
        f"permissions, or change {_origin(f)}"),
    F.DATABASE_UNREADABLE: lambda f: (_database(f), f"{f['error']}: check {_origin(f)}"),
    F.SCHEMA_AHEAD: lambda f: (
        _database(f), f"it has {len(f['steps'])} schema step(s) this paperbot doesn't know "
        f"({', '.join(f['steps'][:3])}): a newer paperbot upgraded it; run that"),
    F.SCHEMA_BEHIND: lambda f: (
        _database(f), f"opens; {len(f['steps'])} schema step(s) to apply ({', '.join(f['steps'][:3])}), "
        "left as they are: `paperbot run` applies them at its start (`paperbot db backup` first)"),
    F.SCHEMA_CURRENT: lambda f: (_database(f), f"opens; schema current ({f['applied']} steps)"),
    F.DISK_FULL: lambda f: ("disk", f"{_free(f)}: paperbot soon can't save; free some space"),
    F.DISK_TIGHT: lambda f: (
        "disk", f"{_free(f)} (the database is {_size(f['size'])}): a backup may not fit"),
    F.DISK_ROOM: lambda f: ("disk", _free(f)),
    F.SLACK_SKIPPED: lambda f: ("Slack", f"fix {', '.join(f['settings'])} first"),
    F.TOKEN_NOT_SET: lambda f: ("Slack SLACK_BOT_TOKEN", SET_UP_SLACK),
    F.SCOPES_SKIPPED: lambda f: ("Slack scopes", "set SLACK_BOT_TOKEN first"),
    F.OAUTH_INCOMPLETE: lambda f: ("Slack OAuth", f["error"]),
    F.WORKSPACES_SKIPPED: lambda f: ("Slack workspaces", "set the OAuth settings above first"),
    F.NOTHING_INSTALLED_YET: lambda f: (
        "Slack", "no workspace has installed paperbot yet (the database is not made yet): once it runs, "
        "open /slack/install on the bot's address"),
    F.WORKSPACES_UNREADABLE: lambda f: (
        "Slack", "installed workspaces not checked: their tokens are in the database, which can't be read "
        "as it is (see above)"),
    F.NOTHING_INSTALLED: lambda f: (
        "Slack", "no workspace has installed paperbot yet: open /slack/install on the bot's address"),
    F.TOKEN_UNOPENED: lambda f: (
        _token(f), "no key opens its stored token: add the key it was saved with to "
        "PAPERBOT_OLD_SECRET_KEYS, or install the app there again"),
    F.TOKEN_ACCEPTED: lambda f: (_token(f), f"auth.test answers (workspace {f['team']})"),
    F.TOKEN_REFUSED: _refused,
    F.TOKEN_FAILED: lambda f: (
        _token(f), f"auth.test failed ({f['error']}): check SLACK_API_URL and this machine's network"),
    F.SCOPES_UNSAID: lambda f: (
        f"{_token(f)} scopes", "Slack did not say which scopes it granted (no x-oauth-scopes header)"),
    F.SCOPES_MISSING: lambda f: (
        f"{_token(f)} scopes", f"missing {', '.join(f['missing'])}: add them under OAuth & Permissions "
        "(they are in slack-manifest.*.json) and reinstall the app"),
    F.SCOPES_GRANTED: lambda f: (
        f"{_token(f)} scopes", f"all {f['count']} the manifest asks for are granted"),
    F.CLOCK_SKIPPED: lambda f: ("clock", "compared with Slack's once a token is checked"),
    F.CLOCK_UNKNOWN: lambda f: (
        "clock", "not compared: Slack's time is unknown (no answer with a Date header)"),
    F.CLOCK_OFF: lambda f: (
        "clock", f"this machine's clock is {_off(f)}: turn on time sync (NTP, e.g. "
        "`timedatectl set-ntp true`)"),
    F.CLOCK_AGREES: lambda f: ("clock", f"agrees with Slack's ({_off(f)})"),
    F.ZONES_UNLOADABLE: lambda f: (
        "time zones", f"can't load the time-zone data ({f['error']}): install tzdata (the OS package, or "
        "`pip install tzdata`)"),
    F.ZONES_WRONG: lambda f: (
        "time zones", "the time-zone data is wrong (Europe/Berlin's offsets): update tzdata"),
    F.ZONES_LOAD: lambda f: ("time zones", f"{f['count']} zones load, with daylight saving time"),
    F.FEEDS_SKIPPED: lambda f: ("feeds", f"fix {', '.join(f['settings'])} first"),
    F.NO_FEEDS: lambda f: (
        "feeds", "none set (PAPERBOT_FEEDS): no paper arrives unless `paperbot ingest` runs (cron, or by "
        "hand); set e.g. PAPERBOT_FEEDS=arxiv:cs.LG,stat.ML"),
    F.FEED_FAILED: lambda f: (f"feed {f['source']}", f"{f['error']}: fix or remove it in PAPERBOT_FEEDS"),
    F.FEED_ANSWERS: lambda f: (f"feed {f['source']}", "answers"),
    F.ARXIV_ANNOUNCED: lambda f: (
        f"feed {f['source']}", f"answers ({f['category']}: {f['papers']} papers announced{_on(f)})"),
    F.ARXIV_QUIET: lambda f: (
        f"feed {f['source']}", f"answers ({f['category']}: no announcement{_on(f)}, a weekend or holiday)"),
    F.ACL_VOLUME: lambda f: (
        f"feed {f['source']}", f"answers ({f['volume']}: {f['papers']:,} papers listed)"),
    F.LLM_SKIPPED: lambda f: ("summaries", f"fix {', '.join(f['settings'])} first"),
    F.LLM_UNREACHABLE: lambda f: (
        _llm(f), f"{f['error']}: check PAPERBOT_LLM_URL (its base, like http://localhost:11434/v1) and that "
        "the server runs (`ollama serve`); papers show their highlights meanwhile"),
    F.LLM_MODEL_MISSING: lambda f: (
        _llm(f), f"the endpoint does not serve {f['model']} (it serves {_listed(f['models'])}): fetch it "
        f"(`ollama pull {f['model']}`) or set PAPERBOT_LLM_MODEL to one it serves"),
    F.LLM_MODEL_SERVED: lambda f: (_llm(f), f"the endpoint serves {f['model']}"),
    F.LLM_ANSWERS: lambda f: (_llm(f), f"{f['model']} answers a chat completion"),
    F.LLM_REFUSES: lambda f: (
        _llm(f), f"{f['model']} does not answer a chat completion ({f['error']}): check PAPERBOT_LLM_MODEL "
        "and PAPERBOT_LLM_KEY"),
}


def _llm(facts: Facts) -> str:
    return f"summaries {facts['url']}"


def _listed(models: tuple[str, ...]) -> str:
    return ", ".join(models) if models else "no model"


def _database(facts: Facts) -> str:
    # A PostgreSQL URL is not named: it may hold a password.
    return "database" if facts["postgres"] else f"database {facts['target']}"


def _origin(facts: Facts) -> str:
    """The setting to change for another database: the one it came from, or either (the default)."""
    return facts["origin"] or f"PAPERBOT_DB (or --db; {facts['target']} is the default)"


def _free(facts: Facts) -> str:
    return f"{_size(facts['free'])} free beside {facts['target']}"


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"


def _token(facts: Facts) -> str:
    workspace = facts["workspace"]
    return "Slack SLACK_BOT_TOKEN" if workspace is None else f"Slack workspace {workspace}"


def _off(facts: Facts) -> str:
    skew = facts["skew"]
    return f"{abs(skew.total_seconds()):.0f} s {'ahead of' if skew.total_seconds() > 0 else 'behind'} Slack's"


def _on(facts: Facts) -> str:
    return f" on {facts['day']}" if facts["day"] else ""
