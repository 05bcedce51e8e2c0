"""Reports label proxy judges as proxies (markdown, CSV, plots, compare-runs) and put the
judge-free IoU, gold-box hit and gold-page hit beside the judge's P/R."""

from __future__ import annotations

from docrag.eval.data import QAItem
from docrag.eval.gold_hits import gold_hits
from docrag.eval.records import GenerationRecord
from docrag.eval.report import build_report, render_csv, render_markdown, write_plots
from docrag.evidence import GoldEvidence
from docrag.geometry import Box


def _box(x0, y0, x1, y1):
    return Box.points(x0, y0, x1, y1, 600, 800)


def _record(qid, cited, gold_page="d:1", gold=(100, 100, 200, 150), gold_pages=None):
    g = GoldEvidence(gold_page, _box(*gold))
    pages = [gold_page] if gold_pages is None else gold_pages
    return GenerationRecord.from_json({
        "qid": qid, "question": "q", "context": "retrieved", "context_pages": [],
        "gold": {"answer": "x", "pages": pages, "boxes": [g.to_json()] if pages else []},
        "answer": {"question": "q", "answer": "x",
                   "citations": [{"page_id": p, "boxes": [_box(*b).to_dict()]} for p, b in cited]},
        "metrics": {"iou": 0.5, "rouge_l": 0.5, "accuracy": None, "numeric_match": None},
        "citations": {"page": {"recall": 1.0, "precision": 1.0}, "block": {"recall": 1.0, "precision": 0.5}},
        "attribution": "correct"})


def test_gold_hits_first_page_and_box_overlap():
    assert gold_hits(_record("a", [("d:1", (150, 120, 300, 300))])) == {"gold_page_hit": True, "gold_box_hit": True}
    assert gold_hits(_record("b", [("d:2", (100, 100, 200, 150)), ("d:1", (0, 0, 50, 50))])) == \
        {"gold_page_hit": False, "gold_box_hit": False}
    assert gold_hits(_record("c", [("d:2", (0, 0, 1, 1)), ("d:1", (190, 140, 250, 250))]))["gold_box_hit"] is True
    assert gold_hits(_record("d", [])) == {"gold_page_hit": False, "gold_box_hit": False}
    assert gold_hits(_record("e", [], gold_pages=[])) == {"gold_page_hit": None, "gold_box_hit": None}


class _Cfg:
    metrics = ("ndcg@5",)
    k = 5
    judge = "grounding"
    resolved_answer_judge = "proxy"
    uses_generation = True

    def identity(self):
        return {"retriever": "bm25", "generator": "extractive", "judge": self.judge}


def _report(judge="grounding"):
    items = [QAItem("a", "q", "x", category="table"), QAItem("b", "q", "x", category="text")]
    gens = {"a": _record("a", [("d:1", (150, 120, 300, 300))]), "b": _record("b", [("d:2", (0, 0, 5, 5))])}
    cfg = _Cfg()
    cfg.judge = judge
    return build_report(items, {}, gens, cfg)


def test_reports_label_the_proxy_judge_and_show_gold_hits(tmp_path):
    rep = _report()
    ov = rep["generation"]["groups"]["overall"]
    assert ov["gold_box_hit"] == 50.0 and ov["gold_page_hit"] == 50.0
    assert rep["generation"]["citation_is_proxy"] is True
    md = render_markdown(rep)
    header = next(line for line in md.splitlines() if line.startswith("| group") and "IoU" in line)
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[cols.index("B_Prec (proxy)") + 1:cols.index("B_Prec (proxy)") + 4] == ["IoU", "GoldBox", "GoldPage"]
    assert "P_Rec (proxy)" in cols and "offline text proxy" in md
    csv = render_csv(rep)
    assert "B_Rec (proxy)" in csv and "gold_box_hit" in csv
    (png,) = [p for p in write_plots(rep, tmp_path) if p.name == "metrics_by_category.png"]
    assert png.stat().st_size > 1000


def test_model_judges_are_not_labelled_proxy():
    rep = _report("openai:gpt-4o")
    md = render_markdown(rep)
    assert rep["generation"]["citation_is_proxy"] is False
    assert "B_Rec (proxy)" not in md and "| B_Rec |" in md.replace(" B_Rec ", " B_Rec ")
