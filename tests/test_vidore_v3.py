"""ViDoRe V3 from a local copy: corpus, questions in two languages, graded qrels, annotator boxes,
graded nDCG equal to pytrec_eval, and pixel Dice/IoU equal to a hand-computed value."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from docrag.citation.pixel_grounding import citations_pixel_record
from docrag.eval.vidore_v3 import build_corpus, evaluate, graded_ndcg, graded_qrels, qa_items, read_dataset
from docrag.geometry import Box
from docrag.types import Citation, Hit


def _png(w, h, color):
    buf = io.BytesIO()
    Image.new("RGB", (w, h), color).save(buf, format="PNG")
    return buf.getvalue()


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "vidore_v3_toy"
    (root / "images").mkdir(parents=True)
    (root / "images" / "b1.png").write_bytes(_png(160, 120, "white"))
    corpus = [
        {"corpus_id": 0, "doc_id": "report", "page_number_in_doc": 1, "markdown": "revenue grew to 4 billion",
         "image": {"bytes": base64.b64encode(_png(200, 100, "white")).decode()}},
        {"corpus_id": 1, "doc_id": "report", "page_number_in_doc": 2, "markdown": "operating costs and salaries",
         "image": {"bytes": base64.b64encode(_png(200, 100, "gray")).decode()}},
        {"corpus_id": 2, "doc_id": "manual", "page_number_in_doc": 1, "markdown": "safety procedures revenue",
         "image": {"path": "images/b1.png"}},
    ]
    queries = [
        {"query_id": 7, "query": "what was the revenue", "language": "en", "query_type": "extractive"},
        {"query_id": 7, "query": "quel était le chiffre d'affaires revenue", "language": "fr",
         "query_type": "extractive"},
        {"query_id": 8, "query": "costs and safety", "language": "en", "query_type": ["multi-hop", "boolean"]},
    ]
    qrels = [
        {"query_id": 7, "corpus_id": 0, "score": 2,
         "bounding_boxes": [{"annotator": "A", "x1": 0, "y1": 0, "x2": 100, "y2": 50},
                            {"annotator": "B", "x1": 100, "y1": 0, "x2": 200, "y2": 100}]},
        {"query_id": 7, "corpus_id": 2, "score": 1, "bounding_boxes": {"A": [[10, 10, 50, 50]]}},
        {"query_id": 8, "corpus_id": 1, "score": 2, "bounding_boxes": []},
        {"query_id": 8, "corpus_id": 2, "score": 1, "bounding_boxes": []},
        {"query_id": 8, "corpus_id": 0, "score": 0},
    ]
    _write(root / "corpus" / "test.jsonl", corpus)
    _write(root / "queries" / "test.jsonl", queries)
    _write(root / "qrels" / "test.jsonl", qrels)
    _write(root / "documents_metadata" / "test.jsonl",
           [{"doc_id": "report", "file_name": "report.pdf", "page_width_pt": 100, "page_height_pt": 50}])
    return root


def test_load_corpus_questions_and_boxes(dataset, tmp_path):
    ds = read_dataset(dataset)
    corpus = build_corpus(ds, tmp_path / "corpus", show_progress=False)
    assert len(corpus.page_ids()) == 3
    items = qa_items(ds, corpus)
    assert [(it.qid, it.lang) for it in items] == [("7:en", "en"), ("7:fr", "fr"), ("8", "en")]
    q7 = items[0]
    page = corpus.page(q7.gold_pages[0]) if "report" in q7.gold_pages[0] else corpus.page(q7.gold_pages[1])
    assert (page.width_pt, page.height_pt, page.image_width) == (100, 50, 200)
    assert page.text == "revenue grew to 4 billion"
    a_box = [b for b in q7.gold_boxes if b.annotator == "A" and b.page_id == page.page_id][0]
    assert a_box.box.to_list(3) == [0.0, 0.0, 50.0, 25.0]          # 200x100 px -> 100x50 pt
    manual = corpus.page([p for p in q7.gold_pages if p != page.page_id][0])
    assert (manual.width_pt, manual.image_width) == (160, 160)       # no metadata size: 72 dpi
    assert items[2].category == "multi-hop,boolean" and items[2].gold_boxes == []
    # re-running resumes (documents kept, nothing duplicated)
    assert len(build_corpus(ds, tmp_path / "corpus", show_progress=False).page_ids()) == 3


def test_graded_ndcg_equals_pytrec_eval_and_slices(dataset, tmp_path):
    ds = read_dataset(dataset)
    corpus = build_corpus(ds, tmp_path / "corpus", show_progress=False)
    items = qa_items(ds, corpus)
    qrels = graded_qrels(ds, items)
    p = {pid.split(":")[0] + str(corpus.page(pid).page_no): pid for pid in corpus.page_ids()}
    rep1, rep2, man1 = p["v3-report1"], p["v3-report2"], p["v3-manual1"]
    assert qrels["7:en"] == {rep1: 2, man1: 1}
    hits = {"7:en": [Hit(man1, 0.9, 1), Hit(rep1, 0.5, 2), Hit(rep2, 0.1, 3)],
            "7:fr": [Hit(rep1, 0.9, 1), Hit(man1, 0.8, 2)],
            "8": [Hit(rep1, 0.9, 1), Hit(man1, 0.7, 2), Hit(rep2, 0.7, 3)]}   # a tie, broken as trec_eval does
    res = evaluate(hits, qrels, items)
    assert res["pytrec_eval_max_abs_diff"] < 1e-9
    # hand value for 7:en: DCG = 1/log2(2) + 2/log2(3); IDCG = 2 + 1/log2(3)
    import math
    assert graded_ndcg({h.page_id: h.score for h in hits["7:en"]}, qrels["7:en"], 10) == \
        pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert res["groups"]["lang:fr"]["ndcg@10"] == pytest.approx(100.0)
    assert set(res["groups"]) >= {"overall", "lang:en", "lang:fr", "query_type:extractive", "query_type:boolean"}
    assert res["groups"]["overall"]["n"] == 3


def test_pixel_dice_iou_hand_computed(dataset, tmp_path):
    ds = read_dataset(dataset)
    corpus = build_corpus(ds, tmp_path / "corpus", show_progress=False)
    q7 = qa_items(ds, corpus)[0]
    rep1 = [pid for pid in q7.gold_pages if pid.startswith("v3-report")][0]
    man1 = [pid for pid in q7.gold_pages if pid != rep1][0]
    # system box 75x25 pt on the 100x50 pt page = [0,0,150,50] px of the 200x100 image:
    # vs A [0,0,100,50]: Dice 2*5000/(7500+5000) = 0.8, IoU 5000/7500; vs B [100,0,200,100]: Dice 5000/17500
    cits = [Citation(rep1, [Box.points(0, 0, 75, 25, 100, 50)])]
    rec = citations_pixel_record(cits, q7.gold_boxes, q7.gold_pages, corpus.page)
    pages = {p["page_id"]: p for p in rec["skip"]["pages"]}
    assert pages[rep1]["f1"] == pytest.approx(0.8) and pages[rep1]["iou"] == pytest.approx(2 / 3)
    assert pages[rep1]["annotator"] == "A"
    # the manual page: annotator A boxed it, the system did not -> 0 (B drew nothing: skipped)
    assert pages[man1]["f1"] == 0.0
    assert rec["skip"]["f1"] == pytest.approx(0.4)
    assert rec["one"]["f1"] == pytest.approx((0.8 + 1.0) / 2)   # (manual, B): both empty counts 1


def test_eval_cli_builds_the_corpus_and_reports_pixel_grounding(dataset, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from docrag.apps.cli import app

    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "none.toml"))
    res = CliRunner().invoke(app, ["eval", str(tmp_path / "corpus"), "--qa", str(dataset), "--out",
                                   str(tmp_path / "run"), "-r", "bm25", "-g", "extractive", "-j", "none",
                                   "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert set(report["retrieval"]["groups"]) >= {"lang:en", "lang:fr", "category:extractive"}
    assert report["generation"]["pixel_grounding"]["options"] == {"empty": "skip", "average": "query",
                                                                   "pixels": "round", "best": "page"}
    md = (tmp_path / "run" / "report.md").read_text()
    assert "Pixel grounding (ViDoRe V3 scale" in md and "human F1 0.602" in md


def _eval_copy(pdf_dir, records, tmp_path) -> dict:
    """``docrag eval`` with the offline defaults on a ViDoRe V3-layout copy of ``records``' PDFs (page
    images and markdown only: the corpus is built, and the images OCR'd, from the copy)."""
    from typer.testing import CliRunner

    from docrag.apps.cli import app
    from tests.support.vidore_layout import write_vidore_copy

    root = write_vidore_copy(pdf_dir, records, tmp_path / "vidore_copy")
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", str(tmp_path / "corpus"), "--qa", str(root), "--out", str(out),
                                   "--no-progress"])
    assert res.exit_code == 0, res.output
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def _overall(report: dict) -> dict:
    return report["generation"]["groups"]["overall"]


@pytest.mark.slow
def test_an_image_only_copy_is_ocrd_so_answers_are_grounded(synthetic_source, synthetic_qa, tmp_path):
    """Before, the corpus built from a ViDoRe V3 copy had text and no words: the offline generator
    declined everything and pixel Dice was 0."""
    ov = _overall(_eval_copy(synthetic_source.pdfs, synthetic_qa, tmp_path))
    assert ov["n_answered"] == len(synthetic_qa)
    assert ov["pixel_f1"] >= 45.0, ov            # against the two annotators, ViDoRe V3's way (measured 50.1)
    assert ov["model_pixel_f1"] is not None       # the generator's own boxes are scored beside them


@pytest.mark.slow
@pytest.mark.real_corpus
def test_a_vidore_layout_copy_of_the_real_pdfs_grounds(shared_corpus, tmp_path):
    records = [json.loads(line) for line in (shared_corpus / "qa.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    ov = _overall(_eval_copy(shared_corpus / "pdfs", records, tmp_path))
    assert ov["n_answered"] >= 0.9 * len(records)
    assert ov["pixel_f1"] >= 50.0, ov            # issue 24's bar; measured 57.7, 55.5 with the bm25 default
    assert ov["pixel_f1"] > ov["model_pixel_f1"]
