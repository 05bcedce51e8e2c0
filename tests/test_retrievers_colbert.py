"""colbert: (text late interaction through sentence-transformers' MultiVectorEncoder) on a tiny
ColBERT, and the --trust-remote-code opt-in on a tiny checkpoint that carries its own code."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import docrag.index as di
from docrag.apps.cli import app
from docrag.errors import DocragError
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.tiny_text import build_tiny_bert, build_tiny_colbert

QUERIES = ["total revenue 2011", "arrests by offense"]


@pytest.fixture(scope="module")
def tiny_colbert(tmp_path_factory):
    return build_tiny_colbert(tmp_path_factory.mktemp("colbert") / "m")


def test_colbert_index_search_reload_equals_maxsim_reference(tiny_colbert, tmp_path):
    from sentence_transformers import MultiVectorEncoder

    corpus = make_corpus(tmp_path / "c", FINANCE_DOCS)
    name = f"colbert:{tiny_colbert}"
    idx = di.open_index(corpus, name, show_progress=False, device="cpu")
    assert idx.kind == "multi" and idx.manifest["settings"]["query_prompt"] == "[Q] "
    assert idx.manifest["settings"]["trust_remote_code"] is False
    hits = idx.search_batch(QUERIES, k=6)
    ref = MultiVectorEncoder(str(tiny_colbert), device="cpu")
    pages = corpus.pages()
    sim = ref.similarity(ref.encode_query(QUERIES), ref.encode_document([p.text for p in pages])).numpy()
    col = {p.page_id: i for i, p in enumerate(pages)}
    for qi, qh in enumerate(hits):
        np.testing.assert_allclose([h.score for h in qh], sim[qi, [col[h.page_id] for h in qh]], rtol=2e-3, atol=2e-3)
        np.testing.assert_allclose([h.score for h in qh], np.sort(sim[qi])[::-1][:6], atol=2e-3)   # the top 6
    again = di.open_index(corpus, name, build=False, device="cpu")
    assert [[h.page_id for h in q] for q in again.search_batch(QUERIES, k=6)] == [[h.page_id for h in q] for q in hits]


def _remote_code_checkpoint(folder):
    """A tiny BERT whose config names its own classes (auto_map), as jina-colbert-v2 does."""
    build_tiny_bert(folder)
    (folder / "configuration_tinyremote.py").write_text(
        "from transformers import BertConfig\n\n\nclass TinyRemoteConfig(BertConfig):\n"
        "    model_type = 'tiny-remote'\n", encoding="utf-8")
    (folder / "modeling_tinyremote.py").write_text(
        "from transformers import BertModel\n\nfrom .configuration_tinyremote import TinyRemoteConfig\n\n\n"
        "class TinyRemoteModel(BertModel):\n    config_class = TinyRemoteConfig\n", encoding="utf-8")
    cfg = json.loads((folder / "config.json").read_text())
    cfg.update(model_type="tiny-remote", architectures=["TinyRemoteModel"],
               auto_map={"AutoConfig": "configuration_tinyremote.TinyRemoteConfig",
                         "AutoModel": "modeling_tinyremote.TinyRemoteModel"})
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return folder


def test_trust_remote_code_is_an_explicit_opt_in_recorded_in_the_index(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "none.toml"))
    model = _remote_code_checkpoint(tmp_path / "remote")
    corpus = make_corpus(tmp_path / "c", {"alpha": FINANCE_DOCS["alpha"]})
    with pytest.raises((ValueError, OSError, DocragError), match="(?i)trust_remote_code|remote code"):
        di.open_index(corpus, f"colbert:{model}", show_progress=False, device="cpu")
    res = CliRunner().invoke(app, ["index", str(corpus.root), "-r", f"colbert:{model}", "--trust-remote-code",
                                   "--no-progress", "--device", "cpu"])
    assert res.exit_code == 0, res.output
    manifest = json.loads(next((corpus.root / "indexes").glob("*/manifest.json")).read_text())
    assert manifest["settings"]["trust_remote_code"] is True
    res = CliRunner().invoke(app, ["search", str(corpus.root), "revenue", "-r", f"colbert:{model}",
                                   "--trust-remote-code", "--json", "--device", "cpu"])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)) == 2
