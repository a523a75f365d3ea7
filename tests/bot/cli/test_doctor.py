"""``paperbot doctor`` against the Slack and arXiv stand-ins: a good set-up passes with exit status 0;
a refused token, a missing scope, a feed that doesn't answer and a database that can't be opened each
fail with exit status 1 and one line that says so. The database on both backends."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.slack.manifest import SCOPES
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


def test_a_good_set_up_passes_every_check(standins, database):
    slack, arxiv = standins
    result = run("doctor", env=environment(slack, arxiv, database))
    assert result.exit_code == 0, result.output
    assert not lines(result.output, "FAIL")
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
