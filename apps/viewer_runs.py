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

CORRECT_KEYS = ("accuracy", "answer_correct", "correct")
LEVELS = ("page", "block")
CITATION_COLUMNS = {f"{lv} {m}": f"{lv}_{m}" for lv in LEVELS for m in ("recall", "precision")}
# "cited gold page" sits beside "correct": a judge's page recall/precision of 1 on a wrong document
# reads differently once it is plain that no gold page was cited
TABLE_HEADERS = ["id", "category", "lang", "correct", "cited gold page", "retrieval miss", "gold rank",
                 *CITATION_COLUMNS, "IoU", "stage", "question"]


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
    verdicts: list[dict[str, str]] = field(default_factory=list)       # rows {unit, verdict, detail}
    citations: dict[str, dict[str, Any]] = field(default_factory=dict)  # level -> CitationResult json
    retrieval: dict[str, Any] = field(default_factory=dict)
    answer_verdict: dict[str, Any] = field(default_factory=dict)
    stage: str = ""
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
        if value is None and self.answer_verdict.get("correct") is not None:
            value = self.answer_verdict["correct"]
        return None if value is None else bool(value)

    @property
    def cited_gold_page(self) -> bool | None:
        """True when the answer cites at least one gold page (None: not known for this record)."""
        value = self.metrics.get("cited_gold_page")
        if value is None and self.answer is not None and self.gold_pages:
            value = any(c.page_id in self.gold_pages for c in self.answer.citations)
        return None if value is None else bool(value)

    @property
    def retrieval_miss(self) -> bool | None:
        """True when no gold page was retrieved (None: no retrieval stage, e.g. oracle context)."""
        if self.retrieval.get("gold_retrieved") is not None:
            return not self.retrieval["gold_retrieved"]
        if "retrieval_miss" in self.metrics:
            return bool(self.metrics["retrieval_miss"])
        return None

    @property
    def gold_rank(self) -> int | None:
        rank = self.retrieval.get("gold_rank")
        return int(rank) if rank is not None else None

    def citation_score(self, level: str, which: str) -> float | None:
        """Citation ``recall``/``precision`` (0..1) at ``level``; None when not evaluated or excluded."""
        res = self.citations.get(level) or {}
        value = res.get(which)
        if value is None:
            value = self.metrics.get(f"{level}_{which}")
        return _num(value)

    def main_citation_score(self, which: str) -> float | None:
        """Block-level score when the run has it, else page level."""
        block = self.citation_score("block", which)
        return block if block is not None else self.citation_score("page", which)

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
    """Normalise one ``generations.jsonl`` line of the evaluation runner."""
    gold = d.get("gold") if isinstance(d.get("gold"), Mapping) else {}
    doc = str(_first(gold, "doc", default=_first(d, "doc", default="")))
    doc_id = _first(gold, "doc_id", default=_first(d, "doc_id")) or _doc_id_for(corpus, doc)
    pages_raw = _first(gold, "pages", "page_ids", default=_first(d, "gold_pages", default=[]))
    gold_pages = [p for p in (_page_id(v, doc_id) for v in pages_raw or []) if p]
    boxes_raw = _first(gold, "boxes", default=_first(d, "gold_boxes", default=[]))
    gold_boxes = [g for g in (_gold_box(b, doc_id, corpus) for b in boxes_raw or [] if isinstance(b, Mapping)) if g]
    answer = None
    error = str(_first(d, "error", default="") or "")
    if isinstance(d.get("answer"), Mapping):
        try:
            answer = Answer.from_json({"question": d.get("question", ""), **d["answer"]})
        except (GeometryError, KeyError, TypeError, ValueError) as exc:
            error = error or f"answer record unreadable: {exc}"
    citations = {lv: dict(res) for lv, res in (d.get("citations") or {}).items() if isinstance(res, Mapping)}
    return RunRecord(
        qid=str(_first(d, "qid", "id", default="")),
        question=str(d.get("question", "")),
        category=str(_first(d, "category", default="") or ""),
        lang=str(_first(d, "lang", "language", default="") or ""),
        gold_answer=str(_first(gold, "answer", default=_first(d, "gold_answer", default="")) or ""),
        gold_pages=gold_pages, gold_boxes=gold_boxes, answer=answer,
        metrics=dict(d.get("metrics") or {}), verdicts=citation_verdicts(citations.values()),
        citations=citations, retrieval=dict(d.get("retrieval") or {}),
        answer_verdict=dict(d.get("answer_verdict") or {}), stage=str(d.get("attribution") or ""),
        error=error, raw=dict(d))


def _verdict_text(v: Mapping[str, Any] | None) -> str:
    if not v:
        return "not asked"
    return str(v.get("value", "?")) + (f" ({v['error']})" if v.get("error") else "")


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.0f}%"


def _unit_label(level: str, unit: Mapping[str, Any]) -> str:
    box = unit.get("box")
    if level == "page" or not box:
        return str(unit.get("page_id", ""))
    return f"{unit.get('page_id', '')} [" + ", ".join(f"{float(v):.0f}" for v in box) + "]"


