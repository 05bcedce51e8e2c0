"""One search interface: every index kind is a ``SearchIndex`` with the same hits shape; the hybrid is a
composed retriever (``open_index`` has no hybrid case); indexes written by the earlier store still open."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import docrag.index as di
from docrag.errors import DocragError
from docrag.index.bm25 import TOKENIZER_VERSION
from docrag.index.hybrid import HybridIndex, HybridRetriever
from docrag.index.rerank import RerankedIndex, Reranker
from docrag.index.search import ComposedRetriever, SearchIndex
from docrag.index.store import PageIndex, SearchOptions
from docrag.registry import Entry
from docrag.types import Hit
from tests.support.index_corpus import FINANCE_DOCS, add_text_document, make_corpus
from tests.support.old_index import FIXTURE, MULTI_OPTIONS, QUERIES, TWO_STAGE, HashedMultiRetriever, hit_rows

KINDS = ["bm25", "dummy", "multi", "multi-two-stage", "qdrant-dense", "qdrant-multi", "hybrid", "lang-hybrid",
         "reranked"]


class WordOverlap(Reranker):
    """Scores a page by how many query words its text holds (no model)."""

    name = "word-overlap"

    def score(self, query, pages, show_progress=False):
        words = set(query.lower().split())
        return [float(len(words & set((p.text or "").lower().split()))) for p in pages]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_corpus(tmp_path_factory.mktemp("search") / "corpus", FINANCE_DOCS)


@pytest.fixture()
def multi_entry(monkeypatch):
    """``hashed-multi`` as a registry name, so ``open_index`` can open multi-vector indexes of it."""
    monkeypatch.setitem(di.RETRIEVERS._entries, "hashed-multi",
                        Entry("hashed-multi", lambda arg, **o: HashedMultiRetriever(), False, "test retriever"))


def _open(kind: str, corpus, tmp_path):
    if kind in ("bm25", "dummy", "hybrid", "lang-hybrid"):
        name = {"hybrid": "hybrid:bm25+dummy", "lang-hybrid": "lang-hybrid:bm25+dummy"}.get(kind, kind)
        return di.open_index(corpus, name, index_dir=tmp_path / "ix", show_progress=False)
    if kind.startswith("multi"):
        opts = SearchOptions(**MULTI_OPTIONS, **(TWO_STAGE if kind == "multi-two-stage" else {}))
        return PageIndex.in_memory(HashedMultiRetriever(), list(corpus.pages()), options=opts)
    if kind.startswith("qdrant"):
        pytest.importorskip("qdrant_client")
        from docrag.index.qdrant_store import QdrantIndex, parse_store

        retriever = di.get_retriever("dummy") if kind == "qdrant-dense" else HashedMultiRetriever()
        idx = QdrantIndex(retriever, parse_store(f"qdrant:{tmp_path / 'qd'}"), kind, tmp_path / f"{kind}.json")
        idx.sync(corpus, show_progress=False)
        return idx
    assert kind == "reranked"
    return RerankedIndex(di.open_index(corpus, "bm25", index_dir=tmp_path / "ix", show_progress=False),
                         WordOverlap(), corpus.page, depth=4)


@pytest.mark.parametrize("kind", KINDS)
def test_every_index_kind_is_a_search_index_with_the_same_hits_shape(kind, corpus, tmp_path):
    from docrag.index.qdrant_store import close_clients

    try:
        idx = _open(kind, corpus, tmp_path)
        assert isinstance(idx, SearchIndex)
        assert len(idx) == 6 and sorted(idx.page_ids) == sorted(corpus.page_ids())
        batch = idx.search_batch(QUERIES, k=3)
        assert len(batch) == len(QUERIES) and any(batch)
        for hits in batch:
            assert all(isinstance(h, Hit) and isinstance(h.retriever, str) and h.retriever for h in hits)
            assert len(hits) <= 3 and [h.rank for h in hits] == list(range(1, len(hits) + 1))
            assert len({h.page_id for h in hits}) == len(hits) and {h.page_id for h in hits} <= set(idx.page_ids)
            scores = [h.score for h in hits]
            assert scores == sorted(scores, reverse=True)
            assert all(h.approximate for h in hits) == (kind == "multi-two-stage") or not hits
        one = idx.search(QUERIES[0], k=3)
        assert [(h.page_id, round(h.score, 5)) for h in one] == [(h.page_id, round(h.score, 5)) for h in batch[0]]
        beta = idx.search_batch(QUERIES, k=3, filter={"doc_id": ["beta"]})
        assert any(beta) and all(h.doc_id == "beta" for hits in beta for h in hits)
        assert idx.search_batch([], k=3) == [] and idx.search_batch(QUERIES[:2], k=0) == [[], []]
    finally:
        close_clients()


def test_hybrid_is_a_composed_retriever_without_payloads(corpus):
    hybrid = di.get_retriever("lang-hybrid:bm25+dummy")
    assert isinstance(hybrid, ComposedRetriever) and isinstance(hybrid, HybridRetriever)
    assert not isinstance(hybrid, di.Retriever) and not hasattr(hybrid, "encode_pages")
    assert not isinstance(di.get_retriever("bm25"), ComposedRetriever)
    assert [p["retriever"] for p in hybrid.describe()["parts"]] == ["bm25", "dummy"]
    in_memory = hybrid.index(list(corpus.pages()))
    opened = di.open_index(corpus, "lang-hybrid:bm25+dummy", show_progress=False)
    assert isinstance(in_memory, HybridIndex) and isinstance(opened, HybridIndex)
    assert [h.page_id for h in hybrid.search(QUERIES[1], list(corpus.pages()), k=4)] == \
        [h.page_id for h in opened.search(QUERIES[1], k=4)] == [h.page_id for h in in_memory.search(QUERIES[1], k=4)]
    with pytest.raises(DocragError, match="does not take option weights"):
        di.get_retriever("hybrid:bm25+dummy", weights="en=1:1")


def test_open_index_composes_any_composed_retriever(corpus, tmp_path, monkeypatch):
    """open_index knows no family names: a new composed family gets its parts' indexes opened for it."""

    class FirstPart:
        def __init__(self, arg):
            self.name, self.part = f"first:{arg}", arg

        def compose(self, open_part):
            return open_part(self.part)

        def index(self, pages, show_progress=False):
            return di.get_retriever(self.part).index(pages)

        def describe(self):
            return {"retriever": self.name, "kind": "composed"}

    monkeypatch.setitem(di.RETRIEVERS._entries, "first", Entry("first", FirstPart, True, "test composition"))
    idx = di.open_index(corpus, "first:bm25", index_dir=tmp_path / "ix", show_progress=False)
    assert isinstance(idx, PageIndex) and idx.dir == tmp_path / "ix" / "bm25"
    assert idx.search("abrasives production", k=1)[0].page_id == "beta:1"


