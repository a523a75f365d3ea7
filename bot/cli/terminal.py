"""Rich terminal output shared by the command line and the demo.

Whatever these consoles print has its control characters removed (:func:`bot.logs.strip_controls`):
papers come from feeds and files anyone can write, and a title holding an escape sequence would otherwise
reach the admin's terminal as one (clear the screen, plant a hyperlink, blink). Rich passes them through.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date

from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from bot.logs import strip_controls
from bot.presentation.paper_view import (
    paper_links,
    published_on,
    shown_abstract,
    shown_highlights,
    shown_text,
    shown_title,
)
from bot.presentation.reasons import shorten
from bot.slack.views.digest_notes import note_text
from bot.slack.views.refusals import say
from bot.sources import openreview
from bot.usecases import DailyRun, Recommendation, SourceReport
from bot.usecases.digest_schedule import NotDue, weekday_name
from bot.usecases.digests.run import Preview
from bot.usecases.summaries import Summary
from storage import Paper, WorkspaceSummary


class CleanConsole(Console):
    """A rich Console whose text reaches the terminal without control characters (its own styling, which
    rich adds when writing, and its cursor controls are kept)."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None and segment.text != (text := strip_controls(segment.text)):
                segment = Segment(text, segment.style)
            yield segment


console = CleanConsole()
errors = CleanConsole(stderr=True)


def show_recommendations(recs: list[Recommendation], title: str, abstract_chars: int = 220,
                         empty: str = "Nothing new worth sending.") -> None:
    """Print papers as a numbered list of panels: title, authors and venue, reason, abstract start;
    ``empty`` (plain text) when there are none."""
    console.rule(f"[bold]{title}")
    if not recs:
        console.print(Text(empty, style="dim"))
    for number, rec in enumerate(recs, 1):
        paper = rec.paper
        # The title is the panel's first line, not its border's: a border crops a long title mid-word.
        body = Text(shown_title(paper) + "\n", style="bold")
        byline = ", ".join(shown_text(name) for name in paper.authors[:4])
        byline += " et al." if len(paper.authors) > 4 else ""
        meta = " · ".join(x for x in (byline, shown_text(paper.venue), published_on(paper)) if x)
        if meta:
            body.append(meta + "\n", style="dim")
        for each in paper_links(paper):
            body.append(f"{each.label}: {each.url}\n", style="dim")
        body.append("Why: ", style="bold green")
        body.append(rec.reason + "\n")
        _what_it_does(body, paper, abstract_chars)
        console.print(Panel(body, title=f"[bold]{number}", title_align="left", expand=True))


def _what_it_does(body: Text, paper: Paper, abstract_chars: int) -> None:
    """What the paper does and its result, quoted from its abstract (each cut at a word), or the start of
    the abstract when it has no highlights."""
    what, result = shown_highlights(paper)
    if not what:
        body.append(shorten(shown_abstract(paper), abstract_chars), style="italic")
        return
    body.append("What it does (quoted from the abstract): ", style="bold")
    body.append(f"“{shorten(what, 2 * abstract_chars)}”\n", style="italic")
    if result:
        body.append("Result (quoted from the abstract): ", style="bold")
        body.append(f"“{shorten(result, 2 * abstract_chars)}”\n", style="italic")


def show_papers(papers: list[tuple[Paper, Summary | None]]) -> None:
    """Print papers as their messages show them (``paperbot show``): title, authors and venue, date,
    links, then what each does and its main result quoted from the abstract, or the start of the
    abstract when it has no highlights; and its summary by the lab's model, with the model, when there
    is one."""
    for paper, summary in papers:
        body = Text(shown_title(paper) + "\n", style="bold")
        byline = ", ".join(shown_text(name) for name in paper.authors)
        meta = " · ".join(x for x in (byline, shown_text(paper.venue), published_on(paper)) if x)
        if meta:
            body.append(meta + "\n", style="dim")
        for each in paper_links(paper):
            body.append(f"{each.label}: {each.url}\n", style="dim")
        _what_it_does(body, paper, 1000)
        if summary is not None:
            body.append(f"Summary by {summary.model}, checked against the abstract: ", style="bold")
            body.append(summary.text + "\n")
        console.print(Panel(body, title=f"[bold]{escape(paper.id)}", title_align="left", expand=True))


