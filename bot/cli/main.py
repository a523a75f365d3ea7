"""The ``paperbot`` command line. Each command translates arguments to a use case and prints the result."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot import logs
from bot.allocator import freeze_startup, limit_arenas
from bot.cli import terminal
from bot.config import Settings
from bot.errors import PaperbotError
from bot.metrics_dir import metrics_directory
from bot.presentation.paper_view import paper_record
from bot.slack.views.refusals import say
from bot.state.context import Context
from bot.usecases import ingest as ingest_usecase
from bot.usecases import search as search_usecase
from bot.usecases.digests.run import preview_digests
from bot.usecases.lookup import (
    use_acl_url,
    use_arxiv_api,
    use_biorxiv_api,
    use_openreview_api,
    use_pubmed_api,
)
from bot.usecases.social import set_social_counts, social_counts_on
from bot.usecases.summaries import summarizer
from bot.usecases.workspaces import list_workspaces, remove_workspace, settle_workspace
from recommender.evaluate import BadEvalInput
from storage import (
    ACCEPTED_FORMS,
    StorageError,
    Store,
    StoreUnavailable,
    UnknownDatabase,
    WorkspaceSummary,
    database_target,
    is_new_file,
    is_postgres_url,
    open_store,
    remove_sqlite_file,
)


def _one_line(exc: BaseException) -> str:
    return " ".join(say(exc).split())  # a use case's refusal in the words the Slack answers use


class _Group(click.Group):
    """Turns paperbot's and the store's named errors into one clear line and exit status 1, never a
    traceback. A database that can't be opened is named by the setting that gave it (``--db`` or
    ``PAPERBOT_DB``), or said to be the default."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StoreUnavailable as exc:
            target = (ctx.obj or {}).get("db_target")
            if target is None:
                raise click.ClickException(_one_line(exc)) from None
            raise _unopenable(ctx.obj.get("db_from"), target, exc) from None
        except (PaperbotError, StorageError, BadEvalInput) as exc:
            raise click.ClickException(_one_line(exc)) from None


def _blamed(setting: str | None, target: str, line: str) -> click.ClickException:
    """``line`` about the database ``target``, naming where it came from: the setting, or the default."""
    if setting:
        return click.ClickException(f"{setting}: {line}")
    return click.ClickException(f"the default database {target} (neither --db nor PAPERBOT_DB is set): "
                                f"{line}")


def _unopenable(setting: str | None, target: str, exc: StoreUnavailable) -> click.ClickException:
    """One line: the setting that named the database (None: the default), and why it can't be opened (in
    plain words for the usual mistakes with a file path)."""
    if not is_postgres_url(target) and not isinstance(exc, UnknownDatabase):
        path = Path(target)
        if path.is_dir():
            return _blamed(setting, target, f"can't open the database {target} (it is a folder, not a "
                           "database file)")
        if not path.parent.exists():
            return _blamed(setting, target, f"can't open the database {target} (its folder {path.parent} "
                           "does not exist)")
    return _blamed(setting, target, _one_line(exc))


