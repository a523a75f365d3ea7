"""The README's pictures of a digest in a DM and of App Home, drawn from the Block Kit paperbot sends.

    make pictures        # or: .venv/bin/python -m docs.pictures.make_pictures

With no Slack and no network, it does what the demo does (``bot/cli/demo.py``): the bundled ICML 2025 sample
in a throwaway database, a reader following three topics. Then the reader's digest for a fixed day goes out
through the courier ``paperbot run`` uses, into a stand-in of Slack's Web API that records each
``chat.postMessage``; a 👍, a Save and an alert later, the Home tab is built by the view ``views.publish``
gets. Every input is fixed (papers, profile, day, clock), so the Block Kit is the same on every run:
``digest.blocks.json`` and ``home.blocks.json`` keep it beside the pictures, and ``tests/test_pictures.py``
fails when the views no longer produce it (run this again). The pictures themselves are that Block Kit
drawn by ``blockkit_html`` (Slack-like HTML) and photographed by headless Chromium (Debian's ``chromium``;
``fonts-lato`` and ``fonts-noto-color-emoji`` make it look like Slack).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.cli.demo import DIGEST_SIZE, READER, TOPICS, sample_path
from bot.slack.delivery.digests import slack_courier
from bot.slack.views.home_view import home_view
from bot.state.context import Context
from bot.usecases import LIKE, ingest, record_feedback
from bot.usecases.alerts import add_alert
from bot.usecases.digests.send import send_digest
from bot.usecases.home import home_data
from bot.usecases.interests import follow
from bot.usecases.saved import save
from bot.usecases.timezones import timezone_changed
from docs.pictures.blockkit_html import dm_page, home_page, ordinal

HERE = Path(__file__).resolve().parent
APP = "paperbot"
TIMEZONE = "Europe/Berlin"
DAY = date(2026, 12, 7)  # a Monday
NOW = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)  # 09:00 in Berlin: the reader's digest time
NEWEST_PAPER = "2026-12-07T06:12:00+00:00"  # when Home says the newest paper arrived
ALERT = "mirror descent"
DM_CHANNEL = "D0PAPERBOT"
WIDTH = 760  # CSS pixels; the pictures are twice that, for sharp text
EXECUTABLES = ("chromium", "chromium-browser", "google-chrome")


class RecordingSlack:
    """The Web API calls a digest's courier makes, answered as Slack answers them, and recorded."""

    def __init__(self) -> None:
        self.posted: list[dict] = []

    def conversations_open(self, users: str) -> dict:
        return {"ok": True, "channel": {"id": DM_CHANNEL}}

    def chat_postMessage(self, **message) -> dict:
        self.posted.append(message)
        ts = f"{NOW.timestamp():.0f}.{len(self.posted):06d}"
        return {"ok": True, "channel": message["channel"], "ts": ts}


def build(folder: Path) -> tuple[list[dict], dict]:
    """The digest's messages, as ``chat.postMessage`` got them, and the reader's Home view."""
    ctx = Context.open(str(folder / "pictures.db"), digest_size=DIGEST_SIZE)
    try:
        ingest(ctx, [str(sample_path())])
        follow(ctx, READER, TOPICS)
        timezone_changed(ctx, READER, TIMEZONE)
        slack = RecordingSlack()
        outcome = send_digest(ctx, READER, DAY, slack_courier(ctx, slack), clock=lambda: NOW)
        if outcome.status != "sent":
            raise RuntimeError(f"the digest was not sent: {outcome}")
        papers = [m["metadata"]["event_payload"]["paper_id"] for m in slack.posted if m.get("blocks")]
        record_feedback(ctx, READER, papers[0], LIKE)
        save(ctx, READER, papers[0])
        add_alert(ctx, READER, ALERT)
        data = dataclasses.replace(home_data(ctx, READER), newest_paper=NEWEST_PAPER)
        return [_message(m) for m in slack.posted], home_view(data)
    finally:
        ctx.close()


def _message(posted: dict) -> dict:
    """What a message shows (its text, its blocks), without the delivery's own arguments."""
    return {key: posted[key] for key in ("text", "blocks") if key in posted}


def blocks_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def digest_html(messages: list[dict]) -> str:
    when = NOW.astimezone(ZoneInfo(TIMEZONE))
    return dm_page(APP, f"{DAY:%A}, {DAY:%B} {ordinal(DAY.day)}", f"{when:%I:%M %p}".lstrip("0"), messages,
                   TIMEZONE)


def home_html(view: dict) -> str:
    return home_page(APP, view, TIMEZONE)


def find_chromium() -> str | None:
    return next((path for name in EXECUTABLES if (path := shutil.which(name))), None)


def _chromium(executable: str, page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
               f"--user-data-dir={profile}", *args, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def screenshot(executable: str, html: str, out: Path, width: int = WIDTH, scale: int = 2) -> None:
    """``html`` photographed by headless Chromium into the PNG ``out``, as tall as the page."""
    with tempfile.TemporaryDirectory(prefix="paperbot-pictures-") as tmp:
        page = Path(tmp) / "page.html"
        measure = "<script>document.body.dataset.height = document.documentElement.scrollHeight</script>"
        page.write_text(html.replace("</body>", measure + "</body>"), encoding="utf-8")
        dom = _chromium(executable, page, Path(tmp) / "measure", f"--window-size={width},800", "--dump-dom")
        found = re.search(r'data-height="(\d+)"', dom.stdout)
        if dom.returncode != 0 or not found:
            raise RuntimeError(f"Chromium could not lay the page out (exit status {dom.returncode})")
        height = int(found.group(1))
        shot = _chromium(executable, page, Path(tmp) / "shoot", f"--window-size={width},{height}",
                         f"--force-device-scale-factor={scale}", f"--screenshot={out}")
        if shot.returncode != 0 or not out.is_file():
            raise RuntimeError(f"Chromium took no screenshot (exit status {shot.returncode})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw the README's pictures from the views' Block Kit.")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write them (default: docs/pictures)")
    parser.add_argument("--blocks-only", action="store_true", help="write the Block Kit, not the pictures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paperbot-pictures-") as tmp:
        messages, view = build(Path(tmp))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "digest.blocks.json").write_text(blocks_json(messages), encoding="utf-8")
    (args.out / "home.blocks.json").write_text(blocks_json(view), encoding="utf-8")
    if args.blocks_only:
        return 0
    executable = find_chromium()
    if executable is None:
        print("Chromium is not installed (apt-get install chromium): wrote the Block Kit only.",
              file=sys.stderr)
        return 1
    try:
        screenshot(executable, digest_html(messages), args.out / "digest.png")
        screenshot(executable, home_html(view), args.out / "home.png")
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"Could not draw the pictures: {exc}", file=sys.stderr)
        return 1
    print(f"Wrote digest.png, home.png and their Block Kit in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
