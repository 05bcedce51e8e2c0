"""``hybrid:<a>+<b>``: reciprocal-rank fusion (RRF) of two retrievers.

``score(page) = sum over parts of 1 / (RRF_K + rank)``, each part searched ``depth`` deep
(default ``max(100, 5k)``). Each part keeps its own index folder (the part's default folder, or
``<index_dir>/<slug of part>`` when an index folder is given), so ``hybrid:bm25+minilm`` reuses
the ``bm25`` and ``minilm`` indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docrag.errors import UnknownNameError
from docrag.index.base import Retriever
from docrag.index.registry import RETRIEVERS, get_retriever
from docrag.types import Hit, Page

RRF_K = 60


def split_parts(arg: str) -> tuple[str, str]:
    """``"bm25+colqwen2:/m/x"`` -> ``("bm25", "colqwen2:/m/x")``: the first '+' whose sides are both
    registered family names."""
    families = set(RETRIEVERS.families())
    for i, ch in enumerate(arg):
        if ch == "+":
            a, b = arg[:i].strip(), arg[i + 1:].strip()
            if RETRIEVERS.split(a)[0] in families and RETRIEVERS.split(b)[0] in families:
                return a, b
    raise UnknownNameError(f"hybrid retriever needs two retrievers joined by '+', e.g. 'hybrid:bm25+minilm'; "
                           f"got {arg!r} (families: {', '.join(sorted(families))})")


def fuse(rankings: Sequence[Sequence[Hit]], k: int, name: str) -> list[Hit]:
    """Reciprocal-rank fusion of ranked hit lists (ties broken by page id)."""
    scores: dict[str, float] = {}
    for hits in rankings:
        for h in hits:
            scores[h.page_id] = scores.get(h.page_id, 0.0) + 1.0 / (RRF_K + h.rank)
    order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [Hit(page_id=pid, score=s, rank=i + 1, retriever=name) for i, (pid, s) in enumerate(order)]


class HybridIndex:
    """Same search API as :class:`~docrag.index.store.PageIndex`, over two part indexes."""

    def __init__(self, name: str, parts: Sequence[Any], depth: int | None = None) -> None:
        self.name = name
        self.parts = list(parts)
        self.depth = depth

    def search(self, query: str, k: int = 10, filter: dict | None = None) -> list[Hit]:
        return self.search_batch([query], k=k, filter=filter)[0]

    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        depth = self.depth or max(100, 5 * k)
        per_part = [p.search_batch(queries, k=depth, filter=filter) for p in self.parts]
        return [fuse([part[i] for part in per_part], k, self.name) for i in range(len(queries))]

    @property
    def page_ids(self) -> list[str]:
        return self.parts[0].page_ids

    def __len__(self) -> int:
        return len(self.parts[0])


class HybridRetriever(Retriever):
    """Not a payload retriever: it only knows its two parts (use :meth:`index` or ``open_index``)."""

    kind = "sparse"

    def __init__(self, name: str, parts: Sequence[Retriever]) -> None:
        self.name = name
        self.parts = list(parts)
        self.input = "image" if any(p.input == "image" for p in parts) else "text"

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[Any]:
        raise TypeError("a hybrid retriever has no single page encoding; use its parts or index(pages)")

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[Any]:
        raise TypeError("a hybrid retriever has no single query encoding; use its parts or index(pages)")

    def describe(self) -> dict:
        return {"retriever": self.name, "kind": "hybrid", "parts": [p.describe() for p in self.parts]}

    def index(self, pages: Sequence[Page], show_progress: bool = False) -> HybridIndex:  # type: ignore[override]
        return HybridIndex(self.name, [p.index(pages, show_progress=show_progress) for p in self.parts])


@RETRIEVERS.register("hybrid", needs_arg=True, help="reciprocal-rank fusion of two retrievers: hybrid:<a>+<b>")
def make_hybrid(arg: str, **opts) -> HybridRetriever:
    a, b = split_parts(arg)
    return HybridRetriever(f"hybrid:{a}+{b}", [get_retriever(a, **opts), get_retriever(b, **opts)])


def open_hybrid(corpus, name: str, index_dir: str | Path | None = None, build: bool = True,
                show_progress: bool = True, **opts: Any) -> HybridIndex:
    from docrag.index.open import open_index
    from docrag.index.store import slug

    a, b = split_parts(RETRIEVERS.split(name)[1] or "")
    parts = [open_index(corpus, part, index_dir=(Path(index_dir) / slug(part)) if index_dir is not None else None,
                        build=build, show_progress=show_progress, **opts) for part in (a, b)]
    return HybridIndex(f"hybrid:{a}+{b}", parts)