def show_ingest(reports: list[SourceReport], max_rejected: int = 20) -> None:
    """Print what each source (each arXiv category) announced, added, updated and rejected, with what
    each arXiv listing was and the reasons for rejects."""
    listings = any(r.announced is not None for r in reports)
    table = Table("source", *("announced",) * listings, "added", "updated", "unchanged", "rejected",
                  title="Ingest")
    for r in reports:
        announced = ("" if r.announced is None else str(r.announced),) * listings
        table.add_row(escape(r.source), *announced, str(r.added), str(r.updated), str(r.unchanged),
                      str(len(r.rejected)) if r.error is None else "[red]unreadable[/red]")
    console.print(table)
    for r in reports:
        if r.announced_on and r.error is None:
            console.print(f"{escape(r.source)}: {_listing(r)}", highlight=False, soft_wrap=True)
        elif r.source.startswith("openreview:") and r.error is None:
            console.print(f"{escape(r.source)}: {_venue_read(r)}", highlight=False, soft_wrap=True)
        elif r.interval and r.error is None:  # biorxiv:/medrxiv:, pubmed:
            first, last = r.interval.split("/")
            verb = "entered PubMed" if r.source.startswith("pubmed:") else "posted"
            console.print(f"{escape(r.source)}: {verb} from {first} to {last}", highlight=False,
                          soft_wrap=True)
        elif r.read_on and r.error is None:  # acl:
            said = (f"read whole on {r.read_on}; read again from {r.read_again_on}, for corrections"
                    if r.read_again_on else f"read whole ({r.announced} papers listed)")
            console.print(f"{escape(r.source)}: {said}", highlight=False, soft_wrap=True)
    for r in reports:
        if r.error:
            errors.print(f"[red]error:[/red] {escape(r.error)}", highlight=False, soft_wrap=True)
        if r.empty:
            errors.print(f"[yellow]warning:[/yellow] {escape(r.source)} held no papers at all",
                         highlight=False, soft_wrap=True)
        for rej in r.rejected[:max_rejected]:
            errors.print(f"[yellow]skipped[/yellow] {escape(r.source)}, {rej.where}: {escape(rej.reason)}",
                         highlight=False, soft_wrap=True)
        if len(r.rejected) > max_rejected:
            errors.print(f"… and {len(r.rejected) - max_rejected} more skipped in {r.source}",
                         soft_wrap=True)


_KINDS = (("new", "new", "new"), ("cross", "cross-list", "cross-lists"),
          ("replace", "replacement", "replacements"),
          ("replace-cross", "replaced cross-list", "replaced cross-lists"))


def _listing(r: SourceReport) -> str:  # only for a report with ``announced_on``
    """What an arXiv category's read was: its listing's date and kinds, or a day without announcement,
    and any catch-up."""
    day = f"{r.announced_on} ({_weekday(r.announced_on)})"
    if r.quiet:
        weekend = date.fromisoformat(r.announced_on).weekday() >= 5
        said = f"no announcement on {day}" + (
            ": arXiv announces Monday to Friday" if weekend
            else ": an arXiv holiday, or a listing read while arXiv rebuilt it (read again next time)")
    else:
        kinds = [f"{n} {one if n == 1 else many}" for kind, one, many in _KINDS
                 if (n := r.kinds.get(kind, 0))]
        said = f"the announcement of {day}" + (f": {', '.join(kinds)}" if kinds else "")
    if r.caught_up_from:
        said += f"; caught up from {r.caught_up_from} through the arXiv API"
    return said


def _venue_read(r: SourceReport) -> str:
    """What an ``openreview:`` venue's read was: its accepted papers by OpenReview's names of them, none
    (said with what the id must be), or not read again today."""
    if r.read_again_on:
        return (f"read whole on {r.read_on} already; read again tomorrow (a venue publishes its acceptances "
                "at once)")
    if not r.announced:
        return (f"no accepted papers under this venue id: none published yet, or not the venue id as on "
                f"openreview.net, e.g. openreview:{openreview.EXAMPLE} (the id= of the venue's page; every "
                f"venue is listed at {openreview.VENUES_PAGE})")
    names = ", ".join(f"{escape(name)} {n:,}" for name, n in r.kinds.items())
    return f"{r.announced:,} accepted papers" + (f": {names}" if names else "")


def _weekday(day: str | None) -> str:
    return date.fromisoformat(day).strftime("%a") if day else ""


def show_copy(counts: dict[str, int], target: str) -> None:
    """What ``paperbot db copy`` copied: one line per table with its rows, then where to."""
    width = max(map(len, counts))
    for table, count in counts.items():
        console.print(f"{table:<{width}}  {count:>9,}", highlight=False)
    console.print(f"Copied into {escape(target)}; every count matches the source.", highlight=False,
                  soft_wrap=True)