def citation_verdicts(results: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Rows ``{unit, verdict, detail}`` from CitationResult records: per level, the verdict on all
    cited units together (recall), then each unit's relevance with the two verdicts behind it."""
    rows: list[dict[str, str]] = []
    for res in results:
        level = str(res.get("level", ""))
        support = res.get("support_all") or {}
        detail = f"recall {_pct(res.get('recall'))}, precision {_pct(res.get('precision'))}"
        rows.append({"unit": f"{level}: all {res.get('n_units', 0)} unit(s)", "verdict": _verdict_text(support),
                     "detail": detail + (f"; judge said: {support['raw']}" if support.get("raw") else "")})
        for unit in res.get("units", []):
            flag = unit.get("irrelevant")
            rows.append({"unit": _unit_label(level, unit),
                         "verdict": "undecided" if flag is None else "irrelevant" if flag else "relevant",
                         "detail": f"alone: {_verdict_text(unit.get('alone'))}; without it: "
                                   f"{_verdict_text(unit.get('without'))}"})
        rows += [{"unit": f"{level}: error", "verdict": "error", "detail": str(e)} for e in res.get("errors", [])]
    return rows


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
    fp = config.get("identity", {}).get("corpus_fingerprint", config.get("corpus_fingerprint"))
    if corpus is not None and fp and fp != corpus.fingerprint():
        problems.append("the run was made on a different version of this corpus; boxes may not match")
    return Run(root=root, config=config, report=report, records=list(by_id.values()), problems=problems)


def tri_state(value: bool | None) -> str:
    return UNKNOWN if value is None else YES if value else NO


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _in_range(value: float | None, bounds: tuple[float, float] | None) -> bool:
    if bounds is None:
        return True
    return value is not None and bounds[0] <= value <= bounds[1]


def filter_records(records: Iterable[RunRecord], category: str = ANY, lang: str = ANY,
                   correct: str = ANY, retrieval_miss: str = ANY,
                   citation_recall: tuple[float, float] | None = None,
                   citation_precision: tuple[float, float] | None = None, stage: str = ANY,
                   text: str = "") -> list[RunRecord]:
    """Records matching every filter (``ANY``/None disables one). Citation bounds are inclusive
    ranges on the block-level score, or the page-level one when the run has no block level."""
    text = text.strip().lower()
    out = []
    for r in records:
        if category != ANY and r.category != category:
            continue
        if lang != ANY and r.lang != lang:
            continue
        if correct != ANY and tri_state(r.correct) != correct:
            continue
        if retrieval_miss != ANY and tri_state(r.retrieval_miss) != retrieval_miss:
            continue
        if stage != ANY and r.stage != stage:
            continue
        if not _in_range(r.main_citation_score("recall"), citation_recall):
            continue
        if not _in_range(r.main_citation_score("precision"), citation_precision):
            continue
        if text and text not in r.question.lower() and text not in r.qid.lower():
            continue
        out.append(r)
    return out


def fmt_value(value: Any) -> str:
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
        cites = [fmt_value(r.citation_score(*col.split("_"))) for col in CITATION_COLUMNS.values()]
        rows.append([r.qid, r.category, r.lang, tri_state(r.correct), tri_state(r.cited_gold_page),
                     tri_state(r.retrieval_miss),
                     fmt_value(r.gold_rank), *cites, fmt_value(r.metrics.get("iou")), r.stage, r.question])
    return rows


def _overall(section: Any) -> dict[str, Any]:
    groups = section.get("groups", {}) if isinstance(section, Mapping) else {}
    overall = groups.get("overall", {}) if isinstance(groups, Mapping) else {}
    return {k: v for k, v in overall.items()
            if _num(v) is not None and k != "n" and not k.startswith(("n_", "judge_calls"))}


def summary_markdown(run: Run) -> str:
    """A short header for the run: its configuration and headline scores (percent)."""
    cfg = run.config.get("identity", {}).get("config", run.config)
    parts = [f"**Run** `{run.root}` — {len(run.records)} question(s)"]
    if run.config.get("status"):
        parts.append(f"status: {run.config['status']}")
    for key in ("retriever", "generator", "judge", "answer_judge", "context", "k"):
        if key in cfg:
            parts.append(f"{key}: `{cfg[key]}`")
    lines = [" · ".join(parts)]
    for section in ("retrieval", "generation"):
        scores = _overall(run.report.get(section))
        if scores:
            lines.append(f"**{section}:** " + " · ".join(f"{k} {fmt_value(v)}" for k, v in scores.items()))
    lines += [f"⚠ {p}" for p in run.problems]
    return "\n\n".join(lines)


def page_id_label(pid: str, corpus: Corpus) -> str:
    """``file.pdf p.3`` for a page id (the id itself when the document is unknown)."""
    try:
        doc_id, no = split_page_id(pid)
        return f"{corpus.document(doc_id).file_name} p.{no}"
    except (CorpusError, ValueError):
        return pid
