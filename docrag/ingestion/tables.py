"""Table detection that stays fast: cheap evidence first, PyMuPDF ``find_tables`` only where it pays.

1. *Ruled* candidates: clusters of horizontal rules (lines or thin rectangles among the page's
   vector drawings) with similar horizontal extent.
2. *Aligned* candidates: runs of text rows that split into several short cells at wide gaps
   (tables without rules, OCR'd tables).
3. A candidate is kept when the words inside it form rows of several cells (a short one-cell row is a
   wrapped cell and does not count against it); in a grid a vertical rule parts two words however close;
   one-cell title rows after data rows that lead into a header row start a new table. Candidates drawn
   as a grid (vertical rules too) are handed to ``find_tables`` restricted to their rows (``clip``) for
   the cell structure: each table it finds is a block, its split columns joined (a header drawn over a
   spanning cell), its cell boxes kept (``meta["cell_boxes"]``); the others get cells from the text gaps
   (``find_tables`` costs ~0.1 s per call, and its line strategy finds no columns without vertical rules
   anyway).

All boxes are in the displayed page's points.
"""

from __future__ import annotations

import logging
import re
import statistics
from dataclasses import dataclass

from docrag.geometry import Box, union, unrotate_box
from docrag.ingestion.textlayer import join_words, to_display_box
from docrag.types import Block, BlockKind, Word

log = logging.getLogger(__name__)

_NUMERIC = re.compile(r"^[(\[]?[-+–−$€£¥]?\d[\d,.]*%?[)\]]?[a-z]?$|^[-–—]$|^n\.?a\.?$", re.IGNORECASE)
_LEADER = re.compile(r"^(?:\.\s?){2,}$|^[.…·]$")   # leader dots between a label and its value
MIN_RULE_PT = 15.0
FIND_TABLES_MAX_CHARS = 2000  # larger grid tables get cells from their rules: find_tables costs ~0.2 s there
MAX_RULE_GAP_PT = 260.0
_GRID_RULE_SHARE = 0.25   # a grid's vertical rules run through at least this share of its height (or 40 pt)


@dataclass
class Row:
    words: list[Word]
    cells: list[list[Word]]

    @property
    def box(self) -> Box:
        return union([w.box for w in self.words])

    @property
    def y0(self) -> float:
        return min(w.box.y0 for w in self.words)

    @property
    def y1(self) -> float:
        return max(w.box.y1 for w in self.words)

    @property
    def height(self) -> float:
        return statistics.median(w.box.height for w in self.words)


def text_rows(words: list[Word]) -> list[Row]:
    """Words grouped into visual rows (vertical overlap) and split into cells at wide gaps."""
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: ((w.box.y0 + w.box.y1) / 2, w.box.x0)):
        cy = (w.box.y0 + w.box.y1) / 2
        if rows:
            last = rows[-1]
            ly0 = statistics.median(x.box.y0 for x in last[-3:])
            ly1 = statistics.median(x.box.y1 for x in last[-3:])
            if ly0 <= cy <= ly1:
                last.append(w)
                continue
        rows.append([w])
    out = []
    for ws in rows:
        ws.sort(key=lambda w: w.box.x0)
        h = statistics.median(w.box.height for w in ws)
        cells: list[list[Word]] = [[ws[0]]]
        for prev, w in zip(ws, ws[1:], strict=False):
            # a wide gap parts two cells, and so do leader dots ("Fraud. . . . . 173.7", however close)
            if w.box.x0 - prev.box.x1 > max(0.9 * h, 4.0) or (_LEADER.match(prev.text) and not _LEADER.match(w.text)):
                cells.append([w])
            else:
                cells[-1].append(w)
        out.append(Row(ws, cells))
    return out


def _is_tabular(row: Row) -> bool:
    n = len(row.cells)
    if n < 2:
        return False
    sizes = [_n_words(c) for c in row.cells]
    if max(sizes) > 10 or statistics.median(sizes) > 4:
        return False
    numeric = sum(_numeric(c) for c in row.cells)
    return n >= 3 or numeric >= 1


