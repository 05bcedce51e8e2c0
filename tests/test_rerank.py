"""The rerank stage: a tiny cross-encoder reorders first-stage hits in search, ask, compare and eval,
and its scores equal the reference formula (sigmoid of the single logit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.errors import UnknownNameError
from docrag.index.rerank import get_reranker
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.tiny_text import build_tiny_cross_encoder

QUERY = "revenue costs production arrests survey results"


@pytest.fixture(scope="module")
def tiny_ce(tmp_path_factory):
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "ce")


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "none.toml"))
    return make_corpus(tmp_path / "corpus", FINANCE_DOCS)


def _reference(model_dir, query, texts):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    batch = tok([query] * len(texts), texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
    with torch.no_grad():
        return torch.sigmoid(model(**batch).logits[:, 0]).tolist()


def _expected_order(tiny_ce, corpus, first_stage_ids):
    texts = [corpus.page(p).text for p in first_stage_ids]
    ref = _reference(tiny_ce, QUERY, texts)
    order = sorted(range(len(ref)), key=lambda i: (-ref[i], i))
    return [first_stage_ids[i] for i in order], ref


def test_cross_encoder_scores_equal_reference(tiny_ce, corpus):
    pages = [corpus.page(p) for p in corpus.page_ids()]
    got = get_reranker(f"cross-encoder:{tiny_ce}", device="cpu").score(QUERY, pages)
    ref = _reference(tiny_ce, QUERY, [p.text for p in pages])
    assert got == pytest.approx(ref, abs=1e-5)
    assert len(set(round(s, 6) for s in got)) > 1
    with pytest.raises(UnknownNameError, match="cross-encoder:<id or path>"):
        get_reranker("nonsense:x")


def test_search_and_ask_rerank(tiny_ce, corpus):
    runner = CliRunner()
    res = runner.invoke(app, ["search", str(corpus.root), QUERY, "-r", "bm25", "-k", "6", "--json"])
    assert res.exit_code == 0, res.output
    first = [r["page_id"] for r in json.loads(res.stdout)]
    expected, ref = _expected_order(tiny_ce, corpus, first)
    assert expected != first   # the reranker really changes this order
    res = runner.invoke(app, ["search", str(corpus.root), QUERY, "-r", "bm25", "-k", "6", "--json",
                              "--rerank", f"cross-encoder:{tiny_ce}", "--rerank-depth", "6"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["page_id"] for r in rows] == expected
    assert all(r["reranker"] == f"cross-encoder:{tiny_ce}" for r in rows)
    assert [r["first_stage_rank"] for r in rows] == [first.index(p) + 1 for p in expected]
    assert [r["score"] for r in rows] == pytest.approx(sorted(ref, reverse=True), abs=1e-5)
    # ask: the hits handed to the generator come in the reranker's order, top k of the depth
    res = runner.invoke(app, ["ask", str(corpus.root), QUERY, "-r", "bm25", "-k", "3", "--json",
                              "--rerank", f"cross-encoder:{tiny_ce}", "--rerank-depth", "6"])
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)["hits"]
    names = {p: f"{corpus.page(p).file_name}:{corpus.page(p).page_no}" for p in expected}
    assert [f"{h['doc']}:{h['page']}" for h in hits] == [names[p] for p in expected[:3]]
    assert all("first_stage_score" in h for h in hits)


def test_compare_and_eval_rerank(tiny_ce, corpus, tmp_path):
    from docrag.eval.compare import compare_retrievers
    from docrag.eval.data import load_qa
    from docrag.eval.runner import EvalConfig, Evaluator

    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "q1", "question": QUERY, "answer": "4.2 billion", "doc": "alpha.pdf",
                              "pages": [1]}) + "\n", encoding="utf-8")
    items = load_qa(qa, corpus)
    base = compare_retrievers(corpus, items, ["bm25"], k=6, runs_dir=tmp_path / "plain", show_progress=False)
    res = compare_retrievers(corpus, items, ["bm25"], k=6, runs_dir=tmp_path / "rr", show_progress=False,
                             rerank=f"cross-encoder:{tiny_ce}", rerank_depth=6)
    assert res["rerank"]["depth"] == 6 and base.get("rerank") is None

    def run_order(folder):
        rows = [line.split() for line in (folder / "bm25.trec").read_text().splitlines()]
        return [r[2] for r in sorted(rows, key=lambda r: int(r[3]))]

    first = run_order(tmp_path / "plain")
    label = f"bm25 >> cross-encoder:{tiny_ce}"
    assert set(res["retrievers"]) == {"bm25", label} and res["retrievers"][label]["first_stage"] == "bm25"
    assert run_order(tmp_path / "rr") == first                # the first stage is reported on its own
    rr_rows = [line.split() for line in Path(res["retrievers"][label]["run_file"]).read_text().splitlines()]
    assert [r[2] for r in sorted(rr_rows, key=lambda r: int(r[3]))] == _expected_order(tiny_ce, corpus, first)[0]
    cfg = EvalConfig(retriever="bm25", generator="none", k=6, rerank=f"cross-encoder:{tiny_ce}", rerank_depth=6)
    Evaluator.from_files(corpus.root, qa, tmp_path / "run", cfg, show_progress=False).run()
    rec = json.loads((tmp_path / "run" / "retrieval.jsonl").read_text().splitlines()[0])
    assert [h["page_id"] for h in rec["hits"]] == _expected_order(tiny_ce, corpus, first)[0]
    assert all(h["reranker"] and h["first_stage_score"] is not None for h in rec["hits"])
    assert "rerank" in cfg.identity() and "rerank" not in EvalConfig(retriever="bm25").identity()
    assert [h["page_id"] for h in rec["first_stage_hits"]] == first
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["retrieval"]["first_stage"]["reranker"] == f"cross-encoder:{tiny_ce}"
    md = (tmp_path / "run" / "report.md").read_text()
    assert "Retrieval before the rerank stage" in md and "reranked by" in md


def test_viewer_pipelines_get_the_rerank_stage(tiny_ce, corpus):
    from docrag.apps.viewer import _default_rag_factory

    rag = _default_rag_factory(corpus, "bm25", "extractive",
                               rerank={"rerank": f"cross-encoder:{tiny_ce}", "rerank_depth": 6})
    hits = rag.retrieve(QUERY, k=3)
    assert len(hits) == 3 and all(h.reranker == f"cross-encoder:{tiny_ce}" for h in hits)


def test_config_rerank_applies_and_none_switches_it_off(tiny_ce, corpus, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'rerank = "cross-encoder:{tiny_ce}"\nrerank_depth = 6\n', encoding="utf-8")
    monkeypatch.setenv("DOCRAG_CONFIG", str(cfg))
    runner = CliRunner()
    res = runner.invoke(app, ["search", str(corpus.root), QUERY, "-r", "bm25", "-k", "3", "--json"])
    assert res.exit_code == 0, res.output
    assert all(r.get("reranker") for r in json.loads(res.stdout))
    res = runner.invoke(app, ["search", str(corpus.root), QUERY, "-r", "bm25", "-k", "3", "--json",
                              "--rerank", "none"])
    assert res.exit_code == 0 and not any(r.get("reranker") for r in json.loads(res.stdout))
    from docrag.pipeline import RAG

    assert all(h.reranker for h in RAG(corpus, retriever="bm25", show_progress=False).retrieve(QUERY, k=2))
