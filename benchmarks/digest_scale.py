"""paperbot's own cost of a morning of digests at scale: 10,000 people over 100,000 papers, measured.

    .venv/bin/python benchmarks/digest_scale.py     # rewrites its part of docs/measurements/benchmarks.md
    .venv/bin/python benchmarks/digest_scale.py --people 2000 --papers 40000    # a quicker look; prints only
    .venv/bin/python benchmarks/digest_scale.py --backend sqlite    # SQLite only; prints only

Slack is left out on purpose: the run posts through a courier that answers at once (no HTTP), so what
is timed is everything paperbot does itself for each digest (finding who is due, scoring in batches,
choosing fresh-first with the floor and MMR, explaining the picks, claiming, recording each message,
closing the digest) on its 8 workers. What Slack adds is its round trips and rate limits, estimated in
the text. Corpus and people as in ``digest_throughput.py`` (the shared papers topped up with perturbed
copies; 3 topics a person, 8 timezones); 6 messages a person (a header and 5 papers).

The timed run is its own process, started after the database is ready, so its peak memory is its own.
It runs on SQLite and on PostgreSQL (``--backend``, both by default): the PostgreSQL database is a
throwaway one on the server at $PAPERBOT_BENCH_POSTGRES or ``--postgres URL`` (else the local one),
filled from the SQLite database by ``paperbot db copy --to URL`` and dropped at the end. The database's
size is read after the run: the SQLite file (with its write-ahead log), or ``pg_database_size``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from benchmarks.common import (  # noqa: E402
    SLACK_CALL_SECONDS,
    add_write_option,
    machine,
    slack_minutes,
    wants_write,
    write_section,
)
from benchmarks.digest_throughput import DIGEST_SIZE, WORKSPACE, corpus, peak_rss, people, prepare, vm_hwm  # noqa: E402

START, END = "<!-- scale:start -->", "<!-- scale:end -->"
PEOPLE, PAPERS = 10_000, 100_000


def instant_courier(ctx, stop):
    """A courier that answers at once, without Slack (module level: a helper process builds its own)."""
    from bot.slack.views.digest_texts import phrase
    from bot.usecases.digest_vocabulary import Courier

    ts = itertools.count(1)
    return Courier(open=lambda user: "D" + user, post_text=lambda channel, text: f"{next(ts)}.0",
                   post_paper=lambda channel, rec: (channel, f"{next(ts)}.0"), phrase=phrase)


def open_workspace(db: str):
    """What each process of the run opens: ``db``, the workspace where prepare() put the people."""
    from bot.state.context import Context

    return Context.open(str(db), DIGEST_SIZE).for_workspace(WORKSPACE)


def timed_run(db: str, processes: int) -> dict:
    """In this process: `paperbot digest --force` for everyone, through a courier without Slack, on the
    database ``db`` (a SQLite file or a PostgreSQL URL), with ``processes - 1`` helper processes."""
    start = time.perf_counter()
    from bot.allocator import freeze_startup
    from bot.usecases.digests.helpers import Helpers
    from bot.usecases.digests.run import send_due_digests

    imported = time.perf_counter()
    ctx = open_workspace(db)
    with ctx.engine.index():
        freeze_startup()  # as `paperbot digest` does once it has started
    loaded = time.perf_counter()
    helpers = Helpers(processes - 1, open=functools.partial(open_workspace, db), courier=instant_courier)
    peaks = _Peaks()
    run = send_due_digests(ctx, datetime.now(UTC), instant_courier(ctx, None), force=True, helpers=helpers)
    if not run.outcomes:
        raise SystemExit("no digest was due: the people are not where the run looked for them")
    done = time.perf_counter()
    own, together = peaks.stop()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    helped = resource.getrusage(resource.RUSAGE_CHILDREN)
    ctx.close()
    return {"imports": imported - start, "load": loaded - imported, "send": done - loaded,
            "total": done - start, "cpu": usage.ru_utime + usage.ru_stime,
            "helpers_cpu": helped.ru_utime + helped.ru_stime, "processes": processes,
            "rss": own, "rss_together": together,
            "sent": run.count("sent"), "papers": sum(o.delivered for o in run.outcomes),
            "other": len(run.outcomes) - run.count("sent")}


class _Peaks(threading.Thread):
    """This process's peak resident set (VmHWM), and that of this process and its helpers together,
    sampled every 50 ms (getrusage's ru_maxrss would count the memory of the process that started this
    one: Linux carries it over the fork and exec)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.together = 0.0
        self._done = threading.Event()
        self.start()

    def run(self) -> None:
        while not self._done.wait(0.05):
            self.together = max(self.together, peak_rss(os.getpid()) or 0.0)

    def stop(self) -> tuple[float, float]:
        self._done.set()
        self.join()
        return vm_hwm(os.getpid()) or 0.0, self.together