def _value_x0(rows: list[Row]) -> float | None:
    """Left edge of the value columns: the leftmost second cell of the rows that have one."""
    xs = [min(w.box.x0 for w in r.cells[1]) for r in rows if len(r.cells) >= 2]
    return min(xs) if xs else None


def is_label_line(row: Row, value_x0: float | None) -> bool:
    """A one-cell line that ends left of the value columns: a row label wrapped over lines or a section
    heading ("Adjustments to reconcile net income to net cash from operations:"), not prose, however long."""
    return value_x0 is not None and len(row.cells) == 1 and row.box.x1 < value_x0 - 2.0


def _is_header_line(row: Row, value_x0: float) -> bool:
    """Short cells set over the value columns ("Three Months Ended | Twelve Months Ended", "June 30,")."""
    return all(_n_words(c) <= 4 for c in row.cells) and min(w.box.x0 for w in row.words) >= value_x0 - 12.0


def aligned_regions(rows: list[Row]) -> list[Box]:
    """Regions of >= 3 tabular rows close together (short one-cell label rows, and label lines that end
    left of the value columns, may sit between), with the header lines set over their value columns."""
    regions: list[Box] = []
    run: list[Row] = []
    pending: list[Row] = []
    start = 0   # index in ``rows`` of the run's first row

    def close() -> None:
        if sum(_is_tabular(r) for r in run) >= 3:
            value_x0 = _value_x0([r for r in run if _is_tabular(r)])
            above: list[Row] = []
            for r in reversed(rows[max(0, start - 4):start]):   # header lines right above the first row
                nxt = above[0] if above else run[0]
                if value_x0 is None or nxt.y0 - r.y1 > 1.2 * max(r.height, nxt.height) \
                        or not _is_header_line(r, value_x0):
                    break
                above.insert(0, r)
            regions.append(union([r.box for r in [*above, *run]]))
        run.clear()
        pending.clear()

    for i, row in enumerate(rows):
        last = (pending or run)[-1] if (pending or run) else None
        if last is not None and row.y0 - last.y1 > 2.2 * max(row.height, last.height):
            close()
            last = None
        if _is_tabular(row):
            if not run:
                start = i
            run.extend(pending)
            pending.clear()
            run.append(row)
        elif run and len(pending) < 2 and (_n_words(row.words) <= 6 or is_label_line(row, _value_x0(run))):
            pending.append(row)
        else:
            close()
    close()
    return regions


def _segments(drawings: list[dict], to_display) -> tuple[list[Box], list[Box]]:
    """Horizontal and vertical rules (display-frame boxes) among vector drawings."""
    horiz: list[Box] = []
    vert: list[Box] = []
    for d in drawings:
        for item in d.get("items", []):
            op = item[0]
            if op == "l":
                p, q = item[1], item[2]
                x0, x1, y0, y1 = min(p.x, q.x), max(p.x, q.x), min(p.y, q.y), max(p.y, q.y)
            elif op == "re":
                r = item[1]
                x0, y0, x1, y1 = r.x0, r.y0, r.x1, r.y1
                if min(x1 - x0, y1 - y0) > 3.0:
                    continue  # a filled area, not a rule
            else:
                continue
            try:
                box = to_display(x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5)  # hairlines get an area
            except ValueError:
                continue
            if box.width >= MIN_RULE_PT and box.height <= 4.0:
                horiz.append(box)
            elif box.height >= MIN_RULE_PT and box.width <= 4.0:
                vert.append(box)
    return _joined(horiz), vert


def _joined(rules: list[Box]) -> list[Box]:
    """Collinear horizontal rules that touch joined into one: a row rule drawn one column at a time
    (ACCIONA's country-by-country table) spans the table, as printed."""
    out: list[Box] = []
    for b in sorted(rules, key=lambda r: ((r.y0 + r.y1) / 2, r.x0)):
        last = out[-1] if out else None
        if last is not None and abs((last.y0 + last.y1) / 2 - (b.y0 + b.y1) / 2) <= 1.0 and b.x0 <= last.x1 + 2.0:
            out[-1] = union([last, b])
        else:
            out.append(b)
    return out


