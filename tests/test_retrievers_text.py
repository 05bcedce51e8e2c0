"""BM25, MiniLM and their hybrid on the real development corpus: gold pages are retrieved.

Floors are set just under what was measured (BENCHMARKS.md, "Search"): bm25 R@1 0.864 / R@3 1.0,
minilm R@1 0.955 / R@3 1.0, hybrid:bm25+minilm R@1 0.909 / R@3 1.0 on the 22 questions.
"""

from __future__ import annotations

import pytest

import docrag.index as di


@pytest.fixture(scope="module")
def corpus(dev_corpus_dir, tmp_path_factory):
    """A private copy of the ingested dev corpus (indexes are written into it)."""
    import shutil

    from docrag.corpus import Corpus

    root = tmp_path_factory.mktemp("text-retrievers") / "corpus"
    shutil.copytree(dev_corpus_dir, root)
    return Corpus.open(root)


def _recall(corpus, qa_records, index, k: int) -> float:
    results = index.search_batch([r["question"] for r in qa_records], k=k)
    total = 0.0
    for rec, hits in zip(qa_records, results, strict=True):
        (doc,) = corpus.find_documents(rec["doc"])
        gold = {f"{doc.doc_id}:{p}" for p in rec["pages"]}
        total += len(gold & {h.page_id for h in hits}) / len(gold)
    return total / len(qa_records)


@pytest.mark.parametrize(("name", "floor_r1", "floor_r3"), [
    ("bm25", 0.80, 0.95),
    ("minilm", 0.90, 0.95),
    ("hybrid:bm25+minilm", 0.85, 0.95),
    ("lang-hybrid:bm25+minilm", 0.90, 0.95),
])
def test_gold_pages_are_retrieved(name, floor_r1, floor_r3, corpus, qa_records):
    idx = di.open_index(corpus, name, show_progress=False)   # the hybrid reuses the bm25 and minilm indexes
    assert len(idx) == len(corpus.page_ids())
    r1 = _recall(corpus, qa_records, idx, 1)
    r3 = _recall(corpus, qa_records, idx, 3)
    assert r1 >= floor_r1, f"{name} Recall@1 {r1:.3f} < {floor_r1}"
    assert r3 >= floor_r3, f"{name} Recall@3 {r3:.3f} < {floor_r3}"


def test_dummy_is_far_below_real_retrievers(corpus, qa_records):
    idx = di.open_index(corpus, "dummy", show_progress=False)
    assert _recall(corpus, qa_records, idx, 1) < 0.5      # the floors above are not a formality


def test_bm25_tokenizer_english_numbers_and_chinese():
    from docrag.index.bm25 import tokenize

    assert tokenize("The Arrests of 11,062 persons in 2009") == ["arrest", "11062", "person", "2009"]
    assert tokenize("总收入", "bigram") == ["总", "收", "入", "总收", "收入"]
    assert tokenize("公司总收入增长") == ["公司", "收入", "总收入", "增长"]   # jieba search mode, the default
