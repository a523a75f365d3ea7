"""``paperbot doctor``: a set-up checked before its first morning, one result per check.

Checks, in order: the settings parse; the database opens and its schema is current (a SQLite file not
made yet is a warning: the first ``paperbot run``, ``digest`` or ``ingest`` makes it); there is room
beside a SQLite file; Slack accepts each token (SLACK_BOT_TOKEN, or each installed workspace's) and
grants every scope the manifest asks for; this machine's clock agrees with Slack's; the time-zone data
loads; each PAPERBOT_FEEDS source answers.

Every check that can run does, whatever else is missing: with no Slack token yet, the database, disk,
time zones and feeds are still checked, the token's line says what to set, and what needs Slack's
answer is ``skip`` (said, not counted as passed or failed). A setting that doesn't parse fails on its
own line, and only the checks that depend on it are skipped.

Nothing is changed: the schema is read, not migrated (steps still to apply are a warning, since
``paperbot run`` applies them at its start), and no store is opened on a database whose schema is not
current (opening one applies the steps). Slack is reached through a probe handed in
(:class:`bot.slack.probe.SlackProbe`), as use cases know nothing of Slack.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.errors import ConfigError
from bot.sources import read_source
from bot.sources.arxiv import parse_categories, read_arxiv
from bot.sources.arxiv_daily import read_listing
from bot.sources.http import Fetcher
from bot.sources.records import SourceError
from storage import StorageError, is_new_file, is_postgres_url, open_store
from storage.schema_status import SchemaStatus, schema_status

#: "skip": not checked, because what it needs is missing (the line says what to set first).
Status = Literal["ok", "warn", "fail", "skip"]

#: How far this machine's clock may be from Slack's. Slack refuses a request signed more than 5 minutes
#: off, and digests go out by the minute; a clock a minute off has no time sync and drifts further.
CLOCK_SKEW = timedelta(seconds=60)
#: Free space below which paperbot soon can't save (a failed check), and below which a backup or a
#: VACUUM (as big as the database again) may not fit (a warning, whichever is larger).
DISK_FAIL = 100 * 2**20
DISK_WARN = 2**30
#: Zones whose data must load, and one whose summer and winter offsets are checked.
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney")
#: What Slack answers for a token it will never accept.
REFUSED = ("invalid_auth", "token_revoked", "account_inactive", "not_authed", "token_expired")
FEED_TIMEOUT = 15.0


@dataclass(frozen=True)
class Check:
    """One check's result: what was checked, ``ok``/``warn``/``fail``/``skip``, and what was found or what
    to do."""

    name: str
    status: Status
    detail: str


class AuthAnswer(Protocol):
    """Slack's answer to ``auth.test`` (:class:`bot.slack.probe.AuthAnswer`)."""

    error: str | None
    team: str | None
    scopes: frozenset[str] | None
    slack_time: datetime | None


class SlackChecks(Protocol):
    """What the doctor asks of Slack (:class:`bot.slack.probe.SlackProbe`)."""

    scopes: Collection[str]

    def auth_test(self, token: str) -> AuthAnswer: ...

    def workspace_tokens(self, store) -> dict[str, str | None]: ...


