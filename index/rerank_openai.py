"""``openai-rerank:<model>``: a rerank client for vLLM's ``/rerank`` (Jina/Cohere style).

``POST {base_url}/rerank`` with ``{"model", "query", "documents"}``; documents are page texts
(``input="text"``, default) or page images as ``{"content": [{"type": "image_url", "image_url":
{"url": data URL}}]}`` (``input="image"``, e.g. jina-reranker-m0 or Qwen3-VL-Reranker served by
vLLM). The reply's ``results[].relevance_score`` (by ``index``) are the scores. Retries and
one-line errors come from :mod:`docrag.backends.openai`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from docrag.backends.base import BackendError
from docrag.errors import DocragError
from docrag.index.base import page_text
from docrag.index.device import check_options
from docrag.index.openai_embed import data_url
from docrag.index.rerank import RERANKERS, Reranker
from docrag.types import Page


class OpenAIRerankClient(Reranker):
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, input: str = "text",
                 batch_size: int = 32, timeout: float = 120.0, max_retries: int = 4, max_side: int = 1536) -> None:
        from docrag.backends.openai import OpenAIBackend

        if input not in ("text", "image"):
            raise DocragError(f"openai-rerank: input={input!r}; use text or image")
        self.model = model
        self.input = input
        self.batch_size = int(batch_size)
        self.max_side = int(max_side)
        self.client = OpenAIBackend(model, base_url=base_url, api_key=api_key if api_key is not None else "EMPTY",
                                    timeout=timeout, max_retries=max_retries)

    def _doc(self, page: Page) -> object:
        if self.input == "text":
            return page_text(page)
        return {"content": [{"type": "image_url", "image_url": {"url": data_url(page.load_image(), self.max_side)}}]}

    def score(self, query: str, pages: Sequence[Page], show_progress: bool = False) -> list[float]:
        out: list[float] = []
        for i in range(0, len(pages), self.batch_size):
            chunk = pages[i:i + self.batch_size]
            body = {"model": self.model, "query": query, "documents": [self._doc(p) for p in chunk]}
            payload = self.client.post_json("/rerank", body)
            try:
                scores = {int(r["index"]): float(r["relevance_score"]) for r in payload["results"]}
                out.extend(scores[j] for j in range(len(chunk)))
            except (KeyError, TypeError, ValueError) as exc:
                raise BackendError(f"{self.client.base_url}/rerank: reply lacks results[].index/relevance_score "
                                   f"for every document: {json.dumps(payload)[:300]}") from exc
        return out

    def describe(self) -> dict:
        return {**super().describe(), "model": self.model, "base_url": self.client.base_url}


@RERANKERS.register("openai-rerank", needs_arg=True, help="vLLM /rerank server (page text or page image)")
def make_openai_rerank(arg: str, **opts) -> OpenAIRerankClient:
    check_options("openai-rerank", opts, allowed=("base_url", "api_key", "input", "timeout", "max_retries",
                                                  "max_side"))
    opts.pop("device", None)
    opts.pop("dtype", None)
    return OpenAIRerankClient(arg, **opts)