def ruled_regions(horiz: list[Box], vert: list[Box]) -> list[Box]:
    """Regions spanned by >= 2 horizontal rules of similar extent (or a grid of rules)."""
    horiz = sorted(horiz, key=lambda b: b.y0)
    groups: list[list[Box]] = []
    for h in horiz:
        for g in groups:
            ref = union(g)
            ov = min(ref.x1, h.x1) - max(ref.x0, h.x0)
            if ov >= 0.6 * max(h.width, min(ref.width, h.width)) and h.y0 - ref.y1 <= MAX_RULE_GAP_PT:
                g.append(h)
                break
        else:
            groups.append([h])
    regions = []
    for g in groups:
        box = union(g)
        if len(g) >= 2 and box.height >= 12.0:
            regions.append(box)
    for v in vert:  # vertical rules extend a region they touch
        for i, r in enumerate(regions):
            if r.expanded(3).intersection_area(v) > 0:
                regions[i] = union([r, v])
    return regions


def _merge(boxes: list[Box]) -> list[Box]:
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                inter = a.intersection_area(b)
                if inter > 0.3 * min(a.area, b.area) or a.contains(b) or b.contains(a):
                    boxes[i] = union([a, b])
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _cells_text(rows: list[Row]) -> list[list[str]]:
    return [[" ".join(w.text for w in c) for c in r.cells] for r in rows]


def detect_tables(page, frame, words: list[Word], drawings: list[dict],
                  exclude: list[Box] | None = None) -> list[Block]:
    """Table blocks of one page. ``page``/``frame`` may be None (page images: aligned text only).

    Words and rules inside ``exclude`` (figures) are ignored.
    """
    exclude = exclude or []
    words = [w for w in words if not any(r.coverage_of(w.box) > 0.5 for r in exclude)]
    if not words:
        return []
    rows = text_rows(words)
    aligned = aligned_regions(rows)
    horiz: list[Box] = []
    vert: list[Box] = []
    ruled_boxes: list[Box] = []
    if page is not None and drawings:
        horiz, vert = _segments(drawings, lambda *c: to_display_box(frame, *c))
        horiz = [h for h in horiz if not any(r.coverage_of(h) > 0.5 for r in exclude)]
        vert = [v for v in vert if not any(r.coverage_of(v) > 0.5 for r in exclude)]
        ruled_boxes = ruled_regions(horiz, vert)
        side = _side_columns(aligned, ruled_boxes, words)
        if side:   # a ruled side column (a report's section index) is no part of the rows beside it
            words = [w for w in words if not any(z.contains(w.box, tol=1.0) for z in side)]
            rows = text_rows(words)
            aligned = aligned_regions(rows)
    candidates: list[tuple[Box, bool]] = [(b, False) for b in aligned] + [(b, True) for b in ruled_boxes]
    if not candidates:
        return []
    boxes = _merge([b for b, _ in candidates])
    ruled = [any(r and b.intersection_area(c) > 0 for c, r in candidates) for b in boxes]
    grid = [_is_grid(b, vert) for b in boxes]
    blocks: list[Block] = []
    for box, is_ruled, is_grid in zip(boxes, ruled, grid, strict=True):
        cols: list[float] = []
        if is_grid:
            box = _within_verticals(box, vert)
            cols = _grid_columns(box, vert)
        inside = [r for r in rows if box.expanded(1.0).contains(r.box)]
        if is_grid:
            inside = [_split_at_rules(r, vert) for r in inside]
        for segment in _segments_between_prose(inside, cols):
            for part in _stacked_tables(segment):
                if not _is_table(part, cols):
                    continue
                for block in _table_blocks(page, frame, part, box, is_ruled, is_grid, drawings, exclude,
                                           horiz if is_grid else [], vert if is_grid else []):
                    if not any(b.box.intersection_area(block.box) > 0.5 * min(b.box.area, block.box.area)
                               for b in blocks):  # the finder met the same table from two segments
                        blocks.append(block)
    return blocks


