"""How the Slack adapter is put together: listener modules depend on the runtime, never on the app
that registers them."""

import ast
import inspect
import re
from pathlib import Path

import pytest

import bot.slack
from bot.slack import app

SLACK = Path(bot.slack.__file__).parent


def imported(path: Path) -> set[str]:
    """Every module a file imports, wherever the import stands (TYPE_CHECKING blocks included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("module", app.LISTENER_MODULES, ids=lambda m: m.__name__)
def test_listener_modules_register_themselves_and_never_import_the_app(module):
    assert list(inspect.signature(module.register).parameters) == ["app", "runtime"]
    assert "bot.slack.app" not in imported(Path(module.__file__))


def test_nothing_in_the_adapter_imports_the_app_but_the_server():
    importers = {p.name for p in SLACK.rglob("*.py") if "bot.slack.app" in imported(p)}
    assert importers == {"server.py"}


def test_the_adapter_reaches_the_store_only_through_use_cases():
    # Only what runs the app touches the store itself: the inbox of acknowledged work (the background),
    # closing the store at the end (the app, the server), and Bolt's installation and OAuth state
    # stores, which are Bolt's interfaces implemented over paperbot's storage (installations).
    touching = {p.name for p in SLACK.rglob("*.py") if re.search(r"\.store\b", p.read_text())}
    assert touching <= {"background.py", "runtime.py", "app.py", "server.py", "installations.py"}


def test_listener_modules_import_no_other_listener_module():
    # Each listener module registers itself; what two of them share (publishing Home, the card of an
    # unfurl, a person's timezone, the subcommands) lives outside bot/slack/listeners/.
    listeners = SLACK / "listeners"
    modules = {p for p in listeners.glob("*.py") if p.name != "__init__.py"}
    for path in modules:
        others = {n for n in imported(path) if n.startswith("bot.slack.listeners")}
        assert not others, f"{path.name} imports {sorted(others)}"
        assert "def register(app" in path.read_text(), f"{path.name} is no listener module"
    assert {m.__file__ for m in app.LISTENER_MODULES} | {str(listeners / "uninstall.py")} == {
        str(p) for p in modules}


def test_nothing_outside_the_listeners_imports_them_but_the_app():
    def imports_listeners(path):
        return any(name.startswith("bot.slack.listeners") for name in imported(path))

    importers = {p.relative_to(SLACK).as_posix() for p in SLACK.rglob("*.py")
                 if p.parent.name != "listeners" and imports_listeners(p)}
    assert importers == {"app.py"}
