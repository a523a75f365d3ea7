"""PAPERBOT_DB and --db through Settings: the database they name, and where it came from."""

import pytest

from bot.config import Settings
from bot.errors import ConfigError


def test_the_default_comes_from_no_setting_and_paperbot_db_from_itself():
    default = Settings.load({}, dotenv=None)
    assert (default.db_path, default.db_from) == ("paperbot.db", None)
    found = Settings.load({"PAPERBOT_DB": "sqlite:////srv/p.db"}, dotenv=None)
    assert (found.db_path, found.db_from) == ("/srv/p.db", "PAPERBOT_DB")
    given = found.with_database("sqlite:///here.db")
    assert (given.db_path, given.db_from) == ("here.db", "--db")


def test_a_database_in_no_accepted_form_is_a_config_error_naming_the_setting():
    with pytest.raises(ConfigError, match=r"^PAPERBOT_DB: mysql://foo/bar is not a database"):
        Settings.load({"PAPERBOT_DB": "mysql://foo/bar"}, dotenv=None)
    with pytest.raises(ConfigError, match=r"^--db: mysql://foo/bar is not a database"):
        Settings().with_database("mysql://foo/bar")
