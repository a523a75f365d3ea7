"""tests/e2e/test_slack_bot.py again, whatever PAPERBOT_TEST_BACKEND says, on a throwaway PostgreSQL database:
the default run exercises the bot on a real server too (it skips without one, fails under
PAPERBOT_REQUIRE_POSTGRES=1)."""

from tests.e2e.test_slack_bot import *  # noqa: F403 (every test and fixture of that file, collected here again)

BACKEND = "postgres"
