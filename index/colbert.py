"""``colbert:<id or path>``: text late interaction (ColBERT / PyLate / Jina-ColBERT style) over page text.

FinRAGBench-V's Jina-ColBERT-v2 row. Loaded through sentence-transformers 6.2's
``MultiVectorEncoder`` (pylate does not install beside sentence-transformers 6.2; see
``../shared/notes/retriever-zoo.md`` §2.4), which reads native saves, PyLate checkpoints and
Stanford-NLP ``HF_ColBERT`` checkpoints. The real jina-colbert-v2 needs its own code
(rotary XLM-R): pass ``trust_remote_code=True`` (``--trust-remote-code``), recorded in the index.

* prompts: the checkpoint's (``[Q] ``/``[D] `` for Stanford ColBERT, ``[QueryMarker]``/``[DocumentMarker]``
  for jina), overridable with ``query_prompt``/``page_prompt``.
* pooling: none -- one L2-normalised vector per token (after the checkpoint's projection, e.g.
  128-d), punctuation skiplist on documents, query expansion as the checkpoint says; pages are
  scored with docrag's MaxSim engine (the same sum-of-max as ``MultiVectorEncoder.similarity``).
* input: the page's text layer (OCR text for scans); long pages are cut at ``document_length``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docrag.index.base import Retriever, page_text
from docrag.index.colpali_models import _revision
from docrag.index.device import check_options, resolve_device
from docrag.index.registry import RETRIEVERS
from docrag.types import Page

OPTIONS = ("query_prompt", "page_prompt", "trust_remote_code", "query_batch_size")


class ColbertRetriever(Retriever):
    kind = "multi"
    input = "text"

    def __init__(self, model: str, device: str | None = None, dtype: str | None = None, batch_size: int = 16,
                 query_batch_size: int = 32, query_prompt: str | None = None, page_prompt: str | None = None,
                 trust_remote_code: bool = False) -> None:
        self.model_name = model
        self.device = resolve_device(device)
        self.batch_size = int(batch_size)
        self.query_batch_size = int(query_batch_size)
        self.trust_remote_code = bool(trust_remote_code)
        self._query_prompt, self._page_prompt = query_prompt, page_prompt
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            from sentence_transformers import MultiVectorEncoder

            self._model = MultiVectorEncoder(self.model_name, device=self.device,
                                             trust_remote_code=self.trust_remote_code)
            if self._query_prompt is not None:
                self._model.prompts["query"] = self._query_prompt
            if self._page_prompt is not None:
                self._model.prompts["document"] = self._page_prompt
        return self._model

    @staticmethod
    def _numpy(rows: Sequence[Any]) -> list[np.ndarray]:
        return [np.asarray(r.float().cpu().numpy() if hasattr(r, "cpu") else r, dtype=np.float32) for r in rows]

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        if not pages:
            return []
        rows = self.model.encode_document([page_text(p) for p in pages], batch_size=self.batch_size,
                                          show_progress_bar=show_progress)
        return self._numpy(rows)

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        if not queries:
            return []
        return self._numpy(self.model.encode_query(list(queries), batch_size=self.query_batch_size,
                                                   show_progress_bar=show_progress))

    def describe(self) -> dict:
        prompts = dict(self.model.prompts or {})
        return {**super().describe(), "model": self.model_name, "revision": _revision(self.model_name),
                "pooling": "none (token vectors, MaxSim)",
                "settings": {"query_prompt": prompts.get("query", ""), "page_prompt": prompts.get("document", ""),
                             "trust_remote_code": self.trust_remote_code}}


@RETRIEVERS.register("colbert", needs_arg=True, help="text late interaction (ColBERT/PyLate/jina) over page text")
def make_colbert(arg: str, **opts) -> ColbertRetriever:
    check_options("colbert", opts, allowed=OPTIONS)
    r = ColbertRetriever(arg, **opts)
    r.name = f"colbert:{arg}"
    return r
