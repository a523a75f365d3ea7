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

