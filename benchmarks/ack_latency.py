"""How fast does paperbot acknowledge slash commands under load?

Starts `paperbot run` (HTTP mode, the real uvicorn server and Bolt app) as a subprocess against a local
Slack Web API stand-in, then sends signed `/papers` commands from concurrent senders and times each HTTP
answer (Slack gives up after 3 s). The work after the ack (ranking, posting papers) runs meanwhile;
the script also waits until every reply has been posted. Nothing leaves 127.0.0.1.

    .venv/bin/python benchmarks/ack_latency.py [--commands 300] [--senders 8]
    .venv/bin/python benchmarks/ack_latency.py --during-digests 3000     # while the bot sends digests
    .venv/bin/python benchmarks/ack_latency.py --lock 40                 # while another process holds the
                                                                         # SQLite write lock for 40 s
    .venv/bin/python benchmarks/ack_latency.py --backend postgres [--postgres URL]
    .venv/bin/python benchmarks/ack_latency.py --follows 3000 [--backend postgres]
                                            # a burst of 3,000 people's follows: how fast the bot carries
                                            # out what it acknowledged (last ack to last one done)

The senders are processes of their own (as Slack's servers are not in the bot's machine's Python);
``--sender-threads`` sends from threads of this process, beside the Slack stand-in, as before 2026-12-04.

Every acknowledged command is written down before its answer (issue 24: the journal beside a SQLite
file, the inbox table on PostgreSQL), so these times include that write.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import pg  # noqa: E402
from bot.state.journal import Journal  # noqa: E402
from stand_ins.corpus import make_corpus  # noqa: E402
from stand_ins.driving import Answer, FakeSlack, add_people, bot_environment, opened, seed_papers  # noqa: E402
from stand_ins.slack import RESPONSE_URL, SlackStandIn  # noqa: E402
from stand_ins.waiting import wait_until  # noqa: E402

TOPICS = ["feline cats whiskers", "graph neural networks", "diffusion models denoising", "robot grasping",
          "quantum qubits entanglement"]


def commands(n: int, users: list[str]) -> list[tuple[str, str]]:
    """A mix like real use: quick answers and slow ones (ranking, posting papers) interleaved."""
    mix = itertools.cycle([
        "help", "recommend 3", "interests", "search {topic}", "recommend 2", "follow {topic}",
        "digest 08:{minute:02d}", "search {topic} methods", "interests", "digest now",
    ])
    out = []
    for i, template in zip(range(n), mix, strict=False):
        user = users[i % len(users)]
        out.append((user, template.format(topic=TOPICS[i % len(TOPICS)], minute=i % 60)))
    return out


def follows(n: int) -> list[tuple[str, str]]:
    """``n`` people following a topic each, once (issue 39's burst: each acknowledged, then carried out)."""
    return [(f"UFOLLOW{i:05d}", f"follow {TOPICS[i % len(TOPICS)]}") for i in range(n)]


def carried_out(standin: SlackStandIn, target: str, store, replies: int) -> bool:
    """Whether the bot has carried out everything: ``replies`` answers posted, nothing left in its inbox
    (``store``'s) nor, on SQLite, in the journal beside the database."""
    if len(standin.calls(RESPONSE_URL)) < replies:
        return False
    if "://" not in target and Journal(target).pending():
        return False
    return store.inbox_pending_count() == 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


#: Holds a SQLite file's write lock for argv[2] seconds: says "locked" once it holds it.
HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
db.execute("begin immediate")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("rollback")
"""


def send_share(url: str, bodies: list[str]) -> list[tuple[int, bytes, float]]:
    """One sender process: post each of ``bodies`` as Slack does (signed), one after another; each one's
    status, answer and seconds. In a process of its own, so that a sender's timing never waits for the
    GIL of the process that runs the Slack stand-in (whose work for the bot is not Slack's servers' here)."""
    slack = FakeSlack(url, standin=None)  # type: ignore[arg-type]  # it only signs and posts here
    return [slack.post(body, "application/x-www-form-urlencoded") for body in bodies]


def send_all(pool: ProcessPoolExecutor | None, slack: FakeSlack, work: list[tuple[str, str]],
             senders: int) -> list[Answer]:
    """Every command of ``work``, ``senders`` at a time: from the sender processes of ``pool``, or (None)
    from threads of this process."""
    if pool is None:
        with ThreadPoolExecutor(senders) as threads:
            return list(threads.map(lambda uc: slack.command(*uc), work))
    made = [slack.command_body(user, text) for user, text in work]
    shares = [pool.submit(send_share, slack.url, [body for body, _ in made[i::senders]])
              for i in range(senders)]
    results = [share.result() for share in shares]  # command j: sender j % senders, its (j // senders)th
    answers = []
    for j, (_, key) in enumerate(made):
        status, data, seconds = results[j % senders][j // senders]
        answers.append(Answer(status, json.loads(data) if data.startswith(b"{") else None, key, seconds))
    return answers


def digest_posts(standin: SlackStandIn) -> int:
    """Messages posted so far into the DMs of the people added for --during-digests."""
    return sum(1 for c in standin.calls("chat.postMessage")
               if str(c.params.get("channel")).startswith("DUDIGEST"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--senders", type=int, default=8)
    parser.add_argument("--users", type=int, default=40)
    pg.add_backend_options(parser, default="sqlite")
    parser.add_argument("--during-digests", type=int, default=0, metavar="PEOPLE",
                        help="send while the bot's own scheduler sends this many more people their digest")
    parser.add_argument("--lock", type=float, default=0.0, metavar="SECONDS",
                        help="send while another process holds the SQLite write lock this long")
    parser.add_argument("--follows", type=int, default=0, metavar="PEOPLE",
                        help="instead of the mix: this many people follow a topic each; reports how long "
                             "after the last ack the last follow was carried out")
    parser.add_argument("--sender-threads", action="store_true",
                        help="send from threads of this process (which also runs the Slack stand-in), not "
                             "from sender processes of their own")
    args = parser.parse_args()
    if args.lock and args.backend != "sqlite":
        raise SystemExit("--lock is about SQLite's one write lock; use it with --backend sqlite")
    url = pg.chosen_server(args)

    with tempfile.TemporaryDirectory() as tmp, SlackStandIn() as standin, \
            (pg.server(url) if url else contextlib.nullcontext()) as server, \
            (contextlib.nullcontext() if args.sender_threads else
             ProcessPoolExecutor(args.senders, mp_context=multiprocessing.get_context("spawn"))) as senders:
        if senders is not None:  # every sender process started (and its imports done) before any timing
            for done in [senders.submit(time.sleep, 1.0) for _ in range(args.senders)]:
                done.result()
        db = Path(tmp) / "bench.db"
        more = make_corpus(per_topic=30)  # 200 papers in all, so repeated recommends keep finding some
        seed_papers(db, extra=[{"id": f"extra-{p.id}", "title": f"{p.title} revisited",
                                "abstract": p.abstract} for p in more])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "PYTHONPATH": str(ROOT),
               **bot_environment(standin, db, digest_size=3)}
        target: str = str(db)
        if server is not None:
            target = server.url_of(server.filled_from("ack", db, env, Path(tmp)))
            env["PAPERBOT_DB"] = target
        if args.during_digests:
            add_people(target, [f"UDIGEST{i:05d}" for i in range(args.during_digests)])
        server_process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--port", "0"], cwd=tmp,
                                          env=env, stderr=subprocess.PIPE, text=True)
        background: list[subprocess.Popen] = []
        try:
            line = ""
            while not (match := re.search(r"listening on http://[\d.]+:(\d+)(/\S+)", line)):
                line = server_process.stderr.readline()
                if not line:
                    raise SystemExit("the bot did not start")
            # The bot's log goes on after this; a pipe nobody reads fills up, and a bot blocked writing to it
            # stops answering (and stopping).
            threading.Thread(target=server_process.stderr.read, daemon=True).start()
            slack = FakeSlack(f"http://127.0.0.1:{match[1]}{match[2]}", standin)
            users = [f"UBENCH{i:03d}" for i in range(args.users)]
            with ThreadPoolExecutor(args.senders) as pool:  # warm-up, not timed: everyone follows a topic
                list(pool.map(lambda iu: slack.ask(iu[1], f"follow {TOPICS[iu[0] % len(TOPICS)]}"),
                              enumerate(users)))
            work = follows(args.follows) if args.follows else commands(args.commands, users)
            if args.lock:
                holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(db), str(args.lock)],
                                          stdout=subprocess.PIPE, text=True)
                background.append(holder)
                assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            if args.during_digests:  # the bot's own scheduler serves them (they are due): once it has begun
                standin.wait_for(lambda: digest_posts(standin), 300, "the digests to begin")
            start = time.perf_counter()
            answers = send_all(senders, slack, work, args.senders)
            sending = time.perf_counter() - start
            replied_then = len(standin.calls(RESPONSE_URL))
            during = [p.poll() is None for p in background]
            digests_then = digest_posts(standin)
            slow = [a for a in answers if not (a.ack and a.ack.get("text"))]
            if args.follows:  # counted, not looked up one by one: the stand-in shares this process's GIL
                replies = len(users) + len(slow)
                with opened(target) as store:
                    wait_until(lambda: carried_out(standin, target, store, replies), timeout=600,
                               what="every follow", pause=0.1)
            else:
                standin.wait_for(lambda: all(standin.responses(a.key) for a in slow), timeout=300 + args.lock,
                                 what="every reply after the ack")
            finished = time.perf_counter() - start
            for process in background:
                process.wait(timeout=600)
        finally:
            for process in background:
                if process.poll() is None:
                    process.kill()
            server_process.terminate()
            server_process.wait(timeout=60)

    bad = [a for a in answers if a.status != 200]
    times = [a.seconds * 1000 for a in answers]
    posts = len(standin.calls("chat.postMessage"))
    print(f"{len(answers)} signed /papers commands from {args.senders} concurrent senders on {args.backend} "
          f"({len(slow)} with work after the ack; {posts} messages posted in all)")
    if args.lock:
        print(f"another process held the write lock for {args.lock:.0f} s from before the first command"
              f" (still held after the last ack: {during[0]})")
    if args.during_digests:
        print(f"the bot's scheduler was sending {args.during_digests} people's digests from before the first "
              f"command: {digests_then} of their {args.during_digests * 4} messages were out at the last ack")
    print(f"ack time ms: p50 {percentile(times, 50):.1f}  p95 {percentile(times, 95):.1f}  "
          f"p99 {percentile(times, 99):.1f}  max {max(times):.1f}  (mean {statistics.mean(times):.1f})")
    slowest = sorted(zip(times, range(len(work)), strict=True), reverse=True)[:5]
    print("slowest: " + ", ".join(f"#{i + 1} {work[i][1].split()[0]} {ms:.0f} ms" for ms, i in slowest))
    print(f"all acks in {sending:.2f} s; every reply posted after {finished:.2f} s; "
          f"non-200 answers: {len(bad)}")
    if args.follows:
        drained, left = finished - sending, len(users) + len(answers) - replied_then
        print(f"the last follow was carried out {drained:.2f} s after the last ack, {left} of them still to "
              f"do then ({left / drained:.0f} a second); {len(answers) / finished:.0f} follows a second from "
              "the first ack to the last one done")
    return 1 if bad or percentile(times, 99) >= 1000 else 0


if __name__ == "__main__":
    sys.exit(main())
