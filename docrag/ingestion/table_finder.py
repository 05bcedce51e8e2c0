"""PyMuPDF's table finder on a ruled grid: each table's box, cell texts and cell boxes, its split columns
joined. Used by :mod:`docrag.ingestion.tables` for grids small enough to pay for it."""

from __future__ import annotations

import logging
import re

from docrag.geometry import Box, union, unrotate_box
from docrag.ingestion.textlayer import join_lines, join_words, to_display_box
from docrag.types import Word

log = logging.getLogger(__name__)

# a cell of figures, its words joined ("$ 1,200", "12.5 %", "--"); ``tables._NUMERIC`` tests one word
_FIGURE = re.compile(r"^[-+−–(]?[$¥￥€£]?\s?\d[\d,.]*\s?%?\)?$|^[-–—]{1,2}$")


def find_grid_tables(page, frame, clip_box: Box, drawings: list[dict], words: list[Word],
                     horiz: list[Box] | None = None) -> list[tuple[Box, list[list[str]], list[list[Box | None]]]]:
    """PyMuPDF's table finder restricted to ``clip_box``: each table's box, cell texts and cell boxes
    (None where a row has no text in a column), top to bottom. A cell set over several lines ("归属于上市
    公司股东的 / 净利润") is one cell here, where lines of words would make it two rows. A grid drawn without outer
    verticals is asked again with them added where its horizontal rules ``horiz`` end (rule 209).

    Cell texts are assembled from ``words`` (already cleaned and number-joined), not re-extracted.
    """
    clip = unrotate_box(clip_box, frame.rotation)
    tables = [_read(tab, frame, words) for tab in _found(page, clip, drawings)]
    sides = [e for t in tables if t is not None and (e := _open_sides(t, words, horiz or [])) is not None]
    if sides:   # rule 209: the finder kept only the inner columns; ask again with the outer verticals drawn
        added = [((x, y0), (x, y1)) for b in sides for u in [unrotate_box(b, frame.rotation)]
                 for x, y0, y1 in ((u.x0, u.y0, u.y1), (u.x1, u.y0, u.y1))]
        tables = [_read(tab, frame, words) for tab in _found(page, clip, drawings, added)]
    out = []
    for t in tables:
        if t is None:
            continue
        tbox, rows, boxes, row_of = t
        if any(id(w) not in row_of and tbox.contains(w.box, tol=1.0) for w in words):
            boxes = []  # words in no cell: rules the finder missed (a label column), its grid is incomplete
        out.append((tbox, rows, boxes))
    return sorted(out, key=lambda t: t[0].y0)


def _found(page, clip: Box, drawings: list[dict], added: list | None = None) -> list:
    """The finder's tables in ``clip`` (unrotated page points), with the lines ``added`` drawn; [] where it fails."""
    import pymupdf

    try:
        return page.find_tables(clip=pymupdf.Rect(*clip.coords), strategy="lines", use_layout=False,
                                paths=drawings, add_lines=added).tables
    except Exception as exc:  # the finder fails on some malformed content; the region still counts
        log.debug("find_tables failed on page %d: %s", page.number + 1, exc)
        return []


_Read = tuple[Box, list[list[str]], list[list[Box | None]], dict[int, tuple[Word, int]]]


def _read(tab, frame, words: list[Word]) -> _Read | None:
    """One table of the finder: its box, cell texts, cell boxes, and the row each word fell in; None when it is no
    table of two rows and two columns or its rows cut through text lines."""
    if tab.row_count < 2 or tab.col_count < 2:
        return None
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
        return None   # cells ruled one by one at uneven heights: the finder's rows cut through text lines
    rows, boxes = joined_wrapped_labels(*merged_columns(grid))
    if not rows or len(rows[0]) < 2:
        return None
    return to_display_box(frame, *tab.bbox), rows, boxes, row_of


