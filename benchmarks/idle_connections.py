"""Does a flood of connections that never finish a request take the bot off the air?

Starts `paperbot run` (HTTP mode) against the local Slack stand-in, opens ``--connections`` connections that
each send half a request and then nothing, and meanwhile sends signed `/papers help` commands, timing each
answer (Slack gives up after 3 s). Then counts the bot's log: its warnings, and any traceback. Nothing
leaves 127.0.0.1. Run by hand; prints figures.

    .venv/bin/python benchmarks/idle_connections.py [--connections 19000] [--commands 20]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stand_ins.driving import FakeSlack, bot_environment, seed_papers  # noqa: E402
from stand_ins.slack import SlackStandIn  # noqa: E402

HALF_A_REQUEST = b"POST /slack/events HTTP/1.1\r\nHost: paperbot\r\nX-Slack-Signature: v0="


def main() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=min(19_000, hard - 500),
                        help="idle half-requests to open (this process needs a descriptor for each)")
    parser.add_argument("--commands", type=int, default=20, help="signed /papers help commands to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, SlackStandIn() as standin:
        db = Path(tmp) / "bench.db"
        seed_papers(db)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "PYTHONPATH": str(ROOT),
               **bot_environment(standin, db)}
        bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--port", "0"], cwd=tmp, env=env,
                               stderr=subprocess.PIPE, text=True)
        log: list[str] = []
        idle: list[socket.socket] = []
        try:
            line = ""
            while not (match := re.search(r"listening on http://[\d.]+:(\d+)(/\S+)", line)):
                line = bot.stderr.readline()
                if not line:
                    raise SystemExit("the bot did not start")
            threading.Thread(target=lambda: log.extend(bot.stderr), daemon=True).start()
            port = int(match[1])
            slack = FakeSlack(f"http://127.0.0.1:{port}{match[2]}", standin)
            start = time.perf_counter()
            refused = 0
            for _ in range(args.connections):
                try:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                    sock.sendall(HALF_A_REQUEST)
                    idle.append(sock)
                except OSError:
                    refused += 1
            opened = time.perf_counter() - start
            times, statuses = [], []
            for _ in range(args.commands):
                answer = slack.command("U0BENCH01", "help")
                times.append(answer.seconds * 1000)
                statuses.append(answer.status)
            closed = sum(1 for sock in idle if _closed(sock))
        finally:
            for sock in idle:
                sock.close()
            bot.terminate()
            bot.wait(timeout=60)
    text = "".join(log)
    print(f"{len(idle):,} idle half-requests opened in {opened:.1f} s ({refused:,} could not connect); "
          f"{closed:,} of them closed by the bot by the end")
    print(f"{args.commands} signed /papers help meanwhile: statuses {sorted(set(statuses))}, "
          f"first {times[0]:.0f} ms, median {statistics.median(times):.0f} ms, slowest {max(times):.0f} ms")
    print(f"the bot's log: {len(log):,} lines, {text.count('Traceback'):,} tracebacks, "
          f"{text.count('Too many open files'):,} 'Too many open files'")
    return 0


def _closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


if __name__ == "__main__":
    raise SystemExit(main())
