"""Persistent indexes: build, search, filters, incremental updates, crash safety, stale corpora."""

from __future__ import annotations

import json

import numpy as np
import pytest

import docrag.index as di
from docrag.errors import DocragError, UnknownNameError
from docrag.index import store as store_mod
from docrag.index.hybrid import RRF_K, fuse
from docrag.registry import Entry
from docrag.types import Hit
from tests.support.index_corpus import FINANCE_DOCS, add_text_document, make_corpus


@pytest.fixture()
def corpus(tmp_path):
    return make_corpus(tmp_path / "corpus", FINANCE_DOCS)


class CountingRetriever(di.Retriever):
    """A dense retriever that counts encoded pages (bag of hashed words, deterministic)."""

    kind = "dense"

    def __init__(self) -> None:
        self.name = "counting"
        self.encoded: list[str] = []

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(32, np.float32)
        for w in text.lower().split():
            v[sum(map(ord, w)) % 32] += 1
        return v / max(np.linalg.norm(v), 1e-6)

    def encode_pages(self, pages, show_progress=True):
        self.encoded += [p.page_id for p in pages]
        return [self._vec(p.text) for p in pages]

    def encode_queries(self, queries, show_progress=False):
        return [self._vec(q) for q in queries]


def test_bm25_index_is_built_in_the_corpus_and_finds_english_and_chinese(corpus):
    idx = di.open_index(corpus, "bm25", show_progress=False)
    assert idx.dir == corpus.root / "indexes" / "bm25"
    manifest = json.loads((idx.dir / "manifest.json").read_text())
    assert manifest["retriever"] == "bm25" and manifest["corpus"]["fingerprint"] == corpus.fingerprint()
    assert sorted(manifest["page_ids"]) == sorted(corpus.page_ids())
    hits = idx.search("abrasives production", k=3)
    assert hits[0].page_id == "beta:1" and hits[0].rank == 1 and hits[0].retriever == "bm25"
    assert idx.search("总收入", k=1)[0].page_id == "gamma:1"
    assert idx.search("zebra unicorn", k=5) == []          # no shared term: no hits
    batch = idx.search_batch(["revenue 2011", "arrests"], k=2)
    assert [b[0].page_id for b in batch] == ["alpha:1", "beta:2"]


def test_filters_on_page_fields(corpus):
    idx = di.open_index(corpus, "bm25", show_progress=False)
    assert {h.page_id for h in idx.search("2011 2009 2010", k=10, filter={"doc_id": ["beta"]})} == {"beta:1", "beta:2"}
    assert [h.page_id for h in idx.search("revenue", k=5, filter={"lang": "zh"})] == []
    assert [h.page_id for h in idx.search("survey", k=5, filter={"file_name": "gamma.pdf", "page_no": [2]})] == \
        ["gamma:2"]
    with pytest.raises(DocragError, match="unknown filter field 'colour'"):
        idx.search("x", filter={"colour": "red"})


def test_update_encodes_only_new_pages_and_drops_deleted_documents(corpus, monkeypatch):
    made: list[CountingRetriever] = []

    def factory(arg, **opts):
        made.append(CountingRetriever())
        return made[-1]

    monkeypatch.setitem(di.RETRIEVERS._entries, "counting", Entry("counting", factory, False, "test retriever"))
    di.open_index(corpus, "counting", show_progress=False)
    assert sorted(made[0].encoded) == sorted(corpus.page_ids())
    add_text_document(corpus, "delta", ["Quarterly revenue table for 2012"])
    corpus.writer().remove("beta")
    corpus.refresh()
    with pytest.raises(di.IndexStateError, match="another state of corpus"):
        di.open_index(corpus, "counting", build=False)
    idx = di.open_index(corpus, "counting", show_progress=False)
    assert made[-1].encoded == ["delta:1"]                   # only the new page was encoded
    assert sorted(idx.page_ids) == sorted(corpus.page_ids())
    assert not any(h.doc_id == "beta" for h in idx.search("arrests abrasives", k=10))
    reopened = di.open_index(corpus, "counting", build=False)  # up to date: loads without building
    assert made[-1].encoded == [] and len(reopened) == len(corpus.page_ids())


