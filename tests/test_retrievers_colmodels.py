"""Tiny random-weight ColQwen2 / ColQwen2.5 / ColQwen3 / ColQwen3.5 / ColSmol / ColPali retrievers, built offline,
through the registry: index, search, reload, add, delete (no GPU, no hub)."""

from __future__ import annotations

import numpy as np
import pytest

import docrag.index as di
from docrag.errors import DocragError
from tests.support.index_corpus import FINANCE_DOCS, add_text_document, make_corpus
from tests.support.synthetic_corpus import SURVEY
from tests.support.tiny_colmodels import build_tiny_colmodel

pytest.importorskip("colpali_engine")
FAMILIES = ["colqwen2", "colqwen2.5", "colsmol", "colpali", "colqwen3", "colqwen3.5"]
DIMS = {"colqwen3": 320}   # ColQwen3 projects to 320 dims; the others to 128
QUERIES = ["What was the total revenue in 2011?", "arrests by offense", "总收入是多少"]


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-colmodels")
    return {fam: build_tiny_colmodel(fam, root / fam.replace(".", "_")) for fam in FAMILIES}


@pytest.mark.parametrize("family", FAMILIES)
def test_index_search_reload_add_delete(family, tiny_models, tmp_path):
    import torch

    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    name = f"{family}:{tiny_models[family]}"
    idx = di.open_index(corpus, name, show_progress=False)
    assert idx.kind == "multi" and idx.manifest["dims"] == DIMS.get(family, 128)
    assert idx.manifest["dtype"] == "float16"
    assert idx.manifest["architecture"] == {"colqwen2": "ColQwen2", "colqwen2.5": "ColQwen2_5",
                                            "colsmol": "ColIdefics3", "colpali": "ColPali", "colqwen3": "ColQwen3",
                                            "colqwen3.5": "ColQwen3_5"}[family]
    hits = idx.search_batch(QUERIES, k=6)
    assert all(len(h) == 6 and h[0].retriever == name for h in hits)

    # scores equal colpali-engine's own scoring of the same pages (fp16 storage tolerance)
    retriever = idx.retriever
    pages = corpus.pages()
    page_emb = [torch.from_numpy(e) for e in retriever.encode_pages(pages, show_progress=False)]
    query_emb = [torch.from_numpy(e) for e in retriever.encode_queries(QUERIES)]
    theirs = retriever.processor.score_multi_vector(query_emb, page_emb, device="cpu").numpy()
    order = {p.page_id: i for i, p in enumerate(pages)}
    for qi, qhits in enumerate(hits):
        got = np.array([h.score for h in qhits])
        np.testing.assert_allclose(got, theirs[qi, [order[h.page_id] for h in qhits]], rtol=2e-3, atol=2e-3)
        assert np.all(np.diff(got) <= 1e-6)

    reloaded = di.open_index(corpus, name, build=False)
    assert [[h.page_id for h in q] for q in reloaded.search_batch(QUERIES, k=6)] == \
        [[h.page_id for h in q] for q in hits]

    add_text_document(corpus, "delta", ["Quarterly revenue table for 2012", "Notes to the table"])
    corpus.writer().remove("beta")
    corpus.refresh()
    updated = di.open_index(corpus, name, show_progress=False)
    assert sorted(updated.page_ids) == sorted(corpus.page_ids())
    new_hits = updated.search(QUERIES[0], k=10)
    assert {h.doc_id for h in new_hits} == {"alpha", "gamma", "delta"}
    assert len(updated.segments) == 2                           # the old pages were not re-encoded


def test_config_picks_the_classes_and_a_wrong_family_is_named(tiny_models):
    with pytest.raises(DocragError, match=r"ColQwen2_5 checkpoint.*colqwen2\.5:"):
        di.get_retriever(f"colqwen2:{tiny_models['colqwen2.5']}")
    with pytest.raises(DocragError, match="'nobody/no-such-model' is not in the local Hugging Face cache.*"
                                          "HF_HUB_OFFLINE=0"):
        di.get_retriever("colpali:nobody/no-such-model")          # offline: hub cache miss, clear message
    with pytest.raises(DocragError, match="no config.json"):
        di.get_retriever(f"colsmol:{tiny_models['colsmol'].parent}")
    r = di.get_retriever(f"colqwen2.5:{tiny_models['colqwen2.5']}", device="cpu")
    assert r.classes.model == "ColQwen2_5" and r.input == "image" and r.describe()["dtype"] == "float32"


def test_token_pooling_and_binary_first_stage(tiny_models, tmp_path):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    name = f"colqwen2:{tiny_models['colqwen2']}"
    plain = di.open_index(corpus, name, index_dir=tmp_path / "plain", show_progress=False)
    pooled = di.open_index(corpus, name, index_dir=tmp_path / "pooled", pool_factor=3, binarize=True,
                           show_progress=False)
    n_plain, n_pooled = plain.segments[0].tokens.shape[0], pooled.segments[0].tokens.shape[0]
    assert n_pooled < n_plain / 2
    assert pooled.manifest["settings"]["pool_factor"] == 3 and "binary" in pooled.manifest["first_stage"]
    assert pooled.segments[0].bits.shape == (n_pooled, 16)
    with pytest.raises(di.IndexStateError, match="settings"):
        di.open_index(corpus, name, index_dir=tmp_path / "pooled", pool_factor=1)  # differs from the index
    reopened = di.open_index(corpus, name, index_dir=tmp_path / "pooled", build=False)  # settings adopted
    assert reopened.retriever.pool_factor == 3
    assert [h.page_id for h in reopened.search("revenue", k=3)] == [h.page_id for h in pooled.search("revenue", k=3)]


def test_single_vector_bi_model_uses_faiss_and_matches_numpy(tmp_path):
    pytest.importorskip("faiss")
    path = build_tiny_colmodel("biqwen2", tmp_path / "biqwen2")
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    idx = di.open_index(corpus, f"bi:{path}", show_progress=False)
    assert idx.kind == "dense" and idx.manifest["architecture"] == "BiQwen2"
    vecs = np.stack([np.asarray(v) for v in idx.segments[0].vectors])
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    fast = idx.search_batch(QUERIES, k=4)                                     # FAISS
    slow = idx.search_batch(QUERIES, k=4, filter={"doc_id": corpus.doc_ids()})  # numpy path
    for a, b in zip(fast, slow, strict=True):
        assert [h.page_id for h in a] == [h.page_id for h in b]
        np.testing.assert_allclose([h.score for h in a], [h.score for h in b], rtol=1e-4, atol=1e-5)
    with pytest.raises(DocragError, match="does not take option"):
        di.get_retriever(f"bi:{path}", pool_factor=2)


def test_colqwen2_on_the_ingested_synthetic_corpus(tiny_models, synthetic_corpus, tmp_path):
    name = f"colqwen2:{tiny_models['colqwen2']}"
    idx = di.open_index(synthetic_corpus, name, index_dir=tmp_path / "ix", show_progress=False)
    assert sorted(idx.page_ids) == sorted(synthetic_corpus.page_ids())
    (survey,) = synthetic_corpus.find_documents(SURVEY)
    hits = idx.search("share of households reporting a loss", k=20, filter={"doc_id": [survey.doc_id]})
    assert len(hits) == survey.n_pages == 4 and {h.doc_id for h in hits} == {survey.doc_id}
    again = di.open_index(synthetic_corpus, name, index_dir=tmp_path / "ix", build=False)
    assert [h.page_id for h in again.search("loss", k=5)] == [h.page_id for h in idx.search("loss", k=5)]
