"""Reports of a run: ``report.json``, ``report.md`` (the paper's Table 4 / Table 5 layouts), a long
``report.csv`` and PNG plots (metrics by category, Recall@k curve), all from the run's records.

Every score is a percentage (0..100) over the questions of its group; ``n`` says how many
questions a mean is over. Groups: ``overall``, ``category:<name>``, ``lang:<en|zh>``.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from docrag.citation.pixel_grounding import ANCHOR_SOURCE, PixelOptions, describe_options, report_pixel
from docrag.citation.pixel_grounding import ANCHORS as PIXEL_ANCHORS
from docrag.eval.attribution import STAGES, stage_counts
from docrag.eval.data import QAItem
from docrag.eval.gold_hits import gold_hits
from docrag.eval.records import GenerationRecord, RetrievalRecord
from docrag.eval.retrieval_metrics import (
    max_abs_difference,
    mean_scores,
    pytrec_eval_scores,
    question_scores,
    read_trec_qrels,
    read_trec_run,
    recall_curve,
)
from docrag.evidence import LEVELS
from docrag.io import atomic_write_bytes, atomic_write_json, atomic_write_text

log = logging.getLogger(__name__)

GEN_COLUMNS = ("accuracy", "rouge_l", "numeric_match", "P_Rec", "P_Prec", "B_Rec", "B_Prec", "iou",
               "gold_box_hit", "gold_page_hit", "pixel_f1", "pixel_iou", "model_pixel_f1")
GEN_LABELS = {"accuracy": "Acc", "rouge_l": "ROUGE-L", "numeric_match": "NumMatch", "P_Rec": "P_Rec",
              "P_Prec": "P_Prec", "B_Rec": "B_Rec", "B_Prec": "B_Prec", "iou": "IoU",
              "gold_box_hit": "GoldBox", "gold_page_hit": "GoldPage", "pixel_f1": "PixF1", "pixel_iou": "PixIoU",
              "model_pixel_f1": "ModelPixF1"}
JUDGE_COLUMNS = ("P_Rec", "P_Prec", "B_Rec", "B_Prec")
#: citation judges that are offline proxies of the paper's MLLM judge (labelled so in reports/plots)
PROXY_JUDGES = ("grounding",)


def is_proxy_judge(name: str | None) -> bool:
    """True for offline proxy citation judges (``grounding``), by family name."""
    return bool(name) and str(name).partition(":")[0] in PROXY_JUDGES


def column_label(column: str, section: dict) -> str:
    """A generation column's label, marked ``(proxy)`` when a proxy judge produced it."""
    label = GEN_LABELS[column]
    if column == "accuracy":
        return "Acc (proxy)" if section.get("accuracy_is_proxy") else f"Acc ({section.get('accuracy_judge')})"
    if column in JUDGE_COLUMNS and section.get("citation_is_proxy"):
        return f"{label} (proxy)"
    return label


RET_LABELS = {"ndcg": "nDCG", "recall": "Recall", "mrr": "MRR", "map": "MAP", "p": "P"}


def groups_of(items: Sequence[QAItem]) -> dict[str, list[str]]:
    """``overall``, then ``category:*`` and ``lang:*`` groups (sorted), each a list of qids."""
    out: dict[str, list[str]] = {"overall": [it.qid for it in items]}
    for key, attr in (("category", "category"), ("lang", "lang")):
        values = sorted({getattr(it, attr) or "unknown" for it in items})
        for v in values:
            out[f"{key}:{v}"] = [it.qid for it in items if (getattr(it, attr) or "unknown") == v]
    return out


# -- building ---------------------------------------------------------------------------------------

def build_report(items: Sequence[QAItem], retrieval: Mapping[str, RetrievalRecord],
                 generations: Mapping[str, GenerationRecord], config: Any, out: Path | None = None) -> dict:
    """The report of a run from its records (only questions of ``items`` count)."""
    groups = groups_of(items)
    report: dict[str, Any] = {"config": config.identity() if hasattr(config, "identity") else dict(config),
                              "n_questions": len(items)}
    ret_q = [it for it in items if it.qid in retrieval]
    if ret_q:
        report["retrieval"] = retrieval_section(ret_q, retrieval, groups, config.metrics, config.k, out)
    gen_q = [it for it in items if it.qid in generations]
    if gen_q:
        report["generation"] = generation_section(gen_q, generations, groups, config)
    report["complete"] = len(gen_q) == len(items) if getattr(config, "uses_generation", False) \
        else len(ret_q) == len(items)
    return report


