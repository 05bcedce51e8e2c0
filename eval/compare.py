"""Compare retrievers on one question set: nDCG@1/3/5/10, Recall@5/10, MRR@10, MAP@10, P@1/5, overall / per category /
per language, with every run file written and cross-checked against pytrec_eval."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.eval.data import QAItem
from docrag.eval.report import groups_of, metric_label
from docrag.eval.retrieval_metrics import (
    COMPARE_METRICS,
    canonical_order,
    max_abs_difference,
    mean_scores,
    parse_metric,
    pytrec_eval_scores,
    question_scores,
    write_trec_qrels,
    write_trec_run,
)
from docrag.io import atomic_write_json, read_json
from docrag.types import Hit

log = logging.getLogger(__name__)


def run_slug(name: str) -> str:
    """A file-name-safe form of a retriever name (``colqwen2:/m/x`` -> ``colqwen2_m_x``)."""
    out = "".join(c if c.isalnum() or c in "-+." else "_" for c in name)
    return "_".join(p for p in out.split("_") if p) or "run"


def compare_retrievers(corpus: Corpus, items: Sequence[QAItem], retrievers: Sequence[str], *, k: int = 10,
                       metrics: Sequence[str] = COMPARE_METRICS, index_dir: str | Path | None = None,
                       runs_dir: str | Path | None = None, show_progress: bool = True,
                       indexes: dict[str, Any] | None = None, rebuild: bool = False,
                       retriever_options: dict[str, Any] | None = None,
                       rerank: str | None = None, rerank_depth: int | None = None) -> dict:
    """Search every question with every retriever (top ``k``) and score the runs.

    ``index_dir``: a parent folder for the indexes (one sub-folder per retriever; default: the
    corpus's own). ``runs_dir``: where to write ``<retriever>.trec`` and ``qrels.trec``.
    ``indexes``: already-open indexes by name (tests). ``rebuild``: re-encode every index.
    ``retriever_options``: passed to every retriever that encodes (``batch_size``, ``device``, ...).
    Every name is checked before the first index is opened, so a typo fails at once.
    ``rerank``/``rerank_depth``: a rerank stage over every retriever's top pages (the scores are then
    the reranker's; each hit keeps its first-stage score).
    """
    from docrag.index import open_index
    from docrag.index.registry import check_retriever_name

    if not retrievers:
        raise ValueError("no retrievers to compare")
    for name in retrievers:
        if not (indexes and name in indexes):
            check_retriever_name(name)
    cut = max(parse_metric(m)[1] for m in metrics)
    if k < cut:
        log.warning("k = %d is below the largest metric cutoff (%d): those metrics see only the top %d", k, cut, k)
    qrels = {it.qid: set(it.gold_pages) for it in items}
    groups = groups_of(items)
    out: dict[str, Any] = {"k": k, "metrics": list(metrics), "n_questions": len(items),
                           "corpus": str(corpus.root), "retrievers": {}}
    reranker = None
    if rerank:
        from docrag.index.rerank import DEFAULT_DEPTH, RerankedIndex, get_reranker

        reranker = get_reranker(rerank)
        out["rerank"] = {"reranker": rerank, "depth": int(rerank_depth or DEFAULT_DEPTH)}
    if runs_dir is not None:
        write_trec_qrels(Path(runs_dir) / "qrels.trec", qrels)
    for name in retrievers:
        t0 = time.perf_counter()
        if indexes and name in indexes:
            index = indexes[name]
        else:
            sub = Path(index_dir) / run_slug(name) if index_dir is not None else None
            index = open_index(corpus, name, index_dir=sub, build=True, show_progress=show_progress,
                               **(retriever_options or {}),
                               **({"rebuild": True} if rebuild else {}))
        t1 = time.perf_counter()
        runs = [(name, index)]
        if reranker is not None:   # the first stage and the reranked run, reported side by side
            runs.append((f"{name} >> {rerank}", RerankedIndex(index, reranker, corpus.page,
                                                             depth=out["rerank"]["depth"])))
        for label, idx in runs:
            entry = _score(idx, label, items, qrels, groups, metrics, k, show_progress, runs_dir)
            entry["open_seconds"] = round(t1 - t0, 3)
            if label != name:
                entry["first_stage"] = name
            out["retrievers"][label] = entry
    if runs_dir is not None:
        out["qrels_file"] = str(Path(runs_dir) / "qrels.trec")
    return out


def _score(index: Any, name: str, items: Sequence[QAItem], qrels: dict, groups: dict, metrics: Sequence[str],
           k: int, show_progress: bool, runs_dir: str | Path | None) -> dict[str, Any]:
    t1 = time.perf_counter()
    results = _search_all(index, [it.question for it in items], k, show_progress, name)
    t2 = time.perf_counter()
    hits = {it.qid: canonical_order(h)[:k] for it, h in zip(items, results, strict=True)}
    ranked = {q: [h.page_id for h in hs] for q, hs in hits.items()}
    per_q = {q: question_scores(ranked[q], qrels[q], metrics) for q in qrels}
    theirs = pytrec_eval_scores({q: {h.page_id: h.score for h in hs} for q, hs in hits.items()},
                                {q: {p: 1 for p in rel} for q, rel in qrels.items()}, metrics)
    entry: dict[str, Any] = {
        "input": input_kind(index),
        "groups": {g: {**mean_scores(per_q, [q for q in qids if q in per_q]), "n": len(qids)}
                   for g, qids in groups.items() if qids},
        "search_seconds": round(t2 - t1, 3),
        "ms_per_query": round(1000 * (t2 - t1) / max(1, len(items)), 3),
        "pytrec_eval_max_abs_diff": max_abs_difference(per_q, theirs),
    }
    if runs_dir is not None:
        path = Path(runs_dir) / f"{run_slug(name)}.trec"
        write_trec_run(path, hits, tag=run_slug(name))
        entry["run_file"] = str(path)
    return entry


def input_kind(index: Any) -> str:
    """What a retriever reads: ``text`` (text layer/OCR), ``image`` (page images: multimodal) or
    ``none``; a hybrid reads images when any part does."""
    parts = getattr(index, "parts", None)
    if parts:
        kinds = {input_kind(p) for p in parts}
        return "image" if "image" in kinds else ("text" if "text" in kinds else "none")
    return str(getattr(getattr(index, "retriever", None), "input", "unknown"))


def _search_all(index: Any, queries: list[str], k: int, show_progress: bool, name: str,
                batch: int = 32) -> list[list[Hit]]:
    from tqdm import tqdm

    out: list[list[Hit]] = []
    with tqdm(total=len(queries), desc=f"search {name}", unit="q", disable=not show_progress) as bar:
        for s in range(0, len(queries), batch):
            out.extend(index.search_batch(queries[s:s + batch], k=k))
            bar.update(min(batch, len(queries) - s))
    return out


def render_table(result: dict, per_category: bool = False) -> str:
    """A fixed-width table: one row per retriever (and per group with ``per_category``)."""
    metrics = result["metrics"]
    header = ["retriever", "input", *(["group"] if per_category else []), *map(metric_label, metrics), "n"]
    rows = []
    for name, entry in result["retrievers"].items():
        names = [g for g in entry["groups"] if per_category or g == "overall"]
        for g in names:
            s = entry["groups"][g]
            rows.append([name, entry.get("input", ""), *([g] if per_category else []),
                         *(f"{s[m]:.2f}" for m in metrics), str(s["n"])])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    n_text = 3 if per_category else 2
    lines += ["  ".join(c.ljust(w) if i < n_text else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    if result.get("rerank"):
        lines.append(f"(rows 'A >> R': retriever A's top {result['rerank']['depth']} reranked by R; row 'A' is the "
                     "first stage alone)")
    return "\n".join(lines)


def write_compare_json(result: dict, path: str | Path) -> None:
    atomic_write_json(Path(path), result)


# -- eval runs side by side --------------------------------------------------------------------------

RUN_COLUMNS = (("retrieval", "ndcg@10"), ("retrieval", "recall@10"), ("retrieval", "mrr@10"),
               ("generation", "accuracy"), ("generation", "rouge_l"), ("generation", "P_Rec"),
               ("generation", "P_Prec"), ("generation", "B_Rec"), ("generation", "B_Prec"))


def compare_runs(run_dirs: Sequence[str | Path], group: str = "overall") -> dict:
    """The headline numbers of several ``docrag eval`` RUN_DIRs (e.g. a text-only and a multimodal
    pipeline on the same questions), read from their ``report.json``."""
    rows = []
    for d in run_dirs:
        path = Path(d) / "report.json"
        if not path.exists():
            raise InputError(f"{path}: no report; run 'docrag eval ... --out {d}' first (or resume it)")
        rep = read_json(path)
        cfg = rep.get("config", {})
        values = {}
        for section, metric in RUN_COLUMNS:
            values[f"{section}.{metric}"] = rep.get(section, {}).get("groups", {}).get(group, {}).get(metric)
        from docrag.eval.report import is_proxy_judge

        judge = cfg.get("judge")
        rows.append({"run": str(d), "retriever": cfg.get("retriever"), "generator": cfg.get("generator"),
                     "judge": f"{judge} (proxy)" if is_proxy_judge(judge) else judge,
                     "context": cfg.get("context"), "answer_judge": cfg.get("answer_judge"),
                     "n": _group_n(rep, group), "complete": rep.get("complete"), "values": values})
    questions = {r["n"] for r in rows}
    return {"group": group, "runs": rows, "same_question_count": len(questions) == 1}


def _group_n(report: dict, group: str) -> int | None:
    """Questions in ``group`` (the report's per-group ``n``; the run's total for ``overall``)."""
    for section in ("generation", "retrieval"):
        n = report.get(section, {}).get("groups", {}).get(group, {}).get("n")
        if n is not None:
            return int(n)
    return report.get("n_questions") if group == "overall" else 0


def render_runs_table(result: dict) -> str:
    from docrag.eval.report import GEN_LABELS

    header = ["run", "retriever", "generator", "judge", "context",
              *(metric_label(m) if s == "retrieval" else GEN_LABELS[m] for s, m in RUN_COLUMNS), "n"]
    rows = [[Path(r["run"]).name, str(r["retriever"]), str(r["generator"]), str(r.get("judge")), str(r["context"]),
             *("-" if r["values"][f"{s}.{m}"] is None else f"{r['values'][f'{s}.{m}']:.2f}" for s, m in RUN_COLUMNS),
             str(r["n"])] for r in result["runs"]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) if i < 5 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
              for r in rows]
    return "\n".join(lines)
