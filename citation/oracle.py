"""``oracle``: a judge built from gold evidence, for checking the metrics themselves.

It says "yes" exactly when the shown units cover the gold evidence of the question:

* page level: every gold page is among the shown pages;
* block level: for every gold box, at least ``min_coverage`` (default 0.5) of its area lies inside
  the union of the boxes shown on that page (crop or box mode alike).

Gold evidence is looked up by question id (``JudgeContext.qid``, from ``Answer.meta['qid']``) and
then by question text. A question without gold evidence is a judge error. Gold evidence is
:class:`docrag.evidence.GoldEvidence`, the type question sets and run records use too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from docrag.citation.evidence import EvidenceImage, Level, Mode
from docrag.citation.judge import JUDGES, JudgeContext
from docrag.citation.verdict import Verdict
from docrag.errors import InputError
from docrag.evidence import GoldEvidence  # the one gold-evidence type (core); re-exported here
from docrag.geometry import Box, Space
from docrag.types import page_id


def covered_fraction(target: Box, boxes: Sequence[Box]) -> float:
    """Exact fraction of ``target``'s area inside the union of ``boxes`` (same space)."""
    if target.area <= 0:
        return 0.0
    clipped = []
    for b in boxes:
        b = target._same_space(b)
        x0, y0 = max(b.x0, target.x0), max(b.y0, target.y0)
        x1, y1 = min(b.x1, target.x1), min(b.y1, target.y1)
        if x1 > x0 and y1 > y0:
            clipped.append((x0, y0, x1, y1))
    if not clipped:
        return 0.0
    xs = sorted({c for r in clipped for c in (r[0], r[2])})
    area = 0.0
    for xa, xb in zip(xs, xs[1:], strict=False):
        spans = sorted((r[1], r[3]) for r in clipped if r[0] <= xa and r[2] >= xb)
        covered, cur_a, cur_b = 0.0, None, None
        for a, b in spans:
            if cur_b is None or a > cur_b:
                if cur_b is not None:
                    covered += cur_b - cur_a
                cur_a, cur_b = a, b
            else:
                cur_b = max(cur_b, b)
        if cur_b is not None:
            covered += cur_b - cur_a
        area += covered * (xb - xa)
    return area / target.area


class OracleJudge:
    """Says yes iff the shown units cover the gold evidence (see module docstring)."""

    needs_images = False
    cache_id = None

    def __init__(self, gold: Mapping[str, Sequence[GoldEvidence]], min_coverage: float = 0.5) -> None:
        self.gold = {str(k): list(v) for k, v in gold.items()}
        self.min_coverage = float(min_coverage)
        self.name = "oracle"

    def _gold_for(self, context: JudgeContext) -> list[GoldEvidence] | None:
        if context.qid is not None and context.qid in self.gold:
            return self.gold[context.qid]
        return self.gold.get(context.question)

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
        gold = self._gold_for(context)
        if not gold:
            which = context.qid or context.question[:60]
            return Verdict.failed(f"oracle judge: no gold evidence for question {which!r}")
        return Verdict.yes() if self.covers(gold, images, context.level) else Verdict.no()

    def covers(self, gold: Sequence[GoldEvidence], images: Sequence[EvidenceImage], level: Level) -> bool:
        shown_pages = {ev.page.page_id for ev in images}
        if level is Level.PAGE or all(ev.mode is Mode.PAGE for ev in images):
            return all(g.page_id in shown_pages for g in gold)
        shown: dict[str, list[Box]] = {}
        for ev in images:
            shown.setdefault(ev.page.page_id, []).extend(ev.boxes)
        for g in gold:
            if g.page_id not in shown:
                return False
            if g.box is not None and covered_fraction(g.box, shown[g.page_id]) < self.min_coverage:
                return False
        return True


def gold_from_qa(records: Iterable[dict], corpus, key: str = "id") -> dict[str, list[GoldEvidence]]:
    """Gold evidence by question id (and by question text) from qa.jsonl-style records.

    Each record needs ``doc`` (a file name in the corpus), ``pages`` (1-based) and ``boxes``
    (``{page, bbox}`` in PDF points, top-left origin); pages without boxes count as whole pages.
    """
    out: dict[str, list[GoldEvidence]] = {}
    for n, rec in enumerate(records, 1):
        try:
            doc_name, pages, boxes = rec["doc"], rec.get("pages", []), rec.get("boxes", [])
        except KeyError:
            raise InputError(f"QA record {n}: field 'doc' missing (needs doc, pages, boxes)") from None
        docs = corpus.find_documents(doc_name)
        if len(docs) != 1:
            raise InputError(f"QA record {n} ({rec.get(key)}): document {doc_name!r} found "
                             f"{len(docs)} times in the corpus; ingest it exactly once")
        doc_id = docs[0].doc_id
        ev: list[GoldEvidence] = []
        boxed_pages = set()
        for b in boxes:
            pid = page_id(doc_id, int(b["page"]))
            page = corpus.page(pid)
            x0, y0, x1, y1 = (float(v) for v in b["bbox"])
            ev.append(GoldEvidence(pid, Box(x0, y0, x1, y1, Space.POINT, (page.width_pt, page.height_pt)).ordered()))
            boxed_pages.add(int(b["page"]))
        ev += [GoldEvidence(page_id(doc_id, int(p))) for p in pages if int(p) not in boxed_pages]
        if rec.get(key) is not None:
            out[str(rec[key])] = ev
        if rec.get("question"):
            out[str(rec["question"])] = ev
    return out


@JUDGES.register("oracle", help="gold-evidence judge for testing metrics: yes iff shown units cover the gold")
def _make_oracle(arg: str | None, gold: Mapping[str, Sequence[GoldEvidence]] | None = None,
                 qa: Iterable[dict] | None = None, corpus=None, min_coverage: float = 0.5) -> OracleJudge:
    if gold is None:
        if qa is None or corpus is None:
            raise InputError("the oracle judge needs gold evidence: pass gold={qid: [GoldEvidence]} "
                             "or qa=<records> with corpus=<Corpus>")
        gold = gold_from_qa(qa, corpus)
    return OracleJudge(gold, min_coverage=min_coverage)
