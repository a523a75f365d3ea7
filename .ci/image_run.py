"""`paperbot run` inside the built image, checked from outside (called by .ci/image, which passes the
command that runs something in the image as its user): the bot starts against the tests' Slack stand-in,
the image's own HEALTHCHECK command passes, /readyz and /metrics answer, a signed `/papers help` is
answered, and SIGTERM stops it cleanly. Usage: image_run.py HEALTHCHECK_JSON -- INSIDE_COMMAND…"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from stand_ins.driving import BOT_TOKEN, SIGNING_SECRET, FakeSlack
from stand_ins.slack import SlackStandIn


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str):
    """A GET of the bot's own http://127.0.0.1 URL."""
    return urllib.request.urlopen(url, timeout=5)  # noqa: S310 (an http URL made here)


def until(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = check()
            if found:
                return found
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"image: no {what} within {seconds:.0f} s")
        time.sleep(0.5)


def main() -> None:
    healthcheck, inside = json.loads(sys.argv[1]), sys.argv[sys.argv.index("--") + 1:]
    test = healthcheck[1:] if healthcheck and healthcheck[0] in ("CMD", "CMD-SHELL") else healthcheck
    port = free_port()
    with SlackStandIn() as standin:
        settings = [f"SLACK_BOT_TOKEN={BOT_TOKEN}", f"SLACK_SIGNING_SECRET={SIGNING_SECRET}",
                    f"SLACK_API_URL={standin.base_url}", f"PORT={port}"]
        bot = subprocess.Popen([*inside, "env", *settings, "paperbot", "run"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        try:
            def healthy() -> bool:  # the image's own HEALTHCHECK, run inside it as Docker would
                env = ["env", f"PORT={port}"]
                return subprocess.run([*inside, *env, *test], capture_output=True, timeout=10).returncode == 0

            until(lambda: bot.poll() is None and healthy(), 90, "passing HEALTHCHECK")
            base = f"http://127.0.0.1:{port}"
            until(lambda: fetch(base + "/readyz").status == 200, 60, "/readyz 200")
            reply = FakeSlack(base + "/slack/events", standin).ask("UIMAGE01", "help").text
            assert "/papers follow" in reply, reply
            page = fetch(base + "/metrics").read().decode()
            assert 'paperbot_requests_total{kind="command"} 1.0' in page, page
            print(f"image: paperbot run answered /healthz (its HEALTHCHECK), /readyz, /metrics and a signed "
                  f"/papers help on port {port}")
        finally:
            if bot.poll() is None:
                bot.send_signal(signal.SIGTERM)
            out, _ = bot.communicate(timeout=60)
    if bot.returncode != 0 or "Traceback" in out:
        raise SystemExit(f"image: paperbot run ended {bot.returncode}:\n{out}")
    print("image: paperbot run stopped cleanly on SIGTERM")


if __name__ == "__main__":
    main()
