"""PyMuPDF's table finder on a ruled grid: each table's box, cell texts and cell boxes, its split columns
joined. Used by :mod:`docrag.ingestion.tables` for grids small enough to pay for it."""

from __future__ import annotations

import logging

from docrag.geometry import Box, union, unrotate_box
from docrag.ingestion.textlayer import join_words, to_display_box
from docrag.types import Word

log = logging.getLogger(__name__)


def find_grid_tables(page, frame, clip_box: Box, drawings: list[dict],
                 words: list[Word]) -> list[tuple[Box, list[list[str]], list[list[Box | None]]]]:
    """PyMuPDF's table finder restricted to ``clip_box``: each table's box, cell texts and cell boxes
    (None where a row has no text in a column), top to bottom. A cell set over several lines ("归属于上市
    公司股东的 / 净利润") is one cell here, where lines of words would make it two rows.

    Cell texts are assembled from ``words`` (already cleaned and number-joined), not re-extracted.
    """
    import pymupdf

    clip = unrotate_box(clip_box, frame.rotation)
    try:
        found = page.find_tables(clip=pymupdf.Rect(*clip.coords), strategy="lines", use_layout=False,
                                 paths=drawings)
    except Exception as exc:  # the finder fails on some malformed content; the region still counts
        log.debug("find_tables failed on page %d: %s", page.number + 1, exc)
        return []
    out = []
    for tab in found.tables:
        if tab.row_count < 2 or tab.col_count < 2:
            continue
        grid: list[list[tuple[Box, str] | None]] = []
        row_of: dict[int, tuple[Word, int]] = {}   # id(word) -> (word, the finder's row it fell in)
        for ri, row in enumerate(tab.rows):
            cells: list[tuple[Box, str] | None] = []
            for cell in row.cells:
                if cell is None:
                    cells.append(None)
                    continue
                cb = to_display_box(frame, *cell)
                inside = [w for w in words if cb.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2)]
                inside.sort(key=lambda w: (round(w.box.y0 / 3), w.box.x0))
                row_of.update((id(w), (w, ri)) for w in inside)
                cells.append((cb, join_words([w.text for w in inside])))
            grid.append(cells)
        if _cuts_lines(row_of):
            continue   # cells ruled one by one at uneven heights: the finder's rows cut through text lines
        rows, boxes = merged_columns(grid)
        tbox = to_display_box(frame, *tab.bbox)
        if not rows or len(rows[0]) < 2:
            continue
        if any(id(w) not in row_of and tbox.contains(w.box, tol=1.0) for w in words):
            boxes = []  # words in no cell: rules the finder missed (a label column), its grid is incomplete
        out.append((tbox, rows, boxes))
    return sorted(out, key=lambda t: t[0].y0)


def _cuts_lines(row_of: dict[int, tuple[Word, int]]) -> bool:
    """Words of one text line fall in different rows of the finder's grid (two or more times)."""
    placed = sorted(row_of.values(), key=lambda t: (t[0].box.y0 + t[0].box.y1) / 2)
    cuts = 0
    for (a, ra), (b, rb) in zip(placed, placed[1:], strict=False):
        same_line = abs((a.box.y0 + a.box.y1) - (b.box.y0 + b.box.y1)) / 2 < 0.3 * min(a.box.height, b.box.height)
        cuts += same_line and ra != rb
    return cuts >= 2


def merged_columns(grid: list[list[tuple[Box, str] | None]]) -> tuple[list[list[str]], list[list[Box | None]]]:
    """Cell texts and boxes, the finder's split columns joined and empty rows and columns dropped.

    A header cell drawn over a spanning data cell lands in a column of its own ("2015 年12 月31 日" in
    column 4, its values in column 3 spanning 3-5): two neighbouring columns that never both hold text in
    one row, where one's text sits inside the other's cells, are one column.
    """
    n = max((len(r) for r in grid), default=0)
    cols: list[dict] = []
    for j in range(n):
        filled = {i for i, r in enumerate(grid) if j < len(r) and r[j] is not None and r[j][1]}
        if filled:
            spans = [r[j][0] for r in grid if j < len(r) and r[j] is not None]
            centers = [(r[j][0].x0 + r[j][0].x1) / 2 for i, r in enumerate(grid) if i in filled]
            cols.append({"idx": [j], "rows": filled, "spans": spans, "centers": centers})

    def under(a: dict, b: dict) -> bool:
        return all(any(s.x0 <= x <= s.x1 for s in b["spans"]) for x in a["centers"])

    merged = True
    while merged:
        merged = False
        for k in range(len(cols) - 1):
            a, b = cols[k], cols[k + 1]
            if not a["rows"] & b["rows"] and (under(a, b) or under(b, a)):
                cols[k] = {"idx": a["idx"] + b["idx"], "rows": a["rows"] | b["rows"],
                           "spans": a["spans"] + b["spans"], "centers": a["centers"] + b["centers"]}
                del cols[k + 1]
                merged = True
                break
    rows, boxes = [], []
    for r in grid:
        parts = [[r[j] for j in c["idx"] if j < len(r) and r[j] is not None and r[j][1]] for c in cols]
        if any(parts):
            rows.append([" ".join(t for _, t in cell) for cell in parts])
            boxes.append([union([b for b, _ in cell]) if cell else None for cell in parts])
    return rows, boxes
