"""bot/metrics.py: what each call counts, the page /metrics serves, and the multiprocess mode of
`paperbot run` (bot/metrics_dir.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from prometheus_client.parser import text_string_to_metric_families

from bot import metrics
from bot.metrics_dir import metrics_directory
from bot.sources import source_kind
from bot.sources.records import Rejected
from bot.usecases.ingest import SourceReport
from storage import Paper, StoreUnavailable

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("paperbot_requests", "paperbot_ack_seconds", "paperbot_requests_refused", "paperbot_slack_api_calls",
         "paperbot_digests", "paperbot_papers_posted", "paperbot_papers_ingested", "paperbot_papers_rejected",
         "paperbot_source_failures", "paperbot_refit_seconds", "paperbot_summaries")


def value(page: str, name: str, **labels: str) -> float:
    """One sample of the page (0 when absent)."""
    for family in text_string_to_metric_families(page):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


def scrape(store=None) -> str:
    return metrics.page(SimpleNamespace(store=store) if store is not None else None)[0].decode()


def test_every_metric_is_on_the_page_with_its_help_in_prometheus_text_format():
    body, content_type = metrics.page()
    assert content_type.startswith("text/plain; version=")
    text = body.decode()
    for name in NAMES:
        assert f"# HELP {name}" in text, name


def test_a_run_s_outcomes_count_as_sent_empty_failed_or_waiting_and_another_process_s_not_at_all():
    before = scrape()
    statuses = ["sent", "sent", "empty", "failed", "incomplete", "busy", "done", "skipped", "extra"]
    metrics.digests(statuses)
    after = scrape()
    moved = {outcome: value(after, "paperbot_digests_total", outcome=outcome)
             - value(before, "paperbot_digests_total", outcome=outcome)
             for outcome in ("sent", "empty", "failed", "waiting", "busy", "done", "skipped", "extra")}
    assert moved == {"sent": 2, "empty": 1, "failed": 1, "waiting": 1, "busy": 0, "done": 0, "skipped": 0,
                     "extra": 0}


def test_summaries_are_counted_by_outcome_and_the_check_s_reason_from_a_fixed_set():
    from bot.summaries.check import REASONS

    assert set(metrics.SUMMARY_REASONS) == set(REASONS)  # the leaf's copy of the check's codes
    before = scrape()
    metrics.summaries([("ok", None), ("ok", None), ("rejected", "invented_number"), ("rejected", "made up"),
                       ("failed", None), ("waiting", None)])
    after = scrape()

    def moved(**labels: str) -> float:
        return (value(after, "paperbot_summaries_total", **labels)
                - value(before, "paperbot_summaries_total", **labels))

    assert moved(outcome="ok", reason="") == 2 and moved(outcome="failed", reason="") == 1
    assert moved(outcome="rejected", reason="invented_number") == 1
    assert moved(outcome="rejected", reason="other") == 1  # never a label of a caller's own words


def test_feeds_are_counted_by_the_kind_of_source_never_by_its_address():
    before = scrape()
    secret_feed = "https://example.org/feed?token=s3cret"
    rejected = [Rejected("line 1", "no title")] * 4
    for report in [SourceReport(secret_feed, added=3, updated=2, rejected=rejected),
                   SourceReport("arxiv:cs.LG", error="unreachable")]:  # as `paperbot run` counts them
        metrics.ingested(source_kind(report.source), taken=report.added + report.updated,
                         rejected=len(report.rejected), failed=bool(report.error))
    after = scrape()
    assert value(after, "paperbot_papers_ingested_total", source="feed") \
        - value(before, "paperbot_papers_ingested_total", source="feed") == 5
    assert value(after, "paperbot_papers_rejected_total", source="feed") \
        - value(before, "paperbot_papers_rejected_total", source="feed") == 4
    assert value(after, "paperbot_source_failures_total", source="arxiv") \
        - value(before, "paperbot_source_failures_total", source="arxiv") == 1
    assert "s3cret" not in after and "example.org" not in after


def test_source_kinds_are_a_small_fixed_set():
    assert [source_kind(s) for s in ("arxiv:cs.LG,cs.AI", "HTTPS://x.org/rss", "/data/papers.JSONL", "a.csv",
                                     "notes.pdf", "Alice's list")] == \
        ["arxiv", "feed", "jsonl", "csv", "other", "other"]


def test_a_request_is_counted_and_its_answer_timed_by_kind_even_when_it_raises():
    before = scrape()
    with metrics.acking("command"):
        pass
    try:
        with metrics.acking("view"):
            raise ValueError("a listener's bug")
    except ValueError:
        pass
    after = scrape()
    for kind in ("command", "view"):
        assert value(after, "paperbot_requests_total", kind=kind) \
            - value(before, "paperbot_requests_total", kind=kind) == 1
        assert value(after, "paperbot_ack_seconds_count", kind=kind) \
            - value(before, "paperbot_ack_seconds_count", kind=kind) == 1


def test_the_newest_paper_s_age_is_asked_of_the_store_at_each_scrape(store):
    assert "paperbot_newest_paper_age_seconds" not in scrape(store)  # no papers yet: no age
    store.upsert_papers([Paper(id="p1", abstract="text")])
    age = value(scrape(store), "paperbot_newest_paper_age_seconds")
    assert 0 <= age < 120
    assert "paperbot_newest_paper_age_seconds" in scrape(store)


def test_a_database_that_fails_leaves_the_age_out_and_the_page_served(store, monkeypatch):
    store.upsert_papers([Paper(id="p1", abstract="text")])

    def away():
        raise StoreUnavailable("can't open the database db-host")

    monkeypatch.setattr(store, "newest_paper_added", away)
    text = scrape(store)
    assert "paperbot_newest_paper_age_seconds" not in text and "# HELP paperbot_requests" in text


def test_the_like_share_of_the_last_week_is_asked_of_the_store_every_workspace_together(store, monkeypatch):
    page = scrape(store)
    assert value(page, "paperbot_ratings_last_week") == 0 and "paperbot_like_share" not in page  # none yet
    t1, t2 = store.for_workspace("T1"), store.for_workspace("T2")
    for view, user, paper, liked in ((t1, "U1", "a", 1), (t1, "U2", "a", -1), (t2, "U1", "b", 1),
                                     (t2, "U3", "c", 1)):
        view.mark_shown(user, paper, "why")
        view.set_feedback(user, paper, liked)
    t1.set_feedback("U1", "never-shown", -1)  # says nothing of paperbot's picks
    store.db.execute("update feedback set created_at = '2020-01-01T00:00:00+00:00' where user_id = 'U3'")
    page = scrape(store)
    assert value(page, "paperbot_ratings_last_week") == 3
    assert value(page, "paperbot_like_share") == 2 / 3

    def away(*args, **kwargs):
        raise StoreUnavailable("can't open the database db-host")

    monkeypatch.setattr(store, "rating_counts", away)
    page = scrape(store)
    assert "paperbot_like_share" not in page
    assert "paperbot_ratings_last_week" not in page and "# HELP paperbot_requests" in page


def test_paperbot_run_s_own_directory_is_made_and_removed_and_an_admin_s_is_kept(tmp_path, monkeypatch):
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    with metrics_directory(None) as folder:
        assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == folder and Path(folder).is_dir()
        (Path(folder) / "counter_1.db").write_bytes(b"x")
    assert not Path(folder).exists() and "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    chosen = tmp_path / "metrics"
    with metrics_directory(str(chosen)) as folder:
        assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(chosen) == folder
    assert chosen.is_dir()


def test_the_paperbot_command_imports_no_metrics_before_run_chooses_their_directory():
    code = "import sys, bot.cli.main; print('prometheus_client' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


COUNT = """
import sys
from bot import metrics
metrics.api_call("chat.postMessage", "ok")
metrics.papers_posted(int(sys.argv[1]))
with metrics.refitting():
    pass
if len(sys.argv) > 2:
    metrics.helper_ended(int(sys.argv[2]))
    sys.stdout.write(metrics.page()[0].decode())
else:
    print(__import__("os").getpid())
"""


def test_in_multiprocess_mode_one_process_s_page_sums_every_process_s_counts(tmp_path):
    environ = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}

    def python(*args: str) -> str:
        return subprocess.run([sys.executable, "-c", COUNT, *args], capture_output=True, text=True,
                              env=environ, check=True).stdout

    helper = python("3").strip()  # a helper process: counts, then ends
    page = python("4", helper)  # the bot: counts, lets the helper go, and serves the page
    assert value(page, "paperbot_papers_posted_total") == 7
    assert value(page, "paperbot_slack_api_calls_total", method="chat.postMessage", outcome="ok") == 2
    assert value(page, "paperbot_refit_seconds_count") == 2
