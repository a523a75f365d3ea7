"""Through ``paperbot ingest``'s use case: every paper gets its highlights at ingest whatever its source,
a new version that changes the abstract gets new ones, and papers stored without them (before m033, or by
a path that computes none) are filled in by the next ingest."""

import json

from bot.text.highlights import highlights
from bot.usecases.ingest import fill_highlights, ingest

V1 = {"id": "arXiv:2501.01234v1", "title": "Quasar telescopes",
      "abstract": "Telescopes are costly. We propose QuasarNet, a network that reads spectra. "
                  "QuasarNet finds 12% more quasars than prior surveys.", "authors": "Ana Duarte"}
V2 = {**V1, "id": "arXiv:2501.01234v2",
      "abstract": "Telescopes are costly. We introduce QuasarNet-2, a network that reads raw spectra. "
                  "Experiments show that it finds 30% more quasars than prior surveys."}


def write_jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_an_ingested_paper_has_its_lines_and_a_new_version_new_ones(ctx, tmp_path):
    ingest(ctx, [write_jsonl(tmp_path / "v1.jsonl", V1)])
    paper = ctx.store.get_paper("arxiv:2501.01234")
    assert paper.highlight == "We propose QuasarNet, a network that reads spectra."
    assert paper.result == "QuasarNet finds 12% more quasars than prior surveys."
    ingest(ctx, [write_jsonl(tmp_path / "v2.jsonl", V2)])
    paper = ctx.store.get_paper("arxiv:2501.01234")
    assert paper.highlight == "We introduce QuasarNet-2, a network that reads raw spectra."
    assert paper.result == "Experiments show that it finds 30% more quasars than prior surveys."


def test_papers_stored_without_lines_are_filled_in_by_the_next_ingest(ctx, tmp_path):
    # The five-topic corpus is stored as records without highlights, as papers stored before m033 were.
    lacking = ctx.store.papers_lacking_highlights(limit=1000)
    assert len(lacking) == ctx.store.count_papers() > 0
    seq = ctx.store.max_paper_seq()
    ingest(ctx, [write_jsonl(tmp_path / "v1.jsonl", V1)])
    assert ctx.store.papers_lacking_highlights() == []
    for paper_id, title, abstract in lacking:
        paper = ctx.store.get_paper(paper_id)
        lines = highlights(title, abstract)
        assert (paper.highlight, paper.result) == (lines.what, lines.result)
        assert paper.highlight is not None
    assert ctx.store.max_paper_seq() == seq + 1  # the new paper's change only
    assert fill_highlights(ctx.store) == 0  # nothing left: one look at the index


def test_the_fill_goes_page_by_page(ctx):
    total = ctx.store.count_papers()
    assert fill_highlights(ctx.store, batch=7) == total
    assert ctx.store.papers_lacking_highlights() == []
