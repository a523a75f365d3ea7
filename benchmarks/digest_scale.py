"""paperbot's own cost of a morning of digests at scale: 10,000 people over 100,000 papers, measured.

    .venv/bin/python benchmarks/digest_scale.py     # rewrites its part of docs/benchmarks.md
    .venv/bin/python benchmarks/digest_scale.py --people 2000 --papers 40000    # a quicker look; prints only

Slack is left out on purpose: the run posts through a courier that answers at once (no HTTP), so what
is timed is everything paperbot does itself for each digest (finding who is due, scoring in batches,
choosing fresh-first with the floor and MMR, explaining the picks, claiming, recording each message,
closing the digest) on its 8 workers. What Slack adds is its round trips and rate limits, estimated in
the text. Corpus and people as in ``digest_throughput.py`` (the shared papers topped up with perturbed
copies; 3 topics a person, 8 timezones); 6 messages a person (a header and 5 papers).

The timed run is its own process, started after the database is ready, so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import (  # noqa: E402
    SLACK_CALL_SECONDS,
    add_write_option,
    machine,
    slack_minutes,
    wants_write,
    write_section,
)
from benchmarks.digest_throughput import DIGEST_SIZE, corpus, people, prepare  # noqa: E402

START, END = "<!-- scale:start -->", "<!-- scale:end -->"
PEOPLE, PAPERS = 10_000, 100_000


def timed_run(db: Path) -> dict:
    """In this process: `paperbot digest --force` for everyone, through a courier without Slack."""
    start = time.perf_counter()
    from bot.context import Context
    from bot.usecases.daily import send_due_digests
    from bot.usecases.sending import Courier

    imported = time.perf_counter()
    ts = itertools.count(1)
    courier = Courier(open=lambda user: "D" + user, post_text=lambda channel, text: f"{next(ts)}.0",
                      post_paper=lambda channel, rec: (channel, f"{next(ts)}.0"))
    ctx = Context.open(str(db), DIGEST_SIZE)
    with ctx.engine.index():
        pass
    loaded = time.perf_counter()
    run = send_due_digests(ctx, datetime.now(UTC), courier, force=True)
    done = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    ctx.store.close()
    return {"imports": imported - start, "load": loaded - imported, "send": done - loaded,
            "total": done - start, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "sent": run.count("sent"), "papers": sum(o.delivered for o in run.outcomes),
            "other": len(run.outcomes) - run.count("sent")}


def markdown(r: dict, command: str) -> str:
    per = 1000 * r["send"] / max(r["sent"], 1)
    calls = r["sent"] * (2 + DIGEST_SIZE)  # open the DM, header, papers
    return "\n".join([
        START,
        "## Daily digests at scale (paperbot's own work, measured)",
        "",
        f"Command: `{command}` ({machine()}). {r['people']:,} people with 3 topics each, {r['papers_n']:,} "
        f"papers ({r['real']:,} real, the rest perturbed copies), {DIGEST_SIZE} papers a digest, 8 workers; "
        "Slack replaced by a courier that answers at once, so this is everything paperbot does itself. "
        f"Setup, not timed: ingesting and fitting the index, and adding the people, took {r['setup']:.0f} s.",
        "",
        "| | |",
        "|---|---|",
        f"| digests sent | {r['sent']:,} ({r['papers_sent']:,} papers; {r['other']} not sent) |",
        f"| imports, then loading the saved index | {r['imports']:.1f} s, {r['load']:.1f} s |",
        f"| choosing, explaining, claiming and recording every digest | {r['send']:.0f} s "
        f"({per:.1f} ms a person) |",
        f"| whole process: wall / CPU | {r['total']:.0f} s / {r['cpu']:.0f} s |",
        f"| peak RSS | {r['rss']:.0f} MB |",
        "",
        f"With Slack in the loop, the {calls:,} Web API calls are the long pole: at "
        f"~{SLACK_CALL_SECONDS} s a call over 8 workers about {slack_minutes(calls):.0f} min, longer where "
        "Slack's rate limits bite "
        "(`conversations.open` once per person, then the DM channel is kept; 429s are waited out). "
        "Spread over the morning by people's own times and timezones, each run of the scheduler handles "
        "only those due at that minute.",
        END,
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=PEOPLE)
    parser.add_argument("--papers", type=int, default=PAPERS)
    add_write_option(parser)
    parser.add_argument("--run", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        print(json.dumps(timed_run(Path(args.run))))
        return 0
    records, real = corpus(args.papers)
    if not real:
        print("No papers found in ../shared/data; nothing to measure.")
        return 0
    persons = people(args.people)
    with tempfile.TemporaryDirectory(prefix="paperbot-scale-") as tmp_dir:
        tmp = Path(tmp_dir)
        papers_path, db = tmp / "papers.jsonl", tmp / "paperbot.db"
        papers_path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        print(f"preparing: {len(records):,} papers ({real:,} real), {len(persons):,} people…", flush=True)
        setup = prepare(db, papers_path, persons)
        print(f"prepared in {setup:.0f} s; timing the run…", flush=True)
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--run", str(db)],
                              capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the timed run failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(people=len(persons), papers_n=len(records), real=real, setup=setup,
                  papers_sent=result.pop("papers"))
    print(f"{result['sent']:,} digests in {result['send']:.1f} s "
          f"({1000 * result['send'] / max(result['sent'], 1):.1f} ms a person); whole process "
          f"{result['total']:.1f} s wall, {result['cpu']:.1f} s CPU, peak RSS {result['rss']:.0f} MB")
    default = (args.people, args.papers) == (PEOPLE, PAPERS)
    if wants_write(args, default):
        command = ".venv/bin/python benchmarks/digest_scale.py"
        if not default:
            command += f" --people {args.people} --papers {args.papers}"
        write_section(markdown(result, command), START, END)
        print("Wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
