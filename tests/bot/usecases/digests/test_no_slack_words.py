"""The digest pipeline says what, never how: no slash command, emoji or mrkdwn in its strings (the Slack
courier words the header and the nothing-matched note, bot/slack/views/digest_texts.py; the days and
times of `/papers digest …` are read in bot/slack/subcommands/digest_times.py). Docstrings aside."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import bot.usecases.digests as digests

#: A slash command, a Slack emoji code or an emoji, mrkdwn's code and bold.
SLACK = re.compile(r"/papers|:[a-z0-9_+-]+:|[\U0001F300-\U0001FAFF\u2600-\u27BF]|`|\*\w[^*]*\*")


def strings(path: Path) -> list[str]:
    """The string literals of a module, f-strings' literal parts included, docstrings left out."""
    tree = ast.parse(path.read_text())
    holders = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docs = {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, holders) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


def test_the_digest_pipeline_holds_no_slack_words():
    found = {path.name: hits for path in sorted(Path(digests.__file__).parent.glob("*.py"))
             if (hits := [s for s in strings(path) if SLACK.search(s)])}
    assert found == {}


def test_the_check_would_see_them():
    slack = ["`/papers follow`", ":newspaper: Your digest", "Click 👍", "*bold* x"]
    assert all(SLACK.search(s) for s in slack)
    assert not any(SLACK.search(s) for s in ["%d digest(s) stopped: %s", "HH:MM", "sent", "a * b"])
