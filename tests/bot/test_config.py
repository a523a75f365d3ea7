import pytest

from bot.config import Settings
from bot.errors import ConfigError


def test_defaults():
    s = Settings.load({}, dotenv=None)
    assert (s.api_url, s.db_path, s.port, s.digest_size, s.feeds) == (
        "https://slack.com/api/", "paperbot.db", 3000, 5, [])


def test_values_and_dotenv(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("PAPERBOT_DB=from-dotenv.db\nPORT=4000\n")
    s = Settings.load({"PORT": "5000", "SLACK_API_URL": "http://127.0.0.1:9/api",
                       "PAPERBOT_FEEDS": "arxiv:cs.LG,cs.CL  https://x.org/rss"}, dotenv=env_file)
    assert (s.db_path, s.port, s.api_url) == ("from-dotenv.db", 5000, "http://127.0.0.1:9/api/")
    assert s.feeds == ["arxiv:cs.LG,cs.CL", "https://x.org/rss"]


@pytest.mark.parametrize("env, word", [
    ({"PORT": "eighty"}, "PORT"),
    ({"PORT": "70000"}, "PORT"),
    ({"PAPERBOT_DIGEST_SIZE": "0"}, "PAPERBOT_DIGEST_SIZE"),
    ({"SLACK_BOT_TOKEN": "xapp-wrong"}, "SLACK_BOT_TOKEN"),
    ({"SLACK_APP_TOKEN": "xoxb-wrong"}, "SLACK_APP_TOKEN"),
    ({"SLACK_API_URL": "ftp://x"}, "SLACK_API_URL"),
])
def test_malformed_settings_name_the_variable(env, word):
    with pytest.raises(ConfigError, match=word):
        Settings.load(env, dotenv=None)


def test_require_names_the_missing_variable():
    with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET"):
        settings = Settings.load({"SLACK_BOT_TOKEN": "xoxb-1"}, dotenv=None)
        settings.require("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET")
