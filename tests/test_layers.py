"""The layers and folders of ARCHITECTURE.md, checked on the source: imports point one way, every module of
``bot/`` is under a rule, no package of ``bot/`` imports one that imports it back, and the tree keeps its
shape."""

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
    """The Python files of ``folder`` (a folder, or one file)."""
    where = ROOT / folder
    return [where] if where.suffix == ".py" else sorted(where.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


BOT_MODULES = tuple(module_name(path) for path in sources("bot"))


def bot_but(*allowed: str) -> tuple[str, ...]:
    """Every module of bot/ but those under ``allowed`` and the packages holding them (``bot`` among
    them; their other modules are still named): what a leaf may not import."""
    def kept(module: str) -> bool:
        return any(module == a or module.startswith(a + ".") or a.startswith(module + ".") for a in allowed)

    return tuple(m for m in BOT_MODULES if m != "bot" and not kept(m))


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
    ("bot/presentation", ("bot.state", "bot.usecases", "bot.slack", "bot.cli.main", "bot.sources",
                          "slack_bolt", "slack_sdk", "sqlite3", "sqlite_utils", "psycopg", "storage.sqlite",
                          "storage.postgres", "urllib.request", "urllib.error", "http"),  # not urllib.parse
     "how a paper reads is a pure function of its record"),
    ("bot/sources", bot_but("bot.sources", "bot.text", "bot.errors"),
     "sources read records into papers with the shared text work; what is done with them is a use case's, "
     "how they read a presentation's"),
    ("bot/text", bot_but("bot.text"), "text work is a leaf: reading sources and showing papers share it"),
    ("bot/summaries", bot_but("bot.summaries", "bot.text", "bot.sources.http", "bot.sources.records"),
     "a model's summaries and their check know only text work and the one HTTP politeness (Retry-After); "
     "what is asked for and when is a use case's"),
    ("bot/slack", ("bot.cli.main",), "the Slack adapter and the command line are two edges side by side"),
    ("bot/cli", ("tests", "benchmarks"), "the command line is the outermost edge: it may use every layer"),
    ("bot/config.py", bot_but("bot.config", "bot.errors", "bot.state.embedding_model"),
     "settings are read below everything that uses them (the embedding extra asked only whether installed)"),
    ("bot/metrics.py", bot_but("bot.metrics"),
     "metrics is a leaf the edges call with plain values, so any layer may count"),
    ("bot/metrics_dir.py", bot_but("bot.metrics_dir"),
     "the multiprocess directory is chosen before prometheus-client (bot.metrics) is first imported"),
    ("bot/errors.py", bot_but("bot.errors"), "named errors are a leaf every layer raises"),
    ("bot/logs.py", bot_but("bot.logs"), "logging is set up before anything else and by anything"),
    ("bot/allocator.py", bot_but("bot.allocator"), "the allocator is capped before anything else is loaded"),
    ("bot/__init__.py", bot_but(), "the package itself holds nothing"),
]


@pytest.mark.parametrize(("folder", "forbidden", "why"), RULES, ids=[r[0] for r in RULES])
def test_imports_point_one_way(folder, forbidden, why):
    assert offenders(folder, forbidden) == {}, why


def test_every_module_of_bot_is_under_a_rule():
    ruled = {path for folder, _forbidden, _why in RULES for path in sources(folder)}
    assert [str(p.relative_to(ROOT)) for p in sources("bot") if p not in ruled] == []


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` a file imports when it runs: at module level or in a function, those
    under ``if TYPE_CHECKING:`` left out (their ``else:`` kept); ``from a import b`` is ``a.b`` when that is
    a module, else ``a``."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for kept in child.orelse:
                    visit_one(kept)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the file's package, one level up for each dot after the first
                base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).rstrip(".")
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        visit(node)

    visit(ast.parse(path.read_text()))
    return found & modules


def _place(module: str, packages: set[str]) -> list[str]:
    """Where a module sits in the tree: a package's own code (its ``__init__``) is a node beside its
    subpackages and modules."""
    parts = module.split(".")
    return parts + ["__init__"] if module in packages else parts


def package_cycles(graph: dict[str, set[str]], packages: set[str]) -> list[str]:
    """The cycles of ``graph`` (module → modules it imports) between the parts of one folder: in each
    folder its subpackages (each with everything under it), its modules and its own ``__init__`` are the
    nodes, and an import from ``a.x.m`` to ``a.y.n`` is an arrow from ``a.x`` to ``a.y``. Each cycle (a
    strongly connected set of nodes) is said with the imports that make it."""
    arrows: dict[str, dict[str, dict[str, list[str]]]] = {}  # folder → node → node → the imports
    for module, targets in graph.items():
        for target in targets:
            a, b = _place(module, packages), _place(target, packages)
            if a == b:
                continue
            level = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
            folder, source, dest = ".".join(a[:level]), ".".join(a[:level + 1]), ".".join(b[:level + 1])
            arrows.setdefault(folder, {}).setdefault(source, {}).setdefault(dest, []).append(
                f"{module} -> {target}")
    found = []
    for folder, nodes in sorted(arrows.items()):
        for component in _strongly_connected(nodes):
            said = [f"{a} -> {b} ({'; '.join(sorted(how))})" for a in sorted(component)
                    for b, how in sorted(nodes.get(a, {}).items()) if b in component]
            found.append(f"in {folder or '.'}: " + ", ".join(said))
    return found


def _strongly_connected(nodes: dict[str, dict[str, list[str]]]) -> list[set[str]]:
    """Tarjan's strongly connected components of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in nodes.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(nodes):
        if v not in index:
            connect(v)
    return found


def test_the_cycle_finder_sees_cycles_between_packages_at_any_depth_and_between_modules_of_a_folder():
    packages = {"p", "p.a", "p.b"}
    graph = {"p.a.x": {"p.b.y"}, "p.b.y": set(), "p.b.z": {"p.a.inner.w"}, "p.a.inner.w": {"p.a.x"},
             "p": {"p.a.x"}, "p.c": {"p"}}
    assert package_cycles(graph, packages) == [
        "in p: p.a -> p.b (p.a.x -> p.b.y), p.b -> p.a (p.b.z -> p.a.inner.w)"]
    assert package_cycles({"p.a.x": {"p.b.y"}, "p.b.y": {"p.b.z"}, "p.b.z": {"p.b.y"}}, packages) == [
        "in p.b: p.b.y -> p.b.z (p.b.y -> p.b.z), p.b.z -> p.b.y (p.b.z -> p.b.y)"]


def test_no_package_of_bot_imports_one_that_imports_it_back():
    # Function-level imports count: one only hides a cycle from Python, not from the reader.
    modules = set(BOT_MODULES)
    packages = {module_name(path) for path in sources("bot") if path.name == "__init__.py"}
    graph = {module_name(path): runtime_imports(path, modules) for path in sources("bot")}
    cycles = package_cycles(graph, packages)
    assert not cycles, "\n" + "\n".join(cycles)


def test_a_moment_is_written_as_text_in_one_place():
    # storage/moments.py holds the one text format of every timestamp column; a log line keeps its own.
    writers = {str(path.relative_to(ROOT)) for package in PACKAGES for path in sources(package)
               if "isoformat(timespec" in path.read_text()}
    assert writers == {"storage/moments.py", "bot/logs.py"}


def test_slack_s_control_characters_are_escaped_in_one_place():
    escapers = {str(path.relative_to(ROOT)) for path in sources("bot")
                if '.replace("&", "&amp;")' in path.read_text()}
    assert escapers == {"bot/presentation/markup.py"}


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
