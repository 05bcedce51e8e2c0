"""``docrag compare --preset vidore-v3``: local data from the config, published numbers beside the run's."""

from __future__ import annotations

from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.eval.presets import PUBLISHED
from tests.test_vidore_v3 import dataset  # noqa: F401  (fixture)


def test_vidore_v3_preset_prints_published_numbers_beside_the_run(dataset, tmp_path, monkeypatch):  # noqa: F811
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[presets.vidore-v3]\ndata = "{dataset}"\ncorpus = "{tmp_path / "corpus"}"\n'
                   'retrievers = { BM25 = "bm25" }\n', encoding="utf-8")
    monkeypatch.setenv("DOCRAG_CONFIG", str(cfg))
    res = CliRunner().invoke(app, ["compare", "--preset", "vidore-v3", "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    bm25 = [ln for ln in lines if ln.startswith("BM25") and "overall" in ln][0]
    assert "not verified" in bm25
    assert any(ln.startswith("Qwen3-VL-Embedding") and "57.80" in ln for ln in lines)
    assert any("lang:fr" in ln for ln in lines) and "published numbers:" in res.stdout
    assert PUBLISHED["vidore-v3"]["rows"]["text pipeline + text reranker"] == 63.6


def test_preset_without_config_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "none.toml"))
    res = CliRunner().invoke(app, ["compare", "--preset", "finragbench-v"])
    assert res.exit_code != 0 and "[presets.finragbench-v]" in str(res.exception or res.output)
    res = CliRunner().invoke(app, ["compare", "--preset", "nope"])
    assert res.exit_code != 0 and "finragbench-v" in str(res.exception or res.output)


def test_finragbench_v_preset_recall_per_language_beside_the_paper(tmp_path, monkeypatch):
    from pathlib import Path

    from docrag.ingestion import ingest

    fixture = Path(__file__).parent / "fixtures" / "finragbench"
    corpus = tmp_path / "frb"
    ingest([fixture / "corpus_en"], out=corpus, show_progress=False)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[presets.finragbench-v]\ncorpus = "{corpus}"\nqa = "{fixture / "queries_en.json"}"\n'
                   f'qrels = "{fixture / "qrels_en.tsv"}"\n', encoding="utf-8")
    monkeypatch.setenv("DOCRAG_CONFIG", str(cfg))
    res = CliRunner().invoke(app, ["compare", "--preset", "finragbench-v", "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert any(ln.startswith("BM25") and "lang:en" in ln for ln in lines)
    colqwen = [ln for ln in lines if ln.startswith("ColQwen2 ")][0]
    assert "(not run)" in colqwen and "90.13 / 85.86" in colqwen
