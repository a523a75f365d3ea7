"""``paperbot doctor`` against the Slack and arXiv stand-ins: a good set-up passes with exit status 0;
a refused token, a missing scope, a feed that doesn't answer and a database that can't be opened each
fail with exit status 1 and one line that says so. The database on both backends. Then the words of
each finding the stand-ins don't reach (:mod:`bot.cli.doctor_texts`)."""

from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.cli import doctor_texts
from bot.cli.doctor_texts import line
from bot.slack.manifest import SCOPES
from bot.usecases.doctor import Check
from bot.usecases.doctor import Finding as F
from stand_ins.slack import MINTED_PREFIX, SlackStandIn
from storage import open_store
from tests.arxiv_standin import ArxivStandIn
from tests.bot.cli.test_cli import run
from tests.storage.conftest import (  # noqa: F401 (fixtures, used by name)
    backend,
    dispose,
    pg_database,
    pg_url,
    reset_schema,
    store_target,
)

TOKEN = "xoxb-1234-doctor-token"


@pytest.fixture(autouse=True)
def spacing(monkeypatch) -> list[float]:
    """The waits the doctor's arXiv requests ask for, taken instead of slept: its two requests to
    arXiv (the listing, then the API) are still spaced as arXiv asks, without the test waiting 3 s."""
    from bot.sources import http
    from bot.usecases import doctor

    waits: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    def fetcher(*args, **kwargs):
        limiter = http.RateLimiter(clock=lambda: clock[0], sleep=sleep)
        return http.Fetcher(*args, limiter=limiter, **kwargs)

    monkeypatch.setattr(doctor, "Fetcher", fetcher)
    return waits


@pytest.fixture
def standins():
    with SlackStandIn() as slack, ArxivStandIn() as arxiv:
        yield slack, arxiv


@pytest.fixture
def database(store_target) -> str:  # noqa: F811
    dispose(open_store(store_target))  # made and migrated, as `paperbot ingest` would
    return store_target


def environment(slack, arxiv, database: str, **changes) -> dict[str, str]:
    return {"SLACK_BOT_TOKEN": TOKEN, "SLACK_API_URL": slack.base_url, "PAPERBOT_DB": database,
            "PAPERBOT_FEEDS": "arxiv:cs.LG", "PAPERBOT_ARXIV_API_URL": arxiv.url,
            "PAPERBOT_ARXIV_RSS_URL": arxiv.rss_url, **changes}


def lines(output: str, mark: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(mark)]


def test_a_good_set_up_passes_every_check(standins, database, spacing):
    slack, arxiv = standins
    result = run("doctor", env=environment(slack, arxiv, database))
    assert result.exit_code == 0, result.output
    assert not lines(result.output, "FAIL")
    assert spacing == [3.0]  # the API's request came arXiv's 3 s after the listing's
    for name in ("settings", "database", "Slack SLACK_BOT_TOKEN:", "scopes", "clock", "time zones",
                 "feed arxiv:cs.LG"):
        assert any(name in line for line in lines(result.output, "OK")), (name, result.output)
    assert "checks passed" in result.output.splitlines()[-1]
    assert TOKEN not in result.output
    assert slack.calls("auth.test")


def test_a_refused_token_fails_naming_slack_bot_token(standins, database):
    slack, arxiv = standins
    refused = f"{MINTED_PREFIX}never-minted"  # the stand-in answers invalid_auth
    result = run("doctor", env=environment(slack, arxiv, database, SLACK_BOT_TOKEN=refused))
    assert result.exit_code == 1
    [failed] = lines(result.output, "FAIL")
    assert "SLACK_BOT_TOKEN" in failed and "invalid_auth" in failed
    assert refused not in result.output


def test_a_missing_scope_fails_naming_it(standins, database):
    slack, arxiv = standins
    slack.granted_scopes = tuple(scope for scope in SCOPES if scope != "files:write")
    result = run("doctor", env=environment(slack, arxiv, database))
    assert result.exit_code == 1
    [failed] = lines(result.output, "FAIL")
    assert "scopes" in failed and "missing files:write" in failed


