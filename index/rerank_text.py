"""``cross-encoder:<id or path>``: a text cross-encoder over (query, page text) pairs.

ms-marco-MiniLM and bge-reranker-v2-m3 style checkpoints (a sequence-classification model with
one label) through sentence-transformers' ``CrossEncoder``; the score is the sigmoid of the
single logit (``CrossEncoder``'s default activation for one label). Page text = the page's text
layer (or OCR text), truncated to the model's ``max_length`` (option; default 512 tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docrag.index.base import page_text
from docrag.index.device import check_options, resolve_device
from docrag.index.rerank import RERANKERS, Reranker
from docrag.types import Page


class CrossEncoderReranker(Reranker):
    input = "text"

    def __init__(self, model: str, device: str | None = None, batch_size: int = 16, max_length: int = 512) -> None:
        self.model_name = model
        self.device = resolve_device(device)
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(self.model_name, device=self.device, max_length=self.max_length)
        return self._model

    def score(self, query: str, pages: Sequence[Page], show_progress: bool = False) -> list[float]:
        if not pages:
            return []
        pairs = [(query, page_text(p)) for p in pages]
        scores = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=show_progress,
                                    convert_to_numpy=True)
        return [float(s) for s in scores]

    def describe(self) -> dict:
        return {**super().describe(), "model": self.model_name, "pooling": "sigmoid(logit)",
                "max_length": self.max_length}


@RERANKERS.register("cross-encoder", needs_arg=True, help="text cross-encoder over (query, page text)")
def make_cross_encoder(arg: str, **opts) -> CrossEncoderReranker:
    check_options("cross-encoder", opts, allowed=("max_length",))
    opts.pop("dtype", None)
    return CrossEncoderReranker(arg, **opts)