def _remember_db(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        ctx.ensure_object(dict)["db_override"] = value


_DB_HELP = ("A SQLite file (or sqlite:///FILE) or a postgresql:// URL (default: $PAPERBOT_DB, else "
            "paperbot.db)")


def _db_option(help_text: str = _DB_HELP + "; also accepted before the command.", metavar: str = "FILE|URL"):
    """``--db``, accepted after the command as well as before it (the later one wins)."""
    return click.option("--db", metavar=metavar, expose_value=False, callback=_remember_db, help=help_text)


@click.group(cls=_Group)
@_db_option(_DB_HELP + "; also accepted after the command.")
@click.option("-v", "--verbose", is_flag=True, help="Log what paperbot is doing.")
@click.version_option(package_name="paperbot", prog_name="paperbot", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """paperbot: a personal daily digest of new papers, in Slack."""
    # JSON lines go to stdout only from `paperbot run`, whose stdout carries nothing else (its own
    # lines go to stderr); every other command prints its answer on stdout, so its log lines keep to stderr.
    fmt = _log_format()
    logs.configure(logging.INFO if verbose else logging.WARNING, fmt=fmt,
                   stream=sys.stdout if fmt == "json" and ctx.invoked_subcommand == "run" else sys.stderr)
    ctx.ensure_object(dict)


def _log_format() -> str:
    """PAPERBOT_LOG_FORMAT, or "text" when the settings don't load: the command says why itself."""
    try:
        return Settings.load().log_format
    except PaperbotError:
        return "text"


def _settings(ctx: click.Context, create: bool = False) -> Settings:
    """The settings, with ``--db`` over ``PAPERBOT_DB``. Unless ``create``, a SQLite file that isn't
    there is refused in one line naming it: a mistyped path must not become a new, empty database."""
    settings = _loaded(ctx)
    ctx.obj["db_target"], ctx.obj["db_from"] = settings.db_path, settings.db_from  # what an error names
    target = settings.db_path
    if not create and is_new_file(target):
        if settings.db_from:
            raise _blamed(settings.db_from, target, f"there is no database at {target} (`paperbot ingest` "
                          "makes one)")
        raise click.ClickException(f"there is no database at {target}, the default as neither --db nor "
                                   "PAPERBOT_DB is set (`paperbot ingest` makes one)")
    # `ingest arxiv:…` and papers followed by arXiv id
    use_arxiv_api(settings.arxiv_api_url, settings.arxiv_rss_url)
    use_biorxiv_api(settings.biorxiv_api_url)
    use_pubmed_api(settings.pubmed_api_url, settings.ncbi_key, settings.ncbi_email)
    use_openreview_api(settings.openreview_api_url)
    use_acl_url(settings.acl_url)
    return settings


def _loaded(ctx: click.Context, lenient: bool = False) -> Settings:
    """The settings from the environment, with ``--db`` (when given) over ``PAPERBOT_DB``; ``lenient``:
    see :meth:`Settings.load`."""
    settings = Settings.load(lenient=lenient)
    override = ctx.obj.get("db_override")
    if not override:
        return settings
    # --db replaces PAPERBOT_DB, so a PAPERBOT_DB that doesn't parse is no longer a problem
    return replace(settings.with_database(override, "--db"),
                   problems=tuple(p for p in settings.problems if p[0] != "PAPERBOT_DB"))


def _open(ctx: click.Context, create: bool = False) -> Context:
    settings = _settings(ctx, create)
    app = Context.open(settings.db_path, settings.digest_size, embeddings=settings.embeddings,
                       summarizer=summarizer(settings))
    ctx.call_on_close(app.close)
    return app


@cli.command()
@_db_option()
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), metavar="YYYY-MM-DD",
              help="arXiv, bioRxiv, medRxiv and PubMed sources: also read every paper of their categories "
                   "updated (posted, entered PubMed) since this date (a back-fill); an OpenReview venue "
                   "read today already, or an ACL volume read this week, is read again.")