def test_a_feed_that_does_not_answer_fails_naming_it(standins, database):
    slack, arxiv = standins
    arxiv.status = 500
    result = run("doctor", env=environment(slack, arxiv, database, PAPERBOT_FEEDS="arxiv:cs.LG"))
    assert result.exit_code == 1
    [failed] = lines(result.output, "FAIL")
    assert failed.startswith("FAIL feed arxiv:cs.LG:") and "HTTP 500" in failed


def test_an_arxiv_feed_is_checked_at_its_daily_listing_too(standins, database):
    slack, arxiv = standins
    result = run("doctor", env=environment(slack, arxiv, database))
    assert any(line.startswith("OK   feed arxiv:cs.LG: answers (cs.LG: no announcement on ")
               for line in result.output.splitlines()), result.output
    assert arxiv.listed == ["cs.LG"] and len(arxiv.asked) == 1  # the listing, and one page of the API
    wrong = run("doctor", env=environment(slack, arxiv, database, PAPERBOT_ARXIV_RSS_URL=arxiv.url + "/"))
    [failed] = lines(wrong.output, "FAIL")
    assert failed.startswith("FAIL feed arxiv:cs.LG: couldn't fetch") and "HTTP 404" in failed


def test_a_biorxiv_feed_is_checked_with_one_page_of_today_s_posts(standins, database):
    from stand_ins.biorxiv import Biorxiv

    slack, arxiv = standins
    with Biorxiv() as api:
        env = environment(slack, arxiv, database, PAPERBOT_FEEDS="biorxiv:neuroscience",
                          PAPERBOT_BIORXIV_API_URL=api.base_url)
        result = run("doctor", env=env)
        said = result.output.splitlines()
        assert any(line.startswith("OK   feed biorxiv:neuroscience") for line in said), result.output
        assert len(api.requests) == 1 and api.requests[0].endswith("/0")
        api.broken = {2: b"<!DOCTYPE html><html></html>"}
        [failed] = lines(run("doctor", env=env).output, "FAIL")
        assert failed.startswith("FAIL feed biorxiv:neuroscience:") and "the answer was HTML" in failed


def test_a_pubmed_feed_is_checked_with_one_search_of_today_s_records(standins, database):
    from stand_ins.pubmed import Pubmed

    slack, arxiv = standins
    with Pubmed() as api:
        env = environment(slack, arxiv, database, PAPERBOT_FEEDS='pubmed:"crispr screen"',
                          PAPERBOT_PUBMED_API_URL=api.base_url, PAPERBOT_NCBI_EMAIL="lab@example.org")
        result = run("doctor", env=env)
        said = result.output.splitlines()
        assert any(line.startswith("OK   feed pubmed:crispr screen") for line in said), result.output
        assert len(api.requests) == 1 and "esearch.fcgi" in api.requests[0] and "retmax=0" in api.requests[0]
        assert "email=lab%40example.org" in api.requests[0]
        api.broken = {2: b"<!DOCTYPE html><html></html>"}
        [failed] = lines(run("doctor", env=env).output, "FAIL")
        assert failed.startswith("FAIL feed pubmed:crispr screen:") and "the answer was HTML" in failed


def test_an_openreview_feed_is_checked_with_one_note_of_the_venue(standins, database):
    from stand_ins.openreview import OpenReview, venue_of_notes

    slack, arxiv = standins
    with OpenReview() as api:
        api.add(venue_of_notes("ICML.cc/2025/Conference", 3))
        source = "openreview:ICML.cc/2025/Conference"
        env = environment(slack, arxiv, database, PAPERBOT_FEEDS=source,
                          PAPERBOT_OPENREVIEW_API_URL=api.base_url)
        result = run("doctor", env=env)
        said = result.output.splitlines()
        assert any(line.startswith(f"OK   feed {source}") for line in said), result.output
        assert api.requests == ["/notes?content.venueid=ICML.cc/2025/Conference&limit=1&offset=0"]
        api.broken = {2: b"<!DOCTYPE html><html></html>"}
        [failed] = lines(run("doctor", env=env).output, "FAIL")
        assert failed.startswith(f"FAIL feed {source}:") and "the answer was HTML" in failed