def _split_at_rules(row: Row, vert: list[Box]) -> Row:
    """``row`` with a cell break wherever a vertical rule runs between two words, however close."""
    cy = (row.y0 + row.y1) / 2
    xs = [(v.x0 + v.x1) / 2 for v in vert if v.y0 <= cy <= v.y1]
    if not xs:
        return row
    cells: list[list[Word]] = []
    for cell in row.cells:
        cells.append([cell[0]])
        for prev, w in zip(cell, cell[1:], strict=False):
            if any(prev.box.x1 - 1.0 <= x <= w.box.x0 + 1.0 for x in xs):
                cells.append([w])
            else:
                cells[-1].append(w)
    return Row(row.words, cells)


def _side_columns(aligned: list[Box], ruled: list[Box], words: list[Word]) -> list[Box]:
    """Ruled regions set in a page's side column beside a table's rows: narrow, reaching well above or
    below the rows, at one edge of them, beyond the end of the rules that run across the rows, and holding
    one-cell lines of words, not values (ACCIONA's section index "1 Letter from the Chairman", its entries
    parted by rules, had put its numbers in the table's rows; rules under a value column are no side column)."""
    side = []
    for r in ruled:
        for a in aligned:
            at_edge = r.x0 > a.x0 + 0.7 * a.width or r.x1 < a.x0 + 0.3 * a.width
            if not (at_edge and r.width < 0.3 * a.width and r.intersection_area(a) > 0
                    and r.height > 1.5 * a.height):
                continue
            # the rows' own rules run across them and stop short of the side column
            if not any(t is not r and min(t.x1, a.x1) - max(t.x0, a.x0) > 0.5 * a.width
                       and (t.x1 < r.x0 or r.x1 < t.x0) for t in ruled):
                continue
            mine = [w for w in words if r.contains(w.box, tol=1.0)]
            own = text_rows(mine)
            numeric = sum(bool(_NUMERIC.match(w.text)) for w in mine)
            if mine and numeric < 0.5 * len(mine) and sum(len(row.cells) >= 2 for row in own) < 2:
                side.append(r)
                break
    return side


def _is_grid(box: Box, vert: list[Box]) -> bool:
    """Two or more vertical rules run through ``box`` over rows, not just its header: short ticks or
    arrows under the column heads (ACCIONA's) mark columns but cut no cells."""
    runs = _rule_runs(box, [v for v in vert if box.expanded(2.0).intersection_area(v) > 0])
    return sum(length >= min(_GRID_RULE_SHARE * box.height, 40.0) for length in runs.values()) >= 2


def _rule_runs(box: Box, vert: list[Box]) -> dict[int, float]:
    """How far the vertical rules run through ``box``'s rows, per x (2-pt bins: rules drawn one row at a
    time add up)."""
    runs: dict[int, float] = {}
    for v in vert:
        overlap = min(v.y1, box.y1) - max(v.y0, box.y0)
        if overlap > 0:
            x = round((v.x0 + v.x1) / 4) * 2
            runs[x] = runs.get(x, 0.0) + overlap
    return runs


def _within_verticals(box: Box, vert: list[Box]) -> Box:
    """A grid region cut to the rows its vertical rules run through, when they run through most of it: a
    page's header rule grouped with the grid's rules does not take the title lines above it in."""
    inner = [v for v in vert if box.expanded(2.0).intersection_area(v) > 0]
    if not inner:
        return box
    top, bottom = min(v.y0 for v in inner), max(v.y1 for v in inner)
    if bottom - top < 0.5 * box.height:
        return box
    return Box(box.x0, max(box.y0, top - 3.0), box.x1, min(box.y1, bottom + 3.0), box.space, box.extent)


