"""The rerank stage: a second model rescores the first stage's top ``depth`` pages of each query.

Rerankers: ``cross-encoder:<id or path>`` (page text, sentence-transformers ``CrossEncoder``),
``qwen3-vl-rerank:<path>`` and ``monoqwen:<path>`` (page image, yes/no logits of a VLM) and
``openai-rerank:<model>`` (a vLLM ``/rerank`` server). :class:`RerankedIndex` wraps any index:
``search`` asks the first stage for ``max(depth, k)`` pages, rescores them and returns the top
``k`` ranked by the reranker; each hit keeps its ``first_stage_score`` and ``first_stage_rank``
beside the reranker's ``score``.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from docrag.index.search import SearchIndex
from docrag.registry import Registry
from docrag.types import Hit, Page

log = logging.getLogger(__name__)

DEFAULT_DEPTH = 20


class Reranker(ABC):
    """Scores (query, page) pairs; higher is more relevant."""

    name: str = ""
    input: str = "text"   # "text" (page text) or "image" (page image)
    batch_size: int = 8

    @abstractmethod
    def score(self, query: str, pages: Sequence[Page], show_progress: bool = False) -> list[float]:
        """One score per page, in order."""

    def describe(self) -> dict[str, Any]:
        return {"reranker": self.name, "input": self.input}


RERANKERS: Registry[Reranker] = Registry(
    "reranker",
    lazy_modules={
        "cross-encoder": "docrag.index.rerank_text",
        "qwen3-vl-rerank": "docrag.index.rerank_vlm",
        "monoqwen": "docrag.index.rerank_vlm",
        "openai-rerank": "docrag.index.rerank_openai",
    },
    usage={"cross-encoder": "cross-encoder:<id or path>", "qwen3-vl-rerank": "qwen3-vl-rerank:<path>",
           "monoqwen": "monoqwen:<path>", "openai-rerank": "openai-rerank:<model>"},
)


def get_reranker(name: str, **opts: Any) -> Reranker:
    """Create the reranker ``name``; unknown names list the valid ones."""
    r = RERANKERS.create(name, **opts)
    r.name = name
    return r


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[Hit], page_of: Callable[[str], Page],
                k: int, show_progress: bool = False) -> list[Hit]:
    """Rescore ``hits`` (first-stage order) and return the top ``k`` by the reranker's score
    (ties keep first-stage order)."""
    if not hits:
        return []
    pages = [page_of(h.page_id) for h in hits]
    scores = reranker.score(query, pages, show_progress=show_progress)
    if len(scores) != len(hits):
        raise RuntimeError(f"reranker {reranker.name} returned {len(scores)} scores for {len(hits)} pages")
    order = sorted(range(len(hits)), key=lambda i: (-float(scores[i]), i))[:k]
    return [replace(hits[i], score=float(scores[i]), rank=r, reranker=reranker.name,
                    first_stage_score=float(hits[i].score), first_stage_rank=hits[i].rank)
            for r, i in enumerate(order, start=1)]


class RerankedIndex(SearchIndex):
    """An index whose searches go through a reranker (see module docstring)."""

    def __init__(self, inner: SearchIndex, reranker: Reranker, page_of: Callable[[str], Page],
                 depth: int = DEFAULT_DEPTH, show_progress: bool = False) -> None:
        if depth < 1:
            raise ValueError(f"rerank depth must be at least 1, got {depth}")
        self.inner = inner
        self.reranker = reranker
        self.page_of = page_of
        self.depth = int(depth)
        self.show_progress = show_progress

    def __getattr__(self, name: str) -> Any:   # manifest, retriever, dir, ... of the first stage
        return getattr(self.inner, name)

    def __len__(self) -> int:
        return len(self.inner)

    @property
    def page_ids(self) -> list[str]:
        return self.inner.page_ids

    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        from tqdm.auto import tqdm

        first = self.inner.search_batch(list(queries), k=max(k, self.depth), filter=filter)
        out = []
        for q, hits in tqdm(list(zip(queries, first, strict=True)), desc=f"reranking ({self.reranker.name})",
                            unit="q", disable=not self.show_progress or len(first) < 2):
            out.append(rerank_hits(self.reranker, q, hits[:max(k, self.depth)], self.page_of, k))
        return out

