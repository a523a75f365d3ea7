"""How fast does paperbot acknowledge slash commands under load?

Starts `paperbot run` (HTTP mode, the real uvicorn server and Bolt app) as a subprocess against a local
Slack Web API stand-in, then sends signed `/papers` commands from concurrent senders and times each HTTP
answer (Slack gives up after 3 s). The work after the ack (ranking, posting papers) runs meanwhile;
the script also waits until every reply has been posted. Nothing leaves 127.0.0.1.

    .venv/bin/python benchmarks/ack_latency.py [--commands 300] [--senders 8]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import make_corpus  # noqa: E402
from tests.e2e.harness import FakeSlack, bot_environment, seed_papers  # noqa: E402
from tests.e2e.slack_standin import SlackStandIn  # noqa: E402

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


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--senders", type=int, default=8)
    parser.add_argument("--users", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, SlackStandIn() as standin:
        db = Path(tmp) / "bench.db"
        more = make_corpus(per_topic=30)  # 200 papers in all, so repeated recommends keep finding some
        seed_papers(db, extra=[{"id": f"extra-{p.id}", "title": f"{p.title} revisited",
                                "abstract": p.abstract} for p in more])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "PYTHONPATH": str(ROOT),
               **bot_environment(standin, db, digest_size=3)}
        server = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--port", "0"], cwd=tmp, env=env,
                                  stderr=subprocess.PIPE, text=True)
        try:
            line = ""
            while not (match := re.search(r"listening on http://[\d.]+:(\d+)(/\S+)", line)):
                line = server.stderr.readline()
                if not line:
                    raise SystemExit("the bot did not start")
            slack = FakeSlack(f"http://127.0.0.1:{match[1]}{match[2]}", standin)
            users = [f"UBENCH{i:03d}" for i in range(args.users)]
            with ThreadPoolExecutor(args.senders) as pool:  # warm-up, not timed: everyone follows a topic
                list(pool.map(lambda iu: slack.ask(iu[1], f"follow {TOPICS[iu[0] % len(TOPICS)]}"),
                              enumerate(users)))
            work = commands(args.commands, users)
            start = time.perf_counter()
            with ThreadPoolExecutor(args.senders) as pool:
                answers = list(pool.map(lambda uc: slack.command(*uc), work))
            sending = time.perf_counter() - start
            slow = [a for a in answers if not (a.ack and a.ack.get("text"))]
            standin.wait_for(lambda: all(standin.responses(a.key) for a in slow), timeout=300,
                             what="every reply after the ack")
            finished = time.perf_counter() - start
        finally:
            server.terminate()
            server.wait(timeout=60)

    bad = [a for a in answers if a.status != 200]
    times = [a.seconds * 1000 for a in answers]
    posts = len(standin.calls("chat.postMessage"))
    print(f"{len(answers)} signed /papers commands from {args.senders} concurrent senders "
          f"({len(slow)} with work after the ack; {posts} messages posted)")
    print(f"ack time ms: p50 {percentile(times, 50):.1f}  p95 {percentile(times, 95):.1f}  "
          f"p99 {percentile(times, 99):.1f}  max {max(times):.1f}  (mean {statistics.mean(times):.1f})")
    print(f"all acks in {sending:.2f} s; every reply posted after {finished:.2f} s; "
          f"non-200 answers: {len(bad)}")
    return 1 if bad or percentile(times, 99) >= 1000 else 0


if __name__ == "__main__":
    sys.exit(main())