def _open_sides(table: _Read, words: list[Word], horiz: list[Box]) -> Box | None:
    """``open_sided_grid`` (rule 209): the box the table's horizontal rules span when they run past the finder's
    table and words stand there, beside it, on the lines of two or more of its rows (a label column left of the
    first vertical rule, a last column right of the last one: 云汉芯城's 主要财务指标, drawn without outer verticals);
    else None. Words beyond the rules' ends (a chart beside the table) do not count."""
    tbox, _, _, row_of = table
    rules = [h for h in horiz if tbox.y0 - 2 <= (h.y0 + h.y1) / 2 <= tbox.y1 + 2 and tbox.x_overlap(h) > 0]
    if not rules:
        return None
    x0, x1 = min(h.x0 for h in rules), max(h.x1 for h in rules)
    if x0 > tbox.x0 - 3 and x1 < tbox.x1 + 3:
        return None
    lines = {ri: (w.box.y0 + w.box.y1) / 2 for w, ri in row_of.values()}
    beside: set[int] = set()
    for w in words:
        xc, yc = (w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2
        if id(w) not in row_of and (x0 <= xc < tbox.x0 or tbox.x1 < xc <= x1):
            beside |= {ri for ri, y in lines.items() if abs(y - yc) < 0.5 * w.box.height}
    return Box(x0, tbox.y0, x1, tbox.y1, tbox.space, tbox.extent) if len(beside) >= 2 else None


_FUNCTION_WORDS = frozenset({"of", "the", "on", "in", "to", "and", "for", "a", "an", "by", "at", "de", "la", "del",
                             "des", "du", "le", "et", "y", "el", "der", "die", "und", "von"})


def cut_prose(rows: list[list[str]]) -> bool:
    """``cut_prose``: a "table" whose cells are the words of sentences (a cover's title set over a drawn frame:
    "Meeting | of | Banco | de | México's | Governing | Board"): two cells or more hold a function word alone and most
    cells one word; a table's cells are names and figures, never "of" alone."""
    cells = [c.strip() for r in rows for c in r if c.strip()]
    alone = sum(c.lower() in _FUNCTION_WORDS for c in cells)
    return alone >= 2 and sum(" " not in c for c in cells) >= 0.6 * len(cells)


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


def joined_wrapped_labels(rows: list[list[str]], boxes: list[list[Box | None]]
                          ) -> tuple[list[list[str]], list[list[Box | None]]]:
    """Rows the finder split out of one row whose label wraps over lines: figures set beside a label's lines
    ("归属于上市公司股东的扣除非经" | figures | "常性损益的净利润(元)", the figures centred on the middle line) or a
    label's last line under figures set on its first ("Applications and mashups" 0 0 | "developed by the public
    and"). A row of figures alone that starts inside the label-only row above joins it (a row with words beside
    a section centred over rows does not: rule 135's "电子元器件制造业"); a label-only row that starts inside the
    figures of the row above is the end of its label."""
    out_rows: list[list[str]] = []
    out_boxes: list[list[Box | None]] = []
    for row, bxs in zip(rows, boxes, strict=True):
        if not out_rows or not _continues(out_rows[-1], out_boxes[-1], row, bxs):
            out_rows.append(list(row))
            out_boxes.append(list(bxs))
            continue
        prev, pbox = out_rows[-1], out_boxes[-1]
        for j, (text, b) in enumerate(zip(row, bxs, strict=True)):
            if text:
                prev[j] = join_lines([prev[j], text])
                pbox[j] = union([pbox[j], b]) if pbox[j] and b else (pbox[j] or b)
    return out_rows, out_boxes


def _continues(prev: list[str], pbox: list[Box | None], row: list[str], bxs: list[Box | None]) -> bool:
    """``row`` goes on the row above (:func:`joined_wrapped_labels`): its figures beside that label, or its
    label's last line under its figures."""
    filled = {j for j, t in enumerate(row) if t}
    before = {j for j, t in enumerate(prev) if t}
    if not filled or not before or not pbox[0] or any(bxs[j] is None for j in filled):
        return False
    if before == {0} and 0 not in filled and all(_FIGURE.match(row[j]) for j in filled):   # figures beside it
        return min(bxs[j].y0 for j in filled) < pbox[0].y1 - 1.0
    if filled == {0} and 0 in before and len(before) > 1:   # the label's last line under the figures
        figures = [pbox[j] for j in before - {0} if pbox[j]]
        return bool(figures) and bxs[0].y0 < max(b.y1 for b in figures) - 1.0 and bxs[0].y0 >= pbox[0].y0
    return False


def joined_between_rules(rows: list[list[str]], boxes: list[list[Box | None]], horiz: list[Box]
                         ) -> tuple[list[list[str]], list[list[Box | None]]]:
    """Text lines of a grid read from its rules, joined where no horizontal rule parts them: a label wrapped over
    six lines beside one row of figures ("除同公司正常经营业务相关的有效套期保值 / 业务外，…" | 720,388.56) is one
    row. Only in a grid ruled between its rows (rules crossing the label column between at least half as many
    lines as have something right of it), and only lines holding one row of figures at most between two rules."""
    label_x = [b[0] for b in boxes if b and b[0] is not None]
    if not label_x or len(rows) < 3:
        return rows, boxes
    x0, x1 = min(b.x0 for b in label_x), max(b.x1 for b in label_x)
    cuts = sorted((h.y0 + h.y1) / 2 for h in horiz if h.x0 <= x0 + 2 and h.x1 >= min(x1, x0 + 40))
    spans = [(min(b.y0 for b in r if b), max(b.y1 for b in r if b)) if any(r) else None for r in boxes]
    figures = [any(_FIGURE.match(t) for t in r[1:] if t) for r in rows]
    filled = sum(any(r[1:]) for r in rows)   # lines with something right of the label column
    inner = [c for c in cuts if any(sp and sp[1] <= c for sp in spans) and any(sp and sp[0] >= c for sp in spans)]
    if not filled or len(inner) < max(2.0, 0.5 * filled):   # one column, or rules under the header only
        return rows, boxes
    groups: list[list[int]] = []   # lines between the same two rules, top to bottom
    last = None
    for i, sp in enumerate(spans):
        band = sum(c < (sp[0] + sp[1]) / 2 for c in cuts) if sp else None
        if band is not None and band == last:
            groups[-1].append(i)
        else:
            groups.append([i])
        last = band
    out_rows: list[list[str]] = []
    out_boxes: list[list[Box | None]] = []
    for group in groups:
        if len(group) == 1 or sum(figures[j] for j in group) > 1:
            out_rows += [list(rows[j]) for j in group]
            out_boxes += [list(boxes[j]) for j in group]
            continue
        width = range(len(rows[group[0]]))
        out_rows.append([join_lines([rows[j][k] for j in group if rows[j][k]]) for k in width])
        out_boxes.append([union(cell) if (cell := [b for j in group if (b := boxes[j][k])]) else None for k in width])
    return out_rows, out_boxes
