"""The search interface every index implements, and the retrievers that compose other indexes.

:class:`SearchIndex` is what callers (``docrag.RAG``, the evaluator, ``docrag search``, rerankers,
hybrids) need from an index: ranked :class:`~docrag.types.Hit` lists for queries, the page ids it
holds and its size. Implementations:

* :class:`docrag.index.store.PageIndex` -- the embedded index (segments on disk, one scorer per
  payload kind: sparse, dense, multi-vector);
* :class:`docrag.index.qdrant_store.QdrantIndex` -- the pages in a Qdrant collection;
* :class:`docrag.index.hybrid.HybridIndex` -- reciprocal-rank fusion of two indexes;
* :class:`docrag.index.rerank.RerankedIndex` -- a reranker over any of them.

A :class:`ComposedRetriever` (``hybrid:a+b``) encodes nothing itself: its index is made of its parts'
indexes, which :func:`docrag.index.open.open_index` opens (or builds) like any other.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from docrag.types import Hit, Page


@runtime_checkable
class SearchIndex(Protocol):
    """Ranked pages for queries (see module docstring).

    ``filter`` restricts hits to pages whose fields match (``{"doc_id": ["a", "b"], "lang": "zh"}``;
    ``meta.KEY`` for metadata given at ingest). Hits are ranked best first with ``rank`` 1, 2, ...;
    an index returns fewer than ``k`` hits when fewer pages match. A class that subclasses it
    inherits :meth:`search` and must implement the rest.
    """

    @property
    @abstractmethod
    def page_ids(self) -> list[str]:
        """Ids of the pages the index holds."""

    @abstractmethod
    def __len__(self) -> int:
        """How many pages the index holds."""

    @abstractmethod
    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        """The best ``k`` hits of each query, in query order."""

    def search(self, query: str, k: int = 10, filter: dict | None = None) -> list[Hit]:
        """The best ``k`` hits of one query."""
        return self.search_batch([query], k=k, filter=filter)[0]


#: opens (or builds) the index of one part: ``open_part(name, **retriever_options)``
PartOpener = Callable[..., SearchIndex]


@runtime_checkable
class ComposedRetriever(Protocol):
    """A retriever whose index is composed of other retrievers' indexes (``hybrid:a+b``)."""

    name: str

    def compose(self, open_part: PartOpener) -> SearchIndex:
        """The composed index over the parts' indexes, each got from ``open_part``."""
        ...

    def index(self, pages: Sequence[Page], show_progress: bool = False) -> SearchIndex:
        """An in-memory index over ``pages`` (no index folder)."""
        ...

    def describe(self) -> dict[str, Any]:
        ...
