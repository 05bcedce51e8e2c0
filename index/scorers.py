"""Scorers of the embedded index: one class per payload kind, chosen once when an index opens.

A scorer packs a retriever's payloads into a :class:`~docrag.index.segments.Segment` (and reads one
page's payload back, for compaction) and ranks the live pages of the index's segments for encoded
queries:

* :class:`SparseScorer` -- BM25 (bm25s) over the pages' terms; pages sharing no term are not hits;
* :class:`DenseScorer` -- inner product of unit vectors (FAISS when installed, else numpy);
* :class:`~docrag.index.scorer_multi.MultiVectorScorer` -- MaxSim, exact or two-stage.

The storage (:class:`docrag.index.store.PageIndex`) calls :meth:`Scorer.attach` after every commit:
scorers keep what they derive from the segments (a BM25 model, a dense matrix, a FAISS index) until then.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from docrag.index.segments import SearchOptions, Segment
from docrag.types import Hit

log = logging.getLogger(__name__)

#: (segment index, row, page id) of each live page, in index order
Live = list[tuple[int, int, str]]


class Scorer:
    """Ranks the live pages of some segments for encoded queries (one subclass per payload kind)."""

    kind: ClassVar[str] = ""

    def __init__(self, name: str, options: SearchOptions) -> None:
        self.name = name              # the retriever name hits carry
        self.options = options
        self.segments: list[Segment] = []
        self.live: Live = []
        self.cache: dict[str, Any] = {}
        self.last_search: dict[str, Any] = {}   # how the last search ran (multi-vector: mode, approximate, ...)

    def attach(self, segments: list[Segment], live: Live) -> None:
        """Score these segments from now on; forgets what was derived from the previous ones."""
        self.segments, self.live = segments, live
        self.cache.clear()

    # -- payloads <-> segments -----------------------------------------------------------------
    def pack(self, page_ids: list[str], payloads: Sequence[Any]) -> Segment:
        """A new segment holding ``payloads`` (one per page id, as the retriever encoded them)."""
        raise NotImplementedError

    def payload(self, seg: Segment, row: int) -> Any:
        """The payload of one row, as :meth:`pack` takes it."""
        raise NotImplementedError

    # -- search --------------------------------------------------------------------------------
    def search(self, encoded: list[Any], k: int, allowed: np.ndarray | None) -> list[list[Hit]]:
        """The best ``k`` live pages for each encoded query; ``allowed``: one bool per live page."""
        return [self.topk(row, k, allowed) for row in self.scores(encoded, allowed, k)]

    def scores(self, encoded: list[Any], allowed: np.ndarray | None, k: int) -> np.ndarray:
        """``(queries, live pages)`` scores; NaN for pages that are no candidates."""
        raise NotImplementedError

    def topk(self, scores: np.ndarray, k: int, allowed: np.ndarray | None, approximate: bool = False) -> list[Hit]:
        scores = np.asarray(scores, dtype=np.float64).copy()
        valid = ~np.isnan(scores)
        if allowed is not None:
            valid &= allowed
        idx = np.flatnonzero(valid)
        order = idx[np.argsort(-scores[idx], kind="stable")][:k]
        return [Hit(page_id=self.live[i][2], score=float(scores[i]), rank=r + 1, retriever=self.name,
                    approximate=approximate) for r, i in enumerate(order)]


class SparseScorer(Scorer):
    """BM25 over each page's terms (a bm25s model built on the first search)."""

    kind = "sparse"

    def pack(self, page_ids: list[str], payloads: Sequence[Any]) -> Segment:
        seg = Segment.new(page_ids)
        seg.terms = [list(map(str, t)) for t in payloads]
        return seg

    def payload(self, seg: Segment, row: int) -> list[str]:
        return seg.terms[row]  # type: ignore[index]

    def search(self, encoded: list[Any], k: int, allowed: np.ndarray | None) -> list[list[Hit]]:
        # pages sharing no term with the query are not hits
        return [self.topk(row, k, row > 0 if allowed is None else allowed & (row > 0))
                for row in self.scores(encoded, allowed, k)]

    def scores(self, encoded: list[Any], allowed: np.ndarray | None, k: int) -> np.ndarray:
        if "bm25" not in self.cache:
            import bm25s

            model = bm25s.BM25()
            model.index([self.segments[si].terms[r] for si, r, _ in self.live],  # type: ignore[index]
                        show_progress=False)
            self.cache["bm25"] = model
        model = self.cache["bm25"]
        n = len(self.live)
        out = np.zeros((len(encoded), n), dtype=np.float32)
        for i, terms in enumerate(encoded):
            ids = [model.vocab_dict[t] for t in terms if t in model.vocab_dict and t != ""]
            if ids:
                out[i] = model.get_scores(ids)[:n]
        return out


