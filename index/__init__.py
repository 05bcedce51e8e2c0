"""docrag.index: retrievers (text and multimodal), persistent page indexes and MaxSim search.

``get_retriever(name, **opts)`` makes a retriever from a registry name; ``open_index(corpus, name)``
opens (building or updating as needed) the index of a corpus for that retriever: a
:class:`SearchIndex` (``search``, ``search_batch``, ``page_ids``, ``len``) whichever store holds it.
"""

from __future__ import annotations

from docrag.index.base import Retriever
from docrag.index.open import open_index
from docrag.index.registry import RETRIEVERS, available_retrievers, get_retriever
from docrag.index.search import SearchIndex
from docrag.index.store import IndexStateError, PageIndex

__all__ = ["RETRIEVERS", "IndexStateError", "PageIndex", "Retriever", "SearchIndex", "available_retrievers",
           "get_retriever", "open_index"]
