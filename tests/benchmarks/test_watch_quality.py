"""benchmarks/watch_quality.py skips in one line without the shared abstracts, and its simulation fires a
watch on the paper it describes."""

from __future__ import annotations

import sys

from benchmarks import watch_quality


def test_it_skips_in_one_line_without_the_shared_data(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(watch_quality, "SHARED_DATA", tmp_path)
    monkeypatch.setattr(sys, "argv", ["watch_quality"])
    watch_quality.main()
    out = capsys.readouterr().out
    assert out.startswith("skipped:") and out.count("\n") == 1


def test_a_described_paper_fires_its_watch(monkeypatch):
    target = next(iter(watch_quality.WATCHES))
    papers = [{"id": f"p{i}", "title": f"Graph networks {i}",
               "abstract": f"Graph nodes pass messages, case {i}."} for i in range(200)]
    papers.append({"id": target, "title": "Gradient synchronization on BCube",
                   "abstract": watch_quality.WATCHES[target]})
    monkeypatch.setattr(watch_quality, "WATCHES", {target: watch_quality.WATCHES[target]})
    [(hit, others, days)] = watch_quality.one_shuffle(papers, 0, 2).values()
    assert hit and others == 0 and days > 0
