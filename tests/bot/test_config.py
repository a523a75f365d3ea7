import pytest

from bot.config import Settings, default_processes
from bot.errors import ConfigError


def test_defaults():
    s = Settings.load({}, dotenv=None)
    assert (s.api_url, s.db_path, s.port, s.digest_size, s.feeds) == (
        "https://slack.com/api/", "paperbot.db", 3000, 5, [])


def test_the_operations_settings():
    s = Settings.load({}, dotenv=None)
    assert (s.log_format, s.metrics_port, s.admin_channel) == ("text", None, None)
    s = Settings.load({"PAPERBOT_LOG_FORMAT": "JSON", "PAPERBOT_METRICS_PORT": "9100",
                       "PAPERBOT_ADMIN_CHANNEL": "C0ADMIN01"}, dotenv=None)
    assert (s.log_format, s.metrics_port, s.admin_channel) == ("json", 9100, "C0ADMIN01")
    assert Settings.load({}, dotenv=None).metrics_dir is None
    assert Settings.load({"PROMETHEUS_MULTIPROC_DIR": "/run/paperbot/metrics"}, dotenv=None).metrics_dir \
        == "/run/paperbot/metrics"


def test_digest_processes_default_to_the_cores_at_most_four(monkeypatch):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert Settings.load({}, dotenv=None).digest_processes == default_processes() == 4
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert Settings.load({}, dotenv=None).digest_processes == 2
    assert Settings.load({"PAPERBOT_DIGEST_PROCESSES": "1"}, dotenv=None).digest_processes == 1


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
    ({"PAPERBOT_DIGEST_PROCESSES": "0"}, "PAPERBOT_DIGEST_PROCESSES"),
    ({"PAPERBOT_DIGEST_PROCESSES": "two"}, "PAPERBOT_DIGEST_PROCESSES"),
    ({"SLACK_BOT_TOKEN": "xapp-wrong"}, "SLACK_BOT_TOKEN"),
    ({"SLACK_APP_TOKEN": "xoxb-wrong"}, "SLACK_APP_TOKEN"),
    ({"SLACK_API_URL": "ftp://x"}, "SLACK_API_URL"),
    ({"PAPERBOT_LOG_FORMAT": "xml"}, "PAPERBOT_LOG_FORMAT"),
    ({"PAPERBOT_METRICS_PORT": "-1"}, "PAPERBOT_METRICS_PORT"),
    ({"PAPERBOT_METRICS_PORT": "nine"}, "PAPERBOT_METRICS_PORT"),
    ({"PAPERBOT_ADMIN_CHANNEL": "#general"}, "PAPERBOT_ADMIN_CHANNEL"),
])
def test_malformed_settings_name_the_variable(env, word):
    with pytest.raises(ConfigError, match=word):
        Settings.load(env, dotenv=None)
    # leniently (the doctor), the same one is listed under its name and its default taken
    lenient = Settings.load(env, dotenv=None, lenient=True)
    assert [name for name, _ in lenient.problems] == [word]
    assert word in lenient.problems[0][1]
    assert lenient.port == 3000 or word != "PORT"


def test_leniently_every_setting_that_does_not_parse_is_listed_in_order_read():
    settings = Settings.load({"PORT": "x", "SLACK_API_URL": "ftp://x", "PAPERBOT_DB": "mysql://a/b",
                              "PAPERBOT_DIGEST_SIZE": "7"}, dotenv=None, lenient=True)
    assert [name for name, _ in settings.problems] == ["SLACK_API_URL", "PAPERBOT_DB", "PORT"]
    assert settings.digest_size == 7 and settings.db_path == "paperbot.db"


def test_require_names_the_missing_variable():
    with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET"):
        settings = Settings.load({"SLACK_BOT_TOKEN": "xoxb-1"}, dotenv=None)
        settings.require("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET")


# -- OAuth (many workspaces) ------------------------------------------------------------------------

OAUTH = {"SLACK_CLIENT_ID": "1111111111.2222222222",
         "SLACK_CLIENT_SECRET": "0123456789abcdef0123456789abcdef", "SLACK_SIGNING_SECRET": "signing",
         "PAPERBOT_SECRET_KEY": "s" * 40}


def test_the_oauth_settings_make_oauth_mode():
    s = Settings.load(OAUTH, dotenv=None)
    assert s.oauth and (s.client_id, s.client_secret, s.secret_key) == (
        OAUTH["SLACK_CLIENT_ID"], OAUTH["SLACK_CLIENT_SECRET"], OAUTH["PAPERBOT_SECRET_KEY"])
    s.require_oauth()  # nothing missing


def test_a_bot_token_means_the_one_workspace_set_up_whatever_else_is_set():
    s = Settings.load({**OAUTH, "SLACK_BOT_TOKEN": "xoxb-1"}, dotenv=None)
    assert not s.oauth
    assert not Settings.load({"SLACK_BOT_TOKEN": "xoxb-1"}, dotenv=None).oauth
    assert not Settings.load({}, dotenv=None).oauth


