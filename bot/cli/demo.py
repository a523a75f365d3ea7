"""``paperbot demo``: the product in a terminal, with no Slack and no network.

It drives the very use cases the Slack bot uses, on the bundled ICML 2025 sample.
"""

from __future__ import annotations

import contextlib
import tempfile
from importlib import resources
from pathlib import Path

from rich.markup import escape

from bot.cli import terminal
from bot.errors import ConfigError
from bot.presentation.paper_view import shown_title
from bot.state.context import Context
from bot.usecases import DISLIKE, LIKE, build_digest, follow, ingest, record_feedback
from bot.usecases.conference import choose, plan_for

READER = "demo-reader"
TOPICS = "diffusion models, reinforcement learning, exploration"
DIGEST_SIZE = 3


def sample_path() -> Path:
    """The bundled ICML 2025 abstracts."""
    return Path(str(resources.files("bot") / "data" / "icml2025-abstracts.txt"))


def _scratch_folder() -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for the throwaway database; ConfigError when none is writable (a read-only
    container without a tmpfs at /tmp, say)."""
    try:
        return tempfile.TemporaryDirectory(prefix="paperbot-demo-")
    except OSError as exc:
        raise ConfigError(f"paperbot demo needs a writable temporary folder ({exc.strerror}): set TMPDIR to "
                          "one, or give --keep FILE in a writable folder") from None


def run_demo(keep: str | None = None) -> None:
    """Ingest the sample, follow a few topics, show a digest, react, show the next digest."""
    console = terminal.console
    with contextlib.nullcontext(None) if keep else _scratch_folder() as tmp:
        db_path = keep or str(Path(tmp) / "demo.db")
        ctx = Context.open(db_path, digest_size=DIGEST_SIZE)
        console.print("[bold]paperbot demo[/bold]: no Slack, no network; a throwaway database.\n")
        reports = ingest(ctx, [str(sample_path())])
        reports[0].source = "bundled sample: ICML 2025 abstracts"
        terminal.show_ingest(reports)

        result = follow(ctx, READER, TOPICS)
        console.print(f"\nThe sample reader follows: [cyan]{', '.join(result.added)}[/cyan] "
                      f"(digests on at {result.digest_time}).\n")
        first = build_digest(ctx, READER)
        terminal.show_recommendations(first.recommendations, "Today's digest")
        if len(first.recommendations) < 2:
            console.print("[yellow]Too few papers matched to show feedback.[/yellow]")
            return

        liked, disliked = first.recommendations[0].paper, first.recommendations[1].paper
        record_feedback(ctx, READER, liked.id, LIKE)
        record_feedback(ctx, READER, disliked.id, DISLIKE)
        console.print(f"\nThe reader reacts 👍 to [green]{escape(shown_title(liked))}[/green]")
        console.print(f"and 👎 to [red]{escape(shown_title(disliked))}[/red].\n")

        second = build_digest(ctx, READER)
        terminal.show_recommendations(second.recommendations, "Tomorrow's digest, after that feedback")
        shown_before = {r.paper.id for r in first.recommendations}
        repeats = [r for r in second.recommendations if r.paper.id in shown_before]
        console.print(f"\nNo repeats: {len(repeats)} of tomorrow's papers were in today's digest. "
                      "Reasons now draw on what the reader liked.")
        show_plan(ctx)
        if keep:
            console.print(f"Database kept in {keep}.")


#: The sample's venue, as a reader would ask for it.
VENUE = "ICML 2025"
PLAN_SHOWN = 5


def show_plan(ctx: Context) -> None:
    """The sample reader's conference plan for the sample's venue, one paper marked Going."""
    console = terminal.console
    plan = plan_for(ctx, READER, VENUE)
    if not plan.entries:
        return
    plan = choose(ctx, READER, VENUE, plan.entries[0].paper.id, "going") or plan
    console.print(f"\n[bold]Conference plan[/bold] for {escape(VENUE)}: "
                  f"the reader's best {len(plan.entries)} papers of the venue, Going or Skip on each.")
    for entry in plan.entries[:PLAN_SHOWN]:
        mark = "[green]Going[/green]" if entry.choice == "going" else "[dim]undecided[/dim]"
        console.print(f"  {mark}  {escape(shown_title(entry.paper))}")
    if len(plan.entries) > PLAN_SHOWN:
        console.print(f"  … and {len(plan.entries) - PLAN_SHOWN} more.")
