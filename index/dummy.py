"""``dummy``: a deterministic retriever with no model (for cheap end-to-end tests).

Like vidore-benchmark's dummy retriever it ignores meaning, but it is stable: page and query
vectors are seeded from a hash of the page id / query text, so results never change between runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from docrag.index.base import Retriever
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.types import Page

DIM = 16


def _vector(key: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


class DummyRetriever(Retriever):
    kind = "dense"
    input = "none"

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        return [_vector(f"page:{p.page_id}") for p in pages]

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        return [_vector(f"query:{q}") for q in queries]

    def describe(self) -> dict:
        return {**super().describe(), "model": "dummy", "dims": DIM, "dtype": "float32"}


@RETRIEVERS.register("dummy", help="deterministic pseudo-random scores, no model (tests, smoke runs)")
def make_dummy(arg: str | None, **opts) -> DummyRetriever:
    check_options("dummy", opts, allowed=())
    r = DummyRetriever()
    r.name = "dummy"
    return r

