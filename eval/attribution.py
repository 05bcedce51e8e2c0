"""Stage attribution: which stage of the pipeline lost a question, and IoU against gold boxes.

Per question, in this order:

* ``retrieval_miss``  -- context was retrieved and no gold page is in the top k;
* ``reasoning_error`` -- the gold page was there (or given), but the answer is wrong;
* ``citation_error``  -- the answer is right, but citation recall or precision (every level that
  was evaluated) is below 1;
* ``correct``         -- right answer with complete, precise citations (or citations not evaluated);
* ``undetermined``    -- a judge error left correctness or citation quality unknown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from docrag.citation.agreement import question_iou
from docrag.corpus import Corpus
from docrag.errors import CorpusError
from docrag.types import Citation

STAGES = ("correct", "retrieval_miss", "reasoning_error", "citation_error", "undetermined")


def citation_ok(results: Mapping[str, Mapping]) -> bool | None:
    """True when every evaluated level has recall = precision = 1; None when a level has no score
    (judge error or unanswered) or nothing was evaluated."""
    if not results:
        return None
    ok = True
    for res in results.values():
        if res.get("excluded") or res.get("recall") is None or res.get("precision") is None:
            return None
        ok = ok and res["recall"] >= 1.0 and res["precision"] >= 1.0
    return ok


def attribute(*, context: str, gold_retrieved: bool | None, correct: bool | None,
              citations: Mapping[str, Mapping] | None) -> str:
    """The stage label of one question (see module docstring)."""
    if context == "retrieved" and gold_retrieved is False:
        return "retrieval_miss"
    if correct is None:
        return "undetermined"
    if not correct:
        return "reasoning_error"
    if not citations:
        return "correct"
    ok = citation_ok(citations)
    if ok is None:
        return "undetermined"
    return "correct" if ok else "citation_error"


def stage_counts(labels: Iterable[str]) -> dict[str, int]:
    c = Counter(labels)
    return {s: c.get(s, 0) for s in STAGES}


def gold_box_iou(citations: Sequence[Citation], gold_boxes: Sequence, corpus: Corpus) -> float | None:
    """Spec §5: mean over gold boxes of the best IoU with a predicted box on the same page (in the
    page's PDF points); None when the question has no gold boxes."""
    if not gold_boxes:
        return None
    pred_by_page: dict[str, list] = {}
    for c in citations:
        if not c.boxes:
            continue
        try:
            page = corpus.page(c.page_id)
        except CorpusError:
            continue  # a citation of a page the corpus lacks has no geometry; the citation module reports it
        pred_by_page.setdefault(c.page_id, []).extend(page.to_page_points(b) for b in c.boxes)
    return question_iou(pred_by_page, gold_boxes)
