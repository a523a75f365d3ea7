"""The ``paperbot`` command line. Each command translates arguments to a use case and prints the result."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot import logs, terminal
from bot.config import Settings
from bot.context import Context
from bot.errors import PaperbotError
from bot.usecases import ingest as ingest_usecase
from bot.usecases import search as search_usecase
from bot.usecases.daily import preview_digests
from storage import StorageError


class _Group(click.Group):
    """Turns paperbot's and the store's named errors into one clear line and exit status 1, never a
    traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (PaperbotError, StorageError) as exc:
            raise click.ClickException(" ".join(str(exc).split())) from None


@click.group(cls=_Group)
@click.option("--db", "db_path", metavar="FILE",
              help="SQLite database (default: $PAPERBOT_DB or paperbot.db).")
@click.option("-v", "--verbose", is_flag=True, help="Log what paperbot is doing.")
@click.pass_context
def cli(ctx: click.Context, db_path: str | None, verbose: bool) -> None:
    """paperbot: a personal daily digest of new papers, in Slack."""
    logs.configure(logging.INFO if verbose else logging.WARNING)
    ctx.ensure_object(dict)
    ctx.obj["db_override"] = db_path


def _settings(ctx: click.Context) -> Settings:
    settings = Settings.load()
    override = ctx.obj.get("db_override")
    if override:
        settings = Settings(**{**settings.__dict__, "db_path": override})
    return settings


def _open(ctx: click.Context) -> Context:
    settings = _settings(ctx)
    return Context.open(settings.db_path, settings.digest_size)


@cli.command()
@click.argument("sources", nargs=-1, required=True)
@click.pass_context
def ingest(ctx: click.Context, sources: tuple[str, ...]) -> None:
    """Add or update papers from files and feeds.

    SOURCE is a .txt, .jsonl, .json, .csv, .xml, .atom or .rss file, arxiv:CAT[,CAT...] (e.g.
    arxiv:cs.LG,stat.ML) or an http(s) RSS/Atom feed URL. Bad records are skipped with a reason;
    the exit status is non-zero only if a source could not be read at all, or the database could not
    be written (a full disk: the papers stored until then are kept, the model is refitted next time).
    """
    app = _open(ctx)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=terminal.errors, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(source: str, done: int, total: int | None) -> None:
            if source not in tasks:
                tasks[source] = bar.add_task(Path(source).name or source, total=total)
            bar.update(tasks[source], completed=done, total=total)

        try:
            reports = ingest_usecase(app, sources, progress=progress, must_save=True)
        except StorageError as exc:
            # Every batch committed before stays stored; the next process to find the saved model
            # missing or behind the papers brings it up to date.
            raise StorageError(f"{exc}; the papers stored before that are kept") from exc
    terminal.show_ingest(reports)
    if any(r.error for r in reports):
        sys.exit(1)


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("-n", default=5, show_default=True, help="How many papers.")
@click.pass_context
def search(ctx: click.Context, query: tuple[str, ...], n: int) -> None:
    """Show the papers best matching QUERY."""
    recs = search_usecase(_open(ctx), " ".join(query), n)
    terminal.show_recommendations(recs, f"Search: {' '.join(query)}")


@cli.command()
@click.option("--keep", metavar="FILE", help="Keep the demo database in FILE instead of a throwaway one.")
def demo(keep: str | None) -> None:
    """Show paperbot at work without Slack or network: a digest, then how feedback changes the next."""
    from bot.demo import run_demo

    run_demo(keep)