def diagnose(load_settings: Callable[[], Settings], slack_for: Callable[[Settings], SlackChecks],
             now: Callable[[], datetime] = lambda: datetime.now(UTC),
             disk_usage: Callable[[str], tuple[int, int, int]] = shutil.disk_usage) -> list[Check]:
    """Every check's result, in order. ``load_settings`` loads leniently (``Settings.problems``): each
    setting that doesn't parse fails on its own line, and only what depends on it is skipped."""
    try:
        settings = load_settings()
    except ConfigError as exc:  # --db given in a form no database has: nothing to go on but the zones
        return [Check("settings", "fail", str(exc)), *_time_zones(),
                Check("database, disk, Slack, clock and feeds", "skip", "skipped until the settings above "
                      "parse")]
    bad = {name for name, _ in settings.problems}
    found = [Check("settings", "fail", why) for _, why in settings.problems] or [
        Check("settings", "ok", "every setting parses" + (" (OAuth: many workspaces)" if settings.oauth
                                                          else ""))]
    schema = None
    if "PAPERBOT_DB" in bad:
        found.append(Check("database and disk", "skip", "fix PAPERBOT_DB first"))
    else:
        schema = _schema(settings, found)
        found += _disk(settings.db_path, disk_usage)
    answers: list[AuthAnswer] = []
    slack_bad = sorted(bad & SLACK_SETTINGS)
    if slack_bad:
        found.append(Check("Slack", "skip", f"fix {', '.join(slack_bad)} first"))
    else:
        answers = list(_slack(settings, slack_for, schema, found))
    found += _clock([a.slack_time for a in answers if a.slack_time is not None], now(), asked=bool(answers))
    found += _time_zones()
    arxiv_bad = sorted(bad & {"PAPERBOT_ARXIV_API_URL", "PAPERBOT_ARXIV_RSS_URL"})
    if arxiv_bad and settings.feeds:
        found.append(Check("feeds", "skip", f"fix {', '.join(arxiv_bad)} first"))
    else:
        found += _feeds(settings)
    return found


#: The settings a check of Slack's answers depends on: one that doesn't parse skips those checks.
SLACK_SETTINGS = frozenset({"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_CLIENT_ID",
                            "SLACK_CLIENT_SECRET", "PAPERBOT_SECRET_KEY", "PAPERBOT_OLD_SECRET_KEYS"})


def _origin(settings: Settings) -> str:
    """The setting to change for another database: the one it came from, or either (the default)."""
    return settings.db_from or f"PAPERBOT_DB (or --db; {settings.db_path} is the default)"


def _schema(settings: Settings, found: list[Check]) -> SchemaStatus | None:
    """Check the database's schema (appended to ``found``); the status, or None when it can't be read
    (or is not made yet)."""
    target = settings.db_path
    name = "database" if is_postgres_url(target) else f"database {target}"
    if is_new_file(target):
        found.append(_to_be_made(name, target, settings))
        return None
    try:
        status = schema_status(target)
    except StorageError as exc:
        found.append(Check(name, "fail", f"{exc}: check {_origin(settings)}"))
        return None
    if status.unknown:
        found.append(Check(name, "fail", f"it has {len(status.unknown)} schema step(s) this paperbot doesn't "
                           f"know ({', '.join(status.unknown[:3])}): a newer paperbot upgraded it; run that"))
    elif status.pending:
        found.append(Check(name, "warn", f"opens; {len(status.pending)} schema step(s) to apply "
                           f"({', '.join(status.pending[:3])}), left as they are: `paperbot run` applies "
                           "them at its start (`paperbot db backup` first)"))
    else:
        found.append(Check(name, "ok", f"opens; schema current ({status.applied} steps)"))
    return status


def _to_be_made(name: str, target: str, settings: Settings) -> Check:
    """A SQLite file not made yet: fine where it can be made (a fresh install), said as a warning."""
    folder = Path(target).resolve().parent
    if not folder.is_dir():
        return Check(name, "fail", f"its folder {folder} does not exist: create it, or change "
                     f"{_origin(settings)}")
    if not os.access(folder, os.W_OK | os.X_OK):
        return Check(name, "fail", f"not made yet, and this user can't write in its folder {folder}: "
                     f"fix its permissions, or change {_origin(settings)}")
    fill = ("and fills it from PAPERBOT_FEEDS" if settings.feeds else
            "(with no PAPERBOT_FEEDS set, papers come only from `paperbot ingest`)")
    return Check(name, "warn", f"not made yet: the first `paperbot run` or `paperbot digest` makes it {fill}")