@pytest.mark.parametrize("folder,name", [("bm25", "bm25"), ("dummy", "dummy"), ("multi", "hashed-multi")])
def test_index_written_by_the_earlier_store_opens_searches_and_grows(folder, name, tmp_path, multi_entry):
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    shutil.copytree(FIXTURE / folder, corpus.root / "indexes" / name)
    if name == "bm25":   # written by BM25 tokenizer 1 (no phrase pairs): its terms are not today's
        with pytest.raises(di.IndexStateError, match="tokenizer"):
            di.open_index(corpus, name, build=False)
        rebuilt = di.open_index(corpus, name, show_progress=False)   # opened for building: rebuilt at once
        assert rebuilt.manifest["settings"]["tokenizer"] == TOKENIZER_VERSION and len(rebuilt) == len(corpus.page_ids())
        assert rebuilt.search("abrasives production", k=1)[0].page_id == "beta:1"
        return
    old = di.open_index(corpus, name, build=False)          # same corpus state: opens without building
    assert isinstance(old, PageIndex) and len(old.segments) == 1
    assert [hit_rows(h) for h in old.search_batch(QUERIES, k=4)] == expected[f"{folder}/exact"]
    fresh = di.open_index(corpus, name, index_dir=tmp_path / "fresh", show_progress=False, **(
        {"first_stage": MULTI_OPTIONS["first_stage"], "n_centroids": 2} if folder == "multi" else {}))
    assert [hit_rows(h) for h in fresh.search_batch(QUERIES, k=4)] == expected[f"{folder}/exact"]
    if folder == "multi":
        seg_old, seg_new = old.segments[0], fresh.segments[0]
        assert seg_old.first_stages() == seg_new.first_stages() == ["centroids", "binary", "muvera"]
        for attr in ("tokens", "offsets", "centroids", "centroid_offsets", "bits", "fde"):
            np.testing.assert_array_equal(getattr(seg_old, attr), getattr(seg_new, attr))
        two = di.open_index(corpus, name, build=False, search_mode="two-stage", n_candidates=2, max_candidates=4)
        assert [hit_rows(h) for h in two.search_batch(QUERIES, k=4)] == expected["multi/two-stage"]
    add_text_document(corpus, "delta", ["Quarterly revenue and abrasives table for 2012"])
    corpus.refresh()
    grown = di.open_index(corpus, name, show_progress=False)   # the new code adds a segment to the old index
    assert len(grown.segments) == 2 and len(grown) == 7 and "delta:1" in grown.page_ids
    assert "delta:1" in [h.page_id for h in grown.search("quarterly revenue abrasives 2012", k=7)]