class DenseScorer(Scorer):
    """Inner product of one vector per page (FAISS when installed and no filter, else numpy)."""

    kind = "dense"

    def pack(self, page_ids: list[str], payloads: Sequence[Any]) -> Segment:
        seg = Segment.new(page_ids)
        seg.vectors = (np.stack([np.asarray(v, np.float32) for v in payloads]) if len(payloads)
                       else np.zeros((0, 0), np.float32))
        return seg

    def payload(self, seg: Segment, row: int) -> np.ndarray:
        return np.asarray(seg.vectors[row])  # type: ignore[index]

    def search(self, encoded: list[Any], k: int, allowed: np.ndarray | None) -> list[list[Hit]]:
        if allowed is None and self._faiss() is not None:
            return self._faiss_search(encoded, k)
        return super().search(encoded, k, allowed)

    def scores(self, encoded: list[Any], allowed: np.ndarray | None, k: int) -> np.ndarray:
        return np.stack([np.asarray(e, np.float32) for e in encoded]) @ self._matrix().T

    def _matrix(self) -> np.ndarray:
        if "dense" not in self.cache:
            rows = [np.asarray(self.segments[si].vectors[r], np.float32)  # type: ignore[index]
                    for si, r, _ in self.live]
            self.cache["dense"] = np.stack(rows) if rows else np.zeros((0, 0), np.float32)
        return self.cache["dense"]

    def _faiss(self) -> Any:
        """An exact inner-product FAISS index over the live vectors (GPU when faiss-gpu and CUDA are
        there), or None when faiss is not installed."""
        if "faiss" not in self.cache:
            try:
                import faiss
            except ImportError:
                log.info("faiss not installed: dense search uses numpy")
                self.cache["faiss"] = None
                return None
            mat = np.ascontiguousarray(self._matrix(), dtype=np.float32)
            index = faiss.IndexFlatIP(mat.shape[1])
            if self.options.device.startswith("cuda") and getattr(faiss, "get_num_gpus", lambda: 0)() > 0:
                index = faiss.index_cpu_to_all_gpus(index)
            index.add(mat)
            self.cache["faiss"] = index
        return self.cache["faiss"]

    def _faiss_search(self, encoded: list[Any], k: int) -> list[list[Hit]]:
        q = np.ascontiguousarray(np.stack([np.asarray(e, np.float32) for e in encoded]))
        scores, ids = self._faiss().search(q, min(k, len(self.live)))
        return [[Hit(page_id=self.live[int(i)][2], score=float(sc), rank=r + 1, retriever=self.name)
                 for r, (sc, i) in enumerate(zip(srow, irow, strict=True)) if i >= 0]
                for srow, irow in zip(scores, ids, strict=True)]


def scorer_for(kind: str, name: str, options: SearchOptions) -> Scorer:
    """The scorer of an index of payload ``kind`` (``sparse``, ``dense`` or ``multi``)."""
    if kind == "multi":
        from docrag.index.scorer_multi import MultiVectorScorer

        return MultiVectorScorer(name, options)
    classes: dict[str, type[Scorer]] = {"sparse": SparseScorer, "dense": DenseScorer}
    if kind not in classes:
        raise ValueError(f"unknown payload kind {kind!r}; one of sparse, dense, multi")
    return classes[kind](name, options)