@click.argument("sources", nargs=-1, required=True)
@click.pass_context
def ingest(ctx: click.Context, sources: tuple[str, ...], since: datetime | None) -> None:
    """Add or update papers from files and feeds.

    SOURCE is a .txt, .jsonl, .json, .csv, .xml, .atom or .rss file, arxiv:CAT[,CAT...] (e.g.
    arxiv:cs.LG,stat.ML), biorxiv:CAT[,CAT...] or medrxiv:CAT[,CAT...] (e.g. biorxiv:neuroscience:
    what was posted since they were last read; the first time, the last 2 days), pubmed:QUERY
    (e.g. pubmed:"crispr screen": what entered PubMed since it was last read), openreview:VENUE_ID
    (e.g. openreview:ICML.cc/2025/Conference: the venue's accepted papers, read at most once a day),
    acl:VOLUME (e.g. acl:2025.acl-long: a volume of the ACL Anthology, read whole at most weekly)
    or an http(s) RSS/Atom feed URL. Bad records are skipped with a reason;
    the exit status is non-zero only if a source could not be read at all, or the database could not
    be written (a full disk: the papers stored until then are kept, the model is refitted next time).

    \b
    arxiv:CAT takes everything arXiv announced in each category since the
    last time it was read: new papers, cross-lists and replacements (which
    update the paper), with no cap; a day missed is caught up through the
    arXiv API. Read for the first time, it takes the day's announcement
    (on a weekend, the last one); add --since YYYY-MM-DD to take older
    papers too. A weekend or holiday without announcement is not an
    error. Requests go 3 s apart, and a 429 or 503 from arXiv is waited
    out as it asks. It prints, per category, how many papers were
    announced, added, updated, unchanged and rejected.
    """
    target = _settings(ctx, create=True).db_path
    new = is_new_file(target)  # a file made in vain is not left behind
    app = _open(ctx, create=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=terminal.errors, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(source: str, done: int, total: int | None) -> None:
            if source not in tasks:
                tasks[source] = bar.add_task(Path(source).name or source, total=total)
            bar.update(tasks[source], completed=done, total=total)

        try:
            reports = ingest_usecase(app, sources, progress=progress, must_save=True,
                                     arxiv_since=since.date() if since else None)
        except StorageError as exc:
            # Every batch committed before stays stored; the next process to find the saved model
            # missing or behind the papers brings it up to date.
            raise StorageError(f"{exc}; the papers stored before that are kept") from exc
    terminal.show_ingest(reports)
    failed = any(r.error for r in reports)
    if new and failed and not any(r.added for r in reports):
        app.close()
        remove_sqlite_file(target)
        terminal.errors.print(f"Nothing was stored, so the new database {escape(target)} was not kept.",
                              highlight=False, soft_wrap=True)
    if failed:
        sys.exit(1)


@cli.command()
@_db_option()
@click.argument("query", nargs=-1, required=True)
@click.option("-n", default=5, show_default=True, type=click.IntRange(1, 100), help="How many papers.")
@click.pass_context
def search(ctx: click.Context, query: tuple[str, ...], n: int) -> None:
    """Show the papers best matching QUERY."""
    words = " ".join(query)
    recs = search_usecase(_open(ctx), words, n)
    terminal.show_recommendations(recs, f"Search: {escape(words)}", empty=f"No paper matches “{words}”.")


@cli.command()
@click.option("--keep", metavar="FILE", help="Keep the demo database in FILE instead of a throwaway one.")
def demo(keep: str | None) -> None:
    """Show paperbot at work without Slack or network: a digest, then how feedback changes the next."""
    from bot.cli.demo import run_demo

    if not keep:
        run_demo(None)
        return
    try:
        run_demo(keep)
    except StoreUnavailable as exc:
        raise _unopenable("--keep", keep, exc) from None


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
@click.option("--embeddings", is_flag=True,
              help="Blend sentence embeddings in, as PAPERBOT_EMBEDDINGS=1 does (needs paperbot[embeddings]; "
                   "encodes every paper first: about a minute per 1,000 on 2 cores).")
def eval_command(papers_path: str, users_path: str, candidates_path: str | None, k: int, out_path: str,
                 truth_path: str | None, embeddings: bool) -> None:
    """Rank papers for many users offline, through the bot's own recommender code."""
    from bot.sources import Rejected, read_source
    from recommender import evaluate

    papers = [p for p in read_source(papers_path, title_only=True) if not isinstance(p, Rejected)]
    if not papers:
        raise PaperbotError(f"no usable papers in {papers_path}")
    users = evaluate.load_users(users_path)
    candidates = evaluate.load_candidates(candidates_path) if candidates_path else None
    known = {p.id for p in papers}
    _warn_unknown(evaluate.unknown_ids(evaluate.user_ids(users), known), users_path)
    if candidates is not None:
        _warn_unknown(evaluate.unknown_ids(candidates, known), candidates_path or "")
    if truth_path:
        _warn_unknown(evaluate.unknown_ids(evaluate.user_ids(evaluate.load_users(truth_path)), known),
                      truth_path)
    try:
        out_file = Path(out_path).open("w", encoding="utf-8")
    except OSError as exc:
        raise PaperbotError(f"--out: can't write {out_path} ({exc.strerror or exc})") from None
    encode = None
    if embeddings:
        from bot.state.embedding_model import encoder

        encode = encoder()  # without the extra: one line saying what to install
    with out_file:
        _rank_into(out_file, papers, users, candidates, k, out_path, truth_path, encode)


def _warn_unknown(unknown: list[str], path: str, shown: int = 5) -> None:
    """One warning line for the ids of ``path`` that no paper has (they are ignored)."""
    if unknown:
        examples = ", ".join(unknown[:shown]) + (", …" if len(unknown) > shown else "")
        terminal.errors.print(f"[yellow]warning:[/yellow] {len(unknown):,} paper id(s) in {escape(path)} "
                              f"are not in --papers and are ignored: {escape(examples)}",
                              highlight=False, soft_wrap=True)


def _rank_into(out, papers, users, candidates, k: int, out_path: str, truth_path: str | None,
               encode=None) -> None:
    from recommender import PaperIndex, evaluate

    with terminal.errors.status("Fitting TF-IDF…"):
        index = PaperIndex.build([p.id for p in papers], [p.text for p in papers])
    blend = None
    if encode is not None:
        from recommender.embeddings import EmbeddingBlend, PaperVectors

        with terminal.errors.status(f"Encoding {len(papers)} papers…"):
            matrix = encode([p.text for p in papers])
        vectors = PaperVectors(matrix.shape[1])
        vectors.put([p.id for p in papers], matrix)
        blend = EmbeddingBlend(vectors, encode)
    ranked: dict[str, list[str]] = {}  # kept only to score against --truth
    count = 0
    with Progress(
        TextColumn("Ranking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=terminal.errors, transient=True,
    ) as bar:
        task = bar.add_task("rank", total=len(users))
        for user, ids in evaluate.evaluate(index, users, k=k, candidates=candidates, blend=blend,
                                           progress=lambda done, _total: bar.update(task, completed=done)):
            out.write(json.dumps({"user": user, "ranked": ids}) + "\n")
            count += 1
            if truth_path:
                ranked[user] = ids
    terminal.console.print(f"Ranked {count} users over {len(papers)} papers into {out_path}")
    if truth_path:
        scores = evaluate.metrics(ranked, evaluate.load_users(truth_path), ks=(k,))
        for name, value in scores.items():
            terminal.console.print(f"{name}: {value:.4f}" if isinstance(value, float) else f"{name}: {value}")


@cli.command()
@_db_option()
@click.option("--port", type=click.IntRange(0, 65535), metavar="N",
              help="HTTP port (default: $PORT, else 3000; 0 picks a free one). Unused in Socket Mode.")
@click.pass_context
def run(ctx: click.Context, port: int | None) -> None:
    """Run the Slack bot until SIGTERM or Ctrl+C.

    Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP on PORT, every Slack request (commands,
    events, interactivity) at /slack/events. Needs SLACK_BOT_TOKEN, and SLACK_SIGNING_SECRET in HTTP mode.
    """
    settings = _settings(ctx, create=True)
    # Before prometheus-client is imported (below): the bot and its digest helpers count into one directory.
    with metrics_directory(settings.metrics_dir):
        from bot.slack.server import serve

        serve(settings, port=port, announce=lambda line: click.echo(line, err=True))


@cli.command()
@_db_option()
@click.option("--user", "users", multiple=True, metavar="UID", help="Only this person (repeatable).")
@click.option("--force", is_flag=True,
              help="Send now, whatever the time of day; still at most one digest per person per local day.")
@click.option("--team", "teams", multiple=True, metavar="TID",
              help="Only this workspace (its team id, or an org's enterprise id; repeatable).")
@click.option("--dry-run", is_flag=True, help="Print what would be sent; post nothing, record nothing.")
@click.pass_context
def digest(ctx: click.Context, users: tuple[str, ...], force: bool, teams: tuple[str, ...],
           dry_run: bool) -> None:
    """Send every daily digest that is due now and not yet sent that day.

    For deployments that prefer cron to the scheduler in `paperbot run` (both may run side by side):
    it first carries out the requests Slack was told were received but that no running bot holds (a
    stopped bot's `/papers follow`, say), so every command answered before it began counts; then it
    ingests PAPERBOT_FEEDS if that was not done since arXiv last renewed its listings (a new database is
    created and filled so), then sends each digest whose time has come in its person's timezone,
    catching up on any missed earlier that local day. Running
    it again sends nothing twice; a digest cut short is finished without repeats. Needs SLACK_BOT_TOKEN,
    or with many workspaces the OAuth settings (except with --dry-run). Exit status 1 when some digest
    is left unfinished for the next run (e.g. while Slack is down: such a digest is retried after 2,
    4, 8 … minutes, at most 30, until its person's local day ends).
    """
    settings = _settings(ctx, create=not dry_run)  # a fresh install: made and filled from the feeds, as `run`
    if not dry_run and not settings.oauth:
        settings.require("SLACK_BOT_TOKEN")
    # No /metrics page here: the summaries' outcomes are counted in the database (the admin report).
    app = Context.open(settings.db_path, settings.digest_size, embeddings=settings.embeddings,
                       summarizer=summarizer(settings))
    ctx.call_on_close(app.close)
    freeze_startup()
    wanted = list(users) or None
    if dry_run:
        previews, not_due = [], []
        for ws in list(teams) or [w.ws for w in list_workspaces(app)] or [app.workspace]:
            found, waiting = preview_digests(app.for_workspace(ws), datetime.now(UTC), wanted, force)
            previews += found
            not_due += waiting
        terminal.show_digest_previews(previews, not_due)
        return
    from bot.slack.delivery.digests import send_digests
    from bot.slack.server import carry_out_acked

    with terminal.errors.status("Sending digests…"):
        run = send_digests(settings, app, wanted, force, teams=list(teams) or None,
                           acked=lambda: carry_out_acked(settings, app))
    terminal.show_digest_run(run)
    if run.count("incomplete"):
        sys.exit(1)


@cli.command()
@_db_option()
@click.argument("names", nargs=-1, required=True, metavar="PAPER_ID...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line instead of text.")
@click.pass_context
def show(ctx: click.Context, names: tuple[str, ...], as_json: bool) -> None:
    """What a message shows for each paper named: title, authors, venue, date, links, what it does and
    its result (quoted from the abstract), and its summary when there is one. A name is a paper id, an
    arXiv id or link, or a DOI; "-" reads names from standard input, one a line. Exits 1 when a name
    names no paper held (the others are still shown)."""
    from bot.usecases.show import NotHeld, show_papers

    asked = [line for name in names for line in (sys.stdin if name == "-" else [name])]
    shown = show_papers(_open(ctx), asked)
    held = [each for each in shown if not isinstance(each, NotHeld)]
    if as_json:
        for each in held:
            text, model = (each.summary.text, each.summary.model) if each.summary else (None, None)
            click.echo(json.dumps(paper_record(each.paper, text, model), ensure_ascii=False))
    else:
        terminal.show_papers([(each.paper, each.summary) for each in held])
    missing = [each.asked for each in shown if isinstance(each, NotHeld)]
    for name in missing[:20]:
        name = escape(logs.strip_controls(name))
        terminal.errors.print(f"[yellow]not held:[/yellow] {name}", highlight=False)
    if len(missing) > 20:
        terminal.errors.print(f"… and {len(missing) - 20} more not held", highlight=False)
    if missing:
        sys.exit(1)


@cli.command(name="export")
@_db_option()
@click.option("--user", "user_id", required=True, metavar="UID", help="The person (their Slack user id).")
@click.option("--team", metavar="TID", help="Their workspace (a team id, or an org's enterprise id); needed "
              "only when the same user id is a person in several.")
@click.option("--format", "fmt", type=click.Choice(["bibtex", "json"]), default="bibtex", show_default=True,
              help="bibtex: their saved and liked papers; json: everything stored about them.")
@click.option("--out", "out_path", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the file here (default: print it).")
@click.pass_context
def export_command(ctx: click.Context, user_id: str, team: str | None, fmt: str,
                   out_path: str | None) -> None:
    """A person's saved and liked papers as BibTeX, or everything paperbot stores about them as JSON:
    what `/papers export` and `/papers export data` upload into their DM."""
    from bot.usecases.export import export, person_context

    file = export(person_context(_open(ctx), user_id, team), user_id, fmt)
    if out_path is None:  # to a terminal without control characters; piped, the file as it is
        click.echo(logs.strip_controls(file.content) if sys.stdout.isatty() else file.content, nl=False)
        return
    try:
        Path(out_path).write_text(file.content, encoding="utf-8")
    except OSError as exc:
        raise PaperbotError(f"--out: can't write {out_path} ({exc.strerror or exc})") from None
    what = "papers" if fmt == "bibtex" else "rows"
    terminal.errors.print(f"Wrote {file.count:,} {what} to {escape(out_path)}", highlight=False)


@cli.group(invoke_without_command=True)
@_db_option()
@click.pass_context
def workspaces(ctx: click.Context) -> None:
    """The workspaces paperbot serves, with their people and latest digest.

    `paperbot workspaces remove TID` uninstalls one and deletes its data; `paperbot workspaces adopt TID`
    gives it the rows stored before workspaces; `paperbot workspaces set TID social on|off` shows or hides
    "saved by N people here"; `paperbot workspaces rekey` re-seals every stored token under
    PAPERBOT_SECRET_KEY."""
    if ctx.invoked_subcommand is None:
        terminal.show_workspaces(list_workspaces(_open(ctx)))


def _known_workspace(app: Context, team: str) -> WorkspaceSummary:
    """The workspace ``team`` names, or a one-line error. The rows of no workspace yet ("") are none."""
    found = {w.ws: w for w in list_workspaces(app) if w.ws}
    if team not in found:
        raise click.ClickException(f"no workspace {team!r} here: `paperbot workspaces` lists them")
    return found[team]


@workspaces.command(name="remove")
@_db_option()
@click.argument("team")
@click.option("--yes", is_flag=True, help="Don't ask first.")
@click.pass_context
def workspaces_remove(ctx: click.Context, team: str, yes: bool) -> None:
    """Uninstall workspace TEAM (a team id, or an org's enterprise id) and delete everything stored
    about its people, as Slack's uninstall does, after asking (--yes: without). The papers and the
    model stay."""
    app = _open(ctx)
    found = _known_workspace(app, team)
    if not yes:  # no answer (not a terminal, end of input) is a no: nothing is deleted
        click.confirm(f"Remove workspace {team} and delete everything stored about its "
                      f"{found.people:,} people?", abort=True, err=True)
    rows = remove_workspace(app, team)
    terminal.console.print(f"Removed workspace {escape(team)}: {rows:,} rows deleted.", highlight=False)


@workspaces.command(name="adopt")
@_db_option()
@click.argument("team")
@click.pass_context
def workspaces_adopt(ctx: click.Context, team: str) -> None:
    """Give workspace TEAM (a team id, or an org's enterprise id) the rows stored before workspaces
    existed: the people of an older, one-workspace paperbot, with their topics, likes and schedules.
    An OAuth install never takes them; where TEAM already has a row with the same key, its own is kept.
    Running it again moves nothing."""
    app = _open(ctx)
    _known_workspace(app, team)
    moved = settle_workspace(app, team)
    if moved:
        said = f"Moved {moved:,} rows stored before workspaces into workspace {escape(team)}."
    else:
        said = f"Nothing moved into workspace {escape(team)}: no rows stored before workspaces are left."
    terminal.console.print(said, highlight=False)


@workspaces.command(name="set")
@_db_option()
@click.argument("team")
@click.argument("setting", type=click.Choice(["social"]))
@click.argument("value", type=click.Choice(["on", "off"]), required=False)
@click.pass_context
def workspaces_set(ctx: click.Context, team: str, setting: str, value: str | None) -> None:
    """Change a setting of workspace TEAM, or show it without VALUE. `social on|off`: whether its paper
    messages say how many people there saved the paper ("Saved by 3 people here", never who; on by
    default)."""
    app = _open(ctx)
    _known_workspace(app, team)
    view = app.for_workspace(team)
    if value is not None:
        set_social_counts(view, value == "on")
    state = "on" if social_counts_on(view) else "off"
    what = "say" if state == "on" else "don't say"
    terminal.console.print(f"social is {state} in workspace {escape(team)}: its paper messages {what} how "
                           "many people there saved the paper.", highlight=False)


@workspaces.command(name="rekey")
@_db_option()
@click.pass_context
def workspaces_rekey(ctx: click.Context) -> None:
    """Re-seal every stored Slack token under PAPERBOT_SECRET_KEY now, opening those an earlier key
    sealed with PAPERBOT_OLD_SECRET_KEYS (`paperbot run` does it at each start too). Prints how many
    were re-sealed and names the workspaces no key opens; exit status 1 if there are any. Safe while
    paperbot runs."""
    from bot.slack.oauth.installations import PaperbotInstallationStore
    from bot.slack.oauth.token_crypto import TokenBox

    box = TokenBox.of(_settings(ctx))  # a missing or short key is one line, before the database opens
    found = PaperbotInstallationStore(_open(ctx).store, box).rekey()
    line = f"Re-sealed {found.resealed_text} under PAPERBOT_SECRET_KEY"
    if found.unopened:
        line += (f"; no key opens the installation of {', '.join(found.unopened)}: add the key it was saved "
                 "with to PAPERBOT_OLD_SECRET_KEYS, or install the app there again")
    click.echo(line + ".")  # one line, however wide the terminal
    if found.unopened:
        ctx.exit(1)


_MARKS = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL", "skip": "SKIP"}


@cli.command()
@_db_option()
@click.pass_context
def doctor(ctx: click.Context) -> None:
    """Check the set-up before the first morning: the settings, the database and its schema, free disk,
    Slack's answer to each token and the scopes it grants, the clock, the time-zone data and each
    PAPERBOT_FEEDS source. One line per check (OK, WARN, FAIL, or SKIP when what it needs is missing,
    e.g. no token yet); exit status 1 if any fails. Changes nothing (a schema behind this paperbot is
    reported, not migrated; a database not made yet is a warning: the first run makes it)."""
    from bot.cli.doctor_texts import line
    from bot.slack.probe import SlackProbe
    from bot.usecases.doctor import diagnose

    checks = diagnose(lambda: _loaded(ctx, lenient=True), SlackProbe)
    for check in checks:
        click.echo(logs.escape_controls(f"{_MARKS[check.status]} {line(check)}"))
    failed = sum(check.status == "fail" for check in checks)
    skipped = sum(check.status == "skip" for check in checks)
    done = len(checks) - skipped
    if failed:
        click.echo(f"{failed} of {done} checks failed" + (f", {skipped} skipped." if skipped else "."))
    else:
        click.echo(f"All {done} checks passed" + (f", {skipped} skipped." if skipped else "."))
    if failed:
        ctx.exit(1)


@cli.group()
def db() -> None:
    """Work on the database as a whole."""


@db.command(name="copy")
@click.option("--to", "target", required=True, metavar="URL|FILE",
              help="The empty database to copy into: a postgresql:// URL or a SQLite file.")
@_db_option("The database to copy: " + _DB_HELP[0].lower() + _DB_HELP[1:] + "; also accepted before the"
            " command.")
@click.pass_context
def db_copy(ctx: click.Context, target: str) -> None:
    """Copy everything in the database (--db or PAPERBOT_DB) into another, empty one, e.g. from the
    SQLite file to PostgreSQL, and check the counts.

    Stop paperbot first (nothing should write to the database while it is copied). A target that
    already holds data is refused; a copy that fails or whose counts differ leaves the target empty.
    """
    from storage.copy import copy_database

    settings = _settings(ctx, create=True)  # a missing source has its own message below
    source_target = settings.db_path
    if not target.strip():
        raise click.BadParameter(f"give {ACCEPTED_FORMS}", param_hint="--to")
    try:
        target = database_target(target)
    except UnknownDatabase as exc:
        raise click.ClickException(f"--to: {exc}") from None
    if not is_postgres_url(source_target) and not Path(source_target).is_file():
        raise _blamed(settings.db_from, source_target, f"there is no database at {source_target} to copy")
    if _same_database(source_target, target):
        raise click.ClickException("--to names the database being copied: give another one")
    source = open_store(source_target)
    try:
        try:
            destination = open_store(target)
        except StoreUnavailable as exc:
            raise _unopenable("--to", target, exc) from None
        try:
            counts = _copy_with_progress(copy_database, source, destination)
        except StorageError as exc:
            raise click.ClickException(_one_line(exc)) from None
        finally:
            _dispose(destination)
    finally:
        _dispose(source)
    terminal.show_copy(counts, destination.path)


@db.command(name="backup")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@_db_option("The SQLite database to back up: " + _DB_HELP[0].lower() + _DB_HELP[1:] + "; also accepted"
            " before the command.")
@click.pass_context
def db_backup(ctx: click.Context, file: str, force: bool) -> None:
    """Write a consistent copy of the SQLite database (--db or PAPERBOT_DB) to FILE, safe while paperbot
    runs; `paperbot --db FILE run` serves the copy. Requests acknowledged but not yet in the database (its
    .inbox-journal) are copied beside FILE. For PostgreSQL: pg_dump and pg_restore (docs/operations.md)."""
    from bot.usecases.backup import back_up

    source = _settings(ctx, create=True).db_path
    backup = back_up(source, file, force=force)
    made = backup.database
    journal = (f", and {backup.journal_bytes:,} bytes of requests not yet settled"
               if backup.journal_bytes else "")
    click.echo(f"Backed up {source} to {made.path}: {made.size:,} bytes{journal}.")


def _copy_with_progress(copy_database, source, destination) -> dict[str, int]:
    # The bar starts with the first table: a refusal before it stays one line.
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=terminal.errors, transient=True)
    tasks: dict[str, int] = {}

    def progress(table: str, done: int, total: int) -> None:
        if not tasks:
            bar.start()
        if table not in tasks:
            tasks[table] = bar.add_task(table, total=total)
        bar.update(tasks[table], completed=done, total=total)

    try:
        return copy_database(source, destination, progress=progress)
    finally:
        if tasks:
            bar.stop()


def _same_database(one: str, other: str) -> bool:
    if is_postgres_url(one) or is_postgres_url(other):
        return one.strip() == other.strip()
    return Path(one).resolve() == Path(other).resolve()


def _dispose(store: Store) -> None:
    """Close a store's connections (a PostgreSQL store's whole pool)."""
    store.dispose()


def main() -> None:
    """Console-script entry point."""
    limit_arenas()  # before any thread starts
    cli(obj={})


if __name__ == "__main__":
    main()
