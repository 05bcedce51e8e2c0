"""Reading an evaluation RUN_DIR for the viewer's "Runs" tab: records, filters, table rows.

A run directory (written by ``docrag eval``) holds ``run.json`` (configuration), ``generations.jsonl``
(one record per question: the question, its gold answer/pages/boxes, the model's Answer, metrics
and judge verdicts) and ``report.json`` (aggregate scores). Records are read tolerantly: a torn
last line from an interrupted run is ignored and missing metrics show as blanks.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import CorpusError, InputError
from docrag.geometry import Box, GeometryError
from docrag.io import read_json, read_jsonl
from docrag.types import Answer, split_page_id

log = logging.getLogger(__name__)

ANY = "any"
YES, NO, UNKNOWN = "yes", "no", "unknown"

# Metric names the table shows, first match wins (the runner's names, then older spellings).
CORRECT_KEYS = ("answer_correct", "judge_correct", "correct", "numeric_match")
MISS_KEYS = ("retrieval_miss",)
CITATION_COLUMNS = {
    "page recall": ("page_recall", "p_rec", "P_Rec"),
    "page precision": ("page_precision", "p_prec", "P_Prec"),
    "block recall": ("block_recall", "b_rec", "B_Rec"),
    "block precision": ("block_precision", "b_prec", "B_Prec"),
}
TABLE_HEADERS = ["id", "category", "lang", "correct", "retrieval miss", *CITATION_COLUMNS,
                 "box IoU", "question"]


@dataclass
class GoldBox:
    page_id: str
    box: Box


@dataclass
class RunRecord:
    """One evaluated question, normalised from a ``generations.jsonl`` line."""

    qid: str
    question: str
    category: str = ""
    lang: str = ""
    gold_answer: str = ""
    gold_pages: list[str] = field(default_factory=list)
    gold_boxes: list[GoldBox] = field(default_factory=list)
    answer: Answer | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    def metric(self, names: Iterable[str]) -> Any:
        for name in names:
            if name in self.metrics and self.metrics[name] is not None:
                return self.metrics[name]
        return None

    @property
    def correct(self) -> bool | None:
        value = self.metric(CORRECT_KEYS)
        return None if value is None else bool(value)

    @property
    def retrieval_miss(self) -> bool | None:
        value = self.metric(MISS_KEYS)
        if value is not None:
            return bool(value)
        if not self.gold_pages or self.answer is None:
            return None
        retrieved = {h.page_id for h in self.answer.hits}
        return not (set(self.gold_pages) & retrieved)

    def predicted_boxes(self, pid: str) -> list[Box]:
        if self.answer is None:
            return []
        return [b for c in self.answer.citations if c.page_id == pid for b in c.boxes]

    def gold_boxes_on(self, pid: str) -> list[Box]:
        return [g.box for g in self.gold_boxes if g.page_id == pid]

    def pages_to_show(self) -> list[str]:
        """Gold pages first, then cited pages, each once."""
        out: list[str] = []
        cited = [c.page_id for c in self.answer.citations] if self.answer else []
        for pid in [*self.gold_pages, *(g.page_id for g in self.gold_boxes), *cited]:
            if pid not in out:
                out.append(pid)
        return out


@dataclass
class Run:
    root: Path
    config: dict[str, Any]
    report: dict[str, Any]
    records: list[RunRecord]
    problems: list[str] = field(default_factory=list)

    def record(self, qid: str) -> RunRecord:
        for r in self.records:
            if r.qid == qid:
                return r
        raise InputError(f"{self.root}: no question {qid!r} in generations.jsonl")

    def values(self, attr: str) -> list[str]:
        return sorted({getattr(r, attr) for r in self.records if getattr(r, attr)})


def _first(d: Mapping[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        if key in d and d[key] is not None:
            return d[key]
    return default


def _doc_id_for(corpus: Corpus | None, doc: str) -> str | None:
    if not doc:
        return None
    if corpus is None:
        return doc
    docs = corpus.find_documents(doc)
    return docs[0].doc_id if docs else None


def _page_id(value: Any, doc_id: str | None) -> str | None:
    if isinstance(value, str) and ":" in value:
        return value
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.isdigit()):
        return f"{doc_id}:{int(value)}" if doc_id else None
    return None


def _gold_box(rec: Mapping[str, Any], doc_id: str | None, corpus: Corpus | None) -> GoldBox | None:
    pid = _page_id(_first(rec, "page_id", "page"), doc_id)
    if pid is None:
        return None
    raw = rec.get("box", rec)
    try:
        if isinstance(raw, Mapping) and "space" in raw:
            return GoldBox(pid, Box.from_dict(raw))
        bbox = raw["bbox"] if isinstance(raw, Mapping) else raw
        if corpus is None:
            return None
        return GoldBox(pid, corpus.page(pid).box_pt(*map(float, bbox)))
    except (GeometryError, CorpusError, KeyError, TypeError, ValueError) as exc:
        log.warning("gold box %r on %s skipped: %s", rec, pid, exc)
        return None


def parse_record(d: Mapping[str, Any], corpus: Corpus | None = None) -> RunRecord:
    """Normalise one ``generations.jsonl`` line (flat or with a nested ``gold`` object)."""
    gold = d.get("gold") if isinstance(d.get("gold"), Mapping) else {}
    doc = str(_first(gold, "doc", default=_first(d, "doc", default="")))
    doc_id = _first(gold, "doc_id", default=_first(d, "doc_id")) or _doc_id_for(corpus, doc)
    pages_raw = _first(gold, "page_ids", "pages", default=_first(d, "gold_page_ids", "gold_pages", "pages", default=[]))
    gold_pages = [p for p in (_page_id(v, doc_id) for v in pages_raw or []) if p]
    boxes_raw = _first(gold, "boxes", default=_first(d, "gold_boxes", "boxes", default=[]))
    gold_boxes = [g for g in (_gold_box(b, doc_id, corpus) for b in boxes_raw or [] if isinstance(b, Mapping)) if g]
    ans_raw = _first(d, "answer_record", "prediction", "result", "answer")
    answer = None
    error = str(_first(d, "error", default="") or "")
    if isinstance(ans_raw, Mapping):
        try:
            answer = Answer.from_json({"question": d.get("question", ""), **ans_raw})
        except (GeometryError, KeyError, TypeError, ValueError) as exc:
            error = error or f"answer record unreadable: {exc}"
    metrics = dict(_first(d, "metrics", "scores", default={}) or {})
    verdicts_raw = _first(d, "verdicts", "judge", default=[])
    if isinstance(verdicts_raw, Mapping):
        verdicts = [{"unit": k, **(v if isinstance(v, Mapping) else {"verdict": v})} for k, v in verdicts_raw.items()]
    else:
        verdicts = [v if isinstance(v, Mapping) else {"verdict": v} for v in verdicts_raw or []]
    return RunRecord(
        qid=str(_first(d, "id", "qid", "question_id", default="")),
        question=str(d.get("question", "")),
        category=str(_first(d, "category", default=_first(gold, "category", default="")) or ""),
        lang=str(_first(d, "lang", "language", default=_first(gold, "lang", default="")) or ""),
        gold_answer=str(_first(gold, "answer", default=_first(d, "gold_answer", default="")) or ""),
        gold_pages=gold_pages, gold_boxes=gold_boxes, answer=answer, metrics=metrics,
        verdicts=[dict(v) for v in verdicts], error=error, raw=dict(d))


def load_run(run_dir: str | Path, corpus: Corpus | None = None) -> Run:
    """Read ``run_dir``; raises :class:`InputError` when it is not a run directory."""
    root = Path(run_dir)
    gen = root / "generations.jsonl"
    if not root.is_dir():
        raise InputError(f"{root}: run directory not found; pass a folder written by 'docrag eval'")
    if not gen.exists():
        raise InputError(f"{root}: no generations.jsonl; is this a folder written by 'docrag eval'?")
    config = read_json(root / "run.json") if (root / "run.json").exists() else {}
    report = read_json(root / "report.json") if (root / "report.json").exists() else {}
    records: list[RunRecord] = []
    problems: list[str] = []
    for i, d in enumerate(read_jsonl(gen), start=1):
        rec = parse_record(d, corpus)
        if not rec.qid:
            rec.qid = f"#{i}"
        records.append(rec)
    by_id: dict[str, RunRecord] = {}
    for rec in records:  # a resumed run may repeat a question: the last record wins
        by_id[rec.qid] = rec
    if len(by_id) != len(records):
        problems.append(f"{len(records) - len(by_id)} repeated question record(s); showing the latest")
    fp = config.get("corpus_fingerprint")
    if corpus is not None and fp and fp != corpus.fingerprint():
        problems.append("the run was made on a different version of this corpus; boxes may not match")
    return Run(root=root, config=config, report=report, records=list(by_id.values()), problems=problems)


def _tri(value: bool | None) -> str:
    return UNKNOWN if value is None else YES if value else NO


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def filter_records(records: Iterable[RunRecord], category: str = ANY, lang: str = ANY,
                   correct: str = ANY, retrieval_miss: str = ANY, min_citation_recall: float = 0.0,
                   max_citation_recall: float = 1.0, text: str = "") -> list[RunRecord]:
    """Records matching every filter (``ANY`` disables a filter; citation recall is the block
    recall, or the page recall when the run has no block level)."""
    text = text.strip().lower()
    out = []
    for r in records:
        if category != ANY and r.category != category:
            continue
        if lang != ANY and r.lang != lang:
            continue
        if correct != ANY and _tri(r.correct) != correct:
            continue
        if retrieval_miss != ANY and _tri(r.retrieval_miss) != retrieval_miss:
            continue
        if min_citation_recall > 0.0 or max_citation_recall < 1.0:
            rec = _num(r.metric(CITATION_COLUMNS["block recall"]))
            rec = rec if rec is not None else _num(r.metric(CITATION_COLUMNS["page recall"]))
            if rec is None or not (min_citation_recall <= rec <= max_citation_recall):
                continue
        if text and text not in r.question.lower() and text not in r.qid.lower():
            continue
        out.append(r)
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return YES if value else NO
    num = _num(value)
    if num is None:
        return "" if value is None else str(value)
    return f"{num:.2f}".rstrip("0").rstrip(".") if num != int(num) else str(int(num))


def table_rows(records: Iterable[RunRecord]) -> list[list[str]]:
    """Rows for the runs table, in :data:`TABLE_HEADERS` order."""
    rows = []
    for r in records:
        cites = [_fmt(r.metric(keys)) for keys in CITATION_COLUMNS.values()]
        iou = _fmt(r.metric(("box_iou", "iou", "best_match_iou")))
        rows.append([r.qid, r.category, r.lang, _tri(r.correct), _tri(r.retrieval_miss), *cites, iou,
                     r.question])
    return rows


def summary_markdown(run: Run) -> str:
    """A short header for the run: its configuration and headline scores."""
    cfg = run.config
    parts = [f"**Run** `{run.root}` — {len(run.records)} question(s)"]
    for key in ("retriever", "generator", "judge", "k", "corpus"):
        if key in cfg:
            parts.append(f"{key}: `{cfg[key]}`")
    lines = [" · ".join(parts)]
    scores = run.report.get("scores", run.report) if isinstance(run.report, Mapping) else {}
    flat = {k: v for k, v in scores.items() if _num(v) is not None} if isinstance(scores, Mapping) else {}
    if flat:
        lines.append(" · ".join(f"{k} {_fmt(v)}" for k, v in list(flat.items())[:12]))
    lines += [f"⚠ {p}" for p in run.problems]
    return "\n\n".join(lines)


def page_id_label(pid: str, corpus: Corpus) -> str:
    """``file.pdf p.3`` for a page id (the id itself when the document is unknown)."""
    try:
        doc_id, no = split_page_id(pid)
        return f"{corpus.document(doc_id).file_name} p.{no}"
    except (CorpusError, ValueError):
        return pid
