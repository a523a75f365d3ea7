"""Use cases return data (issue 40): no slash command, emoji or Slack mrkdwn in any string of
``bot/usecases/`` (docstrings aside), and no named error raised with a sentence. The adapters phrase
what a use case returns or refuses (:mod:`bot.slack.views.refusals`, the CLI, the demo)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
USECASES = ROOT / "bot" / "usecases"

#: What only an adapter may say: the slash command, an emoji (Slack's ``:name:`` or the character), Slack
#: mrkdwn (code, bold, a link with its text).
SLACKISH = re.compile(r"/papers\b|:[a-z0-9_+-]+:|[\u2600-\u27bf\U0001f300-\U0001faff]|`"
                      r"|(?<![\w\])])\*[^*\s][^*\n]*\*(?![\w*])|<[^<>|]+\|[^<>]+>")
#: Not Slack's: SQLite's name for a database in memory.
ALLOWED = {":memory:"}
#: The errors the adapters phrase: raised with fields, never with words for a person.
NAMED = {"BadArgument", "NotFound", "NoInterests", "NoPapers", "ConfigError", "PaperbotError"}

#: Files still holding phrases, each to be emptied by its part of issue 40 (strict: once one passes, its
#: mark must go, so the test keeps it so).
STILL_TO_DO: dict[str, str] = {}


def docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def phrases(path: Path) -> list[str]:
    """Each string of ``path`` that speaks to a person in Slack's words, and each named error raised
    with words, as ``line: text``."""
    tree = ast.parse(path.read_text())
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                and node.value not in ALLOWED and SLACKISH.search(node.value)):
            found.append(f"{node.lineno}: {node.value!r}")
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            name = getattr(func, "id", None) or getattr(func, "attr", "")
            if name in NAMED and any(isinstance(a, (ast.Constant, ast.JoinedStr)) for a in node.exc.args):
                found.append(f"{node.lineno}: raise {name}(<words>)")
    return found


FILES = sorted(str(p.relative_to(USECASES)) for p in USECASES.rglob("*.py"))


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=STILL_TO_DO[n])) if n in STILL_TO_DO else n
    for n in FILES])
def test_a_use_case_says_nothing_in_slack_s_words(name):
    assert phrases(USECASES / name) == []


def test_the_scan_sees_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Docs may say `/papers follow`."""\n'
                      'A = "try `/papers follow`"\nB = ":tada: done"\nC = "*Bold*"\nD = "a 👍"\n'
                      'E = "<https://x|x>"\nF = ":memory:"\nG = "plain words"\n'
                      'def f(n):\n    raise BadArgument(f"at most {n}")\n'
                      'def g(n):\n    raise TooMany("topics", n)\n')
    assert [line.split(":")[0] for line in phrases(sample)] == ["2", "3", "4", "5", "6", "10"]
