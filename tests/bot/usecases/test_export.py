"""The BibTeX export of a person's papers, as a file a reference manager reads."""

from __future__ import annotations

import bibtexparser

from bot.usecases.export import bibtex_export
from bot.usecases.saved import save
from storage import Paper


def test_the_export_gives_years_readable_keys_and_no_markup(ctx):
    ctx.store.upsert_papers([
        Paper(id="corl-7", title="*Learning **Bipedal** Walking* on $\\mathbb{R}^{4}$",
              abstract="We use $10^{4}$ rollouts &amp; <i>no</i> demonstrations.",
              authors=["van der Berg, Anna", "Bo Li"], venue="CoRL 2025"),
        Paper(id="corl-8", title="Learning bipedal gaits", abstract="More walking.",
              authors=["Anna van der Berg"], venue="Conference on Robot Learning (CoRL 2025)"),
    ])
    for paper_id in ("corl-7", "corl-8"):
        save(ctx, "U1", paper_id)
    file = bibtex_export(ctx, "U1")
    library = bibtexparser.parse_string(file.content)
    assert not library.failed_blocks
    entries = {e.key: {k: f.value for k, f in e.fields_dict.items()} for e in library.entries}
    assert set(entries) == {"vanderberg2025learning", "vanderberg2025learninga"}
    assert {fields["year"] for fields in entries.values()} == {"2025"}
    assert "Learning Bipedal Walking on ℝ⁴" in {fields["title"] for fields in entries.values()}
    for text in ("10{⁴}", "**", "&amp;", "<i>", "\\mathbb"):
        assert text not in file.content
    assert "10⁴ rollouts \\& no demonstrations" in file.content
