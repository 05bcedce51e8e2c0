"""Reading an evaluation RUN_DIR for the viewer's "Runs" tab: records, filters, table rows.

A run directory (written by ``docrag eval``) holds ``run.json`` (configuration), ``generations.jsonl``
(one record per question: the question, its gold answer/pages/boxes, the model's Answer, metrics
and judge verdicts) and ``report.json`` (aggregate scores). Both record files are read through the
typed records of :mod:`docrag.eval.records`: a torn last line from an interrupted run is ignored, and
a line of another shape is listed as a problem naming the file, line and field (the other questions
are still shown).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.eval.record_log import iter_jsonl
from docrag.eval.records import GenerationRecord, RecordError, RunMeta
from docrag.evidence import LEVELS, GoldEvidence
from docrag.geometry import Box
from docrag.io import read_json

log = logging.getLogger(__name__)

ANY = "any"
YES, NO, UNKNOWN = "yes", "no", "unknown"

CITATION_COLUMNS = {f"{lv} {m}": f"{lv}_{m}" for lv in LEVELS for m in ("recall", "precision")}
# "cited gold page" sits beside "correct": a judge's page recall/precision of 1 on a wrong document
# reads differently once it is plain that no gold page was cited
TABLE_HEADERS = ["id", "category", "lang", "correct", "cited gold page", "retrieval miss", "gold rank",
                 *CITATION_COLUMNS, "IoU", "stage", "question"]


@dataclass
class RunRecord:
    """One evaluated question: a :class:`GenerationRecord` with what the viewer shows of it."""

    record: GenerationRecord
    verdicts: list[dict[str, str]] = field(default_factory=list)       # rows {unit, verdict, detail}

    def __post_init__(self) -> None:
        if not self.verdicts:
            self.verdicts = citation_verdicts(self.citations.values())

    qid = property(lambda self: self.record.qid)
    question = property(lambda self: self.record.question)
    category = property(lambda self: self.record.category)
    lang = property(lambda self: self.record.lang)
    stage = property(lambda self: self.record.attribution)
    gold_answer = property(lambda self: self.record.gold.answer)
    gold_pages = property(lambda self: list(self.record.gold.pages))
    answer = property(lambda self: self.record.answer)
    error = ""   # a generation record exists only for an answered question (failures are in errors.jsonl)

    @property
    def gold_boxes(self) -> list[GoldEvidence]:
        return [g for g in self.record.gold.boxes if g.box is not None]

    @property
    def metrics(self) -> dict[str, Any]:
        return self.record.metrics.to_json()

    @property
    def citations(self) -> dict[str, dict[str, Any]]:
        """level -> CitationResult json (empty when citations were not judged)."""
        return dict(self.record.citations or {})

    @property
    def retrieval(self) -> dict[str, Any]:
        return self.record.retrieval.to_json() if self.record.retrieval else {}

    @property
    def answer_verdict(self) -> dict[str, Any]:
        return self.record.answer_verdict.to_json() if self.record.answer_verdict else {}

    @property
    def correct(self) -> bool | None:
        return self.record.correct

    @property
    def cited_gold_page(self) -> bool | None:
        """True when the answer cites at least one gold page."""
        return self.record.metrics.cited_gold_page

    @property
    def retrieval_miss(self) -> bool | None:
        """True when no gold page was retrieved (None: no retrieval stage, e.g. oracle context)."""
        ret = self.record.retrieval
        return None if ret is None or ret.gold_retrieved is None else not ret.gold_retrieved

    @property
    def gold_rank(self) -> int | None:
        return self.record.retrieval.gold_rank if self.record.retrieval else None

    def citation_score(self, level: str, which: str) -> float | None:
        """Citation ``recall``/``precision`` (0..1) at ``level``; None when not evaluated or excluded."""
        return _num((self.citations.get(level) or {}).get(which))

    def main_citation_score(self, which: str) -> float | None:
        """Block-level score when the run has it, else page level."""
        block = self.citation_score("block", which)
        return block if block is not None else self.citation_score("page", which)

    def predicted_boxes(self, pid: str) -> list[Box]:
        return [b for c in self.answer.citations if c.page_id == pid for b in c.boxes]

    def gold_boxes_on(self, pid: str) -> list[Box]:
        return [g.box for g in self.gold_boxes if g.page_id == pid]

    def pages_to_show(self) -> list[str]:
        """Gold pages first, then cited pages, each once."""
        out: list[str] = []
        cited = [c.page_id for c in self.answer.citations]
        for pid in [*self.gold_pages, *(g.page_id for g in self.gold_boxes), *cited]:
            if pid not in out:
                out.append(pid)
        return out


@dataclass
class Run:
    root: Path
    meta: RunMeta | None
    report: dict[str, Any]
    records: list[RunRecord]
    problems: list[str] = field(default_factory=list)

    @property
    def config(self) -> dict[str, Any]:
        """The run's configuration (its identity's ``config``; empty without ``run.json``)."""
        return dict(self.meta.identity.get("config", {})) if self.meta else {}

    def record(self, qid: str) -> RunRecord:
        for r in self.records:
            if r.qid == qid:
                return r
        raise InputError(f"{self.root}: no question {qid!r} in generations.jsonl")

    def values(self, attr: str) -> list[str]:
        return sorted({getattr(r, attr) for r in self.records if getattr(r, attr)})


def parse_record(d: Mapping[str, Any], where: str = "generations.jsonl") -> RunRecord:
    """One ``generations.jsonl`` line; a line of another shape raises :class:`RecordError`."""
    return RunRecord(GenerationRecord.from_json(d, where))


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
    """Read ``run_dir``; raises :class:`InputError` when it is not a run directory. Unreadable
    record lines are skipped and listed in ``problems``."""
    root = Path(run_dir)
    gen = root / "generations.jsonl"
    if not root.is_dir():
        raise InputError(f"{root}: run directory not found; pass a folder written by 'docrag eval'")
    if not gen.exists():
        raise InputError(f"{root}: no generations.jsonl; is this a folder written by 'docrag eval'?")
    problems: list[str] = []
    meta = None
    if (root / "run.json").exists():
        try:
            meta = RunMeta.read(root / "run.json")
        except RecordError as exc:
            problems.append(str(exc))
    report = read_json(root / "report.json") if (root / "report.json").exists() else {}
    by_id: dict[str, RunRecord] = {}   # a resumed run may repeat a question: the last record wins
    n_read = 0
    try:
        for n, d in iter_jsonl(gen):
            try:
                rec = parse_record(d, f"{gen}:{n}")
            except RecordError as exc:
                problems.append(str(exc))
                continue
            n_read += 1
            by_id[rec.qid] = rec
    except RecordError as exc:   # a line that is not JSON (not the torn last one): show what came before
        problems.append(str(exc))
    if n_read != len(by_id):
        problems.append(f"{n_read - len(by_id)} repeated question record(s); showing the latest")
    fp = meta.identity.get("corpus_fingerprint") if meta else None
    if corpus is not None and fp and fp != corpus.fingerprint():
        problems.append("the run was made on a different version of this corpus; boxes may not match")
    return Run(root=root, meta=meta, report=report, records=list(by_id.values()), problems=problems)


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
    cfg = run.config
    parts = [f"**Run** `{run.root}` — {len(run.records)} question(s)"]
    if run.meta is not None:
        parts.append(f"status: {run.meta.status}")
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
