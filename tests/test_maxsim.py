"""MaxSim engine against a naive reference; two-stage search against exhaustive search."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.synthetic import SyntheticCorpus, SyntheticSpec
from docrag.index.maxsim import maxsim_naive, maxsim_scores, pack_pages
from docrag.index.twostage import binarize, binary_maxsim, page_centroids


def _random_pages(rng, n, dim=16, max_len=40, with_empty=True):
    pages = [rng.standard_normal((int(rng.integers(1, max_len)), dim)).astype(np.float32) for _ in range(n)]
    if with_empty:
        pages[3] = np.zeros((0, dim), np.float32)
    return [p / np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-6) for p in pages]


@pytest.mark.parametrize("chunk_tokens", [3, 37, 1 << 18])
def test_engine_matches_naive_reference(chunk_tokens):
    rng = np.random.default_rng(1)
    pages = _random_pages(rng, 30)
    queries = [rng.standard_normal((int(rng.integers(1, 9)), 16)).astype(np.float32) for _ in range(5)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    got = maxsim_scores(queries, tokens, offsets, chunk_tokens=chunk_tokens)
    want = maxsim_naive(queries, pages)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.all(got[:, 3] == 0)                            # a page without tokens scores 0


def test_engine_on_subset_of_pages_and_fp16_storage():
    rng = np.random.default_rng(2)
    pages = _random_pages(rng, 20, with_empty=False)
    queries = [rng.standard_normal((6, 16)).astype(np.float32) for _ in range(3)]
    tokens, offsets = pack_pages(pages)                      # fp16 as stored on disk
    rows = np.array([17, 2, 9])
    got = maxsim_scores(queries, tokens, offsets, page_rows=rows, chunk_tokens=50)
    want = maxsim_naive(queries, [pages[r].astype(np.float16).astype(np.float32) for r in rows])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_engine_agrees_with_colpali_engine_scoring():
    torch = pytest.importorskip("torch")
    processing = pytest.importorskip("colpali_engine.utils.processing_utils")
    rng = np.random.default_rng(3)
    # non-negative vectors: colpali-engine zero-pads pages, and a zero pad would beat a negative maximum
    pages = [np.abs(p) for p in _random_pages(rng, 12, dim=32, with_empty=False)]
    queries = [np.abs(rng.standard_normal((7, 32))).astype(np.float32) for _ in range(4)]
    theirs = processing.BaseVisualRetrieverProcessor.score_multi_vector(
        [torch.from_numpy(q) for q in queries], [torch.from_numpy(p) for p in pages], device="cpu").numpy()
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    np.testing.assert_allclose(maxsim_scores(queries, tokens, offsets), theirs, rtol=1e-4, atol=1e-4)


def test_binary_maxsim_is_hamming_maxsim():
    rng = np.random.default_rng(4)
    pages = _random_pages(rng, 10, dim=64, with_empty=False)
    queries = [rng.standard_normal((5, 64)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    got = binary_maxsim(queries, binarize(tokens), offsets, dim=64, chunk_tokens=25)
    signs = [np.where(p > 0, 1.0, -1.0) for p in pages]
    want = maxsim_naive([np.where(queries[0] > 0, 1.0, -1.0)], signs)
    np.testing.assert_allclose(got, want)


def test_centroids_are_compact_unit_vectors_near_the_tokens():
    sc = SyntheticCorpus(SyntheticSpec(tokens_per_page=120, token_jitter=10, concepts_per_page=4, n_concepts=64))
    pages = list(sc.pages(0, 6)) + [np.eye(128, dtype=np.float32)[:5]]   # a short page keeps its tokens
    tokens, offsets = pack_pages(pages)
    cents, c_off = page_centroids(tokens, offsets, n_centroids=8)
    assert list(np.diff(c_off)) == [8] * 6 + [5]
    np.testing.assert_allclose(np.linalg.norm(cents.astype(np.float32), axis=1), 1.0, atol=2e-3)
    np.testing.assert_allclose(cents[c_off[6]:], pages[6], atol=1e-3)
    # every concept of a page is captured by some centroid (cosine well above noise level)
    for i in range(6):
        best = (sc.concepts[sc.page_concepts(i)] @ cents[c_off[i]:c_off[i + 1]].astype(np.float32).T).max(axis=1)
        assert best.min() > 0.5, best


def test_two_stage_finds_the_planted_pages_exhaustive_finds(tmp_path):
    from docrag.index.store import PageIndex, SearchOptions

    spec = SyntheticSpec(tokens_per_page=100, token_jitter=20)
    sc = SyntheticCorpus(spec)
    n_pages = 200
    queries, targets = sc.queries(n_pages, 25)

    class Planted:
        name, kind, input = "planted", "multi", "none"

        def encode_pages(self, pages, show_progress=True):
            return [sc.page(int(p.page_no) - 1) for p in pages]

        def encode_queries(self, qs, show_progress=False):
            return [queries[int(q)] for q in qs]

        def describe(self):
            return {"retriever": "planted", "kind": "multi", "input": "none", "settings": {}}

    from docrag.types import Page

    pages = [Page(doc_id="syn", page_no=i + 1, width_pt=1, height_pt=1) for i in range(n_pages)]
    exact = PageIndex.in_memory(Planted(), pages, options=SearchOptions(mode="exact"))
    fast = PageIndex.in_memory(Planted(), pages, options=SearchOptions(mode="two-stage", n_candidates=20,
                                                                       first_stage=("centroids", "binary")))
    qids = [str(i) for i in range(len(queries))]
    ex = exact.search_batch(qids, k=10)
    ts = fast.search_batch(qids, k=10)
    want = [f"syn:{t + 1}" for t in targets]
    found_exact = [h[0].page_id == w for h, w in zip(ex, want, strict=True)]
    assert np.mean(found_exact) >= 0.95
    found_both = [h[0].page_id == w for h, w, ok in zip(ts, want, found_exact, strict=True) if ok]
    assert all(found_both)
    # reranked scores are exact: equal to exhaustive scores for the shared pages
    for a, b in zip(ex, ts, strict=True):
        exact_scores = {h.page_id: h.score for h in a}
        for h in b:
            if h.page_id in exact_scores:
                assert h.score == pytest.approx(exact_scores[h.page_id], rel=1e-5)