def show_workspaces(workspaces: list[WorkspaceSummary]) -> None:
    """``paperbot workspaces``: one row per workspace, with its people and its latest digest."""
    if not workspaces:
        console.print("No workspace yet: install paperbot into one (see the README).")
        return
    table = Table("workspace", "kind", "installed", "people", "last digest", "social")
    for w in workspaces:
        kind = "org" if w.is_enterprise_install else ("workspace" if w.installed_at else "not installed")
        table.add_row(escape(w.ws or "(none yet)"), kind, _moment(w.installed_at), f"{w.people:,}",
                      _moment(w.last_digest_at), "on" if w.social else "off")
    console.print(table)


def _moment(iso: str | None) -> str:
    return iso[:16].replace("T", " ") + " UTC" if iso else "–"


def show_digest_previews(previews: list[Preview], not_due: list[NotDue]) -> None:
    """``paperbot digest --dry-run``: each due digest's papers, then who gets none now and why."""
    for preview in previews:
        due = preview.due
        title = f"{due.user_id}: digest for {due.local_date} (due {due.due_at:%Y-%m-%d %H:%M} UTC)"
        if note := _preview_note(preview):
            title += f" [{note}]"
        show_recommendations(preview.recommendations, escape(title))
    _show_not_due(not_due)
    papers = sum(len(p.recommendations) for p in previews)
    console.print(f"Dry run: {len(previews)} digest(s) due, {papers} paper(s); "
                  "nothing was posted or recorded.")


def _preview_note(preview: Preview) -> str:
    if preview.refusal is not None:
        return say(preview.refusal)
    if preview.resuming is not None:
        return f"resuming: {len(preview.recommendations)} of {preview.resuming} papers left"
    return "" if preview.recommendations else "nothing worth sending"


def show_digest_run(run: DailyRun, max_rows: int = 30) -> None:
    """What ``paperbot digest`` did: feeds, then the digests (all of them when few, else the exceptions)."""
    if run.feeds:
        show_ingest(run.feeds)
    rows = run.outcomes if len(run.outcomes) <= max_rows else [o for o in run.outcomes if o.status != "sent"]
    if rows:
        table = Table("person", "local day", "status", "papers", "note", title="Digests")
        for o in rows:
            style = {"sent": "green", "failed": "red", "incomplete": "yellow"}.get(o.status, "")
            status = f"[{style}]{o.status}[/]" if style else o.status
            note = escape(note_text(o.note)) if o.note else ""
            table.add_row(escape(o.user_id), str(o.local_date), status, str(o.delivered), note)
        console.print(table)
    papers = sum(o.delivered for o in run.outcomes)
    waiting = sum(1 for o in run.outcomes if o.status == "incomplete" and o.outage)
    left = f"{run.count('incomplete')} left for the next run" + (
        f" ({waiting} waiting for Slack to answer)" if waiting else "")
    console.print(f"Sent {run.count('sent')} digest(s) with {papers} paper(s); {run.count('empty')} empty, "
                  f"{run.count('failed')} failed, {left}, "
                  f"{run.count('busy') + run.count('done')} already handled elsewhere; "
                  f"{_not_due_summary(run.not_due)}.", soft_wrap=True)


_NOT_DUE_LABELS = (("done", "done for today"), ("later", "due later"), ("off", "with digests off"),
                   ("broken", "with an unreadable time"))


def _not_due_summary(not_due: list[NotDue]) -> str:
    kinds = Counter(item.kind for item in not_due)
    parts = [f"{n} {label}" for kind, label in _NOT_DUE_LABELS if (n := kinds.get(kind))]
    return f"{len(not_due)} not due" + (f" ({', '.join(parts)}; --dry-run lists them)" if parts else "")


def not_due_reason(item: NotDue) -> str:
    """Why someone gets no digest now, in a few words for an admin."""
    where = f"{item.digest_time} {item.tz or 'UTC'}" + (f" ({item.due_at:%H:%M} UTC)" if item.due_at else "")
    match item.why:
        case "off":
            return "digests are off"
        case "unknown":
            return "digests are off (or no such person)"
        case "broken_time":
            return f"unreadable digest time {item.digest_time!r}"
        case "weekly":
            return f"weekly, on {weekday_name(item.weekday)}s" if item.weekday is not None else "weekly"
        case "ended":
            return f"today's digest ({item.local_date}) ended: {item.status}"
        case "due_later":
            return f"due at {where}"
        case "starts_tomorrow":
            return f"schedule set after {where} today: starts tomorrow"
    return item.why


def _show_not_due(not_due: list[NotDue], max_rows: int = 50) -> None:
    if not not_due:
        return
    table = Table("person", "why no digest now", title="Not due")
    for item in not_due[:max_rows]:
        table.add_row(escape(item.user_id), escape(not_due_reason(item)))
    console.print(table)
    if len(not_due) > max_rows:
        console.print(f"… and {len(not_due) - max_rows} more not due")