def retrieval_section(items: Sequence[QAItem], retrieval: Mapping[str, RetrievalRecord],
                      groups: Mapping[str, list[str]], metrics: Sequence[str], k: int, out: Path | None) -> dict:
    ranked = {it.qid: retrieval[it.qid].page_ids for it in items}
    gold = {it.qid: set(it.gold_pages) for it in items}
    per_q = {q: question_scores(ranked[q], gold[q], metrics) for q in ranked}
    sec: dict[str, Any] = {"metrics": list(metrics), "k": k, "groups": {}}
    for name, qids in groups.items():
        ids = [q for q in qids if q in per_q]
        if ids:
            sec["groups"][name] = {**mean_scores(per_q, ids), "n": len(ids)}
    sec["recall_curve"] = {"overall": recall_curve(ranked, gold, k)}
    langs = [g for g in groups if g.startswith("lang:")]
    for name, qids in groups.items():
        if name.startswith("lang:") and len(langs) > 1:
            ids = [q for q in qids if q in ranked]
            if ids:
                sec["recall_curve"][name] = recall_curve({q: ranked[q] for q in ids}, {q: gold[q] for q in ids}, k)
    sec["pytrec_eval_max_abs_diff"] = _pytrec_check(per_q, metrics, out)
    first = {it.qid: [h.page_id for h in retrieval[it.qid].first_stage_hits or []] for it in items
             if retrieval[it.qid].first_stage_hits is not None}
    if first:   # a rerank stage ran: the retriever alone, reported apart from the reranked order
        fq = {q: question_scores(first[q], gold[q], metrics) for q in first}
        sec["first_stage"] = {"reranker": next(retrieval[q].reranker or "" for q in first), "groups": {
            name: {**mean_scores(fq, ids), "n": len(ids)}
            for name, qids in groups.items() if (ids := [q for q in qids if q in fq])}}
    return sec


def _pytrec_check(per_q: Mapping[str, Mapping[str, float]], metrics: Sequence[str], out: Path | None) -> float | None:
    """Largest difference between our per-question scores and pytrec_eval's on run.trec/qrels.trec."""
    if out is None or not (out / "run.trec").exists() or not (out / "qrels.trec").exists():
        return None
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        log.warning("pytrec_eval is not installed; retrieval numbers not cross-checked")
        return None
    qrels = {q: r for q, r in read_trec_qrels(out / "qrels.trec").items() if q in per_q}
    theirs = pytrec_eval_scores(read_trec_run(out / "run.trec"), qrels, metrics)
    diff = max_abs_difference(per_q, theirs)
    if diff > 1e-9:
        log.error("retrieval metrics differ from pytrec_eval by %.3g", diff)
    return diff


def _pct_mean(values: Sequence[float | bool | None]) -> tuple[float | None, int]:
    vals = [float(v) for v in values if v is not None]
    return (100.0 * sum(vals) / len(vals) if vals else None), len(vals)


def generation_section(items: Sequence[QAItem], generations: Mapping[str, GenerationRecord],
                       groups: Mapping[str, list[str]], config: Any) -> dict:
    judge_name = config.resolved_answer_judge if hasattr(config, "resolved_answer_judge") else ""
    citation_judge = getattr(config, "judge", "") if not isinstance(config, Mapping) else config.get("judge", "")
    sec: dict[str, Any] = {"accuracy_judge": judge_name, "accuracy_is_proxy": judge_name == "proxy",
                           "citation_judge": citation_judge, "citation_is_proxy": is_proxy_judge(citation_judge),
                           "groups": {}}
    pixel = _pixel_options(config)
    sec["pixel_grounding"] = {"options": pixel.to_json(), "description": describe_options(pixel),
                              "anchors": dict(PIXEL_ANCHORS), "anchor_source": ANCHOR_SOURCE}
    for name, qids in groups.items():
        recs = [generations[q] for q in qids if q in generations]
        if recs:
            sec["groups"][name] = _generation_group(recs, pixel)
    sec["agreement_with_iou"] = iou_agreement([generations[it.qid] for it in items])
    return sec


def iou_agreement(recs: Sequence[GenerationRecord]) -> dict[str, dict] | None:
    """Spec §5: Pearson/Spearman/Kendall of the automatic block-level recall and precision with
    IoU against gold boxes, over questions with gold boxes and a block-level score."""
    from docrag.citation import agreement

    iou = {r.qid: r.metrics.iou for r in recs if r.metrics.iou is not None}
    if not iou:
        return None
    out = {}
    for key in ("recall", "precision"):
        auto = {r.qid: r.citations["block"][key] for r in recs
                if r.citations and "block" in r.citations and not r.citations["block"].get("excluded")}
        out[f"block_{key}"] = agreement(auto, iou).to_json()
    return out


