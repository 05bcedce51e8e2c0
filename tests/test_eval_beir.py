"""ViDoRe (qa layout) and BEIR-layout local datasets: import into a corpus, then compare/eval on them."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageDraw, ImageFont
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.errors import InputError
from docrag.eval.beir import load_dataset_items, read_dataset, read_table

TEXTS = {"p-alpha": "REVENUE 42 MILLION", "p-beta": "ARRESTS 1200 FRAUD", "p-gamma": "WHEAT HARVEST 2017"}


def _page_png(text: str) -> bytes:
    img = Image.new("RGB", (600, 400), "white")
    ImageDraw.Draw(img).text((40, 150), text, fill="black", font=ImageFont.load_default(size=40))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _beir(root):
    (root / "qrels").mkdir(parents=True)
    (root / "pages").mkdir()
    corpus = []
    for cid, text in TEXTS.items():
        (root / "pages" / f"{cid}.png").write_bytes(_page_png(text))
        corpus.append({"corpus-id": cid, "image": f"pages/{cid}.png"})
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus), encoding="utf-8")
    queries = [{"query-id": "q1", "query": "revenue million"}, {"query-id": "q2", "query": "fraud arrests"},
               {"query-id": "q3", "query": "wheat harvest"}]
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tp-alpha\t1\nq2\tp-beta\t1\n"
                                             "q3\tp-gamma\t1\nq3\tp-alpha\t0\n", encoding="utf-8")
    return root


def test_beir_layout_import_and_compare(tmp_path):
    ds_dir = _beir(tmp_path / "ds")
    ds = read_dataset(ds_dir)
    assert ds.layout == "beir" and set(ds.images) == set(TEXTS) and ds.qrels["q3"] == {"p-gamma"}
    out = tmp_path / "corpus"
    res = CliRunner().invoke(app, ["dataset", "import", str(ds_dir), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "beir layout" in res.stdout and "3 page image(s), 3 queries" in res.stdout
    res = CliRunner().invoke(app, ["compare", str(out), "--qa", str(ds_dir), "--retrievers", "bm25",
                                   "--out", str(tmp_path / "cmp.json")], env={"DOCRAG_CONFIG": str(tmp_path / "x")})
    assert res.exit_code == 0, res.output
    overall = json.loads((tmp_path / "cmp.json").read_text())["retrievers"]["bm25"]["groups"]["overall"]
    assert overall["n"] == 3
    assert overall["ndcg@1"] == pytest.approx(100.0) and overall["map@10"] == pytest.approx(100.0)
    assert overall["p@5"] == pytest.approx(20.0)  # one relevant page in the top 5
    run = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", str(out), "--qa", str(ds_dir), "--out", str(run), "-r", "bm25",
                                   "--generator", "none", "--judge", "none", "--batch-size", "4"],
                             env={"DOCRAG_CONFIG": str(tmp_path / "x")})
    assert res.exit_code == 0, res.output
    report = json.loads((run / "report.json").read_text())
    assert report["n_questions"] == 3 and report["retrieval"]["groups"]["overall"]["recall@10"] == 100.0


def test_qa_layout_parquet_maps_queries_to_pages(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    ds_dir = tmp_path / "v1"
    (ds_dir / "data").mkdir(parents=True)
    rows = [{"query": "revenue?", "image": {"bytes": _page_png(TEXTS["p-alpha"]), "path": None},
             "image_filename": "docs/a.png", "answer": "42 million"},
            {"query": None, "image": {"bytes": _page_png(TEXTS["p-beta"]), "path": None},
             "image_filename": "docs/b.png", "answer": None},
            {"query": "harvest?", "image": {"bytes": _page_png(TEXTS["p-gamma"]), "path": None},
             "image_filename": "docs/c.png", "answer": "wheat"}]
    pq.write_table(pa.Table.from_pylist(rows), ds_dir / "data" / "test-00000-of-00001.parquet")
    assert len(read_table(ds_dir / "data")) == 3
    ds = read_dataset(ds_dir)
    assert ds.layout == "qa" and len(ds.images) == 3 and len(ds.queries) == 2
    from docrag.corpus import Corpus
    from docrag.eval.beir import import_dataset

    out = tmp_path / "corpus"
    with pytest.raises(InputError, match="import it first"):
        load_dataset_items(ds_dir, Corpus.create(out))
    report = import_dataset(ds_dir, out, ocr="never")
    assert not report.failures and len(report.added) == 3
    corpus = Corpus.open(out)
    items = load_dataset_items(ds_dir, corpus)
    names = {d.doc_id: d.file_name for d in corpus.documents()}
    assert [(it.question, names[it.gold_pages[0].split(":")[0]], it.answer) for it in items] == [
        ("revenue?", "docs_a.png", "42 million"), ("harvest?", "docs_c.png", "wheat")]


def test_not_a_dataset_is_one_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="not a ViDoRe/BEIR dataset folder"):
        read_dataset(tmp_path / "empty")
