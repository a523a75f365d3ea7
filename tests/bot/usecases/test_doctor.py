"""The doctor's checks with a hand-made Slack probe: OAuth's installed workspaces, the clock against
Slack's, free disk; the CLI's tests (tests/bot/cli/test_doctor.py) go through the stand-ins."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.config import Settings
from bot.usecases.doctor import diagnose
from storage import open_store

NOW = datetime(2026, 3, 1, 7, 0, tzinfo=UTC)
KEY = "k" * 44


@dataclass(frozen=True)
class Answer:
    error: str | None = None
    team: str | None = "T1"
    scopes: frozenset[str] | None = frozenset({"chat:write", "commands"})
    slack_time: datetime | None = NOW


class Probe:
    scopes = ("chat:write", "commands")

    def __init__(self, answers: dict[str, Answer], installed: dict[str, str | None] | None = None):
        self.answers, self.installed = answers, installed or {}

    def auth_test(self, token: str) -> Answer:
        return self.answers[token]

    def workspace_tokens(self, store) -> dict[str, str | None]:
        return self.installed


def checks(settings: Settings, probe: Probe, now: datetime = NOW, free: int = 50 * 2**30):
    return {c.name: c for c in diagnose(lambda: settings, lambda _s: probe, now=lambda: now,
                                        disk_usage=lambda _p: (0, 0, free))}


def a_database(tmp_path) -> str:
    path = str(tmp_path / "p.db")
    open_store(path).dispose()
    return path


def test_with_oauth_each_installed_workspace_is_asked_and_one_no_key_opens_fails(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({"xoxb-a": Answer()}, {"T1": "xoxb-a", "T2": None}))
    assert found["Slack workspace T1"].status == "ok"
    assert found["Slack workspace T1 scopes"].status == "ok"
    assert found["Slack workspace T2"].status == "fail"
    assert "PAPERBOT_OLD_SECRET_KEYS" in found["Slack workspace T2"].detail


def test_with_oauth_and_nothing_installed_it_says_where_to_install(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({}))
    assert found["Slack"].status == "warn" and "/slack/install" in found["Slack"].detail


def test_a_clock_minutes_off_fails_and_seconds_off_passes(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), bot_token="xoxb-a")
    near = checks(settings, Probe({"xoxb-a": Answer()}), now=NOW + timedelta(seconds=5))["clock"]
    assert near.status == "ok"
    late = checks(settings, Probe({"xoxb-a": Answer()}), now=NOW - timedelta(minutes=3))["clock"]
    assert late.status == "fail" and "180 s behind" in late.detail


def test_little_free_disk_beside_a_sqlite_file_warns_then_fails(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), bot_token="xoxb-a")
    probe = Probe({"xoxb-a": Answer()})
    assert checks(settings, probe, free=500 * 2**20)["disk"].status == "warn"
    assert checks(settings, probe, free=10 * 2**20)["disk"].status == "fail"



def test_without_a_token_everything_else_is_still_checked_and_slack_says_what_to_set(tmp_path):
    found = checks(Settings(db_path=a_database(tmp_path)), Probe({}))
    assert found["Slack SLACK_BOT_TOKEN"].status == "fail"
    assert "xoxb-" in found["Slack SLACK_BOT_TOKEN"].detail
    assert found["Slack scopes"].status == "skip" and "set SLACK_BOT_TOKEN" in found["Slack scopes"].detail
    assert found["clock"].status == "skip"
    for name in ("settings", f"database {tmp_path / 'p.db'}", "disk", "time zones"):
        assert found[name].status == "ok", (name, found[name])
    # No paper source is the default, and why nobody would get a paper: a warning, not a pass.
    assert found["feeds"].status == "warn" and "PAPERBOT_FEEDS=arxiv:" in found["feeds"].detail


def test_a_database_not_made_yet_is_a_warning_that_the_first_run_makes_and_fills_it(tmp_path):
    target = tmp_path / "new.db"
    found = checks(Settings(db_path=str(target), db_from="PAPERBOT_DB", bot_token="xoxb-a",
                            feeds=["arxiv:cs.LG"]), Probe({"xoxb-a": Answer()}))
    database = found[f"database {target}"]
    assert database.status == "warn" and "not made yet" in database.detail
    assert "PAPERBOT_FEEDS" in database.detail
    assert found["disk"].status == "ok"  # the folder it will be made in
    assert not target.exists()


def test_a_database_whose_folder_is_missing_fails_naming_where_the_path_came_from(tmp_path):
    target = tmp_path / "nowhere" / "p.db"
    given = checks(Settings(db_path=str(target), db_from="--db"), Probe({}))[f"database {target}"]
    assert given.status == "fail" and "does not exist" in given.detail and "--db" in given.detail
    default = checks(Settings(db_path=str(target)), Probe({}))[f"database {target}"]
    assert "is the default" in default.detail


def test_oauth_settings_half_set_fail_their_line_and_the_database_is_still_checked(tmp_path):
    found = checks(Settings(db_path=a_database(tmp_path), client_id="1.2"), Probe({}))
    assert found["Slack OAuth"].status == "fail" and "SLACK_CLIENT_SECRET" in found["Slack OAuth"].detail
    assert found["Slack workspaces"].status == "skip"
    assert found[f"database {tmp_path / 'p.db'}"].status == "ok"


def test_settings_that_do_not_parse_still_check_the_time_zones():
    from bot.errors import ConfigError

    def broken() -> Settings:
        raise ConfigError("PORT must be a whole number, got 'x'")

    found = {c.name: c for c in diagnose(broken, lambda _s: Probe({}))}
    assert found["settings"].status == "fail" and found["time zones"].status == "ok"
    assert [c.status for c in found.values()].count("skip") == 1


def test_with_oauth_on_a_fresh_install_it_says_where_to_install_once_it_runs(tmp_path):
    settings = Settings(db_path=str(tmp_path / "new.db"), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({}))
    assert found["Slack"].status == "warn" and "/slack/install" in found["Slack"].detail
    assert found[f"database {tmp_path / 'new.db'}"].status == "warn"
    assert not (tmp_path / "new.db").exists()


def test_each_setting_that_does_not_parse_fails_alone_and_only_what_needs_it_is_skipped(tmp_path):
    settings = Settings.load({"PAPERBOT_DB": a_database(tmp_path), "PAPERBOT_DIGEST_SIZE": "abc",
                              "SLACK_APP_TOKEN": "zz", "SLACK_BOT_TOKEN": "xoxb-a"},
                             dotenv=None, lenient=True)
    found = diagnose(lambda: settings, lambda _s: Probe({"xoxb-a": Answer()}), now=lambda: NOW,
                     disk_usage=lambda _p: (0, 0, 50 * 2**30))
    failed = [c.detail for c in found if c.status == "fail"]
    assert len(failed) == 2
    assert any("PAPERBOT_DIGEST_SIZE" in d for d in failed) and any("SLACK_APP_TOKEN" in d for d in failed)
    by_name = {c.name: c for c in found}
    assert by_name[f"database {tmp_path / 'p.db'}"].status == "ok" and by_name["disk"].status == "ok"
    assert by_name["Slack"].status == "skip" and "SLACK_APP_TOKEN" in by_name["Slack"].detail
    assert by_name["time zones"].status == "ok" and by_name["feeds"].status == "warn"


def test_a_database_setting_that_does_not_parse_skips_the_database_and_disk_only():
    settings = Settings.load({"PAPERBOT_DB": "mysql://x/y", "SLACK_BOT_TOKEN": "xoxb-a"}, dotenv=None,
                             lenient=True)
    found = {c.name: c for c in diagnose(lambda: settings, lambda _s: Probe({"xoxb-a": Answer()}),
                                         now=lambda: NOW)}
    assert found["settings"].status == "fail" and "postgresql://" in found["settings"].detail
    assert found["database and disk"].status == "skip"
    assert found["Slack SLACK_BOT_TOKEN"].status == "ok"
