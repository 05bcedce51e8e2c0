"""``openai-embed:<model>``: embeddings from an OpenAI-compatible server (vLLM, SGLang) ``/v1/embeddings``.

Serve e.g. ``vllm serve Qwen/Qwen3-VL-Embedding-2B --runner pooling`` or
``python -m sglang.launch_server --model-path Alibaba-NLP/gme-Qwen2-VL-2B-Instruct --is-embedding``
and point ``base_url`` (option, else ``$OPENAI_BASE_URL``) at it. Transport, retries (429/5xx with
backoff) and one-line errors are those of :mod:`docrag.backends.openai`.

Request shapes (``../shared/notes/retriever-zoo.md`` §2.7):

* ``api="vllm"`` (default), page images: one request per page with a chat ``messages`` list,
  ``[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}},
  {"type": "text", "text": page_prompt}]}]``;
* ``api="sglang"``, page images: ``"input": [{"image": data URL, "text": page_prompt}, ...]`` (batched);
* text (queries; pages with ``input="text"``): standard ``"input": [query_prompt + text, ...]``.

``dim`` is sent as ``dimensions`` (MRL truncation on the server); vectors are L2-normalised here.
Images are resized to fit ``max_side`` pixels before sending (default 1536), PNG.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from docrag.backends.base import BackendError
from docrag.errors import DocragError
from docrag.geometry import fit_within
from docrag.index.base import Retriever, page_text
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.types import Page

OPTIONS = ("base_url", "api_key", "dim", "api", "input", "query_prompt", "page_prompt", "timeout", "max_retries",
           "max_side")


def data_url(image: Any, max_side: int) -> str:
    from docrag.backends.openai import encode_image

    w, h = fit_within(image.width, image.height, max_side, max_side)
    if (w, h) != image.size:
        image = image.resize((w, h))
    return encode_image(image, "png")


class OpenAIEmbedRetriever(Retriever):
    kind = "dense"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, dim: int | None = None,
                 api: str = "vllm", input: str = "image", query_prompt: str = "", page_prompt: str = "",
                 timeout: float = 120.0, max_retries: int = 4, max_side: int = 1536, batch_size: int = 16,
                 device: str | None = None, dtype: str | None = None) -> None:
        from docrag.backends.openai import OpenAIBackend

        if api not in ("vllm", "sglang"):
            raise DocragError(f"openai-embed: api={api!r}; use vllm or sglang")
        if input not in ("image", "text"):
            raise DocragError(f"openai-embed: input={input!r}; use image or text")
        self.model = model
        self.client = OpenAIBackend(model, base_url=base_url, api_key=api_key if api_key is not None else "EMPTY",
                                    timeout=timeout, max_retries=max_retries)
        self.dim = int(dim) if dim else None
        self.api = api
        self.input = input
        self.query_prompt = query_prompt
        self.page_prompt = page_prompt
        self.max_side = int(max_side)
        self.batch_size = int(batch_size)

    def _post(self, body: dict) -> list[np.ndarray]:
        if self.dim:
            body["dimensions"] = self.dim
        payload = self.client.post_json("/embeddings", body)
        try:
            rows = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vecs = [np.asarray(d["embedding"], dtype=np.float32) for d in rows]
        except (KeyError, TypeError, ValueError) as exc:
            raise BackendError(f"{self.client.base_url}/embeddings: reply has no data[].embedding: "
                               f"{json.dumps(payload)[:300]}") from exc
        return [v / max(float(np.linalg.norm(v)), 1e-12) for v in vecs]

    def _texts(self, texts: list[str], show_progress: bool, desc: str) -> list[np.ndarray]:
        from tqdm.auto import tqdm

        out: list[np.ndarray] = []
        for i in tqdm(range(0, len(texts), self.batch_size), desc=desc, disable=not show_progress):
            chunk = texts[i:i + self.batch_size]
            got = self._post({"model": self.model, "input": chunk, "encoding_format": "float"})
            if len(got) != len(chunk):
                raise BackendError(f"{self.client.base_url}/embeddings: {len(got)} vectors for {len(chunk)} inputs")
            out.extend(got)
        return out

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        from tqdm.auto import tqdm

        if self.input == "text":
            return self._texts([self.page_prompt + page_text(p) for p in pages], show_progress, "encoding pages")
        out: list[np.ndarray] = []
        if self.api == "sglang":
            for i in tqdm(range(0, len(pages), self.batch_size), desc="encoding pages (server)",
                          disable=not show_progress):
                chunk = pages[i:i + self.batch_size]
                items = [{"image": data_url(p.load_image(), self.max_side), **({"text": self.page_prompt}
                                                                               if self.page_prompt else {})}
                         for p in chunk]
                out.extend(self._post({"model": self.model, "input": items}))
            return out
        for p in tqdm(pages, desc="encoding pages (server)", unit="page", disable=not show_progress):
            content: list[dict] = [{"type": "image_url", "image_url": {"url": data_url(p.load_image(), self.max_side)}}]
            if self.page_prompt:
                content.append({"type": "text", "text": self.page_prompt})
            out.extend(self._post({"model": self.model, "messages": [{"role": "user", "content": content}],
                                   "encoding_format": "float"}))
        return out

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        return self._texts([self.query_prompt + q for q in queries], show_progress, "encoding queries")

    def describe(self) -> dict:
        return {**super().describe(), "input": self.input, "model": self.model, "base_url": self.client.base_url,
                "pooling": "server-side", "settings": {"dim": self.dim, "api": self.api, "input": self.input,
                                                       "query_prompt": self.query_prompt,
                                                       "page_prompt": self.page_prompt}}


@RETRIEVERS.register("openai-embed", needs_arg=True, help="embeddings from a vLLM/SGLang /v1/embeddings server")
def make_openai_embed(arg: str, **opts) -> OpenAIEmbedRetriever:
    check_options("openai-embed", opts, allowed=OPTIONS)
    r = OpenAIEmbedRetriever(arg, **opts)
    r.name = f"openai-embed:{arg}"
    return r
