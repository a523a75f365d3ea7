"""What alerts add to a digest run, counted (never timed), on both backends: statements per person stay a
constant few whatever the number of alerts (one read for all of a person's alerts, not one per alert or
per paper), and nothing at all for people without alerts."""

from __future__ import annotations

import pytest

from bot.usecases.alerts import REASON_START, add_alert
from tests.bot.usecases.digests.test_growth_guard import ctx, people, run  # noqa: F401 - ctx: a fixture

#: Phrases the corpus holds (tests/conftest.py), so that every digest finds alert papers.
PHRASES = ["message passing", "qubits", "denoising", "robot", "kittens", "score matching", "error correction",
           "graph neural", "locomotion", "whiskers"]
#: Statements an alert may add to one person's digest: the read of every alert's new papers, the day's
#: alert papers counted, and their papers read.
MOST_ADDED = 3


@pytest.mark.parametrize("alerts", [1, 10])
def test_alerts_add_a_few_statements_a_person_however_many_they_have(ctx, monkeypatch, alerts):  # noqa: F811
    run(ctx, people(ctx, f"warm{alerts}-", 3), monkeypatch)  # the first run fits what every run shares
    plain, _, _ = run(ctx, people(ctx, f"plain{alerts}-", 10), monkeypatch)
    watchers = people(ctx, f"watcher{alerts}-", 10)
    for user in watchers:
        for phrase in PHRASES[:alerts]:
            add_alert(ctx, user, phrase)
    with_alerts, _, sent = run(ctx, watchers, monkeypatch)
    assert sent == 30
    assert all(ctx.store.count_shown_with_reason(user, "", REASON_START) for user in watchers)
    print(f"{ctx.store._sql.name}: {plain / 10:.1f} statements a person, {with_alerts / 10:.1f} with "
          f"{alerts} alert(s) each")
    assert with_alerts <= plain + MOST_ADDED * 10, (plain, with_alerts)
