"""The layers and folders of ARCHITECTURE.md, checked on the source: imports point one way, and the tree
keeps its shape."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "recommender", "storage")


def imported(path: Path) -> set[str]:
    """Every module a file imports, wherever the import stands (TYPE_CHECKING blocks and functions
    included), with each imported name as a possible submodule."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def offenders(folder: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """The files under ``folder`` importing any module under one of ``forbidden``, with what they import."""
    found = {}
    for path in sources(folder):
        bad = sorted(m for m in imported(path) if any(m == f or m.startswith(f + ".") for f in forbidden))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


RULES = [
    # (folder, what it must never import, why)
    ("recommender", ("bot", "storage", "slack_bolt", "slack_sdk", "sqlite3", "sqlite_utils", "psycopg"),
     "the recommender knows nothing of Slack or SQL"),
    ("storage", ("bot", "recommender", "slack_bolt", "slack_sdk", "sklearn"),
     "storage knows nothing of Slack or scikit-learn"),
    ("bot/usecases", ("bot.slack", "bot.cli.main", "slack_bolt", "slack_sdk", "click", "rich"),
     "use cases return data: Slack, the command line and the demo translate it"),
    ("bot/state", ("bot.slack", "bot.cli.main", "bot.usecases", "slack_bolt", "slack_sdk"),
     "the process's state is what use cases are handed, so it can't need them"),
    ("bot/presentation", ("bot.state", "bot.usecases", "bot.slack", "bot.cli.main", "slack_bolt", "slack_sdk",
                          "sqlite3", "sqlite_utils", "psycopg", "storage.sqlite", "storage.postgres",
                          "urllib.request", "urllib.error", "http"),  # urllib.parse is string work
     "how a paper reads is a pure function of its record"),
    ("bot/sources", ("bot.state", "bot.usecases", "bot.slack", "bot.cli.main"),
     "sources read records; what is done with them is a use case's"),
    ("bot/slack", ("bot.cli.main",), "the Slack adapter and the command line are two edges side by side"),
]


@pytest.mark.parametrize(("folder", "forbidden", "why"), RULES, ids=[r[0] for r in RULES])
def test_imports_point_one_way(folder, forbidden, why):
    assert offenders(folder, forbidden) == {}, why


def test_presentation_never_touches_a_store():
    # Records come in; nothing there may read or write one (a store's name in a signature is the sign).
    for path in sources("bot/presentation"):
        assert "Store" not in {m.rsplit(".", 1)[-1] for m in imported(path)}, path.name


def test_bot_keeps_few_loose_modules():
    loose = sorted(p.name for p in (ROOT / "bot").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 8, loose


def test_no_module_name_is_used_three_times():
    names = Counter(p.name for package in PACKAGES for p in sources(package)
                    if p.name not in {"__init__.py", "__main__.py"})
    assert {name: n for name, n in names.items() if n >= 3} == {}


def test_evaluation_sits_beside_the_ranking_it_evaluates():
    # `paperbot eval` runs the recommender's own code on files: it needs nothing of the bot.
    assert (ROOT / "recommender" / "evaluate.py").exists()
    assert not list((ROOT / "bot").rglob("evaluat*.py"))