def _pixel_options(config: Any) -> PixelOptions:
    return PixelOptions(empty=getattr(config, "pixel_empty", "skip") or "skip",
                        average=getattr(config, "pixel_average", "query") or "query",
                        best=getattr(config, "pixel_best", "page") or "page")


def _generation_group(recs: Sequence[GenerationRecord], pixel: PixelOptions | None = None) -> dict:
    g: dict[str, Any] = {"n": len(recs)}
    m = [r.metrics for r in recs]
    pix = report_pixel([x.pixel for x in m], pixel or PixelOptions())
    g["pixel_f1"] = None if pix["f1"] is None else 100.0 * pix["f1"]
    g["pixel_iou"] = None if pix["iou"] is None else 100.0 * pix["iou"]
    g["n_pixel"], g["n_pixel_pages"] = pix["n_questions"], pix["n_pages"]
    own = report_pixel([x.model_pixel for x in m], pixel or PixelOptions())   # before grounding
    g["model_pixel_f1"] = None if own["f1"] is None else 100.0 * own["f1"]
    g["model_pixel_iou"] = None if own["iou"] is None else 100.0 * own["iou"]
    g["accuracy"], g["n_accuracy"] = _pct_mean([x.accuracy for x in m])
    g["n_accuracy_errors"] = sum(1 for r in recs if r.answer_verdict and r.answer_verdict.correct is None)
    g["rouge_l"], _ = _pct_mean([x.rouge_l for x in m])
    g["numeric_match"], g["n_numeric"] = _pct_mean([x.numeric_match for x in m])
    g["iou"], g["n_iou"] = _pct_mean([x.iou for x in m])
    hits = [gold_hits(r) for r in recs]
    g["gold_box_hit"], g["n_gold_box"] = _pct_mean([h["gold_box_hit"] for h in hits])
    g["gold_page_hit"], g["n_gold_page"] = _pct_mean([h["gold_page_hit"] for h in hits])
    g["n_answered"] = sum(1 for r in recs if r.answer.answer.strip())
    g["n_parse_errors"] = sum(1 for r in recs if r.answer.parse_error)
    for prefix, level in (("P", "page"), ("B", "block")):
        res = [r.citations[level] for r in recs if r.citations and level in r.citations]
        ok = [x for x in res if not x.get("excluded")]
        g[f"{prefix}_Rec"], _ = _pct_mean([x["recall"] for x in ok])
        g[f"{prefix}_Prec"], _ = _pct_mean([x["precision"] for x in ok])
        g[f"n_{level}"] = len(ok)
        g[f"n_excluded_{level}"] = len(res) - len(ok)
        g[f"n_judge_errors_{level}"] = sum(1 for x in res if x.get("errors"))
        g[f"judge_calls_{level}"] = sum(int(x.get("calls", 0)) for x in res)
    g["attribution"] = stage_counts(r.attribution for r in recs)
    return g


def _pixel_markdown(gen: dict) -> str:
    """The pixel grounding section: our F1/IoU on ViDoRe V3's 0..1 scale beside its anchors."""
    info = gen.get("pixel_grounding") or {}
    ov = gen["groups"].get("overall", {})
    a = info.get("anchors", PIXEL_ANCHORS)
    f1, iou = ov.get("pixel_f1"), ov.get("pixel_iou")
    ours = ("no question has gold boxes" if f1 is None else
            f"F1 **{f1 / 100:.3f}**, IoU {iou / 100:.3f} (n = {ov.get('n_pixel')} questions, "
            f"{ov.get('n_pixel_pages')} pages)")
    own_f1, own_iou = ov.get("model_pixel_f1"), ov.get("model_pixel_iou")
    own = ("" if own_f1 is None else
           f"- the generator's own boxes (before grounding, same questions): F1 {own_f1 / 100:.3f}, "
           f"IoU {own_iou / 100:.3f}\n")
    return ("## Pixel grounding (ViDoRe V3 scale, 0..1)\n\n"
            f"- this run (grounded citations): {ours}\n{own}"
            f"- ViDoRe V3 anchors: human F1 {a['human_f1']:.3f} (IoU {a['human_iou']:.3f}); best VLM "
            f"Qwen3-VL-30B-A3B F1 {a['qwen3_vl_30b_a3b_f1']:.3f}; Gemini 3 Pro F1 {a['gemini_3_pro_f1']:.3f} "
            f"({info.get('anchor_source', ANCHOR_SOURCE)})\n"
            f"- choices: {info.get('description', '')}")


# -- writing ----------------------------------------------------------------------------------------

