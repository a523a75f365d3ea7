"""The docs say what the code does: every setting the code reads is in docs/configuration.md's table, every
scope the Slack manifests ask for is explained, every `/papers` subcommand and `paperbot` command is in the
reference, the README stays short, every relative link resolves, and no doc sends a reader to a file that
is not in the repository. Reads files only."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import click

from bot.cli.main import cli
from bot.slack.subcommands.personal import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
OPERATIONS = ROOT / "docs" / "operations.md"
COMMANDS = ROOT / "docs" / "commands.md"
README_MOST_WORDS = 2000
#: Files the repository does not hold, which a doc once sent readers to.
ABSENT = ("../shared", "INTERFACE.md", "RECOMMENDER.md")

_FENCE = re.compile(r"(?ms)^```.*?^```")
_LINK = re.compile(r"\]\(([^)\s]+)\)|(?:src|href)=\"([^\"]+)\"")


def docs() -> list[Path]:
    """Every Markdown page of the repository (the virtualenv and caches aside)."""
    return sorted(path for path in ROOT.rglob("*.md")
                  if not any(part.startswith(".") or part.endswith(".egg-info") for part in
                             path.relative_to(ROOT).parts))


def settings_read() -> set[str]:
    """The environment variables bot/config.py reads: through its ``get("NAME")``, ``parsed("NAME", …)``
    or ``number("NAME", …)``, or os.environ/getenv."""
    text = (ROOT / "bot" / "config.py").read_text(encoding="utf-8")
    pattern = r"""(?:\bget|\bparsed|\bnumber|environ\.get|getenv|environ)[(\[]\s*["']([A-Z][A-Z0-9_]+)["']"""
    return set(re.findall(pattern, text))


def table_rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row in ``text`` (header and rule rows included)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.lstrip().startswith("|")]


def named(cell: str) -> set[str]:
    """The `code` names in a table cell."""
    return set(re.findall(r"`([^`]+)`", cell))


def test_every_setting_the_code_reads_is_in_the_configuration_table():
    read = settings_read()
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "PORT", "PAPERBOT_DB",
            "PAPERBOT_METRICS_PORT", "PAPERBOT_FEEDS"} <= read  # the parse still finds what config.py reads
    listed = set().union(*(named(row[0]) for row in table_rows(CONFIGURATION.read_text(encoding="utf-8"))))
    assert sorted(read - listed) == []
    assert "PAPERBOT_ARXIV_RSS_URL" in listed  # the daily listing, read by the arXiv source


def test_every_scope_the_manifests_ask_for_is_explained():
    manifests = sorted((ROOT / "deploy").glob("slack-manifest.*.json"))
    assert len(manifests) == 3
    asked = set()
    for manifest in manifests:
        scopes = json.loads(manifest.read_text(encoding="utf-8"))["oauth_config"]["scopes"]
        asked |= set(scopes.get("bot", [])) | set(scopes.get("user", []))
    assert {"channels:read", "files:read"} <= asked
    for page in (OPERATIONS, README):
        explained = {name for row in table_rows(page.read_text(encoding="utf-8"))
                     if len(row) >= 2 and len(row[1]) > 10 for name in named(row[0])}
        assert sorted(asked - explained) == [], page.name


def test_the_readme_is_read_in_five_minutes():
    words = len(README.read_text(encoding="utf-8").split())
    assert words <= README_MOST_WORDS, f"README.md has {words} words; move detail into docs/"


def test_every_papers_subcommand_and_paperbot_command_is_in_the_reference():
    readme, commands = README.read_text(encoding="utf-8"), COMMANDS.read_text(encoding="utf-8")
    cheat_sheet = readme.split("## `/papers` cheat-sheet", 1)[1].split("\n## ", 1)[0]
    for name in REGISTRY.names:
        said = re.compile(rf"`(/papers )?{re.escape(name)}\b")
        assert said.search(cheat_sheet), f"/papers {name} is not in the README's cheat-sheet"
        assert said.search(commands), f"/papers {name} is not in docs/commands.md"
    for path in _command_paths(cli, ()):
        command = "paperbot " + " ".join(path)
        assert f"`{command}" in commands, f"{command} is not in docs/commands.md"


def _command_paths(group: click.Group, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(_command_paths(command, (*prefix, name)))
    return found


def test_no_doc_sends_a_reader_to_a_file_the_repository_does_not_hold():
    pages = docs()
    assert README in pages and CONFIGURATION in pages and (ROOT / "CONTRIBUTING.md") in pages
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        broken += [f"{page.relative_to(ROOT)} mentions {name}" for name in ABSENT if name in text]
        for target in links(text):
            problem = _resolve(page, target)
            if problem:
                broken.append(f"{page.relative_to(ROOT)} → {target}: {problem}")
    assert broken == []


def links(text: str) -> list[str]:
    """The relative link targets of a Markdown page (code blocks aside): Markdown links, img src, href."""
    found = [a or b for a, b in _LINK.findall(_FENCE.sub("", text))]
    return [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # not http:, https:, mailto:


def _resolve(page: Path, target: str) -> str | None:
    """Why ``target``, linked from ``page``, does not resolve (None when it does)."""
    path, _, anchor = target.partition("#")
    where = (page.parent / path).resolve() if path else page
    if not where.exists():
        return "no such file"
    if ROOT not in where.parents and where != ROOT:
        return "outside the repository"
    if anchor and where.suffix == ".md" and anchor not in anchors(where.read_text(encoding="utf-8")):
        return "no such heading"
    return None


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    found = set()
    for heading in re.findall(r"(?m)^#{1,6} +(.+?) *#*$", _FENCE.sub("", text)):
        slug = "".join(ch for ch in heading.lower()
                       if ch in " -_" or unicodedata.category(ch)[0] in "LN").replace(" ", "-")
        base, n = slug, 1
        while slug in found:
            slug, n = f"{base}-{n}", n + 1
        found.add(slug)
    return found


def test_the_anchors_are_github_s():
    page = "## Check a set-up: `paperbot doctor`\n### Changing `PAPERBOT_SECRET_KEY`\n## Why?\n## Why?"
    assert anchors(page) == {"check-a-set-up-paperbot-doctor", "changing-paperbot_secret_key", "why", "why-1"}


def test_the_doctor_s_example_counts_the_schema_steps_paperbot_knows():
    from storage import schema_steps
    from storage.migrations import HISTORY

    known = len(HISTORY) + len(schema_steps.STEPS)
    said = re.findall(r"schema current \((\d+) steps\)", OPERATIONS.read_text(encoding="utf-8"))
    assert said == [str(known)], f"docs/operations.md's doctor example: say 'schema current ({known} steps)'"
