"""First stages (codes, MUVERA), adaptive candidate rounds, approximate hits, the resampling generator and
the DataLoader encode path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from benchmarks.synthetic import ResampledCorpus, SyntheticCorpus, SyntheticSpec
from docrag.index.firststage import InvertedCodes, Muvera, build_codes, rerank_rounds, train_codebook
from docrag.index.maxsim import maxsim_scores, pack_pages
from docrag.index.store import PageIndex, SearchOptions, create_index
from docrag.types import Page

SPEC = SyntheticSpec(tokens_per_page=80, token_jitter=10, n_concepts=256, concepts_per_page=4, seed=3)


@pytest.fixture(scope="module")
def data():
    sc = SyntheticCorpus(SPEC)
    pages = list(sc.pages(0, 300))
    tokens, offsets = pack_pages(pages)
    queries, targets = sc.queries(300, 12)
    return pages, tokens, offsets, queries, targets


def test_rounds_stop_early_when_the_first_stage_separates_and_grow_when_it_is_flat():
    rng = np.random.default_rng(0)
    exact_scores = rng.random(5000).astype(np.float32)
    calls = []

    def exact(pos):
        calls.append(len(pos))
        return exact_scores[pos]

    pos, sc, rounds = rerank_rounds(exact_scores + 0.001, exact, 10, 100, 100, 3000)   # informative
    assert len(pos) == 200 and rounds == 2        # round 2 changed nothing in the top-10
    assert set(pos[np.argsort(-sc)[:10]]) == set(np.argsort(-exact_scores)[:10])
    flat = rng.random(5000).astype(np.float32)                                         # uninformative
    pos, _, rounds = rerank_rounds(flat, exact, 10, 100, 100, 3000)
    assert len(pos) > 500 and len(pos) <= 3000 and rounds > 5
    pos, _, _ = rerank_rounds(flat, exact, 10, 64, 64, 64)                             # fixed
    assert len(pos) == 64
    whole, s, _ = rerank_rounds(flat, exact, 10, 1000, 1000, 10**6)                    # covers all: exact
    assert set(whole[np.argsort(-s)[:10]]) == set(np.argsort(-exact_scores)[:10])


def test_code_scores_equal_brute_force_centroid_interaction(data):
    _, tokens, offsets, queries, _ = data
    book, page_codes, c_off = build_codes(tokens, offsets, n_coarse=8, n_fine=8)
    assert book.shape == (64, tokens.shape[1]) and page_codes.dtype == np.uint16
    inv = InvertedCodes(page_codes, c_off, len(book))
    got = inv.scores(queries[:4], book, nprobe=len(book))     # every code probed: exact interaction
    b32 = book.astype(np.float32)
    for qi, q in enumerate(queries[:4]):
        sim = q @ b32.T
        want = [sim[:, page_codes[c_off[i]:c_off[i + 1]]].max(axis=1).sum() for i in range(len(c_off) - 1)]
        np.testing.assert_allclose(got[qi], want, rtol=1e-4, atol=1e-3)
    probed = inv.scores(queries[:4], book, nprobe=4)          # fewer probes: an estimate from above
    assert (probed >= got - 1e-3).all()


def test_muvera_encodings_rank_the_planted_page_high(data):
    _, tokens, offsets, queries, targets = data
    m = Muvera(tokens.shape[1], reps=8, k_sim=3, d_proj=16)
    fde = m.pages(tokens, offsets)
    assert fde.shape == (len(offsets) - 1, m.dims)
    approx = m.queries(queries) @ fde.T
    exact = maxsim_scores(queries, tokens, offsets)
    top20 = [t in np.argsort(-row)[:20] for row, t in zip(approx, targets, strict=True)]
    assert np.mean(top20) >= 0.9
    corr = np.mean([np.corrcoef(a, e)[0, 1] for a, e in zip(approx, exact, strict=True)])
    assert corr > 0.25          # random encodings give ~0


class _Planted:
    name, kind, input = "planted", "multi", "none"

    def __init__(self, pages, queries):
        self.pages, self.queries = pages, queries

    def encode_pages(self, pages, show_progress=False):
        return [self.pages[p.page_no - 1] for p in pages]

    def encode_queries(self, queries, show_progress=False):
        return [self.queries[int(q)] for q in queries]

    def describe(self):
        return {"retriever": self.name, "kind": self.kind, "input": self.input, "settings": {}}


@pytest.mark.slow
@pytest.mark.parametrize("first_stage", [("codes",), ("centroids",), ("muvera",)])
def test_two_stage_hits_say_approximate_and_exact_switch_matches_exhaustive(data, first_stage):
    pages, tokens, offsets, queries, _ = data
    recs = [Page(doc_id="d", page_no=i + 1, width_pt=1, height_pt=1) for i in range(len(pages))]
    r = _Planted(pages, queries)
    fast = PageIndex.in_memory(r, recs, options=SearchOptions(mode="two-stage", first_stage=first_stage,
                                                               n_candidates=32, max_candidates=128))
    exact = PageIndex.in_memory(r, recs, options=SearchOptions(mode="exact", first_stage=first_stage))
    auto = PageIndex.in_memory(r, recs, options=SearchOptions(first_stage=first_stage))   # 300 <= 2048: exact
    overlap = []
    for qi in range(len(queries)):
        h_fast, h_exact = fast.search(str(qi), k=10), exact.search(str(qi), k=10)
        assert all(h.approximate for h in h_fast) and h_fast[0].to_json()["approximate"] is True
        assert not any(h.approximate for h in h_exact) and "approximate" not in h_exact[0].to_json()
        assert 32 <= fast.last_search["reranked"][0] <= 128 and fast.last_search["approximate"]
        assert [h.page_id for h in auto.search(str(qi), k=10)] == [h.page_id for h in h_exact]
        assert auto.last_search["mode"] == "exact"
        want = np.argsort(-maxsim_scores([queries[qi]], tokens, offsets)[0], kind="stable")[:10]
        assert [h.page_no - 1 for h in h_exact] == list(want)
        overlap.append(len({h.page_id for h in h_fast} & {h.page_id for h in h_exact}) / 10)
    assert np.mean(overlap) >= 0.8


@pytest.mark.slow
def test_codes_stage_is_stored_trained_once_reused_by_new_segments_and_retrained_on_compaction(data, tmp_path):
    pages, tokens, offsets, queries, _ = data
    r = _Planted(pages, queries)
    recs = [Page(doc_id=f"d{i // 100}", page_no=i + 1, width_pt=1, height_pt=1) for i in range(len(pages))]
    opts = SearchOptions(mode="two-stage", first_stage=("codes",), n_candidates=32, max_candidates=128)
    idx = create_index(r, tmp_path / "ix", None, opts)
    idx.add(recs[:100])                      # first build: trains the codebook on these pages
    idx.add(recs[100:])                      # later documents: encoded with the same codebook
    assert len(idx.segments) == 2 and idx.manifest["first_stage"] == ["codes"]
    first, second = (tmp_path / "ix" / "segments" / s.name for s in idx.segments)
    for seg_dir in (first, second):
        assert {"codebook.npy", "page_codes.npy", "code_offsets.npy"} <= {f.name for f in seg_dir.iterdir()}
    book = np.load(first / "codebook.npy")
    np.testing.assert_array_equal(np.load(second / "codebook.npy"), book)
    np.testing.assert_array_equal(book, train_codebook(tokens[: offsets[100]]))
    again = PageIndex.load(r, tmp_path / "ix", None, SearchOptions(mode="two-stage", n_candidates=32,
                                                                   max_candidates=128))
    assert again.options.first_stage == ("codes",)
    overlap = []
    for qi in range(6):
        hits = again.search(str(qi), k=10)
        assert hits and all(h.approximate for h in hits) and again.last_search["first_stage"] == ["codes"]
        want = np.argsort(-maxsim_scores([queries[qi]], tokens, offsets)[0], kind="stable")[:10]
        overlap.append(len({h.page_no - 1 for h in hits} & set(want.tolist())) / 10)
    assert np.mean(overlap) >= 0.8
    assert again.delete("d1") == 100         # removal drops pages, the codebook stays
    assert all(h.doc_id != "d1" for h in again.search("0", k=300))
    np.testing.assert_array_equal(again.segments[-1].codebook, book)
    again.compact()                          # a rewrite retrains on the live pages
    assert len(again.segments) == 1
    live = np.concatenate([tokens[: offsets[100]], tokens[offsets[200]:]])
    np.testing.assert_array_equal(np.asarray(again.segments[0].codebook), train_codebook(live))
    assert all(h.doc_id != "d1" for h in again.search("3", k=300))


def test_resampled_corpus_keeps_real_pages_and_is_deterministic(data):
    pages, tokens, offsets, _, _ = data
    rc = ResampledCorpus(tokens[: offsets[50]], offsets[:51], n_coarse=4, n_fine=8)
    np.testing.assert_allclose(rc.page(3), pages[3], atol=2e-3)        # real pages first (fp16 storage)
    a, b = rc.page(120), ResampledCorpus(tokens[: offsets[50]], offsets[:51], n_coarse=4, n_fine=8).page(120)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    assert 0 < len(a) <= max(np.diff(offsets[:51])) and rc.page_length(120) == len(a)
    assert not np.allclose(rc.page(120)[:5], rc.page(121)[:5])
    # the resampled tokens stay near the real ones: best cosine to a real token is high
    best = (a @ tokens[: offsets[50]].astype(np.float32).T).max(axis=1)
    assert np.median(best) > 0.5


def test_encode_pages_through_dataloader_workers_matches_in_process(tmp_path):
    pytest.importorskip("colpali_engine")
    import docrag.index as di
    from tests.support.index_corpus import FINANCE_DOCS, make_corpus
    from tests.support.tiny_colmodels import build_tiny_colmodel

    path = build_tiny_colmodel("colqwen2", tmp_path / "colqwen2")
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    pages = list(corpus.pages())[:3]
    plain = di.get_retriever(f"colqwen2:{path}", device="cpu", batch_size=1)
    assert plain.loader_workers == 0                                    # CPU default: no workers
    workers = di.get_retriever(f"colqwen2:{path}", device="cpu", batch_size=1, loader_workers=2)
    batches = list(workers._page_batches(pages))
    assert len(batches) == 3 and isinstance(batches[0][1], dict)        # came through the DataLoader
    for a, b in zip(plain.encode_pages(pages, show_progress=False), workers.encode_pages(pages, show_progress=False),
                    strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("mode", ["exact", "two-stage", "auto"])
def test_cuda_index_gives_the_cpu_index_hits(data, mode):
    """The GPU path (tokens and centroids resident on the device, reduction there) ranks as the CPU."""
    pages, _, _, queries, _ = data
    recs = [Page(doc_id="d", page_no=i + 1, width_pt=1, height_pt=1) for i in range(len(pages))]
    r = _Planted(pages, queries)
    # max_candidates < pages: on CPU auto would search two-stage; on the GPU it stays exact
    opts = dict(mode=mode, first_stage=("centroids",), n_candidates=32, max_candidates=128)
    cpu = PageIndex.in_memory(r, recs, options=SearchOptions(**{**opts, "mode": "exact" if mode == "auto" else mode}))
    gpu = PageIndex.in_memory(r, recs, options=SearchOptions(device="cuda", **opts))
    for qi in range(len(queries)):
        h_cpu, h_gpu = cpu.search(str(qi), k=10), gpu.search(str(qi), k=10)
        assert h_gpu[0].page_id == h_cpu[0].page_id
        assert gpu.last_search["approximate"] == (mode == "two-stage")
        cpu_score = {h.page_id: h.score for h in h_cpu}
        common = [h for h in h_gpu if h.page_id in cpu_score]
        assert len(common) >= 8
        np.testing.assert_allclose([h.score for h in common], [cpu_score[h.page_id] for h in common],
                                   rtol=2e-2, atol=5e-2)
