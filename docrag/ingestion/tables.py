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
4. A row label wrapped over lines round its figures (年报's "归属于上市公司股东的扣除非经 | figures | 常性损益的
   净利润(元)") is one row in either grid: where the finder's cells overlap it (``joined_wrapped_labels``), and
   between two horizontal rules of a grid ruled row by row (``joined_between_rules``).

All boxes are in the displayed page's points.
"""

from __future__ import annotations

import logging
import re
import statistics
from dataclasses import dataclass

from docrag.geometry import Box, union
from docrag.ingestion.table_beside import beside_prose
from docrag.ingestion.table_finder import cut_prose, find_grid_tables, joined_between_rules, joined_wrapped_labels
from docrag.ingestion.table_rules import (
    grid_columns,
    has_grid_rules,
    rule_segments,
    ruled_regions,
    within_verticals,
)
from docrag.ingestion.table_spans import TextCell, relabelled, spanned_labels
from docrag.ingestion.textlayer import join_words, to_display_box
from docrag.types import Block, BlockKind, Word
from docrag.words import YEAR_CELL

log = logging.getLogger(__name__)

_NUMERIC = re.compile(r"^[(\[]?[-+–−$€£¥]?\d[\d,.]*%?[)\]]?[a-z]?$|^[-–—]$|^n\.?a\.?$", re.IGNORECASE)
_LEADER = re.compile(r"^(?:\.\s?){2,}$|^[.…·]$")   # leader dots between a label and its value
_CURRENCY = re.compile(r"^(?:US)?[$€£¥￥]$")
_ENDS_FIGURE = re.compile(r"[\d%)]$")
WRAPPED_OVERLAP_PT = 1.0    # a line the next one runs into by more than this is a wrapped cell's
TWO_ROW_MIN_CELLS = 4       # a table of a header and one row: cells each row has at least
FIND_TABLES_MAX_CHARS = 2000  # larger grid tables get cells from their rules: find_tables costs ~0.2 s there


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
            # a wide gap parts two cells, and so do leader dots ("Fraud. . . . . 173.7", however close) and a
            # currency sign set close after a figure: it belongs to the next column's figure ("55,374 $ 95.89")
            if (w.box.x0 - prev.box.x1 > max(0.9 * h, 4.0) or (_LEADER.match(prev.text) and not _LEADER.match(w.text))
                    or currency_after_figure(prev.text, w.text)):
                cells.append([w])
            else:
                cells[-1].append(w)
        out.append(Row(ws, cells))
    return out


def currency_after_figure(prev: str, word: str) -> bool:
    """``word`` is a currency sign set close after a figure: it belongs to the next column's figure."""
    return bool(_CURRENCY.match(word) and _ENDS_FIGURE.search(prev))


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
        tabular = [r for r in run if _is_tabular(r)]
        if len(tabular) >= 3 or is_two_row_table(tabular):
            value_x0 = _value_x0(tabular)
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
        horiz, vert = rule_segments(drawings, lambda *c: to_display_box(frame, *c))
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
    blocks: list[Block] = []
    for box, is_ruled in zip(boxes, ruled, strict=True):
        beside = beside_prose(box, words)
        if beside is not None:   # a column of prose runs on the table's rows: its words are no cells
            box = beside
        is_grid = beside is None and has_grid_rules(box, vert)   # beside prose: cells from the text gaps
        cols: list[float] = []
        if is_grid:
            box = within_verticals(box, vert)
            cols = grid_columns(box, vert)
        if beside is not None:
            inside = text_rows([w for w in words if box.contains(w.box, tol=1.0)])
        else:
            inside = [r for r in rows if box.expanded(1.0).contains(r.box)]
        if is_grid:
            inside = [_split_at_rules(r, vert) for r in inside]
        for segment in _segments_between_prose(inside, cols):
            for part in _stacked_tables(segment, cols):
                if not _is_table(part, cols):
                    continue
                for block in _table_blocks(page, frame, part, box, is_ruled, is_grid, drawings, exclude,
                                           horiz if is_grid else [], vert if is_grid else []):
                    if cut_prose(block.meta["rows"]):
                        continue   # words of sentences in a ruled frame (a cover's title) are text
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
    return (len(rows) >= 3 and multi >= max(2, 0.4 * (len(rows) - wrapped))) or is_two_row_table(rows)


def _x_overlap(a: list[Word], b: list[Word]) -> bool:
    """The two cells share some width (2 pt of slack)."""
    return min(w.box.x0 for w in a) < max(w.box.x1 for w in b) + 2.0 and \
        min(w.box.x0 for w in b) < max(w.box.x1 for w in a) + 2.0


def is_two_row_table(rows: list[Row]) -> bool:
    """A header and one row of figures under it (a report's "表 1. RankIC 统计量": 均值 | 标准差 | ... over
    Rank IC | 7.4% | 13.8% | ...): four or more cells each, three or more of the row's figures, and every
    figure under a header cell."""
    if len(rows) != 2 or len(rows[0].cells) < TWO_ROW_MIN_CELLS or len(rows[1].cells) < TWO_ROW_MIN_CELLS:
        return False
    head, data = rows
    figures = [c for c in data.cells if _numeric(c)]
    # ``year_header`` (rule 218): years over the columns are headers, not figures ("(Amounts in millions) | 2023 |
    # 2022 | 2021" over "Net cash provided by operating activities | $ 28,841 | ...", a 10-K's one-line tables)
    return (not any(_numeric(c) and not YEAR_CELL.match(" ".join(w.text for w in c)) for c in head.cells)
            and len(figures) >= 3
            and all(any(_x_overlap(c, h) for h in head.cells) for c in figures))


def _numeric(cell: list[Word]) -> bool:
    return all(_NUMERIC.match(w.text) for w in cell)


def _is_data(row: Row) -> bool:
    return len(row.cells) >= 2 and any(_numeric(c) for c in row.cells[1:])


def _is_header(row: Row) -> bool:
    return len(row.cells) >= 2 and not any(_numeric(c) for c in row.cells)


def _stacked_tables(rows: list[Row], cols: list[float] | None = None) -> list[list[Row]]:
    """Tables set one under another in one ruled region (a 10-Q's "Revenue by Reportable Segments" under
    its income-statement percentages): a new table starts at one-cell title rows that follow data rows
    and lead into a header row. A line inside one column of a grid (``cols``), or one the next line runs into
    (the lines of a row of wrapped cells interleave: 影石创新's "深自贸备案" in its filing column, over
    "影石创新深圳研 | 前海"), is a wrapped cell's, no title; it cut that project table in two."""
    parts: list[list[Row]] = [[]]
    i = 0

    def title_like(k: int) -> bool:
        row = rows[k]
        return (len(row.cells) == 1 and not _in_one_column(row, cols or [])
                and (k + 1 == len(rows) or rows[k + 1].y0 >= row.y1 - WRAPPED_OVERLAP_PT))

    while i < len(rows):
        j = i
        while j < len(rows) and title_like(j):
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


_CAPTION_OR_SOURCE = re.compile(r"^\s*(?:(?:图表|圖表|图|圖|表|table|figure|exhibit|chart)\s*\d+\s*[:：.]"
                                r"|(?:资料来源|数据来源|來源|来源|sources?)\s*[:：])", re.IGNORECASE)


def _is_caption_or_source(row: Row) -> bool:
    """A row holding a numbered caption ("图表20:", "Table 3.") or a source line ("资料来源:", "Source:") in
    any of its cells: tables set one under another (or side by side) part there; neither is a table row."""
    return any(_CAPTION_OR_SOURCE.match(join_words([w.text for w in c])) for c in row.cells)


def _segments_between_prose(rows: list[Row], cols: list[float]) -> list[list[Row]]:
    value_x0 = _value_x0([r for r in rows if _is_tabular(r)])
    segments: list[list[Row]] = [[]]
    for r in rows:
        if (_is_prose(r, cols) and not is_label_line(r, value_x0)) or _is_caption_or_source(r):
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
        texts = _cells_text(rows)
        spans = spanned_labels([[TextCell(t, union([w.box for w in c])) for t, c in zip(line, r.cells, strict=True)]
                                for line, r in zip(texts, rows, strict=True)])
        if spans is not None:   # a group's label printed once, beside its rows (rule 198)
            texts = relabelled(texts, spans)
        return [_block(tbox, texts, "rules" if is_ruled else "alignment")]
    pad = 1.5 * max(r.height for r in rows)
    zone = Box(region.x0, max(region.y0, tbox.y0 - pad), region.x1, min(region.y1, tbox.y1 + pad),
               region.space, region.extent).expanded(2.0).clipped()
    n_chars = sum(len(w.text) for r in rows for w in r.words)
    found: list[tuple[Box, list[list[str]], list[list[Box | None]]]] = []
    if page is not None and n_chars <= FIND_TABLES_MAX_CHARS:
        found = find_grid_tables(page, frame, zone, drawings, [w for r in rows for w in r.words], horiz)
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
    return [_block(tbox, _grid_cells(rows, [v for v in vert if v in rules], tbox, [h for h in horiz if h in rules]),
                   "rule_grid")]


def _block(box: Box, rows: list[list[str]], source: str) -> Block:
    text = "\n".join(" | ".join(c for c in r) for r in rows)
    return Block(kind=BlockKind.TABLE, box=box, text=text, meta={"source": source, "rows": rows})


def _grid_cells(rows: list[Row], vert: list[Box], tbox: Box, horiz: list[Box]) -> list[list[str]]:
    """Cell texts of each text row, columns cut at the table's vertical rules, lines no horizontal rule parts
    joined into one row where they hold one row of figures at most."""
    xs: list[float] = []
    for x in sorted((v.x0 + v.x1) / 2 for v in vert):
        if tbox.x0 + 3 < x < tbox.x1 - 3 and (not xs or x - xs[-1] > 3):
            xs.append(x)
    bounds = [tbox.x0, *xs, tbox.x1]
    table, boxes = [], []
    for r in rows:
        cells, cell_boxes = [], []
        for a, b in zip(bounds, bounds[1:], strict=False):
            inside = [w for w in r.words if a <= (w.box.x0 + w.box.x1) / 2 < b]
            cells.append(join_words([w.text for w in inside]))
            cell_boxes.append(union([w.box for w in inside]) if inside else None)
        table.append(cells)
        boxes.append(cell_boxes)
    table = joined_wrapped_labels(*joined_between_rules(table, boxes, horiz))[0]   # a label wrapped round its figures
    keep = [i for i in range(len(bounds) - 1) if any(row[i] for row in table)]
    return [[row[i] for i in keep] for row in table]


