"""openai-embed: and openai-rerank: against a real loopback HTTP server (vLLM request shapes,
dimensions, retries, one-line errors)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from docrag.backends.base import BackendError
from docrag.index import open_index
from docrag.index.registry import get_retriever
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.openai_server import ScriptedOpenAIServer, request_images


def _vec(key: str, dim: int) -> list[float]:
    h = hashlib.sha256(key.encode()).digest()
    return [(b - 128) / 64 for b in h[:dim]]


def _embed_server(fail_first: int = 0):
    calls = {"n": 0}

    def reply(req):
        calls["n"] += 1
        if calls["n"] <= fail_first:
            return 503, "busy"
        dim = req.get("dimensions", 8)
        if "messages" in req:   # vLLM multimodal: one conversation -> one vector of its image
            img = request_images(req)[0]
            key = f"img:{img.size}:{img.getpixel((img.width // 2, img.height // 2))}"
            return 200, {"object": "list", "data": [{"index": 0, "embedding": _vec(key, dim)}]}
        return 200, {"object": "list", "data": [{"index": i, "embedding": _vec(f"txt:{t}", dim)}
                                                for i, t in reversed(list(enumerate(req["input"])))]}
    return reply


def test_openai_embed_index_search_reload_with_images_and_dimensions(tmp_path):
    corpus = make_corpus(tmp_path / "c", FINANCE_DOCS)
    with ScriptedOpenAIServer(_embed_server(fail_first=1)) as srv:
        name = "openai-embed:qwen3-vl-embed"
        idx = open_index(corpus, name, show_progress=False, base_url=srv.base_url, dim=6, page_prompt="Page:")
        assert srv.paths.count("/v1/embeddings") >= 6
        page_req = [r for r in srv.requests if "messages" in r][0]
        content = page_req["messages"][0]["content"]
        assert content[0]["type"] == "image_url" and content[0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert content[1] == {"type": "text", "text": "Page:"} and page_req["dimensions"] == 6
        hits = idx.search("total revenue", k=3)
        q = np.asarray(_vec("txt:total revenue", 6), np.float32)
        q /= np.linalg.norm(q)
        retr = idx.retriever
        pages = retr.encode_pages(corpus.pages(), show_progress=False)
        ref = sorted(((float(q @ p), pg.page_id) for p, pg in zip(pages, corpus.pages(), strict=True)), reverse=True)
        assert [round(h.score, 4) for h in hits] == [round(s, 4) for s, _ in ref[:3]]
        again = open_index(corpus, name, build=False, base_url=srv.base_url)   # dim adopted from the index
        assert [h.page_id for h in again.search("total revenue", k=3)] == [h.page_id for h in hits]


def test_openai_embed_sglang_shape_and_errors(tmp_path):
    corpus = make_corpus(tmp_path / "c", {"alpha": FINANCE_DOCS["alpha"]})
    seen = []

    def reply(req):
        seen.append(req)
        return 200, {"data": [{"index": i, "embedding": _vec(str(i), 4)} for i in range(len(req["input"]))]}

    with ScriptedOpenAIServer(reply) as srv:
        r = get_retriever("openai-embed:gme", base_url=srv.base_url, api="sglang")
        r.encode_pages(corpus.pages(), show_progress=False)
        assert isinstance(seen[0]["input"][0], dict) and seen[0]["input"][0]["image"].startswith("data:image/png")
    with ScriptedOpenAIServer(lambda req: (400, "model does not support embeddings")) as srv:
        r = get_retriever("openai-embed:gme", base_url=srv.base_url, max_retries=0)
        with pytest.raises(BackendError, match=r"HTTP 400: .*does not support embeddings") as err:
            r.encode_queries(["q"])
        assert "\n" not in str(err.value)


def test_openai_rerank_client(tmp_path):
    corpus = make_corpus(tmp_path / "c", FINANCE_DOCS)

    def reply(req):
        docs = req["documents"]
        return 200, {"results": [{"index": i, "relevance_score": (len(d) if isinstance(d, str) else 1.0) / 100}
                                 for i, d in reversed(list(enumerate(docs)))]}

    with ScriptedOpenAIServer(reply) as srv:
        idx = open_index(corpus, "bm25", show_progress=False, rerank="openai-rerank:bge-reranker",
                         rerank_depth=6)
        idx.reranker.client.base_url = srv.base_url
        hits = idx.search("revenue costs production arrests survey results", k=3)
        assert srv.paths == ["/v1/rerank"] and srv.requests[0]["query"].startswith("revenue")
        first = idx.inner.search("revenue costs production arrests survey results", k=6)
        lens = sorted((len(corpus.page(h.page_id).text) for h in first), reverse=True)
        assert [round(h.score * 100) for h in hits] == lens[:3]      # the server's scores decide the order
        assert all(h.first_stage_score is not None for h in hits)
