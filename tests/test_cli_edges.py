"""The CLI's rough edges of issue 14, item 3: each one checked here."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.errors import DocragError
from tests.support.synthetic_corpus import ASK_QUESTION, ASK_WORD, SEARCH_QUERY


def _env(tmp_path, **extra):
    return {"DOCRAG_CONFIG": str(tmp_path / "none.toml"), **extra}


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir, tmp_path_factory):
    dst = tmp_path_factory.mktemp("edges") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


def test_compare_checks_every_retriever_name_before_running(corpus_dir, synthetic_source, tmp_path):
    fresh = tmp_path / "c"
    shutil.copytree(corpus_dir, fresh, ignore=shutil.ignore_patterns("indexes"))
    res = CliRunner().invoke(app, ["compare", str(fresh), "--qa", str(synthetic_source.qa_path),
                                   "--retrievers", "bm25,foo"], env=_env(tmp_path))
    assert res.exit_code == 2
    assert "unknown retriever 'foo'" in " ".join(res.output.split())
    assert not (fresh / "indexes").exists(), "bm25 must not run before every name is checked"
    for bad in ("hybrid:bm25+nope", "colqwen2", "bm25:x"):
        res = CliRunner().invoke(app, ["compare", str(fresh), "--qa", str(synthetic_source.qa_path),
                                       "--retrievers", f"bm25,{bad}"], env=_env(tmp_path))
        assert res.exit_code == 2, (bad, res.output)


def _fake_run(path, n_total, groups):
    path.mkdir()
    rep = {"n_questions": n_total, "complete": True, "config": {"retriever": "bm25", "generator": "x"},
           "retrieval": {"groups": {g: {"n": n, "ndcg@10": 50.0, "recall@10": 60.0, "mrr@10": 40.0}
                                    for g, n in groups.items()}}}
    (path / "report.json").write_text(json.dumps(rep), encoding="utf-8")


def test_compare_runs_group_shows_the_groups_n(tmp_path):
    from docrag.eval.compare import compare_runs

    _fake_run(tmp_path / "a", 15, {"overall": 15, "lang:zh": 3})
    _fake_run(tmp_path / "b", 15, {"overall": 15, "lang:zh": 3})
    result = compare_runs([tmp_path / "a", tmp_path / "b"], group="lang:zh")
    assert [r["n"] for r in result["runs"]] == [3, 3]
    res = CliRunner().invoke(app, ["compare-runs", str(tmp_path / "a"), str(tmp_path / "b"), "--group", "lang:zh"])
    assert res.exit_code == 0, res.output
    last = res.stdout.strip().splitlines()[-1].split()
    assert last[-1] == "3"
    res = CliRunner().invoke(app, ["compare-runs", str(tmp_path / "a"), "--group", "lang:xx"])
    assert res.exit_code == 2


@pytest.mark.parametrize("cmd", [["ask"], ["search"], ["compare"], ["corpus", "info"], ["ingest"], ["serve"]])
def test_flags_show_no_bool_type_in_help(cmd):
    res = CliRunner().invoke(app, [*cmd, "--help"], env={"COLUMNS": "160"})
    assert res.exit_code == 0
    assert "--json" in res.output or "--progress" in res.output
    assert "<bool>" not in res.output and "BOOLEAN" not in res.output


def test_progress_bars_quiet_when_stderr_is_not_a_terminal(corpus_dir, synthetic_source, tmp_path, caplog):
    from docrag.apps.commands.common import show_progress

    assert show_progress(True) is True and show_progress(False) is False
    fresh = tmp_path / "c"
    shutil.copytree(corpus_dir, fresh, ignore=shutil.ignore_patterns("indexes"))
    res = CliRunner().invoke(app, ["index", str(fresh), "-r", "bm25"], env=_env(tmp_path))
    assert res.exit_code == 0, res.output
    assert "\r" not in res.stderr and "it/s" not in res.stderr and "%|" not in res.stderr
    # the first build is still announced (as a log line when there are no bars), once
    said = res.stderr + caplog.text
    assert f"building the bm25 index for {synthetic_source.n_pages} page(s), once" in said
    caplog.clear()
    again = CliRunner().invoke(app, ["index", str(fresh), "-r", "bm25"], env=_env(tmp_path))
    assert "building" not in again.stderr + caplog.text


def test_nested_bar_names_keep_start_and_end():
    from docrag.progress import short_name

    name = "usgs_mcs2011_abrasives_manufactured_annual_report.pdf"
    s = short_name(name, 32)
    assert len(s) == 32 and s.startswith("usgs_mcs2011") and s.endswith("report.pdf")
    assert short_name("short.pdf") == "short.pdf"


def test_transformers_loading_bar_is_silenced_in_the_python_api(capfd):
    from transformers.utils import logging as hf_logging

    from docrag.index.dense import load_sentence_model
    from docrag.index.registry import get_retriever

    hf_logging.enable_progress_bar()
    load_sentence_model.cache_clear()
    r = get_retriever("minilm", device="cpu")
    _ = r.model
    err = capfd.readouterr().err
    assert "Loading weights" not in err
    assert hf_logging.is_progress_bar_enabled(), "the user's own setting is restored afterwards"


def test_plain_ask_shows_hits_and_scores_and_saves_overlays(corpus_dir, tmp_path):
    out = tmp_path / "ov"
    res = CliRunner().invoke(app, ["ask", str(corpus_dir), ASK_QUESTION,
                                   "-r", "bm25", "-g", "extractive", "--save-overlays", str(out)],
                             env=_env(tmp_path), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "Retrieved (bm25" in res.stdout
    hit_lines = [ln for ln in res.stdout.splitlines() if ln.strip().startswith("1 ") and " p." in ln]
    assert hit_lines and any(ch.isdigit() for ch in hit_lines[0].split()[1])
    pngs = sorted(out.glob("*.png"))
    assert pngs and "page overlay(s) written" in res.stderr
    img = np.asarray(Image.open(pngs[0]).convert("RGB")).astype(int)
    red = (img[..., 0] > 180) & (img[..., 1] < 90) & (img[..., 2] < 90)
    assert red.sum() > 50, "the cited box is drawn in red on the whole page"
    assert img.shape[0] > img.shape[1], "a whole portrait page, not a crop"


def test_search_prints_a_snippet(corpus_dir, tmp_path):
    res = CliRunner().invoke(app, ["search", str(corpus_dir), SEARCH_QUERY, "-r", "bm25", "-k", "2"],
                             env=_env(tmp_path))
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert ASK_WORD in lines[1].lower() and lines[1].startswith("       ")
    rows = json.loads(CliRunner().invoke(app, ["search", str(corpus_dir), "aluminum oxide", "-r", "bm25",
                                               "--json"], env=_env(tmp_path)).stdout)
    assert rows[0]["snippet"] and rows[0]["image"].endswith((".png", ".jpg", ".jpeg"))


def test_model_source_errors_are_one_line(corpus_dir, tmp_path):
    cases = {"colqwen2:vidore/colqwen2-v1.0": "HF_HUB_OFFLINE=0", "colqwen2:/no/such/model": "not found",
             "dense:./missing-model": "not found"}
    for name, expected in cases.items():
        res = CliRunner().invoke(app, ["search", str(corpus_dir), "x", "-r", name],
                                 env=_env(tmp_path, HF_HUB_OFFLINE="1"))
        # the console script prints a DocragError as one "error: ..." line (exit 1); CliRunner hands it back
        assert res.exit_code == 1 and isinstance(res.exception, DocragError), (name, res.output, res.exception)
        msg = str(res.exception)
        assert expected in msg and "\n" not in msg, (name, msg)
        assert "HFValidationError" not in msg
        assert not (corpus_dir / "indexes" / name.replace(":", "-").replace("/", "-")).exists()


def test_minilm_bar_is_labelled_and_keeps_input_order(capsys):
    """The encoding bar names the retriever and what it encodes (not a bare 'Batches'); chunking the
    texts longest-first for it must not change which vector belongs to which text."""
    from docrag.index.dense import SentenceTransformerRetriever

    class Stub:
        def encode(self, texts, batch_size, show_progress_bar, convert_to_numpy, normalize_embeddings):
            assert not show_progress_bar
            return np.array([[len(t), t.count("a")] for t in texts], dtype=np.float32)

    r = SentenceTransformerRetriever("stub", "stub", device="cpu", batch_size=2)
    r.name, r._model = "minilm", Stub()
    texts = ["a" * (i % 7 + 1) + "b" * (i % 3) for i in range(40)]
    out = r._embed(texts, show_progress=True)
    assert out.tolist() == [[len(t), t.count("a")] for t in texts]
    assert "minilm: encoding 40 text chunk(s)" in capsys.readouterr().err
