"""Followed authors' new papers found through a map of the recent papers' authors by surname (issue 24),
not by matching every followed name against every recent paper's every author: the same papers, the
same author named, the same order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bot.state.context import Context
from bot.usecases.authors import NEW_DAYS, _recent_authors, add_author, is_new, new_papers_by, same_person
from storage import Paper

TODAY = datetime.now(UTC).date()
NAMES = ["Andrea Bajcsy", "Bajcsy, Andrea", "A. Bajcsy", "Bajcsy", "Anca Dragan", "A. D. Dragan",
         "Kurt Gödel", "Kurt G\\\"odel", "K. Godel", "Chelsea Finn", "Sergey Levine", "S. Levine",
         "Pieter Abbeel", "José Pérez", "Jose Perez", "Li Wei", "Wei Li", "Jan van der Berg", "J. Berg"]
FOLLOWED = ["Andrea Bajcsy", "Bajcsy", "Kurt Godel", "Levine", "S. Levine", "José Perez", "Wei Li",
            "Jan Berg", "A. Dragan", "Nobody Here"]


def scanned(ctx: Context, user_id: str, exclude: set[str]) -> list[tuple[str, str]]:
    """What new_papers_by gave before: every recent paper's authors against every followed name."""
    followed = [key for key, _ in ctx.store.get_followed_authors(user_id)]
    dated = []
    for pid, (names, day) in _recent_authors(ctx, (TODAY - timedelta(days=NEW_DAYS)).isoformat()).items():
        author = next((a for a in names if any(same_person(k, a) for k in followed)), None)
        if author is not None and pid not in exclude:
            dated.append((day or "", pid, author))
    papers = ctx.store.get_papers([pid for _, pid, _ in dated])
    new = [d for d in dated if d[1] in papers and is_new(papers[d[1]], TODAY)]
    return [(pid, author) for _, pid, author in sorted(new, reverse=True)]


def test_the_surname_map_finds_what_matching_every_author_found(tmp_path):
    rng = random.Random(3)
    papers = [Paper(id=f"p{i:03d}", title=f"Paper {i}", abstract="Text.", authors=rng.sample(NAMES, 3),
                    published=(TODAY - timedelta(days=rng.randrange(0, 60))).isoformat())
              for i in range(200)]
    root = Context.open(str(tmp_path / "authors.db"))
    ctx = root.for_workspace("T1")
    try:
        ctx.store.upsert_papers(papers)
        for i in range(0, len(FOLLOWED), 2):
            user = f"U{i}"
            for name in FOLLOWED[i:i + 3]:
                add_author(ctx, user, name)
            exclude = {f"p{j:03d}" for j in range(0, 200, 7)}
            got = [(p.paper_id, p.author) for p in new_papers_by(ctx, user, TODAY, exclude)]
            assert got == scanned(ctx, user, exclude), user
            assert got or user == "U8"
        assert any(author == "Kurt Gödel" for _, author in scanned(ctx, "U0", set()))  # TeX as shown
    finally:
        root.close()
