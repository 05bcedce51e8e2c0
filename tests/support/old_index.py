"""Index folders written by an earlier docrag (on-disk format ``docrag.index`` v1), kept in
``tests/fixtures/index_v1`` so a change of the index code is checked against indexes users already have.

``python -m tests.support.old_index`` rewrites the fixture: a ``bm25`` (sparse), a ``dummy`` (dense) and
a ``hashed-multi`` (multi-vector, with centroid, binary and MUVERA first stages) index of the synthetic
``FINANCE_DOCS`` corpus, plus ``expected.json``: the hits the code that wrote them returned for
:data:`QUERIES` (the multi-vector index exactly and two-stage). Only rewrite it for a deliberate change of
the on-disk format.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from docrag.index.base import Retriever
from docrag.types import Page

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "index_v1"
QUERIES = ["total revenue 2011", "arrests by offense category", "abrasives production", "总收入",
           "household survey results", "employee salaries"]
MULTI_OPTIONS = {"first_stage": ("centroids", "binary", "muvera"), "n_centroids": 2}
TWO_STAGE = {"mode": "two-stage", "n_candidates": 2, "max_candidates": 4}
DIM = 16


def _word_vector(word: str) -> np.ndarray:
    v = np.random.default_rng(zlib.crc32(word.encode("utf-8"))).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


class HashedMultiRetriever(Retriever):
    """A deterministic multi-vector retriever without a model: one hashed unit vector per word."""

    kind = "multi"
    input = "text"

    def __init__(self) -> None:
        self.name = "hashed-multi"

    @staticmethod
    def _tokens(text: str) -> np.ndarray:
        words = text.lower().split() or ["<empty>"]
        return np.stack([_word_vector(w) for w in words])

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        return [self._tokens(p.text or "") for p in pages]

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        return [self._tokens(q) for q in queries]

    def describe(self) -> dict:
        return {**super().describe(), "model": "hashed-words", "dims": DIM}


def fixture_retrievers() -> dict[str, Retriever]:
    """The retriever of each fixture index, by folder name."""
    import docrag.index as di

    return {"bm25": di.get_retriever("bm25"), "dummy": di.get_retriever("dummy"), "multi": HashedMultiRetriever()}


def hit_rows(hits) -> list[list]:
    return [[h.page_id, round(float(h.score), 4), h.rank, bool(h.approximate)] for h in hits]


def build(out: Path = FIXTURE) -> None:
    from docrag.index.store import PageIndex, SearchOptions, create_index
    from tests.support.index_corpus import FINANCE_DOCS, make_corpus

    with tempfile.TemporaryDirectory() as tmp:
        corpus = make_corpus(Path(tmp) / "corpus", FINANCE_DOCS)
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        expected: dict[str, dict] = {}
        for folder, retriever in fixture_retrievers().items():
            opts = SearchOptions(**MULTI_OPTIONS) if retriever.kind == "multi" else SearchOptions()
            idx = create_index(retriever, out / folder, corpus.page, opts)
            idx.sync(corpus, show_progress=False)
            idx.finish_rebuild()
            (out / folder / ".lock").unlink(missing_ok=True)
            expected[folder] = {"exact": [hit_rows(h) for h in idx.search_batch(QUERIES, k=4)]}
            if retriever.kind == "multi":
                two = PageIndex.load(retriever, out / folder, None, SearchOptions(**TWO_STAGE))
                expected[folder]["two-stage"] = [hit_rows(h) for h in two.search_batch(QUERIES, k=4)]
        lines = [f"  {json.dumps(f'{folder}/{mode}')}: [\n" + ",\n".join(
                    f"    {json.dumps(rows, ensure_ascii=False)}" for rows in per_query) + "\n  ]"
                 for folder, modes in expected.items() for mode, per_query in modes.items()]
        (out / "expected.json").write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    build()
