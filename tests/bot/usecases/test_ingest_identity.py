"""Through ``paperbot ingest``'s use case: the conference version of a preprint is the same paper, counted as
updated, and never recommended to someone who was shown the preprint; copies merged later leave the index."""

import json

from bot.usecases import follow, recommend
from bot.usecases.ingest import ingest

PREPRINT = {"id": "arXiv:2501.01234v1", "title": r"Quasar {T}elescopes with $\alpha$-Spectrographs",
            "abstract": "Quasar telescopes spectrographs redshift surveys.", "authors": "Ana Duarte; Bo Kim",
            "published": "2025-01-10"}
CONFERENCE = {"id": "neurips:4242", "title": "Quasar telescopes with α-spectrographs",
              "abstract": "Quasar telescopes spectrographs redshift surveys, measured in full at scale.",
              "authors": "A. Duarte; B. Kim", "venue": "NeurIPS 2025", "doi": "https://doi.org/10.5555/NIPS.4242",
              "url": "https://neurips.example/4242", "published": "2025-06-01"}


def write_jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_the_conference_version_after_the_preprint_is_never_recommended_to_who_saw_it(ctx, tmp_path):
    [report] = ingest(ctx, [write_jsonl(tmp_path / "arxiv.jsonl", PREPRINT)])
    assert report.added == 1
    follow(ctx, "U1", "quasar telescopes")
    first = recommend(ctx, "U1", n=1)
    assert [r.paper.id for r in first] == ["arxiv:2501.01234"]

    [report] = ingest(ctx, [write_jsonl(tmp_path / "neurips.jsonl", CONFERENCE)])
    assert (report.added, report.updated, report.rejected) == (0, 1, [])
    assert ctx.store.count_papers() == 41  # the corpus's 40 and this one
    paper = ctx.store.get_paper("neurips:4242")
    assert (paper.id, paper.venue, paper.doi) == ("arxiv:2501.01234", "NeurIPS 2025", "10.5555/nips.4242")
    for _ in range(3):
        again = recommend(ctx, "U1", n=3)
        assert not {"arxiv:2501.01234", "neurips:4242"} & {r.paper.id for r in again}

    # Someone new gets it once, with the published venue.
    follow(ctx, "U2", "quasar telescopes")
    picks = recommend(ctx, "U2", n=3)
    quasars = [r.paper for r in picks if "Quasar" in r.paper.title]
    assert [(p.id, p.venue) for p in quasars] == [("arxiv:2501.01234", "NeurIPS 2025")]


def test_two_stored_copies_tied_by_a_later_record_leave_one_in_the_index(ctx, tmp_path):
    journal = {"id": "journal:77", "title": "Redshift surveys of quasars, revisited", "authors": "Ana Duarte",
               "abstract": "Quasar telescopes spectrographs redshift surveys, the journal's long version.",
               "venue": "ApJ", "doi": "10.1/apj.77"}
    ingest(ctx, [write_jsonl(tmp_path / "both.jsonl", PREPRINT, journal)])
    with ctx.engine.index() as index:
        assert {"arxiv:2501.01234", "journal:77"} <= set(index.known(["arxiv:2501.01234", "journal:77"]))
    bridge = {"id": "feed:1", "abstract": "Short.", "url": "https://arxiv.org/abs/2501.01234v2",
              "doi": "doi:10.1/APJ.77", "title": "Quasars", "authors": "Duarte, Ana"}
    [report] = ingest(ctx, [write_jsonl(tmp_path / "bridge.jsonl", bridge)])
    assert report.updated == 1
    with ctx.engine.index() as index:
        assert index.known(["arxiv:2501.01234", "journal:77", "feed:1"]) == ["arxiv:2501.01234"]
    follow(ctx, "U3", "quasar telescopes redshift")
    picks = [r.paper.id for r in recommend(ctx, "U3", n=5)]
    assert picks.count("arxiv:2501.01234") == 1 and "journal:77" not in picks