def write_reports(report: dict, out: Path, plots: bool = True) -> list[Path]:
    out = Path(out)
    paths = [out / "report.json", out / "report.md", out / "report.csv"]
    atomic_write_json(paths[0], report)
    atomic_write_text(paths[1], render_markdown(report))
    atomic_write_text(paths[2], render_csv(report))
    if plots:
        paths += write_plots(report, out)
    return paths


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def metric_label(name: str) -> str:
    fam, _, k = name.partition("@")
    return f"{RET_LABELS.get(fam, fam)}@{k}"


def render_markdown(report: dict) -> str:
    cfg = report.get("config", {})
    rerank = f" reranked by `{cfg['rerank']}` (top {cfg.get('rerank_depth')})," if cfg.get("rerank") else ","
    parts = [f"# docrag evaluation\n\n{report.get('n_questions', 0)} questions; retriever `{cfg.get('retriever')}`"
             f"{rerank} "
             f"generator `{cfg.get('generator')}`, citation judge `{cfg.get('judge')}`, answer judge "
             f"`{cfg.get('answer_judge')}`, context `{cfg.get('context')}`, k = {cfg.get('k')}. "
             "All scores in percent."]
    errors = report.get("errors") or {}
    if errors.get("n"):
        stages = ", ".join(f"{k} {v}" for k, v in errors.get("by_stage", {}).items())
        parts.append(f"**Errors: {errors['n']} question(s) failed** ({stages}); they are left out of the scores "
                     "below. Run the same command again to retry only them (details in `errors.jsonl`).")
    if not report.get("complete", True):
        parts.append("**Incomplete run**: some questions have no records yet; resume it to finish.")
    ret = report.get("retrieval")
    if ret:
        rows = [[g, *(s.get(m) for m in ret["metrics"]), s["n"]] for g, s in ret["groups"].items()]
        check = ret.get("pytrec_eval_max_abs_diff")
        note = ("" if check is None else f"\n\nCross-check: max |ours - pytrec_eval| on run.trec = {check:.2e}.")
        parts.append("## Retrieval (Table 4 layout)\n\n" + _table(["group", *map(metric_label, ret["metrics"]), "n"],
                                                                   rows) + note)
        fs = ret.get("first_stage")
        if fs:
            rows = [[g, *(s.get(m) for m in ret["metrics"]), s["n"]] for g, s in fs["groups"].items()]
            parts.append(f"## Retrieval before the rerank stage (first stage alone; the table above is after "
                         f"`{fs['reranker']}`)\n\n" + _table(["group", *map(metric_label, ret["metrics"]), "n"], rows))
    gen = report.get("generation")
    if gen:
        header = ["group", *(column_label(c, gen) for c in GEN_COLUMNS), "n"]
        rows = [[g, *(s.get(c) for c in GEN_COLUMNS), s["n"]] for g, s in gen["groups"].items()]
        ov = gen["groups"].get("overall", {})
        notes = []
        if gen.get("citation_is_proxy"):
            notes.append(f"P/B Rec/Prec (proxy): the citation judge `{gen.get('citation_judge')}` is an offline text "
                         "proxy, not the paper's MLLM judge; read it against the judge-free IoU, GoldBox (a cited box "
                         "overlaps a gold box) and GoldPage (the first citation is on a gold page) beside it.")
        if gen.get("accuracy_is_proxy"):
            notes.append("Acc (proxy) is not an LLM judge: numeric match when the gold answer has numbers, "
                         "else ROUGE-L F1 >= 0.5. Pass --answer-judge openai:<model> for the paper's judge.")
        excl = {lv: ov.get(f"n_excluded_{lv}", 0) for lv in LEVELS}
        if any(excl.values()):
            notes.append(f"Left out of citation means (unanswered or judge error): page {excl['page']}, "
                         f"block {excl['block']} question(s).")
        if ov.get("n_accuracy_errors"):
            notes.append(f"Answer-judge errors left out of Acc: {ov['n_accuracy_errors']}.")
        parts.append("## Generation and citation (Table 5 layout)\n\n" + _table(header, rows)
                     + ("\n\n" + "\n".join(f"- {n}" for n in notes) if notes else ""))
        agr = gen.get("agreement_with_iou") or {}
        if agr:
            lines = []
            for key, c in agr.items():
                vals = ", ".join(f"{m.capitalize()} {_fmt(None if c.get(m) is None else 100 * c[m])}"
                                 for m in ("pearson", "spearman", "kendall"))
                lines.append(f"- {key.replace('_', ' ')} vs IoU (n = {c.get('n')}): {vals}"
                             + (f" ({c['note']})" if c.get("note") else ""))
            parts.append("## Agreement of automatic citation scores with IoU\n\n" + "\n".join(lines))
        parts.append(_pixel_markdown(gen))
        att_rows = [[g, *(s["attribution"].get(st, 0) for st in STAGES)] for g, s in gen["groups"].items()]
        parts.append("## Stage attribution (questions)\n\n" + _table(["group", *STAGES], att_rows))
    return "\n\n".join(parts) + "\n"


