"""Optional post-step: snap each predicted box to the layout block(s) it covers best.

Models draw loose boxes; the page's layout blocks (paragraphs, tables, figures found at ingest)
are tight. For each predicted box, the blocks it covers for at least ``min_coverage`` of their area
replace it; when none qualifies, the single block with the highest IoU (at least ``min_iou``)
does; otherwise the box is kept as predicted. Callers keep the unsnapped citations too
(``Answer.meta["unsnapped_citations"]``) so the effect can be measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docrag.geometry import Box
from docrag.types import Block, Citation, Page


def snap_box(box: Box, blocks: Sequence[Block], *, min_coverage: float = 0.5,
             min_iou: float = 0.1) -> list[Box]:
    """Layout block boxes that best match ``box`` (all in the page's points), or ``[box]``."""
    if not blocks:
        return [box]
    covered = [b.box for b in blocks if b.box.area > 0 and box.coverage_of(b.box) >= min_coverage]
    if covered:
        return covered
    best = max(blocks, key=lambda b: box.iou(b.box))
    return [best.box] if box.iou(best.box) >= min_iou else [box]


def snap_citations(citations: Sequence[Citation], pages: dict[str, Page], *,
                   min_coverage: float = 0.5, min_iou: float = 0.1) -> list[Citation]:
    """Snapped copies of ``citations`` (page ids resolved through ``pages``)."""
    out = []
    for cit in citations:
        page = pages.get(cit.page_id)
        if page is None or not page.blocks:
            out.append(cit)
            continue
        boxes: list[Box] = []
        for box in cit.boxes:
            for snapped in snap_box(box, page.blocks, min_coverage=min_coverage, min_iou=min_iou):
                if not any(snapped == b for b in boxes):
                    boxes.append(snapped)
        out.append(replace(cit, boxes=boxes, snapped=True))
    return out