def _disk(target: str, disk_usage: Callable[[str], tuple[int, int, int]]) -> list[Check]:
    """Free space beside a SQLite file (or where it will be made)."""
    if is_postgres_url(target) or target == ":memory:":
        return []
    path = Path(target).resolve()
    if not (path.is_file() or (not path.exists() and path.parent.is_dir())):
        return []  # a folder, say: the database's line says what is wrong
    free = disk_usage(str(path.parent))[2]
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    where = f"{_size(free)} free beside {target}"
    if free < DISK_FAIL:
        return [Check("disk", "fail", f"{where}: paperbot soon can't save; free some space")]
    if free < max(DISK_WARN, 2 * size):
        return [Check("disk", "warn", f"{where} (the database is {_size(size)}): a backup may not fit")]
    return [Check("disk", "ok", where)]


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"


def _slack(settings: Settings, slack_for: Callable[[Settings], SlackChecks], schema: SchemaStatus | None,
           found: list[Check]) -> Iterator[AuthAnswer]:
    """Check each token (appended to ``found``) and yield Slack's answers. A Slack setting missing is
    said with what to set, and what needs it is skipped."""
    if not settings.oauth:
        if not settings.bot_token:
            found.append(Check("Slack SLACK_BOT_TOKEN", "fail", SET_UP_SLACK))
            found.append(Check("Slack scopes", "skip", "set SLACK_BOT_TOKEN first"))
            return
        tokens: dict[str, str | None] = {"SLACK_BOT_TOKEN": settings.bot_token}
    else:
        try:
            settings.require_oauth()
        except ConfigError as exc:
            found.append(Check("Slack OAuth", "fail", str(exc)))
            found.append(Check("Slack workspaces", "skip", "set the OAuth settings above first"))
            return
        if is_new_file(settings.db_path):
            found.append(Check("Slack", "warn", "no workspace has installed paperbot yet (the database is "
                               "not made yet): once it runs, open /slack/install on the bot's address"))
            return
        if schema is None or not schema.current:
            found.append(Check("Slack", "warn", "installed workspaces not checked: their tokens are in the "
                               "database, which can't be read as it is (see above)"))
            return
        slack = slack_for(settings)
        store = open_store(settings.db_path)  # schema current: opening applies nothing
        try:
            tokens = {f"workspace {ws}": token for ws, token in slack.workspace_tokens(store).items()}
        finally:
            store.dispose()
        if not tokens:
            found.append(Check("Slack", "warn", "no workspace has installed paperbot yet: open /slack/install"
                               " on the bot's address"))
            return
    slack = slack_for(settings)
    for name, token in tokens.items():
        if token is None:
            found.append(Check(f"Slack {name}", "fail", "no key opens its stored token: add the key it was "
                               "saved with to PAPERBOT_OLD_SECRET_KEYS, or install the app there again"))
            continue
        answer = slack.auth_test(token)
        found.append(_token_check(name, answer, settings.oauth))
        if answer.error is None:
            found.append(_scope_check(name, answer, slack.scopes))
        yield answer


#: What to do without SLACK_BOT_TOKEN (or OAuth's settings).
SET_UP_SLACK = ("not set: create the Slack app from slack-manifest.*.json, install it in the workspace and "
            "copy its Bot User OAuth Token (xoxb-…, OAuth & Permissions) into SLACK_BOT_TOKEN; for many "
            "workspaces set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and PAPERBOT_SECRET_KEY instead (see "
            "'Connect to Slack' in the README)")


def _token_check(name: str, answer: AuthAnswer, oauth: bool) -> Check:
    if answer.error is None:
        return Check(f"Slack {name}", "ok", f"auth.test answers (workspace {answer.team})")
    if answer.error in REFUSED:
        todo = ("install the app in that workspace again" if oauth else "copy the Bot User OAuth Token "
                "(xoxb-…) from the app's OAuth & Permissions page into SLACK_BOT_TOKEN")
        return Check(f"Slack {name}", "fail", f"Slack refuses the token ({answer.error}): {todo}")
    return Check(f"Slack {name}", "fail", f"auth.test failed ({answer.error}): check SLACK_API_URL and "
                 "this machine's network")


