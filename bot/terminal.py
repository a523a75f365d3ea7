"""Rich terminal output shared by the command line and the demo."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bot.reasons import shorten
from bot.usecases import Recommendation, SourceReport

console = Console()
errors = Console(stderr=True)


def show_recommendations(recs: list[Recommendation], title: str, abstract_chars: int = 220) -> None:
    """Print papers as a numbered list of panels: title, authors and venue, reason, abstract start."""
    console.rule(f"[bold]{title}")
    if not recs:
        console.print("[dim]Nothing new worth sending.[/dim]")
    for number, rec in enumerate(recs, 1):
        paper = rec.paper
        body = Text()
        byline = ", ".join(paper.authors[:4]) + (" et al." if len(paper.authors) > 4 else "")
        meta = " · ".join(x for x in (byline, paper.venue or "") if x)
        if meta:
            body.append(meta + "\n", style="dim")
        body.append("Why: ", style="bold green")
        body.append(rec.reason + "\n")
        body.append(shorten(paper.abstract, abstract_chars), style="italic")
        heading = f"[bold]{number}. {escape(paper.title)}"
        console.print(Panel(body, title=heading, title_align="left", expand=True))


def show_ingest(reports: list[SourceReport], max_rejected: int = 20) -> None:
    """Print what each source added, updated and rejected, with the reasons for rejects."""
    table = Table("source", "added", "updated", "unchanged", "rejected", title="Ingest")
    for r in reports:
        table.add_row(escape(r.source), str(r.added), str(r.updated), str(r.unchanged),
                      str(len(r.rejected)) if r.error is None else "[red]unreadable[/red]")
    console.print(table)
    for r in reports:
        if r.error:
            errors.print(f"[red]error:[/red] {escape(r.error)}", highlight=False, soft_wrap=True)
        for rej in r.rejected[:max_rejected]:
            errors.print(f"[yellow]skipped[/yellow] {escape(r.source)}, {rej.where}: {escape(rej.reason)}",
                         highlight=False, soft_wrap=True)
        if len(r.rejected) > max_rejected:
            errors.print(f"… and {len(r.rejected) - max_rejected} more skipped in {r.source}",
                         soft_wrap=True)