def test_an_acl_feed_is_checked_with_its_volume_s_bibtex_and_no_lookup(standins, database):
    from stand_ins.acl import Anthology, volume_of

    slack, arxiv = standins
    with Anthology() as site:
        site.add("2025.acl-long", volume_of("2025.acl-long", 3, abstracts=False))
        env = environment(slack, arxiv, database, PAPERBOT_FEEDS="acl:2025.acl-long",
                          PAPERBOT_ACL_URL=site.base_url)
        result = run("doctor", env=env)
        said = result.output.splitlines()
        assert any(line.startswith("OK   feed acl:2025.acl-long: answers (2025.acl-long: 3 papers listed)")
                   for line in said), result.output
        assert site.requests == ["/volumes/2025.acl-long.bib"]
        missing = run("doctor", env={**env, "PAPERBOT_FEEDS": "acl:2031.acl-long"})
        [failed] = lines(missing.output, "FAIL")
        assert failed.startswith("FAIL feed acl:2031.acl-long: the ACL Anthology has no volume '2031.acl")


def test_a_database_that_can_not_be_opened_fails_in_one_line(standins, backend, tmp_path, request):  # noqa: F811
    slack, arxiv = standins
    if backend == "sqlite":
        target = tmp_path / "broken.db"
        target.write_bytes(b"this is not a database, only some bytes " * 100)
        database = str(target)
    else:
        url = urlsplit(request.getfixturevalue("pg_database"))
        database = urlunsplit(url._replace(path="/paperbot_doctor_no_such_database"))
    result = run("doctor", env=environment(slack, arxiv, database))
    assert result.exit_code == 1
    [failed] = lines(result.output, "FAIL")
    assert failed.startswith("FAIL database") and "PAPERBOT_DB" in failed
    assert "Traceback" not in result.output
    password = urlsplit(database).password if backend == "postgres" else None
    if password:
        assert password not in result.output


def test_a_schema_behind_is_a_warning_and_left_as_it_is(standins, tmp_path):
    import sqlite3

    slack, arxiv = standins
    target = tmp_path / "old.db"
    dispose(open_store(str(target)))
    conn = sqlite3.connect(target)
    last = conn.execute("select name from _sqlite_migrations order by id desc limit 1").fetchone()[0]
    conn.execute("delete from _sqlite_migrations where name = ?", [last])
    conn.commit()
    conn.close()
    result = run("doctor", env=environment(slack, arxiv, str(target)))
    assert result.exit_code == 0, result.output
    [warned] = lines(result.output, "WARN")
    assert "1 schema step(s) to apply" in warned and last in warned
    conn = sqlite3.connect(target)
    assert not conn.execute("select 1 from _sqlite_migrations where name = ?", [last]).fetchall()
    conn.close()


def test_unsettable_settings_are_one_failed_line(standins, database):
    slack, arxiv = standins
    result = run("doctor", env=environment(slack, arxiv, database, PAPERBOT_DIGEST_SIZE="many"))
    assert result.exit_code == 1
    assert lines(result.output, "FAIL") == ["FAIL settings: PAPERBOT_DIGEST_SIZE must be a whole number, "
                                            "got 'many'"]


def test_a_fresh_install_with_feeds_passes_warning_that_the_first_run_makes_the_database(standins, tmp_path):
    slack, arxiv = standins
    target = tmp_path / "fresh.db"
    result = run("doctor", env=environment(slack, arxiv, str(target)))
    assert result.exit_code == 0, result.output
    [warned] = lines(result.output, "WARN")
    assert warned.startswith(f"WARN database {target}: not made yet") and "PAPERBOT_FEEDS" in warned
    assert result.output.splitlines()[-1].startswith("All ")
    assert not target.exists()


def test_without_a_token_the_database_disk_time_zones_and_feeds_are_still_checked(standins, tmp_path):
    slack, arxiv = standins
    database = str(tmp_path / "p.db")
    dispose(open_store(database))  # one backend is enough: the database's own checks are tested above
    result = run("doctor", env=environment(slack, arxiv, database, SLACK_BOT_TOKEN=None))
    assert result.exit_code == 1
    [failed] = lines(result.output, "FAIL")
    assert failed.startswith("FAIL Slack SLACK_BOT_TOKEN: not set") and "xoxb-" in failed
    skipped = [line.split(":")[0] for line in lines(result.output, "SKIP")]
    assert skipped == ["SKIP Slack scopes", "SKIP clock"]
    for name in ("database", "time zones", "feed arxiv:cs.LG"):
        assert any(name in line for line in lines(result.output, "OK")), (name, result.output)
    assert result.output.splitlines()[-1].endswith("failed, 2 skipped.")
    assert not slack.calls("auth.test")


