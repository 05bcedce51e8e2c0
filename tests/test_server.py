"""``docrag serve``: the JSON HTTP API driven with a real HTTP client (httpx) on loopback."""

from __future__ import annotations

import io
import json
import shutil

import httpx
import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from docrag.apps.cli import app as cli_app
from docrag.apps.server import ServerThread, check_binding, create_app
from docrag.errors import DocragError

KEY = "s3cret-key"


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir, tmp_path_factory):
    dst = tmp_path_factory.mktemp("serve") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


@pytest.fixture(scope="module")
def server(corpus_dir, tmp_path_factory):
    import os

    os.environ["DOCRAG_CONFIG"] = str(tmp_path_factory.mktemp("cfg") / "none.toml")
    api = create_app(corpus_dir, retriever="bm25", generator="extractive", api_key=KEY)
    srv = ServerThread(api, host="127.0.0.1", port=0)
    url = srv.start()
    yield url
    srv.stop()


def _client(url: str, key: str | None = KEY) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"X-API-Key": key} if key else {}, timeout=120, trust_env=False)


def test_health_openapi_and_api_key(server):
    with _client(server, None) as c:
        h = c.get("/health")
        assert h.status_code == 200 and h.json()["retriever"] == "bm25" and h.json()["pages"] > 0
        assert c.post("/search", json={"query": "aluminum"}).status_code == 401
        assert c.post("/search", json={"query": "aluminum"}, headers={"X-API-Key": "wrong"}).status_code == 401
        ok = c.post("/search", json={"query": "aluminum"}, headers={"Authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200
    with _client(server) as c:
        schema = c.get("/openapi.json").json()
        assert {"/health", "/search", "/ask", "/pages/{page_id}/image"} <= set(schema["paths"])


def test_ask_equals_cli_ask_json(server, corpus_dir, synthetic_qa, tmp_path):
    question = synthetic_qa[0]["question"]
    with _client(server) as c:
        got = c.post("/ask", json={"question": question, "k": 5})
    assert got.status_code == 200, got.text
    res = CliRunner().invoke(cli_app, ["ask", str(corpus_dir), question, "-r", "bm25", "-g", "extractive",
                                       "-k", "5", "--json"],
                             env={"DOCRAG_CONFIG": str(tmp_path / "none.toml")}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert got.json() == json.loads(res.stdout.strip().splitlines()[-1])
    assert got.json()["citations"], "the extractive answer should cite a page"


def test_search_hits_have_snippets_and_filters_apply(server):
    with _client(server) as c:
        body = c.post("/search", json={"query": "crude fused aluminum oxide", "k": 3}).json()
        assert 1 <= len(body["hits"]) <= 3
        top = body["hits"][0]
        assert "aluminum" in top["snippet"].lower()
        assert top["image_url"] == f"/pages/{top['page_id']}/image"
        only = c.post("/search", json={"query": "crude fused aluminum oxide", "k": 3,
                                       "filter": {"file_name": [top["file_name"]]}}).json()
        assert {h["file_name"] for h in only["hits"]} == {top["file_name"]}
        assert c.post("/search", json={"query": "x", "filter": {"nope": 1}}).status_code == 400
        assert c.post("/ask", json={"question": "   "}).status_code == 400


def test_page_image_draws_the_requested_box(server):
    with _client(server) as c:
        pid = c.post("/search", json={"query": "aluminum", "k": 1}).json()["hits"][0]["page_id"]
        plain = Image.open(io.BytesIO(c.get(f"/pages/{pid}/image").content)).convert("RGB")
        r = c.get(f"/pages/{pid}/image", params={"boxes": "40,700,200,760"})
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        drawn = np.asarray(Image.open(io.BytesIO(r.content)).convert("RGB")).astype(int)
        assert drawn.shape[:2] == np.asarray(plain).shape[:2]
        diff = np.abs(drawn - np.asarray(plain).astype(int)).sum(axis=2) > 60
        ys, xs = np.nonzero(diff)
        assert len(ys) > 100
        h = drawn.shape[0]
        # the change sits near the bottom of the page where the box is (y 700-760 pt of ~792)
        assert ys.min() > 0.8 * h, (ys.min(), h)
        assert c.get(f"/pages/{pid}/image", params={"boxes": "1,2,3"}).status_code == 422
        assert c.get("/pages/nope:1/image").status_code == 404
        assert c.get("/pages/not-a-page-id/image").status_code == 404


def test_binding_beyond_loopback_needs_a_key(corpus_dir, tmp_path):
    check_binding("127.0.0.1", None)
    check_binding("0.0.0.0", "k")
    with pytest.raises(DocragError, match="--api-key"):
        check_binding("0.0.0.0", None)
    res = CliRunner().invoke(cli_app, ["serve", str(corpus_dir), "--host", "0.0.0.0"],
                             env={"DOCRAG_API_KEY": ""})
    assert res.exit_code == 2 and "--api-key" in res.output