@pytest.mark.parametrize("missing", sorted(OAUTH))
def test_each_missing_oauth_setting_is_named(missing):
    env = {k: v for k, v in OAUTH.items() if k != missing}
    with pytest.raises(ConfigError) as raised:
        Settings.load(env, dotenv=None).require_oauth()
    assert str(raised.value).startswith(missing) and "\n" not in str(raised.value)


@pytest.mark.parametrize("name, value", [
    ("SLACK_CLIENT_ID", "not-a-client-id"),
    ("SLACK_CLIENT_ID", "1111.2222 "[:-1] + "x"),
    ("SLACK_CLIENT_SECRET", "short"),
    ("SLACK_CLIENT_SECRET", "has spaces in it, which no secret has"),
    ("PAPERBOT_SECRET_KEY", "only-thirty-one-characters-long"),
])
def test_a_malformed_oauth_setting_is_named(name, value):
    assert len(OAUTH["PAPERBOT_SECRET_KEY"]) >= 32 and len("only-thirty-one-characters-long") == 31
    with pytest.raises(ConfigError, match=name):
        Settings.load({**OAUTH, name: value}, dotenv=None)


def test_old_secret_keys_are_read_comma_separated_and_each_validated_without_showing_it():
    old, older = "o" * 40, "p" * 33
    s = Settings.load({**OAUTH, "PAPERBOT_OLD_SECRET_KEYS": f" {old} ,{older},"}, dotenv=None)
    assert s.old_secret_keys == (old, older)
    assert Settings.load(OAUTH, dotenv=None).old_secret_keys == ()
    short = "only-thirty-one-characters-long"
    with pytest.raises(ConfigError) as raised:
        Settings.load({**OAUTH, "PAPERBOT_OLD_SECRET_KEYS": f"{old},{short}"}, dotenv=None)
    message = str(raised.value)
    assert "PAPERBOT_OLD_SECRET_KEYS" in message and "key 2 of 2" in message and short not in message
    with pytest.raises(ConfigError, match="PAPERBOT_SECRET_KEY is not"):
        Settings.load({"PAPERBOT_OLD_SECRET_KEYS": old}, dotenv=None)


def test_socket_mode_with_oauth_is_refused_in_one_line():
    s = Settings.load({**OAUTH, "SLACK_APP_TOKEN": "xapp-1"}, dotenv=None)
    with pytest.raises(ConfigError) as raised:
        s.require_oauth()
    message = str(raised.value)
    assert "SLACK_APP_TOKEN" in message and "OAuth" in message and "\n" not in message


# -- the lab's model (PAPERBOT_LLM_*, issue 41) ---------------------------------------------------------

def llm(**env):
    return Settings.load({f"PAPERBOT_LLM_{k.upper()}": v for k, v in env.items()}, dotenv=None)


def test_no_model_by_default_and_the_base_as_given():
    s = Settings.load({}, dotenv=None)
    assert (s.llm_url, s.llm_model, s.llm_key, s.llm_daily_limit) == (None, None, None, 500)
    s = llm(url="http://localhost:11434/v1/", model="llama3.1:8b", key="sk-x", daily_limit="20")
    assert (s.llm_url, s.llm_model, s.llm_key, s.llm_daily_limit) == (
        "http://localhost:11434/v1", "llama3.1:8b", "sk-x", 20)
    assert "sk-x" not in repr(s)  # the key stays out of any log of the settings


@pytest.mark.parametrize("given", ["http://localhost:11434/v1/chat/completions",
                                   "http://localhost:11434/v1/chat/completions/",
                                   "http://localhost:11434/v1/models"])
def test_an_endpoint_s_full_url_is_taken_as_its_base(given):
    assert llm(url=given, model="m").llm_url == "http://localhost:11434/v1"


@pytest.mark.parametrize("bad", ["localhost:11434", "ftp://host/v1", "http://", "http://host:port/v1",
                                 "http://host/v1?x=1", "http://ho st/v1", "http://me:pw-secret@host/v1"])
def test_a_malformed_url_is_refused_at_start_in_one_line(bad):
    with pytest.raises(ConfigError, match="^PAPERBOT_LLM_URL must") as refused:
        llm(url=bad, model="m")
    assert "\n" not in str(refused.value) and "pw-secret" not in str(refused.value)
    lenient = Settings.load({"PAPERBOT_LLM_URL": bad, "PAPERBOT_LLM_MODEL": "m"}, dotenv=None, lenient=True)
    assert [name for name, _ in lenient.problems] == ["PAPERBOT_LLM_URL"]  # not also the model's
    assert lenient.llm_url is None


def test_the_model_goes_with_the_url():
    with pytest.raises(ConfigError, match="PAPERBOT_LLM_MODEL is not set"):
        llm(url="http://localhost:11434/v1")
    with pytest.raises(ConfigError, match="PAPERBOT_LLM_URL is not"):
        llm(model="llama3.1:8b")
    lenient = Settings.load({"PAPERBOT_LLM_URL": "http://h/v1"}, dotenv=None, lenient=True)
    assert lenient.llm_url is None and [n for n, _ in lenient.problems] == ["PAPERBOT_LLM_MODEL"]
    with pytest.raises(ConfigError, match="PAPERBOT_LLM_DAILY_LIMIT must be"):
        llm(url="http://h/v1", model="m", daily_limit="-1")