# The words of findings the stand-ins above don't reach (OAuth's workspaces, the clock, free disk, the time
# zones, ...), exactly as printed: the use case's tests assert on the findings and their facts.
DB = "/srv/paperbot/p.db"
AT = {"target": DB, "postgres": False, "origin": "PAPERBOT_DB"}
SAID = [
    (Check(F.TOKEN_UNOPENED, "fail", {"workspace": "T2"}),
     "Slack workspace T2: no key opens its stored token: add the key it was saved with to "
     "PAPERBOT_OLD_SECRET_KEYS, or install the app there again"),
    (Check(F.TOKEN_ACCEPTED, "ok", {"workspace": "T1", "team": "T1"}),
     "Slack workspace T1: auth.test answers (workspace T1)"),
    (Check(F.SCOPES_GRANTED, "ok", {"workspace": "T1", "count": 11}),
     "Slack workspace T1 scopes: all 11 the manifest asks for are granted"),
    (Check(F.TOKEN_REFUSED, "fail", {"workspace": "T3", "error": "token_revoked"}),
     "Slack workspace T3: Slack refuses the token (token_revoked): install the app in that workspace again"),
    (Check(F.TOKEN_FAILED, "fail", {"workspace": None, "error": "Slack did not answer: connection refused"}),
     "Slack SLACK_BOT_TOKEN: auth.test failed (Slack did not answer: connection refused): check "
     "SLACK_API_URL and this machine's network"),
    (Check(F.SCOPES_UNSAID, "warn", {"workspace": None}),
     "Slack SLACK_BOT_TOKEN scopes: Slack did not say which scopes it granted (no x-oauth-scopes header)"),
    (Check(F.NOTHING_INSTALLED, "warn"),
     "Slack: no workspace has installed paperbot yet: open /slack/install on the bot's address"),
    (Check(F.NOTHING_INSTALLED_YET, "warn"),
     "Slack: no workspace has installed paperbot yet (the database is not made yet): once it runs, open "
     "/slack/install on the bot's address"),
    (Check(F.WORKSPACES_UNREADABLE, "warn"),
     "Slack: installed workspaces not checked: their tokens are in the database, which can't be read as it "
     "is (see above)"),
    (Check(F.OAUTH_INCOMPLETE, "fail",
           {"error": "SLACK_CLIENT_SECRET is not set: see 'Connect to Slack' in the README"}),
     "Slack OAuth: SLACK_CLIENT_SECRET is not set: see 'Connect to Slack' in the README"),
    (Check(F.WORKSPACES_SKIPPED, "skip"), "Slack workspaces: set the OAuth settings above first"),
    (Check(F.SLACK_SKIPPED, "skip", {"settings": ("SLACK_APP_TOKEN",)}), "Slack: fix SLACK_APP_TOKEN first"),
    (Check(F.CLOCK_OFF, "fail", {"skew": -timedelta(seconds=180)}),
     "clock: this machine's clock is 180 s behind Slack's: turn on time sync (NTP, e.g. "
     "`timedatectl set-ntp true`)"),
    (Check(F.CLOCK_OFF, "fail", {"skew": timedelta(seconds=95)}),
     "clock: this machine's clock is 95 s ahead of Slack's: turn on time sync (NTP, e.g. "
     "`timedatectl set-ntp true`)"),
    (Check(F.CLOCK_AGREES, "ok", {"skew": timedelta(0)}), "clock: agrees with Slack's (0 s behind Slack's)"),
    (Check(F.CLOCK_UNKNOWN, "warn"),
     "clock: not compared: Slack's time is unknown (no answer with a Date header)"),
    (Check(F.DISK_FULL, "fail", {"target": DB, "free": 10 * 2**20}),
     f"disk: 10 MiB free beside {DB}: paperbot soon can't save; free some space"),
    (Check(F.DISK_TIGHT, "warn", {"target": DB, "free": int(1.2 * 2**30), "size": 700 * 2**20}),
     f"disk: 1.2 GiB free beside {DB} (the database is 700 MiB): a backup may not fit"),
    (Check(F.DATABASE_NOT_MADE, "warn", {**AT, "feeds": False}),
     f"database {DB}: not made yet: the first `paperbot run` or `paperbot digest` makes it (with no "
     "PAPERBOT_FEEDS set, papers come only from `paperbot ingest`)"),
    (Check(F.DATABASE_FOLDER_MISSING, "fail", {**AT, "origin": "--db", "folder": "/srv/paperbot"}),
     f"database {DB}: its folder /srv/paperbot does not exist: create it, or change --db"),
    (Check(F.DATABASE_FOLDER_MISSING, "fail", {**AT, "origin": None, "folder": "/srv/paperbot"}),
     f"database {DB}: its folder /srv/paperbot does not exist: create it, or change PAPERBOT_DB (or --db; "
     f"{DB} is the default)"),
    (Check(F.DATABASE_FOLDER_UNWRITABLE, "fail", {**AT, "folder": "/srv/paperbot"}),
     f"database {DB}: not made yet, and this user can't write in its folder /srv/paperbot: fix its "
     "permissions, or change PAPERBOT_DB"),
    (Check(F.DATABASE_UNREADABLE, "fail", {**AT, "postgres": True, "target": "postgresql://u:pw@h/d",
                                           "error": "can't open the database postgresql://u:***@h/d"}),
     "database: can't open the database postgresql://u:***@h/d: check PAPERBOT_DB"),
    (Check(F.SCHEMA_AHEAD, "fail", {**AT, "steps": ("zz_a", "zz_b")}),
     f"database {DB}: it has 2 schema step(s) this paperbot doesn't know (zz_a, zz_b): a newer paperbot "
     "upgraded it; run that"),
    (Check(F.DATABASE_SKIPPED, "skip"), "database and disk: fix PAPERBOT_DB first"),
    (Check(F.SETTINGS_PARSE, "ok", {"oauth": True}),
     "settings: every setting parses (OAuth: many workspaces)"),
    (Check(F.NOTHING_ELSE_CHECKED, "skip"),
     "database, disk, Slack, clock and feeds: skipped until the settings above parse"),
    (Check(F.ZONES_UNLOADABLE, "fail", {"error": "'No time zone found with key UTC'"}),
     "time zones: can't load the time-zone data ('No time zone found with key UTC'): install tzdata (the OS "
     "package, or `pip install tzdata`)"),
    (Check(F.ZONES_WRONG, "fail"),
     "time zones: the time-zone data is wrong (Europe/Berlin's offsets): update tzdata"),
    (Check(F.FEEDS_SKIPPED, "skip", {"settings": ("PAPERBOT_ARXIV_API_URL", "PAPERBOT_ARXIV_RSS_URL")}),
     "feeds: fix PAPERBOT_ARXIV_API_URL, PAPERBOT_ARXIV_RSS_URL first"),
    (Check(F.NO_FEEDS, "warn"),
     "feeds: none set (PAPERBOT_FEEDS): no paper arrives unless `paperbot ingest` runs (cron, or by hand); "
     "set e.g. PAPERBOT_FEEDS=arxiv:cs.LG,stat.ML"),
    (Check(F.ARXIV_ANNOUNCED, "ok", {"source": "arxiv:cs.LG,stat.ML", "category": "cs.LG", "papers": 612,
                                     "day": date(2026, 12, 7)}),
     "feed arxiv:cs.LG,stat.ML: answers (cs.LG: 612 papers announced on 2026-12-07)"),
    (Check(F.ARXIV_QUIET, "ok", {"source": "arxiv:cs.LG", "category": "cs.LG", "day": None}),
     "feed arxiv:cs.LG: answers (cs.LG: no announcement, a weekend or holiday)"),
    (Check(F.FEED_ANSWERS, "ok", {"source": "rss:https://example.org/feed"}),
     "feed rss:https://example.org/feed: answers"),
]


@pytest.mark.parametrize(("check", "words"), SAID, ids=[check.finding for check, _ in SAID])
def test_each_finding_is_said_as_before(check, words):
    assert line(check) == words


def test_every_finding_has_its_words():
    assert set(doctor_texts.SAID) == set(F)
