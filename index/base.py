"""The retriever protocol: encode pages and queries into one of three payload kinds.

* ``sparse``: one list of terms per page (BM25).
* ``dense``: one unit vector per page (sentence embedders, Bi* page-screenshot models).
* ``multi``: a ``(tokens, dim)`` matrix per page, scored with MaxSim (ColQwen2, ColPali, ...).

Storing, updating and searching the payloads is the job of :class:`docrag.index.store.PageIndex`
(and its scorer of the payload kind); a retriever only turns pages and queries into payloads.
``Retriever.index(pages)`` gives an in-memory index for quick use without a folder. Retrievers
that encode nothing themselves (``hybrid:a+b``) are :class:`docrag.index.search.ComposedRetriever`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from docrag.types import Hit, Page

if TYPE_CHECKING:
    import numpy as np

    from docrag.index.store import PageIndex

PayloadKind = Literal["sparse", "dense", "multi"]
InputKind = Literal["text", "image", "none"]


class Retriever(ABC):
    """Turns pages and queries into payloads of one kind (see module docstring)."""

    name: str = ""
    kind: PayloadKind = "dense"
    input: InputKind = "text"

    @abstractmethod
    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[Any]:
        """One payload per page, in order."""

    @abstractmethod
    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[Any]:
        """One payload per query, in order."""

    def describe(self) -> dict[str, Any]:
        """What the index manifest records about this retriever (model, revision, dims, dtype, pooling).

        Keys under ``"settings"`` change the stored payloads: an index built with other settings
        cannot be reused.
        """
        return {"retriever": self.name, "kind": self.kind, "input": self.input, "settings": {}}

    # -- in-memory convenience (no index folder) -----------------------------------------------
    def index(self, pages: Sequence[Page], show_progress: bool = False) -> PageIndex:
        """An in-memory :class:`PageIndex` over ``pages``."""
        from docrag.index.store import PageIndex

        return PageIndex.in_memory(self, list(pages), show_progress=show_progress)

    def search(self, query: str, pages: Sequence[Page], k: int = 10) -> list[Hit]:
        return self.index(pages).search(query, k=k)

    def search_batch(self, queries: Sequence[str], pages: Sequence[Page], k: int = 10) -> list[list[Hit]]:
        return self.index(pages).search_batch(queries, k=k)


def split_rows(flat: np.ndarray, counts: Sequence[int]) -> list[np.ndarray]:
    """Rows of ``flat`` cut back into consecutive groups of ``counts`` rows (one group per page)."""
    out, i = [], 0
    for n in counts:
        out.append(flat[i:i + n])
        i += n
    return out


def page_text(page: Page) -> str:
    """The text a text retriever sees for a page: its text layer or OCR text, else its file name."""
    return page.text or ""
