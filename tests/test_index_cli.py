"""``docrag index`` and ``docrag search`` end to end on a small corpus."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from docrag.apps.cli import app
from tests.support.index_corpus import FINANCE_DOCS, make_corpus


def test_index_then_search_json_and_text(tmp_path):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    runner = CliRunner()
    res = runner.invoke(app, ["index", str(corpus.root), "--retriever", "bm25", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "6 page(s) indexed" in res.output and (corpus.root / "indexes" / "bm25" / "manifest.json").exists()
    res = runner.invoke(app, ["search", str(corpus.root), "abrasives production", "-r", "bm25", "-k", "2",
                                 "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert rows[0]["file_name"] == "beta.pdf" and rows[0]["page_no"] == 1 and rows[0]["rank"] == 1
    res = runner.invoke(app, ["search", str(corpus.root), "survey", "-r", "bm25", "--filter", "doc_id=gamma"])
    assert res.exit_code == 0 and "gamma.pdf  p.2" in res.output
    res = runner.invoke(app, ["search", str(corpus.root), "x", "--filter", "nonsense"])
    assert res.exit_code == 2


def test_unknown_retriever_and_stale_index_are_clear_errors(tmp_path):
    import subprocess
    import sys

    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    cmd = [sys.executable, "-c", "from docrag.apps.cli import main; main()"]
    out = subprocess.run([*cmd, "search", str(corpus.root), "q", "-r", "colbertz"], capture_output=True, text=True)
    # an unknown name is a usage error, caught before the corpus or any model is touched
    said = " ".join(out.stderr.replace("│", " ").split())  # rich wraps the message inside a box
    assert out.returncode == 2 and "unknown retriever 'colbertz'; valid retrievers" in said and "bm25" in said
    out = subprocess.run([*cmd, "search", str(corpus.root), "q", "--no-build"], capture_output=True, text=True)
    assert out.returncode == 1 and "docrag index" in out.stderr


def test_index_and_search_default_to_the_configured_retriever(tmp_path, monkeypatch):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("DOCRAG_RETRIEVER", "dummy")
    runner = CliRunner()
    res = runner.invoke(app, ["index", str(corpus.root), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("dummy:") and (corpus.root / "indexes" / "dummy" / "manifest.json").exists()
    res = runner.invoke(app, ["search", str(corpus.root), "survey", "--json"])
    assert res.exit_code == 0, res.output
    assert {r["retriever"] for r in json.loads(res.output)} == {"dummy"}