def _grid_columns(box: Box, vert: list[Box]) -> list[float]:
    """Column bounds of a ruled grid: its edges and the x of each vertical rule that runs through it."""
    runs = _rule_runs(box, vert)
    xs = [x for x, length in runs.items() if length >= 0.5 * box.height and box.x0 + 3 < x < box.x1 - 3]
    return sorted({box.x0, box.x1, *xs})


def _in_one_column(row: Row, cols: list[float]) -> bool:
    """``row`` lies between two neighbouring rules of a grid with inner rules: a cell's own line."""
    if len(cols) < 3:
        return False
    box = row.box
    return any(a - 1.0 <= box.x0 and box.x1 <= b + 1.0 for a, b in zip(cols, cols[1:], strict=False))


def _is_table(rows: list[Row], cols: list[float] | None = None) -> bool:
    """Enough rows of several cells. A short one-cell row is a wrapped cell (a label or a header set
    over several lines, "本期 / 比上 / 年同 / 期增 / 减(%)"), and so is any line that stays inside one
    column of a ruled grid (``cols``): neither counts against the table."""
    multi = sum(len(r.cells) >= 2 for r in rows)
    wrapped = sum(len(r.cells) == 1 and (_n_words(r.words) <= 3 or _in_one_column(r, cols or []))
                  for r in rows)
    return len(rows) >= 3 and multi >= max(2, 0.4 * (len(rows) - wrapped))


def _numeric(cell: list[Word]) -> bool:
    return all(_NUMERIC.match(w.text) for w in cell)


def _is_data(row: Row) -> bool:
    return len(row.cells) >= 2 and any(_numeric(c) for c in row.cells[1:])


def _is_header(row: Row) -> bool:
    return len(row.cells) >= 2 and not any(_numeric(c) for c in row.cells)


def _stacked_tables(rows: list[Row]) -> list[list[Row]]:
    """Tables set one under another in one ruled region (a 10-Q's "Revenue by Reportable Segments" under
    its income-statement percentages): a new table starts at one-cell title rows that follow data rows
    and lead into a header row."""
    parts: list[list[Row]] = [[]]
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and len(rows[j].cells) == 1:
            j += 1
        after_data = sum(_is_data(r) for r in parts[-1]) >= 2
        if j > i and j < len(rows) and after_data and _is_header(rows[j]) \
                and all(_n_words(r.words) <= 8 for r in rows[i:j]):
            while i < j and rows[i].y0 - rows[i - 1].y1 < 0.6 * rows[i].height:  # a label's wrapped line
                parts[-1].append(rows[i])
                i += 1
            parts.append([])
        parts[-1].extend(rows[i:j + 1] if j > i else rows[i:i + 1])
        i = j + 1 if j > i else i + 1
    return [p for p in parts if p]


_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