def csv_rows(report: dict) -> list[list[Any]]:
    rows: list[list[Any]] = []
    ret = report.get("retrieval")
    if ret:
        for g, s in ret["groups"].items():
            rows += [["retrieval", g, m, s.get(m), s["n"]] for m in ret["metrics"]]
        for g, curve in ret.get("recall_curve", {}).items():
            rows += [["recall_curve", g, f"recall@{k}", v, None] for k, v in curve.items()]
    gen = report.get("generation")
    if gen:
        for g, s in gen["groups"].items():
            rows += [["generation", g, c + (" (proxy)" if _is_proxy_column(c, gen) else ""), s.get(c), s["n"]]
                     for c in GEN_COLUMNS]
            rows += [["attribution", g, st, s["attribution"].get(st, 0), s["n"]] for st in STAGES]
    return rows


def _is_proxy_column(column: str, gen: dict) -> bool:
    return bool((column == "accuracy" and gen.get("accuracy_is_proxy"))
                or (column in JUDGE_COLUMNS and gen.get("citation_is_proxy")))


def render_csv(report: dict) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "group", "metric", "value", "n"])
    for row in csv_rows(report):
        w.writerow(["" if v is None else (round(v, 6) if isinstance(v, float) else v) for v in row])
    return buf.getvalue()


def write_plots(report: dict, out: Path) -> list[Path]:
    """``metrics_by_category.png`` and ``recall_at_k.png`` (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"font.family": _font_families()}):
        return _plots(report, out, plt)


CJK_FONTS = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans CJK JP", "SimHei", "Microsoft YaHei")


def _font_families() -> list[str]:
    """DejaVu Sans plus an installed CJK font (fallback), so Chinese category names render."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *[f for f in CJK_FONTS if f in installed][:1]]


def _plots(report: dict, out: Path, plt: Any) -> list[Path]:
    written = []
    series: dict[str, Callable[[str], float | None]] = {}
    ret, gen = report.get("retrieval"), report.get("generation")
    if ret:
        for m in ("recall@10", "ndcg@10"):
            if m in ret["metrics"]:
                series[metric_label(m)] = lambda g, m=m: ret["groups"].get(g, {}).get(m)
    if gen:
        for c in ("accuracy", "rouge_l", "B_Rec", "B_Prec", "iou", "gold_box_hit"):
            series[column_label(c, gen)] = lambda g, c=c: gen["groups"].get(g, {}).get(c)
    cats = sorted({g for sec in (ret, gen) if sec for g in sec["groups"] if g.startswith("category:")})
    if series and cats:
        fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(cats) + 2), 4))
        width = 0.8 / len(series)
        for i, (label, fn) in enumerate(series.items()):
            vals = [fn(c) or 0.0 for c in cats]
            ax.bar([x + i * width for x in range(len(cats))], vals, width, label=label)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(cats))])
        ax.set_xticklabels([c.split(":", 1)[1] for c in cats], rotation=20, ha="right")
        ax.set_ylabel("%")
        ax.set_ylim(0, 105)
        proxies = [lbl for lbl in series if "(proxy)" in lbl]
        ax.set_title("Metrics by category" + ("\n(proxy) = offline proxy judge, not an MLLM judge" if proxies else ""),
                     fontsize=10)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        written.append(_save(fig, out / "metrics_by_category.png"))
        plt.close(fig)
    if ret and ret.get("recall_curve"):
        fig, ax = plt.subplots(figsize=(6, 4))
        for g, curve in ret["recall_curve"].items():
            ks = sorted(int(k) for k in curve)
            ax.plot(ks, [curve[k] if k in curve else curve[str(k)] for k in ks], marker="o", label=g)
        ax.set_xlabel("k")
        ax.set_ylabel("Recall@k (%)")
        ax.set_ylim(0, 105)
        ax.set_title("Recall@k")
        ax.legend(fontsize=8)
        fig.tight_layout()
        written.append(_save(fig, out / "recall_at_k.png"))
        plt.close(fig)
    return written


def _save(fig: Any, path: Path) -> Path:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    atomic_write_bytes(path, buf.getvalue())
    return path