BACKENDS = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def markdown(runs: dict[str, dict], command: str) -> str:
    """The scale section: one column per backend measured."""
    first = next(iter(runs.values()))
    calls = first["sent"] * (2 + DIGEST_SIZE)  # open the DM, header, papers

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(r) for r in runs.values()) + " |"

    setups = "; ".join(f"{BACKENDS[b]}: {setup_text(b, r)}" for b, r in runs.items())
    return "\n".join([
        START,
        "## Daily digests at scale (paperbot's own work, measured)",
        "",
        f"Command: `{command}` ({machine()}). {first['people']:,} people with 3 topics each, "
        f"{first['papers_n']:,} papers ({first['real']:,} real, the rest perturbed copies), {DIGEST_SIZE} "
        f"papers a digest, {first['processes']} process(es) (the run and {first['processes'] - 1} helper(s), "
        "8 workers each); Slack replaced by a courier that answers at once, so this is "
        f"everything paperbot does itself. Setup, not timed: {setups}.",
        "",
        "| | " + " | ".join(BACKENDS[b] for b in runs) + " |",
        "|---|" + "---|" * len(runs),
        row("digests sent", lambda r: f"{r['sent']:,} ({r['papers_sent']:,} papers; {r['other']} not sent)"),
        row("imports, then loading the saved index", lambda r: f"{r['imports']:.1f} s, {r['load']:.1f} s"),
        row("choosing, explaining, claiming and recording every digest",
            lambda r: f"{r['send']:.0f} s ({1000 * r['send'] / max(r['sent'], 1):.1f} ms a person)"),
        row("whole run: wall / CPU (the run's process + its helpers)",
            lambda r: f"{r['total']:.0f} s / {r['cpu']:.0f} + {r['helpers_cpu']:.0f} s"),
        row("peak RSS: the run's process; with its helpers",
            lambda r: f"{r['rss']:.0f} MB; {r['rss_together']:.0f} MB"),
        row("database size after the run", lambda r: f"{r['db_bytes'] / 2**20:,.0f} MB"),
        "",
        *([f"PostgreSQL: {runs['postgres']['server']} on this machine, over TCP on 127.0.0.1; its CPU "
           "is not in the process's CPU time. The size is `pg_database_size`, the SQLite one the "
           "file and its write-ahead log.", ""] if "postgres" in runs else []),
        f"With Slack in the loop, the {calls:,} Web API calls are the long pole: at "
        f"~{SLACK_CALL_SECONDS} s a call over 8 workers about {slack_minutes(calls):.0f} min, longer where "
        "Slack's rate limits bite "
        "(`conversations.open` once per person, then the DM channel is kept; 429s are waited out). "
        "Spread over the morning by people's own times and timezones, each run of the scheduler handles "
        "only those due at that minute.",
        END,
    ]) + "\n"


def setup_text(backend: str, r: dict) -> str:
    if backend == "sqlite":
        return f"ingesting and fitting the index, and adding the people, took {r['setup']:.0f} s"
    return (f"the same, then `paperbot db copy` of it into an empty database and `VACUUM ANALYZE`, "
            f"{r['copy']:.0f} s more")


def sqlite_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def run_timed(target: str, processes: int) -> dict:
    """The timed run on ``target``, as a process of its own (with its helpers); its figures."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--run", target,
                           "--processes", str(processes)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the timed run failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=PEOPLE)
    parser.add_argument("--papers", type=int, default=PAPERS)
    pg.add_backend_options(parser)
    add_write_option(parser)
    parser.add_argument("--processes", type=int,
                        help="processes sending the run, helpers included (default: as paperbot's, "
                             "PAPERBOT_DIGEST_PROCESSES: the cores, at most 4)")
    parser.add_argument("--run", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.processes is None:
        from bot.config import default_processes

        args.processes = default_processes()
    if args.run:
        from bot.allocator import limit_arenas

        limit_arenas()  # as the paperbot command does at start
        print(json.dumps(timed_run(args.run, args.processes)))
        return 0
    records, real = corpus(args.papers)
    if not real:
        print("No papers found in ../shared/data; nothing to measure.")
        return 0
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    server_url = pg.chosen_server(args)
    persons = people(args.people)
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="paperbot-scale-") as tmp_dir, contextlib.ExitStack() as stack:
        tmp = Path(tmp_dir)
        papers_path, db = tmp / "papers.jsonl", tmp / "paperbot.db"
        papers_path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        print(f"preparing: {len(records):,} papers ({real:,} real), {len(persons):,} people…", flush=True)
        setup = prepare(db, papers_path, persons)
        print(f"prepared in {setup:.0f} s", flush=True)
        common = {"people": len(persons), "papers_n": len(records), "real": real, "setup": setup}
        if server_url:
            server = stack.enter_context(pg.server(server_url))
            start = time.perf_counter()
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "PYTHONPATH": str(ROOT)}
            name = server.filled_from("scale", db, env, tmp)
            copy = time.perf_counter() - start
            print(f"copied into PostgreSQL in {copy:.0f} s", flush=True)
        for backend in backends:  # the SQLite run changes its file: PostgreSQL was copied from it before
            print(f"timing the run on {BACKENDS[backend]}…", flush=True)
            if backend == "sqlite":
                result = run_timed(str(db), args.processes)
                result["db_bytes"] = sqlite_bytes(db)
            else:
                result = run_timed(server.url_of(name), args.processes)
                result.update(db_bytes=server.size(name), copy=copy, server=pg.version(server_url))
            result.update(common, papers_sent=result.pop("papers"))
            runs[backend] = result
            print(f"{BACKENDS[backend]}: {result['sent']:,} digests in {result['send']:.1f} s "
                  f"({1000 * result['send'] / max(result['sent'], 1):.1f} ms a person); whole process "
                  f"{result['total']:.1f} s wall, {result['cpu']:.1f} + {result['helpers_cpu']:.1f} s CPU "
                  f"(helpers), peak RSS {result['rss']:.0f} MB, "
                  f"with helpers {result['rss_together']:.0f} MB; "
                  f"database {result['db_bytes'] / 2**20:,.0f} MB", flush=True)
    default = (args.people, args.papers, args.backend) == (PEOPLE, PAPERS, "both")
    if wants_write(args, default):
        command = ".venv/bin/python benchmarks/digest_scale.py"
        if not default:
            command += f" --people {args.people} --papers {args.papers} --backend {args.backend}"
        write_section(markdown(runs, command), START, END)
        print("Wrote docs/measurements/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
