"""The doctor's checks with a hand-made Slack probe: OAuth's installed workspaces, the clock against
Slack's, free disk; each said as a finding and its facts. The CLI's tests (tests/bot/cli/test_doctor.py)
go through the stand-ins and assert on the words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.config import Settings
from bot.usecases.doctor import Check, Finding, diagnose
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


def checks(settings: Settings, probe: Probe, now: datetime = NOW, free: int = 50 * 2**30) -> list[Check]:
    return diagnose(lambda: settings, lambda _s: probe, now=lambda: now, disk_usage=lambda _p: (0, 0, free))


def one(found: list[Check], finding: Finding, **facts) -> Check:
    """The one check that found ``finding`` (with these facts)."""
    [check] = [c for c in found
               if c.finding == finding and all(c.facts.get(k) == v for k, v in facts.items())]
    return check


def statuses(found: list[Check]) -> dict[Finding, str]:
    return {c.finding: c.status for c in found}


def a_database(tmp_path) -> str:
    path = str(tmp_path / "p.db")
    open_store(path).dispose()
    return path


def test_with_oauth_each_installed_workspace_is_asked_and_one_no_key_opens_fails(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({"xoxb-a": Answer()}, {"T1": "xoxb-a", "T2": None}))
    assert one(found, Finding.TOKEN_ACCEPTED, workspace="T1", team="T1").status == "ok"
    assert one(found, Finding.SCOPES_GRANTED, workspace="T1", count=2).status == "ok"
    assert one(found, Finding.TOKEN_UNOPENED, workspace="T2").status == "fail"


def test_with_oauth_and_nothing_installed_it_says_where_to_install(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({}))
    assert one(found, Finding.NOTHING_INSTALLED).status == "warn"


def test_a_clock_minutes_off_fails_and_seconds_off_passes(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), bot_token="xoxb-a")
    near = one(checks(settings, Probe({"xoxb-a": Answer()}), now=NOW + timedelta(seconds=5)),
               Finding.CLOCK_AGREES)
    assert near.status == "ok" and near.facts["skew"] == timedelta(seconds=5)
    late = one(checks(settings, Probe({"xoxb-a": Answer()}), now=NOW - timedelta(minutes=3)),
               Finding.CLOCK_OFF)
    assert late.status == "fail" and late.facts["skew"] == -timedelta(seconds=180)


def test_little_free_disk_beside_a_sqlite_file_warns_then_fails(tmp_path):
    settings = Settings(db_path=a_database(tmp_path), bot_token="xoxb-a")
    probe = Probe({"xoxb-a": Answer()})
    tight = one(checks(settings, probe, free=500 * 2**20), Finding.DISK_TIGHT)
    assert tight.status == "warn" and tight.facts["free"] == 500 * 2**20
    assert tight.facts["target"] == settings.db_path and tight.facts["size"] > 0
    assert one(checks(settings, probe, free=10 * 2**20), Finding.DISK_FULL).status == "fail"



def test_without_a_token_everything_else_is_still_checked_and_slack_says_what_to_set(tmp_path):
    found = checks(Settings(db_path=a_database(tmp_path)), Probe({}))
    assert one(found, Finding.TOKEN_NOT_SET).status == "fail"
    assert one(found, Finding.SCOPES_SKIPPED).status == "skip"
    assert one(found, Finding.CLOCK_SKIPPED).status == "skip"
    assert one(found, Finding.SCHEMA_CURRENT).facts["target"] == str(tmp_path / "p.db")
    for finding in (Finding.SETTINGS_PARSE, Finding.SCHEMA_CURRENT, Finding.DISK_ROOM, Finding.ZONES_LOAD):
        assert statuses(found)[finding] == "ok", (finding, found)
    # No paper source is the default, and why nobody would get a paper: a warning, not a pass.
    assert one(found, Finding.NO_FEEDS).status == "warn"


def test_a_database_not_made_yet_is_a_warning_that_the_first_run_makes_and_fills_it(tmp_path):
    target = tmp_path / "new.db"
    found = checks(Settings(db_path=str(target), db_from="PAPERBOT_DB", bot_token="xoxb-a",
                            feeds=["arxiv:cs.LG"]), Probe({"xoxb-a": Answer()}))
    database = one(found, Finding.DATABASE_NOT_MADE, target=str(target))
    assert database.status == "warn" and database.facts["feeds"] is True
    assert one(found, Finding.DISK_ROOM).status == "ok"  # the folder it will be made in
    assert not target.exists()


def test_a_database_whose_folder_is_missing_fails_naming_where_the_path_came_from(tmp_path):
    target = tmp_path / "nowhere" / "p.db"
    given = one(checks(Settings(db_path=str(target), db_from="--db"), Probe({})),
                Finding.DATABASE_FOLDER_MISSING)
    assert given.status == "fail" and given.facts["folder"] == str(tmp_path / "nowhere")
    assert given.facts["origin"] == "--db" and given.facts["target"] == str(target)
    default = one(checks(Settings(db_path=str(target)), Probe({})), Finding.DATABASE_FOLDER_MISSING)
    assert default.facts["origin"] is None  # the default: from neither setting


def test_oauth_settings_half_set_fail_their_line_and_the_database_is_still_checked(tmp_path):
    found = checks(Settings(db_path=a_database(tmp_path), client_id="1.2"), Probe({}))
    oauth = one(found, Finding.OAUTH_INCOMPLETE)
    assert oauth.status == "fail" and "SLACK_CLIENT_SECRET" in oauth.facts["error"]
    assert one(found, Finding.WORKSPACES_SKIPPED).status == "skip"
    assert one(found, Finding.SCHEMA_CURRENT, target=str(tmp_path / "p.db")).status == "ok"


def test_settings_that_do_not_parse_still_check_the_time_zones():
    from bot.errors import ConfigError

    def broken() -> Settings:
        raise ConfigError("PORT must be a whole number, got 'x'")

    found = diagnose(broken, lambda _s: Probe({}))
    settings = one(found, Finding.SETTINGS_UNREADABLE)
    assert settings.status == "fail" and settings.facts["error"] == "PORT must be a whole number, got 'x'"
    assert one(found, Finding.ZONES_LOAD).status == "ok"
    assert [c.status for c in found].count("skip") == 1


def test_with_oauth_on_a_fresh_install_it_says_where_to_install_once_it_runs(tmp_path):
    settings = Settings(db_path=str(tmp_path / "new.db"), client_id="1.2", client_secret="s" * 32,
                        signing_secret="x", secret_key=KEY)
    found = checks(settings, Probe({}))
    assert one(found, Finding.NOTHING_INSTALLED_YET).status == "warn"
    assert one(found, Finding.DATABASE_NOT_MADE, target=str(tmp_path / "new.db")).status == "warn"
    assert not (tmp_path / "new.db").exists()


def test_each_setting_that_does_not_parse_fails_alone_and_only_what_needs_it_is_skipped(tmp_path):
    settings = Settings.load({"PAPERBOT_DB": a_database(tmp_path), "PAPERBOT_DIGEST_SIZE": "abc",
                              "SLACK_APP_TOKEN": "zz", "SLACK_BOT_TOKEN": "xoxb-a"},
                             dotenv=None, lenient=True)
    found = diagnose(lambda: settings, lambda _s: Probe({"xoxb-a": Answer()}), now=lambda: NOW,
                     disk_usage=lambda _p: (0, 0, 50 * 2**30))
    failed = [c for c in found if c.status == "fail"]
    assert {c.finding for c in failed} == {Finding.SETTING_INVALID}
    assert sorted(c.facts["setting"] for c in failed) == ["PAPERBOT_DIGEST_SIZE", "SLACK_APP_TOKEN"]
    assert all(c.facts["setting"] in c.facts["error"] for c in failed)
    assert one(found, Finding.SCHEMA_CURRENT, target=str(tmp_path / "p.db")).status == "ok"
    assert one(found, Finding.DISK_ROOM).status == "ok"
    slack = one(found, Finding.SLACK_SKIPPED)
    assert slack.status == "skip" and slack.facts["settings"] == ("SLACK_APP_TOKEN",)
    assert one(found, Finding.ZONES_LOAD).status == "ok" and one(found, Finding.NO_FEEDS).status == "warn"


def test_a_database_setting_that_does_not_parse_skips_the_database_and_disk_only():
    settings = Settings.load({"PAPERBOT_DB": "mysql://x/y", "SLACK_BOT_TOKEN": "xoxb-a"}, dotenv=None,
                             lenient=True)
    found = diagnose(lambda: settings, lambda _s: Probe({"xoxb-a": Answer()}), now=lambda: NOW)
    setting = one(found, Finding.SETTING_INVALID, setting="PAPERBOT_DB")
    assert setting.status == "fail" and "postgresql://" in setting.facts["error"]
    assert one(found, Finding.DATABASE_SKIPPED).status == "skip"
    assert one(found, Finding.TOKEN_ACCEPTED, workspace=None).status == "ok"


# -- the lab's model (PAPERBOT_LLM_URL) ---------------------------------------------------------------

def llm_checks(tmp_path, **env: str) -> list[Check]:
    settings = Settings.load({"PAPERBOT_DB": a_database(tmp_path), "SLACK_BOT_TOKEN": "xoxb-a", **env},
                             dotenv=None, lenient=True)
    return [c for c in checks(settings, Probe({"xoxb-a": Answer()})) if c.finding.name.startswith("LLM")]


def test_no_model_set_is_no_line(tmp_path):
    assert llm_checks(tmp_path) == []


def test_the_model_is_served_by_the_endpoint_or_said_missing(tmp_path):
    from bot.cli.doctor_texts import line
    from stand_ins.chat_completions import ChatCompletionsStandIn

    with ChatCompletionsStandIn(model="llama3.1:8b") as llm:
        found, = llm_checks(tmp_path, PAPERBOT_LLM_URL=llm.url, PAPERBOT_LLM_MODEL="llama3.1:8b")
        assert (found.finding, found.status) == (Finding.LLM_MODEL_SERVED, "ok")
        found, = llm_checks(tmp_path, PAPERBOT_LLM_URL=llm.url, PAPERBOT_LLM_MODEL="llama3.1:70b")
        assert (found.finding, found.status, found.facts["models"]) == (
            Finding.LLM_MODEL_MISSING, "fail", ("llama3.1:8b",))
        assert "ollama pull llama3.1:70b" in line(found)
        # An endpoint without the list of models: one tiny completion says whether the model answers.
        llm.models_status = 404
        found, = llm_checks(tmp_path, PAPERBOT_LLM_URL=llm.url, PAPERBOT_LLM_MODEL="llama3.1:8b")
        assert (found.finding, found.status) == (Finding.LLM_ANSWERS, "ok")
        found, = llm_checks(tmp_path, PAPERBOT_LLM_URL=llm.url, PAPERBOT_LLM_MODEL="other")
        assert (found.finding, found.status) == (Finding.LLM_REFUSES, "fail")
        # A key the endpoint refuses.
        llm.models_status, llm.key = 200, "sk-right"
        found, = llm_checks(tmp_path, PAPERBOT_LLM_URL=llm.url, PAPERBOT_LLM_MODEL="llama3.1:8b",
                            PAPERBOT_LLM_KEY="sk-wrong")
        assert found.finding == Finding.LLM_UNREACHABLE and "HTTP 401" in found.facts["error"]
        assert "sk-wrong" not in line(found)


def test_an_endpoint_that_does_not_answer_fails_and_a_bad_setting_skips(tmp_path):
    from bot.cli.doctor_texts import line

    found, = llm_checks(tmp_path, PAPERBOT_LLM_URL="http://127.0.0.1:9/v1", PAPERBOT_LLM_MODEL="m")
    assert (found.finding, found.status) == (Finding.LLM_UNREACHABLE, "fail")
    assert "can't be reached" in line(found) and "ollama serve" in line(found)
    found, = llm_checks(tmp_path, PAPERBOT_LLM_URL="localhost:11434", PAPERBOT_LLM_MODEL="m")
    assert (found.finding, found.status, found.facts["settings"]) == (
        Finding.LLM_SKIPPED, "skip", ("PAPERBOT_LLM_URL",))