def _n_words(words: list[Word]) -> int:
    """Words that carry letters or digits (dot leaders and dashes do not count); a run of Chinese or
    Japanese text, which has no spaces, counts one word per two characters, so a line of Chinese
    prose reads as prose, not as a one-cell table row."""
    n = 0
    for w in words:
        cjk = len(_CJK_CHAR.findall(w.text))
        n += max(1, cjk // 2) if cjk else int(any(ch.isalnum() for ch in w.text))
    return n


def _is_prose(row: Row, cols: list[float]) -> bool:
    """A row of running text (a paragraph line, a note): tables never continue through one. A line kept
    inside one column of a ruled grid is a cell's text however long ("数据出境和境外接收方处理数据的目")."""
    if _in_one_column(row, cols):
        return False
    return (len(row.cells) == 1 and _n_words(row.words) >= 7) or max(_n_words(c) for c in row.cells) >= 12


def _segments_between_prose(rows: list[Row], cols: list[float]) -> list[list[Row]]:
    value_x0 = _value_x0([r for r in rows if _is_tabular(r)])
    segments: list[list[Row]] = [[]]
    for r in rows:
        if _is_prose(r, cols) and not is_label_line(r, value_x0):
            segments.append([])
        else:
            segments[-1].append(r)
    return [s for s in segments if s]


def _table_blocks(page, frame, rows: list[Row], region: Box, is_ruled: bool, is_grid: bool,
                  drawings: list[dict], exclude: list[Box], horiz: list[Box], vert: list[Box]) -> list[Block]:
    """Table blocks for ``rows``; grid tables get cells from their rules (or ``find_tables``, one block per
    table it finds: a table continued from the page before sits right above the next one's header)."""
    tbox = union([r.box for r in rows]).expanded(1.0).clipped()
    if not is_grid:
        return [_block(tbox, _cells_text(rows), "rules" if is_ruled else "alignment")]
    pad = 1.5 * max(r.height for r in rows)
    zone = Box(region.x0, max(region.y0, tbox.y0 - pad), region.x1, min(region.y1, tbox.y1 + pad),
               region.space, region.extent).expanded(2.0).clipped()
    n_chars = sum(len(w.text) for r in rows for w in r.words)
    found: list[tuple[Box, list[list[str]], list[list[Box | None]]]] = []
    if page is not None and n_chars <= FIND_TABLES_MAX_CHARS:
        found = _find_tables(page, frame, zone, drawings, [w for r in rows for w in r.words])
    found = [f for f in found if not any(r.intersection_area(f[0]) > 0.1 * r.area for r in exclude)]
    if found:
        blocks = []
        for fbox, cells, cell_boxes in found:
            mine = [r for r in rows if fbox.expanded(2.0).contains(r.box)]
            box = union([fbox, *(r.box for r in mine)]).clipped()
            block = _block(box, cells, "find_tables")
            if cell_boxes:
                block.meta["cell_boxes"] = [[b.to_list(2) if b else None for b in r] for r in cell_boxes]
            blocks.append(block)
        if len(found) == 1:  # one table: it keeps every row below its top (the finder may stop short of
            # a ruled edge); lines above it are the title and notes a page rule ran over ("单位:元")
            below = [r.box for r in rows if r.y1 > found[0][0].y0]
            blocks[0].box = union([blocks[0].box, *below]).clipped()
            return blocks
        rest = [r for r in rows if not any(b.box.expanded(2.0).contains(r.box) for b in blocks)]
        if _is_table(rest):   # rows between the finder's tables that are a table of their own
            blocks.append(_block(union([r.box for r in rest]).expanded(1.0).clipped(), _cells_text(rest),
                                 "alignment"))
        return blocks
    # the grid's own rules (not a page frame that also runs around figures next to it)
    near = tbox.expanded(12.0)
    rules = [r for r in [*horiz, *vert] if zone.intersection_area(r) > 0.5 * r.area and near.contains(r, tol=0.5)]
    if rules:
        tbox = union([tbox, *rules]).clipped()
    return [_block(tbox, _grid_cells(rows, [v for v in vert if v in rules], tbox), "rule_grid")]


def _block(box: Box, rows: list[list[str]], source: str) -> Block:
    text = "\n".join(" | ".join(c for c in r) for r in rows)
    return Block(kind=BlockKind.TABLE, box=box, text=text, meta={"source": source, "rows": rows})


def _grid_cells(rows: list[Row], vert: list[Box], tbox: Box) -> list[list[str]]:
    """Cell texts of each text row, columns cut at the table's vertical rules."""
    xs: list[float] = []
    for x in sorted((v.x0 + v.x1) / 2 for v in vert):
        if tbox.x0 + 3 < x < tbox.x1 - 3 and (not xs or x - xs[-1] > 3):
            xs.append(x)
    bounds = [tbox.x0, *xs, tbox.x1]
    table = []
    for r in rows:
        cells = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            inside = [w for w in r.words if a <= (w.box.x0 + w.box.x1) / 2 < b]
            cells.append(join_words([w.text for w in inside]))
        table.append(cells)
    keep = [i for i in range(len(bounds) - 1) if any(row[i] for row in table)]
    return [[row[i] for i in keep] for row in table]


def _find_tables(page, frame, clip_box: Box, drawings: list[dict],
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
