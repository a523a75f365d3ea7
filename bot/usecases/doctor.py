"""``paperbot doctor``: a set-up checked before its first morning, one result per check.

Checks, in order: the settings parse; the database opens and its schema is current (a SQLite file not
made yet is a warning: the first ``paperbot run``, ``digest`` or ``ingest`` makes it); there is room
beside a SQLite file; Slack accepts each token (SLACK_BOT_TOKEN, or each installed workspace's) and
grants every scope the manifest asks for; this machine's clock agrees with Slack's; the time-zone data
loads; each PAPERBOT_FEEDS source answers; the lab's model (PAPERBOT_LLM_URL, when set) is served there.

Every check that can run does, whatever else is missing: with no Slack token yet, the database, disk,
time zones and feeds are still checked, the token's check says it is not set, and what needs Slack's
answer is ``skip`` (said, not counted as passed or failed). A setting that doesn't parse fails on its
own line, and only the checks that depend on it are skipped.

Nothing is changed: the schema is read, not migrated (steps still to apply are a warning, since
``paperbot run`` applies them at its start), and no store is opened on a database whose schema is not
current (opening one applies the steps). Slack is reached through a probe handed in
(:class:`bot.slack.probe.SlackProbe`), as use cases know nothing of Slack.

Each check says what it found as data: a :class:`Finding` and its facts (the setting, the path, the
counts, the missing scopes, the error a library gave, ...); the CLI (:mod:`bot.cli.doctor_texts`) says
it in words.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum, auto
from pathlib import Path
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.errors import ConfigError
from bot.sources import read_source
from bot.sources.acl import entries_in
from bot.sources.acl import is_source as is_acl
from bot.sources.acl import parse_source as parse_volume
from bot.sources.arxiv import parse_categories, read_arxiv
from bot.sources.arxiv_daily import read_listing
from bot.sources.biorxiv import is_source as is_biorxiv
from bot.sources.biorxiv import parse_source, posted_on
from bot.sources.http import Fetcher
from bot.sources.openreview import first_page
from bot.sources.openreview import is_source as is_openreview
from bot.sources.openreview import parse_source as parse_venue
from bot.sources.pubmed import is_source as is_pubmed
from bot.sources.pubmed import parse_source as parse_query
from bot.sources.pubmed import searched_on
from bot.sources.records import SourceError
from bot.summaries.client import EndpointError, SummaryClient
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
#: How long the lab's model has to answer the doctor (a model may load first: Ollama loads it on first use).
LLM_TIMEOUT = 60.0


class Finding(StrEnum):
    """What a check found; its facts (:attr:`Check.facts`) are listed beside each."""

    # settings
    SETTINGS_UNREADABLE = auto()  # error: why they don't load at all
    NOTHING_ELSE_CHECKED = auto()  # (what needs the settings, skipped)
    SETTING_INVALID = auto()  # setting, error: why it doesn't parse (naming it)
    SETTINGS_PARSE = auto()  # oauth: many workspaces
    # the database: each with target (PAPERBOT_DB's value), postgres, origin (the setting it came from,
    # None for the default)
    DATABASE_SKIPPED = auto()  # (PAPERBOT_DB doesn't parse; no database facts)
    DATABASE_NOT_MADE = auto()  # feeds: whether PAPERBOT_FEEDS is set
    DATABASE_FOLDER_MISSING = auto()  # folder
    DATABASE_FOLDER_UNWRITABLE = auto()  # folder
    DATABASE_UNREADABLE = auto()  # error: the storage's
    SCHEMA_AHEAD = auto()  # steps: those this paperbot doesn't know
    SCHEMA_BEHIND = auto()  # steps: those to apply
    SCHEMA_CURRENT = auto()  # applied: how many steps
    # free disk beside a SQLite file: target, free (bytes)
    DISK_FULL = auto()
    DISK_TIGHT = auto()  # size: the database's, in bytes
    DISK_ROOM = auto()
    # Slack: workspace is the workspace's key, or None for SLACK_BOT_TOKEN
    SLACK_SKIPPED = auto()  # settings: those that don't parse
    TOKEN_NOT_SET = auto()
    SCOPES_SKIPPED = auto()  # (no token to ask about)
    OAUTH_INCOMPLETE = auto()  # error: which OAuth setting is missing
    WORKSPACES_SKIPPED = auto()  # (OAuth's settings incomplete)
    NOTHING_INSTALLED_YET = auto()  # (the database is not made yet)
    WORKSPACES_UNREADABLE = auto()  # (the database's schema is not current)
    NOTHING_INSTALLED = auto()
    TOKEN_UNOPENED = auto()  # workspace: no key opens its stored token
    TOKEN_ACCEPTED = auto()  # workspace, team
    TOKEN_REFUSED = auto()  # workspace, error: Slack's code
    TOKEN_FAILED = auto()  # workspace, error: Slack's code, or why it did not answer
    SCOPES_UNSAID = auto()  # workspace
    SCOPES_MISSING = auto()  # workspace, missing
    SCOPES_GRANTED = auto()  # workspace, count
    # the clock: skew is this machine's time less Slack's
    CLOCK_SKIPPED = auto()  # (no token checked)
    CLOCK_UNKNOWN = auto()  # (no answer said Slack's time)
    CLOCK_OFF = auto()  # skew
    CLOCK_AGREES = auto()  # skew
    # time zones
    ZONES_UNLOADABLE = auto()  # error
    ZONES_WRONG = auto()  # (Europe/Berlin's offsets)
    ZONES_LOAD = auto()  # count
    # feeds
    FEEDS_SKIPPED = auto()  # settings: the arXiv URLs that don't parse
    NO_FEEDS = auto()
    FEED_FAILED = auto()  # source, error: the source's
    FEED_ANSWERS = auto()  # source
    ARXIV_ANNOUNCED = auto()  # source, category, papers, day (None when unknown)
    ARXIV_QUIET = auto()  # source, category, day (None when unknown)
    ACL_VOLUME = auto()  # source, volume, papers: the entries its BibTeX lists
    # the lab's model (PAPERBOT_LLM_URL; no line when it is not set): url, model
    LLM_SKIPPED = auto()  # settings: those that don't parse
    LLM_UNREACHABLE = auto()  # url, error: why its list of models can't be read
    LLM_MODEL_MISSING = auto()  # url, model, models: some of those it serves
    LLM_MODEL_SERVED = auto()  # url, model
    LLM_ANSWERS = auto()  # url, model (no list of models: one tiny completion answered)
    LLM_REFUSES = auto()  # url, model, error: the tiny completion's


@dataclass(frozen=True)
class Check:
    """One check's result: what it found, ``ok``/``warn``/``fail``/``skip``, and the facts the finding
    names (see :class:`Finding`)."""

    finding: Finding
    status: Status
    facts: Mapping[str, Any] = field(default_factory=dict)


def _check(finding: Finding, status: Status, **facts: Any) -> Check:
    return Check(finding, status, facts)


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
    F = Finding
    try:
        settings = load_settings()
    except ConfigError as exc:  # --db given in a form no database has: nothing to go on but the zones
        return [_check(F.SETTINGS_UNREADABLE, "fail", error=str(exc)), *_time_zones(),
                _check(F.NOTHING_ELSE_CHECKED, "skip")]
    bad = {name for name, _ in settings.problems}
    found = [_check(F.SETTING_INVALID, "fail", setting=name, error=why)
             for name, why in settings.problems] or [_check(F.SETTINGS_PARSE, "ok", oauth=settings.oauth)]
    schema = None
    if "PAPERBOT_DB" in bad:
        found.append(_check(F.DATABASE_SKIPPED, "skip"))
    else:
        schema = _schema(settings, found)
        found += _disk(settings.db_path, disk_usage)
    answers: list[AuthAnswer] = []
    slack_bad = sorted(bad & SLACK_SETTINGS)
    if slack_bad:
        found.append(_check(F.SLACK_SKIPPED, "skip", settings=tuple(slack_bad)))
    else:
        answers = list(_slack(settings, slack_for, schema, found))
    found += _clock([a.slack_time for a in answers if a.slack_time is not None], now(), asked=bool(answers))
    found += _time_zones()
    arxiv_bad = sorted(bad & {"PAPERBOT_ARXIV_API_URL", "PAPERBOT_ARXIV_RSS_URL", "PAPERBOT_BIORXIV_API_URL",
                              "PAPERBOT_PUBMED_API_URL", "PAPERBOT_NCBI_KEY", "PAPERBOT_NCBI_EMAIL",
                              "PAPERBOT_ACL_URL"})
    if arxiv_bad and settings.feeds:
        found.append(_check(F.FEEDS_SKIPPED, "skip", settings=tuple(arxiv_bad)))
    else:
        found += _feeds(settings, now())
    return found + _model(settings, bad)


#: The settings a check of Slack's answers depends on: one that doesn't parse skips those checks.
SLACK_SETTINGS = frozenset({"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_CLIENT_ID",
                            "SLACK_CLIENT_SECRET", "PAPERBOT_SECRET_KEY", "PAPERBOT_OLD_SECRET_KEYS"})


def _schema(settings: Settings, found: list[Check]) -> SchemaStatus | None:
    """Check the database's schema (appended to ``found``); the status, or None when it can't be read
    (or is not made yet)."""
    target = settings.db_path
    # Which database, and the setting to change for another one (None: the default, from neither).
    where = {"target": target, "postgres": is_postgres_url(target), "origin": settings.db_from}
    if is_new_file(target):
        found.append(_to_be_made(target, settings, where))
        return None
    try:
        status = schema_status(target)
    except StorageError as exc:
        found.append(_check(Finding.DATABASE_UNREADABLE, "fail", error=str(exc), **where))
        return None
    if status.unknown:
        found.append(_check(Finding.SCHEMA_AHEAD, "fail", steps=tuple(status.unknown), **where))
    elif status.pending:
        found.append(_check(Finding.SCHEMA_BEHIND, "warn", steps=tuple(status.pending), **where))
    else:
        found.append(_check(Finding.SCHEMA_CURRENT, "ok", applied=status.applied, **where))
    return status


def _to_be_made(target: str, settings: Settings, where: dict[str, Any]) -> Check:
    """A SQLite file not made yet: fine where it can be made (a fresh install), said as a warning."""
    folder = Path(target).resolve().parent
    if not folder.is_dir():
        return _check(Finding.DATABASE_FOLDER_MISSING, "fail", folder=str(folder), **where)
    if not os.access(folder, os.W_OK | os.X_OK):
        return _check(Finding.DATABASE_FOLDER_UNWRITABLE, "fail", folder=str(folder), **where)
    return _check(Finding.DATABASE_NOT_MADE, "warn", feeds=bool(settings.feeds), **where)


def _disk(target: str, disk_usage: Callable[[str], tuple[int, int, int]]) -> list[Check]:
    """Free space beside a SQLite file (or where it will be made)."""
    if is_postgres_url(target) or target == ":memory:":
        return []
    path = Path(target).resolve()
    if not (path.is_file() or (not path.exists() and path.parent.is_dir())):
        return []  # a folder, say: the database's line says what is wrong
    free = disk_usage(str(path.parent))[2]
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    if free < DISK_FAIL:
        return [_check(Finding.DISK_FULL, "fail", target=target, free=free)]
    if free < max(DISK_WARN, 2 * size):
        return [_check(Finding.DISK_TIGHT, "warn", target=target, free=free, size=size)]
    return [_check(Finding.DISK_ROOM, "ok", target=target, free=free)]


def _slack(settings: Settings, slack_for: Callable[[Settings], SlackChecks], schema: SchemaStatus | None,
           found: list[Check]) -> Iterator[AuthAnswer]:
    """Check each token (appended to ``found``) and yield Slack's answers. A Slack setting missing is
    said with what to set, and what needs it is skipped."""
    F = Finding
    if not settings.oauth:
        if not settings.bot_token:
            found.append(_check(F.TOKEN_NOT_SET, "fail"))
            found.append(_check(F.SCOPES_SKIPPED, "skip"))
            return
        tokens: dict[str | None, str | None] = {None: settings.bot_token}
    else:
        try:
            settings.require_oauth()
        except ConfigError as exc:
            found.append(_check(F.OAUTH_INCOMPLETE, "fail", error=str(exc)))
            found.append(_check(F.WORKSPACES_SKIPPED, "skip"))
            return
        if is_new_file(settings.db_path):
            found.append(_check(F.NOTHING_INSTALLED_YET, "warn"))
            return
        if schema is None or not schema.current:
            found.append(_check(F.WORKSPACES_UNREADABLE, "warn"))
            return
        slack = slack_for(settings)
        store = open_store(settings.db_path)  # schema current: opening applies nothing
        try:
            tokens = {ws: token for ws, token in slack.workspace_tokens(store).items()}
        finally:
            store.dispose()
        if not tokens:
            found.append(_check(F.NOTHING_INSTALLED, "warn"))
            return
    slack = slack_for(settings)
    for workspace, token in tokens.items():
        if token is None:
            found.append(_check(F.TOKEN_UNOPENED, "fail", workspace=workspace))
            continue
        answer = slack.auth_test(token)
        found.append(_token_check(workspace, answer))
        if answer.error is None:
            found.append(_scope_check(workspace, answer, slack.scopes))
        yield answer


def _token_check(workspace: str | None, answer: AuthAnswer) -> Check:
    if answer.error is None:
        return _check(Finding.TOKEN_ACCEPTED, "ok", workspace=workspace, team=answer.team)
    if answer.error in REFUSED:
        return _check(Finding.TOKEN_REFUSED, "fail", workspace=workspace, error=answer.error)
    return _check(Finding.TOKEN_FAILED, "fail", workspace=workspace, error=answer.error)


def _scope_check(workspace: str | None, answer: AuthAnswer, wanted: Collection[str]) -> Check:
    if answer.scopes is None:
        return _check(Finding.SCOPES_UNSAID, "warn", workspace=workspace)
    missing = sorted(set(wanted) - answer.scopes)
    if missing:
        return _check(Finding.SCOPES_MISSING, "fail", workspace=workspace, missing=tuple(missing))
    return _check(Finding.SCOPES_GRANTED, "ok", workspace=workspace, count=len(set(wanted)))


def _clock(slack_times: list[datetime], now: datetime, asked: bool = True) -> list[Check]:
    if not asked:
        return [_check(Finding.CLOCK_SKIPPED, "skip")]
    if not slack_times:
        return [_check(Finding.CLOCK_UNKNOWN, "warn")]
    skew = now - slack_times[0]
    if abs(skew) > CLOCK_SKEW:
        return [_check(Finding.CLOCK_OFF, "fail", skew=skew)]
    return [_check(Finding.CLOCK_AGREES, "ok", skew=skew)]


def _time_zones() -> list[Check]:
    try:
        zones = {name: ZoneInfo(name) for name in ZONES}
    except Exception as exc:  # ZoneInfoNotFoundError, or a damaged file
        return [_check(Finding.ZONES_UNLOADABLE, "fail", error=str(exc))]
    berlin = zones["Europe/Berlin"]
    summer = datetime(2025, 7, 1, 12, tzinfo=UTC).astimezone(berlin).utcoffset()
    winter = datetime(2025, 1, 15, 12, tzinfo=UTC).astimezone(berlin).utcoffset()
    if (summer, winter) != (timedelta(hours=2), timedelta(hours=1)):
        return [_check(Finding.ZONES_WRONG, "fail")]
    return [_check(Finding.ZONES_LOAD, "ok", count=len(ZONES))]


def _feeds(settings: Settings, now: datetime) -> list[Check]:
    if not settings.feeds:
        # No source is the default, and the commonest reason nobody gets a paper: said, unless cron ingests.
        return [_check(Finding.NO_FEEDS, "warn")]
    # arXiv's 3 s between requests; a busy answer is said at once, not waited out as an ingest does.
    fetcher = Fetcher(settings.arxiv_api_url, rss_url=settings.arxiv_rss_url,
                      biorxiv_url=settings.biorxiv_api_url, pubmed_url=settings.pubmed_api_url,
                      ncbi_key=settings.ncbi_key, ncbi_email=settings.ncbi_email, timeout=FEED_TIMEOUT,
                      retries=0, openreview_url=settings.openreview_api_url, acl_url=settings.acl_url)
    found = []
    for source in settings.feeds:
        said = _check(Finding.FEED_ANSWERS, "ok", source=source)
        try:
            if source[:6].lower() == "arxiv:":
                # Both of arXiv's doors an ingest may use: the first category's daily listing, and the API.
                first = parse_categories(source[6:])[0]
                day, items = read_listing(first, fetcher)
                records = read_arxiv(source[6:], max_results=1, page_size=1, fetcher=fetcher)
                said = (_check(Finding.ARXIV_ANNOUNCED, "ok", source=source, category=first, papers=items,
                               day=day) if items
                        else _check(Finding.ARXIV_QUIET, "ok", source=source, category=first, day=day))
            elif is_biorxiv(source):
                # One page of today's posts: the API answers, in its format (a whole read pages two days).
                server, _ = parse_source(source)
                records = iter(())
                posted_on(server, now.astimezone(UTC).date(), fetcher)
            elif is_pubmed(source):
                # One search of today's records, none fetched: E-utilities answer, and take the query.
                records = iter(())
                searched_on(parse_query(source), now.astimezone(UTC).date(), fetcher)
            elif is_openreview(source):
                # One note of the venue: the API answers, in its format, and knows the venue's papers.
                records = iter(())
                first_page(parse_venue(source), fetcher)
            elif is_acl(source):
                # The volume's BibTeX, its entries counted; no paper's own file looked up.
                volume = parse_volume(source)
                records = iter(())
                said = _check(Finding.ACL_VOLUME, "ok", source=source, volume=volume,
                              papers=entries_in(volume, fetcher))
            else:
                records = read_source(source, fetcher=fetcher)
            next(iter(records), None)
        except SourceError as exc:
            found.append(_check(Finding.FEED_FAILED, "fail", source=source, error=str(exc)))
            continue
        found.append(said)
    return found


LLM_SETTINGS = frozenset({"PAPERBOT_LLM_URL", "PAPERBOT_LLM_MODEL", "PAPERBOT_LLM_KEY",
                          "PAPERBOT_LLM_DAILY_LIMIT"})


def _model(settings: Settings, bad: set[str], timeout: float = LLM_TIMEOUT) -> list[Check]:
    """The lab's model: the endpoint lists it (``GET {base}/models``), or, where the endpoint lists none,
    it answers one tiny completion. Nothing when PAPERBOT_LLM_URL is not set (highlights only)."""
    broken = sorted(bad & LLM_SETTINGS)
    if broken:
        return [_check(Finding.LLM_SKIPPED, "skip", settings=tuple(broken))]
    if not settings.llm_url or not settings.llm_model:
        return []
    client = SummaryClient(settings.llm_url, settings.llm_model, settings.llm_key, timeout=timeout, retries=0)
    where = {"url": settings.llm_url, "model": settings.llm_model}
    try:
        served = client.models()
    except EndpointError as exc:
        if "HTTP 404" not in str(exc) and "no list of models" not in str(exc):
            return [_check(Finding.LLM_UNREACHABLE, "fail", error=str(exc), **where)]
        error = client.tiny_completion()  # an endpoint without the list: ask the model itself
        if error is not None:
            return [_check(Finding.LLM_REFUSES, "fail", error=error, **where)]
        return [_check(Finding.LLM_ANSWERS, "ok", **where)]
    if not _served(settings.llm_model, served):
        return [_check(Finding.LLM_MODEL_MISSING, "fail", models=tuple(served[:5]), **where)]
    return [_check(Finding.LLM_MODEL_SERVED, "ok", **where)]


def _served(model: str, served: list[str]) -> bool:
    """Whether ``model`` is among those listed; Ollama lists a model without a tag as ``name:latest``."""
    return model in served or (":" not in model and f"{model}:latest" in served)