def _scope_check(name: str, answer: AuthAnswer, wanted: Collection[str]) -> Check:
    if answer.scopes is None:
        return Check(f"Slack {name} scopes", "warn", "Slack did not say which scopes it granted "
                     "(no x-oauth-scopes header)")
    missing = sorted(set(wanted) - answer.scopes)
    if missing:
        return Check(f"Slack {name} scopes", "fail", f"missing {', '.join(missing)}: add them under OAuth & "
                     "Permissions (they are in slack-manifest.*.json) and reinstall the app")
    return Check(f"Slack {name} scopes", "ok", f"all {len(set(wanted))} the manifest asks for are granted")


def _clock(slack_times: list[datetime], now: datetime, asked: bool = True) -> list[Check]:
    if not asked:
        return [Check("clock", "skip", "compared with Slack's once a token is checked")]
    if not slack_times:
        return [Check("clock", "warn", "not compared: Slack's time is unknown (no answer with a Date "
                      "header)")]
    skew = now - slack_times[0]
    off = f"{abs(skew.total_seconds()):.0f} s {'ahead of' if skew > timedelta(0) else 'behind'} Slack's"
    if abs(skew) > CLOCK_SKEW:
        return [Check("clock", "fail", f"this machine's clock is {off}: turn on time sync (NTP, e.g. "
                      "`timedatectl set-ntp true`)")]
    return [Check("clock", "ok", f"agrees with Slack's ({off})")]


def _time_zones() -> list[Check]:
    try:
        zones = {name: ZoneInfo(name) for name in ZONES}
    except Exception as exc:  # ZoneInfoNotFoundError, or a damaged file
        return [Check("time zones", "fail", f"can't load the time-zone data ({exc}): install tzdata "
                      "(the OS package, or `pip install tzdata`)")]
    berlin = zones["Europe/Berlin"]
    summer = datetime(2025, 7, 1, 12, tzinfo=UTC).astimezone(berlin).utcoffset()
    winter = datetime(2025, 1, 15, 12, tzinfo=UTC).astimezone(berlin).utcoffset()
    if (summer, winter) != (timedelta(hours=2), timedelta(hours=1)):
        return [Check("time zones", "fail", "the time-zone data is wrong (Europe/Berlin's offsets): update "
                      "tzdata")]
    return [Check("time zones", "ok", f"{len(ZONES)} zones load, with daylight saving time")]


def _feeds(settings: Settings) -> list[Check]:
    if not settings.feeds:
        # No source is the default, and the commonest reason nobody gets a paper: say so, unless cron ingests.
        return [Check("feeds", "warn", "none set (PAPERBOT_FEEDS): no paper arrives unless `paperbot ingest` "
                      "runs (cron, or by hand); set e.g. PAPERBOT_FEEDS=arxiv:cs.LG,stat.ML")]
    # arXiv's 3 s between requests; a busy answer is said at once, not waited out as an ingest does.
    fetcher = Fetcher(settings.arxiv_api_url, rss_url=settings.arxiv_rss_url, timeout=FEED_TIMEOUT, retries=0)
    found = []
    for source in settings.feeds:
        said = "answers"
        try:
            if source[:6].lower() == "arxiv:":
                # Both of arXiv's doors an ingest may use: the first category's daily listing, and the API.
                first = parse_categories(source[6:])[0]
                day, items = read_listing(first, fetcher)
                records = read_arxiv(source[6:], max_results=1, page_size=1, fetcher=fetcher)
                on = f" on {day}" if day else ""
                said = (f"answers ({first}: {items} papers announced{on})" if items
                        else f"answers ({first}: no announcement{on}, a weekend or holiday)")
            else:
                records = read_source(source, fetcher=fetcher)
            next(iter(records), None)
        except SourceError as exc:
            found.append(Check(f"feed {source}", "fail", f"{exc}: fix or remove it in PAPERBOT_FEEDS"))
            continue
        found.append(Check(f"feed {source}", "ok", said))
    return found
