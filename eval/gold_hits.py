"""Judge-free citation checks against gold evidence, read from a run's generation records:

* ``gold_page_hit`` -- the answer's *first* citation is on a gold page;
* ``gold_box_hit``  -- a cited box overlaps a gold box on the same page (any positive overlap).

Both are None when the question has no gold pages / boxes. They sit beside the citation judge's
P/R in reports (with IoU), so a proxy judge can be read against geometry it cannot fake.
"""

from __future__ import annotations

import logging

from docrag.eval.records import GenerationRecord
from docrag.geometry import Box, GeometryError, Space

log = logging.getLogger(__name__)


def _to_points(box: Box, extent: tuple[float, float]) -> Box:
    return box if box.space is Space.POINT else box.to_points(*extent)


def gold_hits(record: GenerationRecord) -> dict[str, bool | None]:
    """``{"gold_page_hit": ..., "gold_box_hit": ...}`` of one generation record."""
    citations = record.answer.citations
    pages = set(record.gold.pages)
    page_hit = (bool(citations) and citations[0].page_id in pages) if pages else None
    gold_boxes = [(g.page_id, g.box) for g in record.gold.boxes if g.box is not None]
    if not gold_boxes:
        return {"gold_page_hit": page_hit, "gold_box_hit": None}
    box_hit = False
    for c in citations:
        for pred in c.boxes:
            for page_id, gbox in gold_boxes:
                if page_id != c.page_id:
                    continue
                try:
                    box_hit = box_hit or _to_points(pred, gbox.extent).intersection_area(gbox) > 0
                except GeometryError as exc:
                    log.warning("question %s: cited box not comparable with the gold box (%s)", record.qid, exc)
    return {"gold_page_hit": page_hit, "gold_box_hit": box_hit}
