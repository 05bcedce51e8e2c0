"""Measured on the real development corpus (../shared/corpus; deselected when absent): BM25, MiniLM and
their hybrids retrieve the gold pages of its 22 questions.

Floors are set just under what was measured (BENCHMARKS.md, "Search"): bm25 R@1 0.864 / R@3 1.0,
minilm R@1 0.955 / R@3 1.0, hybrid:bm25+minilm R@1 0.818 / R@3 1.0 on the 22 questions (0.909 before BM25
indexed adjacent-term pairs, which raised bm25's R@1 on the real dev set's 316 seen questions from 71.8 to
75.3; BENCHMARKS.md "Default retriever on the real dev set"). The same
retrievers on the synthetic corpus: ``test_retrievers_text.py``.
"""

from __future__ import annotations

import shutil

import pytest

import docrag.index as di
from tests.test_retrievers_text import recall

pytestmark = pytest.mark.real_corpus


@pytest.fixture(scope="module")
def corpus(dev_corpus_dir, tmp_path_factory):
    """A private copy of the ingested dev corpus (indexes are written into it)."""
    from docrag.corpus import Corpus

    root = tmp_path_factory.mktemp("real-text-retrievers") / "corpus"
    shutil.copytree(dev_corpus_dir, root)
    return Corpus.open(root)


@pytest.mark.parametrize(("name", "floor_r1", "floor_r3"), [
    ("bm25", 0.80, 0.95),
    pytest.param("minilm", 0.90, 0.95, marks=pytest.mark.slow),   # encodes the corpus with MiniLM
    ("hybrid:bm25+minilm", 0.80, 0.95),
    ("lang-hybrid:bm25+minilm", 0.90, 0.95),
])
def test_gold_pages_are_retrieved(name, floor_r1, floor_r3, corpus, qa_records):
    idx = di.open_index(corpus, name, show_progress=False)   # the hybrid reuses the bm25 and minilm indexes
    assert len(idx) == len(corpus.page_ids())
    r1 = recall(corpus, qa_records, idx, 1)
    r3 = recall(corpus, qa_records, idx, 3)
    assert r1 >= floor_r1, f"{name} Recall@1 {r1:.3f} < {floor_r1}"
    assert r3 >= floor_r3, f"{name} Recall@3 {r3:.3f} < {floor_r3}"


def test_dummy_is_far_below_real_retrievers(corpus, qa_records):
    idx = di.open_index(corpus, "dummy", show_progress=False)
    assert recall(corpus, qa_records, idx, 1) < 0.5      # the floors above are not a formality