@cli.command(name="eval")
@click.option("--papers", "papers_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Papers, as any file `ingest` reads (JSONL usually).")
@click.option("--users", "users_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help='JSONL of {"user", "liked", ["disliked"], ["topics"]}.')
@click.option("--candidates", "candidates_path", type=click.Path(exists=True, dir_okay=False),
              help="Only these paper ids (one a line) may be ranked.")
@click.option("--k", default=100, show_default=True, type=click.IntRange(1, 10_000), help="Papers per user.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, writable=True),
              help='Output JSONL of {"user", "ranked"}.')
@click.option("--truth", "truth_path", type=click.Path(exists=True, dir_okay=False),
              help="Held-out likes (same shape as --users): print recall@k and nDCG@k.")
def eval_command(papers_path: str, users_path: str, candidates_path: str | None, k: int, out_path: str,
                 truth_path: str | None) -> None:
    """Rank papers for many users offline, through the bot's own recommender code."""
    from bot import evaluate
    from bot.sources import Rejected, read_source
    from recommender import PaperIndex

    papers = [p for p in read_source(papers_path, title_only=True) if not isinstance(p, Rejected)]
    if not papers:
        raise PaperbotError(f"no usable papers in {papers_path}")
    users = evaluate.load_users(users_path)
    candidates = evaluate.load_candidates(candidates_path) if candidates_path else None
    with terminal.errors.status("Fitting TF-IDF…"):
        index = PaperIndex.build([p.id for p in papers], [p.text for p in papers])
    ranked: dict[str, list[str]] = {}
    with Path(out_path).open("w", encoding="utf-8") as out, Progress(
        TextColumn("Ranking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=terminal.errors, transient=True,
    ) as bar:
        task = bar.add_task("rank", total=len(users))
        for user, ids in evaluate.evaluate(index, users, k=k, candidates=candidates):
            out.write(json.dumps({"user": user, "ranked": ids}) + "\n")
            ranked[user] = ids
            bar.advance(task)
    terminal.console.print(f"Ranked {len(ranked)} users over {len(papers)} papers into {out_path}")
    if truth_path:
        scores = evaluate.metrics(ranked, evaluate.load_users(truth_path), ks=(k,))
        for name, value in scores.items():
            terminal.console.print(f"{name}: {value:.4f}" if isinstance(value, float) else f"{name}: {value}")


@cli.command()
@click.option("--port", type=click.IntRange(0, 65535), metavar="N",
              help="HTTP port (default: $PORT, else 3000; 0 picks a free one). Unused in Socket Mode.")
@click.pass_context
def run(ctx: click.Context, port: int | None) -> None:
    """Run the Slack bot until SIGTERM or Ctrl+C.

    Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP on PORT, every Slack request (commands,
    events, interactivity) at /slack/events. Needs SLACK_BOT_TOKEN, and SLACK_SIGNING_SECRET in HTTP mode.
    """
    from bot.slack.server import serve

    serve(_settings(ctx), port=port, announce=lambda line: click.echo(line, err=True))


@cli.command()
@click.option("--user", "users", multiple=True, metavar="UID", help="Only this person (repeatable).")
@click.option("--force", is_flag=True,
              help="Send now, whatever the time of day; still at most one digest per person per local day.")
@click.option("--dry-run", is_flag=True, help="Print what would be sent; post nothing, record nothing.")
@click.pass_context
def digest(ctx: click.Context, users: tuple[str, ...], force: bool, dry_run: bool) -> None:
    """Send every daily digest that is due now and not yet sent that day.

    For deployments that prefer cron to the scheduler in `paperbot run` (both may run side by side):
    it first ingests PAPERBOT_FEEDS if that was not done yet this UTC day, then sends each digest whose
    time has come in its person's timezone, catching up on any missed earlier that local day. Running
    it again sends nothing twice; a digest cut short is finished without repeats. Needs SLACK_BOT_TOKEN
    (except with --dry-run). Exit status 1 when some digest is left unfinished for the next run
    (e.g. while Slack is down: such a digest is retried after 2, 4, 8 … minutes, at most 30, until
    its person's local day ends).
    """
    settings = _settings(ctx)
    if not dry_run:
        settings.require("SLACK_BOT_TOKEN")
    app = Context.open(settings.db_path, settings.digest_size)
    wanted = list(users) or None
    if dry_run:
        previews, not_due = preview_digests(app, datetime.now(UTC), wanted, force)
        terminal.show_digest_previews(previews, not_due)
        return
    from bot.slack.digests import send_digests

    with terminal.errors.status("Sending digests…"):
        run = send_digests(settings, app, wanted, force)
    terminal.show_digest_run(run)
    if run.count("incomplete"):
        sys.exit(1)

def main() -> None:
    """Console-script entry point."""
    cli(obj={})


if __name__ == "__main__":
    main()
