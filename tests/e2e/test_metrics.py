"""Health and metrics end to end (issue 26): the real app over HTTP, scraped as Prometheus and probed as a
load balancer would; `paperbot run` with PAPERBOT_METRICS_PORT; a digest helper process's counts in the
page of the process that started it."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading

from bot.state.engine import Engine
from stand_ins.slack import SlackStandIn
from stand_ins.waiting import wait_until
from tests.bot.test_metrics import value
from tests.e2e.harness import (
    BOT_TOKEN,
    ROOT,
    TEAM_ID,
    add_people,
    bot_environment,
    listening_url,
    new_database,
    posts_to,
    process_environment,
    serving,
    user_ids,
)

new_user = user_ids("UMET")


def get(port: int, path: str) -> tuple[int, str, str]:
    """GET ``path`` on 127.0.0.1:``port``: the status, the body and its content type."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode(), response.getheader("Content-Type") or ""
    finally:
        conn.close()


def scrape(port: int) -> str:
    status, body, content_type = get(port, "/metrics")
    assert status == 200 and content_type.startswith("text/plain; version="), (status, content_type)
    return body


def port_of(url: str) -> int:
    return int(url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


def test_a_signed_slash_command_moves_the_request_count_and_the_ack_histogram(running, slack):
    port, user = port_of(running.url), new_user()
    before = scrape(port)
    reply = slack.ask(user, "help")
    assert "/papers" in reply.text or reply.blocks
    after = scrape(port)
    for name in ("paperbot_requests_total", "paperbot_ack_seconds_count"):
        assert value(after, name, kind="command") - value(before, name, kind="command") == 1, name
    assert value(after, "paperbot_ack_seconds_bucket", kind="command", le="+Inf") \
        - value(before, "paperbot_ack_seconds_bucket", kind="command", le="+Inf") == 1
    assert value(after, "paperbot_ack_seconds_sum", kind="command") \
        > value(before, "paperbot_ack_seconds_sum", kind="command")
    assert user not in after and BOT_TOKEN not in after  # no person, no token in a label
    status, body, _ = get(port, "/healthz")
    assert (status, body) == (200, "ok")


def test_a_forged_request_counts_as_refused_with_its_status_and_not_as_a_request(running, slack):
    port = port_of(running.url)
    before = scrape(port)
    body, _ = slack.command_body(new_user(), "help")
    assert slack.post(body, "application/x-www-form-urlencoded", signature="v0=" + "0" * 64)[0] == 401
    after = scrape(port)
    assert value(after, "paperbot_requests_refused_total", status="401") \
        - value(before, "paperbot_requests_refused_total", status="401") == 1
    assert value(after, "paperbot_requests_total", kind="command") \
        == value(before, "paperbot_requests_total", kind="command")


def test_readyz_is_503_while_the_model_loads_then_200(standin, fresh_db, monkeypatch):
    loading = threading.Event()
    load = Engine.refresh

    def held(self, must_save=False):  # the model's load waits until the test lets it go
        assert loading.wait(60)
        return load(self, must_save)

    monkeypatch.setattr(Engine, "refresh", held)
    with serving(standin, fresh_db) as bot:
        port = port_of(bot.url)
        status, body, _ = get(port, "/readyz")
        assert (status, body) == (503, "the paper model is loading\n")
        assert get(port, "/healthz")[0] == 200  # the process serves meanwhile
        loading.set()
        wait_until(lambda: get(port, "/readyz")[:2] == (200, "ready"), 60, "/readyz to say ready")


def test_an_empty_database_is_ready_at_once(standin, tmp_path, backend):
    with new_database(tmp_path, backend) as empty, serving(standin, empty) as bot:
        assert get(port_of(bot.url), "/readyz")[:2] == (200, "ready")


def test_a_digest_run_moves_the_digest_counters_and_slack_s_429_and_500_the_web_api_outcomes(
        standin, fresh_db):
    users = [new_user(), new_user()]
    add_people(fresh_db, users)
    standin.reset()
    standin.fail("chat.postMessage", status=429, times=2, retry_after=1)
    standin.fail("conversations.open", status=500, times=1)
    with serving(standin, fresh_db) as bot:
        port = port_of(bot.url)
        before = scrape(port)
        from bot.slack.server import start_scheduler

        scheduler = start_scheduler(bot.bot, bot.settings, interval=0.5)
        try:
            wait_until(lambda: value(scrape(port), "paperbot_digests_total", outcome="sent")
                       - value(before, "paperbot_digests_total", outcome="sent") >= 2, 90, "both digests")
        finally:
            scheduler.shutdown()
        after = scrape(port)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    posted = sum(len([c for c in posts_to(standin, "D" + user) if c.params.get("blocks")]) for user in users)
    assert posted == 6  # three papers each
    assert moved("paperbot_digests_total", outcome="sent") == 2
    assert moved("paperbot_papers_posted_total") == posted
    assert moved("paperbot_slack_api_calls_total", method="chat.postMessage", outcome="rate_limited") == 2
    assert moved("paperbot_slack_api_calls_total", method="conversations.open", outcome="outage") == 1
    # A header and three papers each.
    assert moved("paperbot_slack_api_calls_total", method="chat.postMessage", outcome="ok") == 8


#: The start-up line naming the port PAPERBOT_METRICS_PORT=0 was given. A port chosen by the test (bound and
#: released) could be taken by any other process of the suite before the bot binds it.
METRICS_LINE = re.compile(r"serves /metrics, /healthz and /readyz on http://[\d.]+:(\d+)")


def metrics_port_of(process: subprocess.Popen) -> int:
    """The metrics port `paperbot run` (started with ``stderr=PIPE, text=True``) says it serves on."""
    lines: list[str] = []
    while not lines or not (match := METRICS_LINE.search(lines[-1])):
        lines.append(process.stderr.readline())
        assert lines[-1], "".join(lines) + process.stderr.read()
    return int(match[1])


def test_paperbot_run_with_a_metrics_port_serves_the_three_there_and_cleans_its_directory(
        standin, fresh_db, tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    settings = {**bot_environment(standin, fresh_db), "PAPERBOT_METRICS_PORT": "0",
                "TMPDIR": str(scratch)}
    environ = process_environment(tmp_path, settings)
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--port", "0"], cwd=tmp_path,
                               env=environ, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = listening_url(process)
        metrics_port = metrics_port_of(process)
        threading.Thread(target=process.stderr.read, daemon=True).start()  # drained: the pipe never fills
        folders = list(scratch.glob("paperbot-metrics-*"))
        assert len(folders) == 1 and os.listdir(folders[0])  # the processes' counts are kept there
        wait_until(lambda: get(metrics_port, "/readyz")[:2] == (200, "ready"), 60, "/readyz to say ready")
        assert get(metrics_port, "/healthz")[:2] == (200, "ok")
        assert get(port_of(url), "/metrics")[0] == 404  # moved off the bot's port…
        assert get(port_of(url), "/readyz")[0] == 404
        from tests.e2e.harness import FakeSlack

        before = scrape(metrics_port)
        assert FakeSlack(url, standin).command(new_user(), "help").status == 200
        after = scrape(metrics_port)  # …and the bot's own counts reach the page through the directory
        assert value(after, "paperbot_requests_total", kind="command") \
            - value(before, "paperbot_requests_total", kind="command") == 1
        assert "paperbot_newest_paper_age_seconds" in after
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert process.returncode == 0
    assert list(scratch.glob("paperbot-metrics-*")) == []


HELPED_RUN = """
import sys
from dataclasses import replace
from bot import metrics
from bot.config import Settings
from bot.slack.delivery.digests import Served, digest_client, digest_helpers, serve_workspaces
from bot.state.context import Context

api_url, db, team = sys.argv[1:4]
settings = Settings(bot_token="{token}", api_url=api_url, db_path=db, digest_size=3, digest_processes=1)
client = digest_client(settings)
made = digest_helpers(settings, alone=True)  # the bot's way: its own process sends none of a big run
ctx = Context.open(db, 3)
try:
    run = serve_workspaces(ctx, [Served(team, client)], [], helpers=lambda s: replace(made(s), min_due=1),
                           force=True)
finally:
    ctx.close()
assert run.count("sent") == int(sys.argv[4]), run.outcomes
sys.stdout.write(metrics.page()[0].decode())
"""


def test_a_digest_helper_process_s_counts_show_in_the_page_of_the_process_that_started_it(
        standin, fresh_db, tmp_path):
    users = [new_user(), new_user()]
    add_people(fresh_db, users)
    standin.reset()
    folder = tmp_path / "metrics"  # a directory of its own: every *.db file in it is read as counts
    folder.mkdir()
    environ = process_environment(tmp_path, {"PROMETHEUS_MULTIPROC_DIR": str(folder)})
    page = subprocess.run([sys.executable, "-c", HELPED_RUN.format(token=BOT_TOKEN), standin.base_url,
                           str(fresh_db), TEAM_ID, str(len(users))], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=180)
    assert page.returncode == 0, page.stderr
    posted = sum(len([c for c in posts_to(standin, "D" + user) if c.params.get("blocks")]) for user in users)
    assert posted == 6
    # Only the helper posted: without the shared directory the page would show none of it.
    assert value(page.stdout, "paperbot_papers_posted_total") == posted
    assert value(page.stdout, "paperbot_slack_api_calls_total", method="chat.postMessage", outcome="ok") == 8
    assert value(page.stdout, "paperbot_digests_total", outcome="sent") == 2  # the run's, counted once


def test_in_socket_mode_the_metrics_port_is_where_readyz_and_metrics_are(tmp_path, fresh_db):
    from tests.e2e.socket_mode_standin import SocketModeStandIn
    from tests.e2e.test_socket_mode import command, environment

    with SlackStandIn() as standin, SocketModeStandIn() as socket_mode:
        standin.socket_mode_url = socket_mode.url
        env = {**environment(standin, fresh_db), "PAPERBOT_METRICS_PORT": "0"}
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run"], env=env, cwd=tmp_path,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        try:
            metrics_port = metrics_port_of(process)
            threading.Thread(target=process.stderr.read, daemon=True).start()
            standin.wait_for(socket_mode.connected, timeout=60, what="the Socket Mode connection")
            wait_until(lambda: get(metrics_port, "/readyz")[:2] == (200, "ready"), 60, "/readyz to say ready")
            ack = socket_mode.wait_for_ack(socket_mode.send("slash_commands", command("help", "")))
            assert "/papers follow" in ack["payload"]["text"]
            page = scrape(metrics_port)
            assert value(page, "paperbot_requests_total", kind="command") == 1
            assert value(page, "paperbot_ack_seconds_count", kind="command") == 1
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    assert process.returncode == 0