def test_crash_during_update_leaves_previous_index_loadable(corpus, monkeypatch):
    idx = di.open_index(corpus, "bm25", show_progress=False)
    before = idx.search("abrasives", k=3)
    add_text_document(corpus, "delta", ["abrasives abrasives abrasives market"])
    corpus.refresh()

    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store_mod, "atomic_write_json", crash)
    with pytest.raises(OSError, match="disk full"):
        di.open_index(corpus, "bm25", show_progress=False)
    monkeypatch.undo()
    old = store_mod.PageIndex.load(di.get_retriever("bm25"), idx.dir, corpus.page, store_mod.SearchOptions())
    assert old.search("abrasives", k=3) == before and "delta:1" not in old.page_ids
    updated = di.open_index(corpus, "bm25", show_progress=False)   # the next run completes the update
    assert updated.search("abrasives", k=1)[0].page_id == "delta:1"
    assert len(list((idx.dir / "segments").iterdir())) == len(updated.manifest["segments"])  # garbage removed


def test_index_of_another_retriever_or_settings_is_refused(corpus, tmp_path):
    di.open_index(corpus, "bm25", index_dir=tmp_path / "ix", show_progress=False)
    with pytest.raises(di.IndexStateError, match="built by retriever 'bm25'"):
        di.open_index(corpus, "dummy", index_dir=tmp_path / "ix")
    di.open_index(corpus, "minilm", index_dir=tmp_path / "mini", show_progress=False, chunk_words=8)
    with pytest.raises(di.IndexStateError, match="settings"):
        di.open_index(corpus, "minilm", index_dir=tmp_path / "mini", chunk_words=16)
    rebuilt = di.open_index(corpus, "minilm", index_dir=tmp_path / "mini", chunk_words=16, rebuild=True,
                            show_progress=False)
    assert rebuilt.manifest["settings"]["chunk_words"] == 16
    with pytest.raises(di.IndexStateError, match="no dummy index"):
        di.open_index(corpus, "dummy", index_dir=tmp_path / "none", build=False)


def test_bm25_index_of_an_older_tokenizer_is_rebuilt_when_opened_for_building(corpus, tmp_path, caplog):
    """An upgrade that changes BM25's terms must not break ``docrag ask``: the sparse index is rebuilt
    from the corpus (seconds); a read-only open still refuses it."""
    ix = tmp_path / "ix"
    di.open_index(corpus, "bm25", index_dir=ix, show_progress=False)
    path = ix / "manifest.json"
    manifest = json.loads(path.read_text())
    current = dict(manifest["settings"])
    manifest["settings"]["tokenizer"] = "0"
    path.write_text(json.dumps(manifest))
    with pytest.raises(di.IndexStateError, match="settings"):
        di.open_index(corpus, "bm25", index_dir=ix, build=False)
    with caplog.at_level("WARNING"):
        idx = di.open_index(corpus, "bm25", index_dir=ix, show_progress=False)
    assert "rebuilding it" in caplog.text
    assert json.loads(path.read_text())["settings"] == current
    assert idx.search("abrasives production", k=1)[0].page_id == "beta:1"
    assert sorted(idx.manifest["page_ids"]) == sorted(corpus.page_ids())


def test_unknown_retriever_lists_valid_names():
    with pytest.raises(UnknownNameError) as err:
        di.get_retriever("colbertx")
    for family in ("bm25", "minilm", "colqwen2", "hybrid", "dummy"):
        assert family in str(err.value)
    assert "colqwen2:<model id or path>" in di.available_retrievers()
    with pytest.raises(DocragError, match="does not take option"):
        di.get_retriever("bm25", pool_factor=2)


def test_dummy_is_deterministic_and_in_memory_index_matches(corpus):
    a = di.open_index(corpus, "dummy", show_progress=False).search("what is revenue?", k=6)
    b = di.get_retriever("dummy").index(corpus.pages()).search("what is revenue?", k=6)
    assert [(h.page_id, round(h.score, 5)) for h in a] == [(h.page_id, round(h.score, 5)) for h in b]
    assert len(a) == 6 and [h.rank for h in a] == list(range(1, 7))


def test_reciprocal_rank_fusion():
    a = [Hit("x:1", 9, 1), Hit("x:2", 8, 2)]
    b = [Hit("x:2", 0.9, 1), Hit("x:3", 0.8, 2)]
    fused = fuse([a, b], k=3, name="hybrid:a+b")
    assert [h.page_id for h in fused] == ["x:2", "x:1", "x:3"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))


def test_hybrid_reuses_part_indexes(corpus):
    idx = di.open_index(corpus, "hybrid:bm25+dummy", show_progress=False)
    assert (corpus.root / "indexes" / "bm25" / "manifest.json").exists()
    assert (corpus.root / "indexes" / "dummy" / "manifest.json").exists()
    hits = idx.search("abrasives production", k=4)
    assert hits[0].retriever == "hybrid:bm25+dummy" and len(hits) == 4
    assert "beta:1" in [h.page_id for h in hits[:2]]
