"""Paper vectors for the benchmarks, computed once and kept on disk (``.cache/embeddings/``, ignored by git).

    .venv/bin/python benchmarks/embedding_cache.py     # fills the cache for citeulike-a and NeurIPS + ICML

citeulike-a's 17,000 papers take minutes on 2 cores; the cache is keyed by the model's name and a hash of
the texts, so a changed corpus or model is encoded again, never read stale. The seconds each encoding
took are kept with it (the cost per 1,000 papers in docs/measurements/quality.md comes from them).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import ROOT, SHARED_DATA, read_papers

CACHE = ROOT / ".cache" / "embeddings"


def _key(model: str, ids: list[str], texts: list[str]) -> str:
    digest = hashlib.sha256(model.encode())
    for pid, text in zip(ids, texts, strict=True):
        digest.update(f"{pid}\0{text}\0".encode())
    return digest.hexdigest()[:16]


def cached_vectors(name: str, ids: list[str], texts: list[str]) -> tuple[np.ndarray, dict]:
    """float32 unit vectors of ``texts`` (one row each) and what encoding them cost; from the cache when
    there, else encoded now and saved."""
    from bot.state.embedding_model import MODEL_NAME, encoder

    key = _key(MODEL_NAME, ids, texts)
    path, meta_path = CACHE / f"{name}-{key}.npy", CACHE / f"{name}-{key}.json"
    if path.exists() and meta_path.exists():
        return np.load(path), json.loads(meta_path.read_text())
    encode = encoder()
    start = time.perf_counter()
    encode(["warm up"])  # loading the model is not part of the per-paper cost
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    vectors = encode(texts)
    seconds = time.perf_counter() - start
    meta = {"model": MODEL_NAME, "papers": len(texts), "seconds": seconds, "load_seconds": loaded}
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    meta_path.write_text(json.dumps(meta))
    return vectors, meta


def conf_papers() -> tuple[list[str], list[str]]:
    """NeurIPS 2018 + ICML 2019 as benchmarks/quality.py reads them."""
    ids, texts = [], []
    for name in ("neurips2018.jsonl", "icml2019.jsonl"):
        with (SHARED_DATA / name).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    p = json.loads(line)
                    ids.append(str(p["id"]))
                    texts.append(f"{p.get('title') or ''}. {p.get('abstract') or ''}")
    return ids, texts


def main() -> int:
    for name, (ids, texts) in (("conf", conf_papers()),
                               ("citeulike-a", read_papers(SHARED_DATA / "citeulike-a" / "papers.jsonl"))):
        _, meta = cached_vectors(name, ids, texts)
        print(f"{name}: {meta['papers']} papers, {meta['seconds']:.0f} s "
              f"({1000 * meta['seconds'] / meta['papers']:.1f} s per 1,000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
