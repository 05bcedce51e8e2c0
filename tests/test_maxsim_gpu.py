"""GPU paths of the MaxSim engine and a multimodal retriever (skipped without CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


def test_engine_on_cuda_matches_naive_reference():
    from docrag.index.maxsim import maxsim_naive, maxsim_scores, pack_pages

    rng = np.random.default_rng(0)
    pages = [rng.standard_normal((int(rng.integers(5, 60)), 128)).astype(np.float32) for _ in range(50)]
    pages = [p / np.linalg.norm(p, axis=1, keepdims=True) for p in pages]
    queries = [rng.standard_normal((12, 128)).astype(np.float32) / np.sqrt(128) for _ in range(4)]
    tokens, offsets = pack_pages(pages)
    got = maxsim_scores(queries, tokens, offsets, device="cuda", chunk_tokens=300)
    np.testing.assert_allclose(got, maxsim_naive(queries, pages), rtol=5e-3, atol=5e-3)


def test_tiny_colqwen2_indexes_on_cuda_in_bf16(tmp_path):
    import docrag.index as di
    from tests.support.index_corpus import FINANCE_DOCS, make_corpus
    from tests.support.tiny_colmodels import build_tiny_colmodel

    path = build_tiny_colmodel("colqwen2", tmp_path / "m")
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    idx = di.open_index(corpus, f"colqwen2:{path}", show_progress=False)
    assert idx.retriever.device == "cuda" and idx.manifest["dtype"] == "float16"
    assert idx.retriever.describe()["dtype"] == "bfloat16"
    hits = idx.search("total revenue", k=3)
    assert len(hits) == 3 and all(np.isfinite(h.score) for h in hits)
