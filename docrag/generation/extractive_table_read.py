"""Which structure a table block is read from, and what its title says (scale, unit).

In order: the table finder's cells with their boxes (``meta["rows"]`` + ``meta["cell_boxes"]``: a label
set over two lines stays one label), else lines of the words inside the block
(:func:`~docrag.generation.extractive_tables._from_words`; a header set tight over its columns is split,
:func:`_split_headers`), else the stored rows without boxes (image-only tables).
"""

from __future__ import annotations

import re

from docrag.generation.extractive_stacked import split_stacked
from docrag.generation.extractive_tables import (
    _DOTS,
    _EXCEPT_PER_SHARE,
    _NOTE,
    _RANGE,
    _SCALE,
    _SCOPED,
    _UNIT,
    _YEAR,
    Cell,
    Row,
    Table,
    _cells,
    _from_words,
    _is_value,
    _segments,
    _with_sections,
    is_number,
    leads_with_row_number,
    names_periods,
    words_in,
)
from docrag.geometry import Box, union
from docrag.ingestion.continued_tables import SECTION_KEY
from docrag.ingestion.table_spans import spanned_labels
from docrag.ingestion.textlayer import word_lines
from docrag.types import Block, BlockKind, Page, Word
from docrag.words import YEAR_CELL

_UNMAPPED = "\ufffd"
_YEAR_DATE = re.compile(r"(?:19|20)\d\d\s*年")   # "2024年6月30日" set as one word heads its column as a year does
_NIL = re.compile(r"[-–—−]{1,3}")   # a cell printing nothing: a dash


def _from_meta(block: Block, title: str) -> Table | None:
    raw = block.meta.get("rows")
    if not isinstance(raw, list):
        raw = [line.split("|") for line in block.text.splitlines() if line.strip()]
    if len(raw) < 2:
        return None
    lines = [[str(x).strip() for x in (r if isinstance(r, list) else str(r).split("|"))] for r in raw]
    lines = [[_DOTS.sub("", x).strip() for x in line if _DOTS.sub("", x).strip()] for line in lines]
    header: list[list[Cell]] = []
    rows: list[Row] = []
    for cells in lines:
        if not cells:
            continue
        cells = cells[1:] if leads_with_row_number(cells) else cells
        has_label = not is_number(cells[0])
        # a first line of years ("Costs and expenses | 2021 | 2020") heads the columns, as in a table read from words
        values = [Cell(x, None) for x in cells[1:] if _is_value(x) and not (_YEAR.match(x) and not rows)] \
            if has_label else []
        if not rows and (not values or all(_RANGE.match(c.text) for c in values)
                         or not header and names_periods([c.text for c in values])):
            header.append([Cell(x, None) for x in cells])
            continue
        notes = [x for x in cells[1:] if not _is_value(x)] if has_label else []
        rows.append(Row(cells[0] if has_label else "", None, values, len(rows), notes))
    return Table(block, title, header, [r for r in rows if r.cells])


def _from_grid(block: Block, title: str, words: list[Word]) -> Table | None:
    """The table of a block whose cells came with boxes (``meta["rows"]`` and ``meta["cell_boxes"]``, page
    points): the lines above the first row of values are its header, the first column its row labels. A
    header keeps its grid cell's box (its column, for the cells below it); a row's cells get their words'
    boxes (a cell is cited like a line: its rules and padding are the table's)."""
    texts, boxes = block.meta.get("rows"), block.meta.get("cell_boxes")
    if not isinstance(texts, list) or not isinstance(boxes, list) or len(texts) != len(boxes) or len(texts) < 2:
        return None
    lines: list[tuple[bool, list[Cell], list[Cell]]] = []   # (in the first column, word cells, grid cells)
    for row_texts, row_boxes in zip(texts, boxes, strict=True):
        if not isinstance(row_texts, list) or not isinstance(row_boxes, list) or len(row_texts) != len(row_boxes):
            return None
        cells, grid, first = [], [], None
        for i, (text, b) in enumerate(zip(row_texts, row_boxes, strict=True)):
            text = _DOTS.sub("", str(text)).strip()
            if text and b:
                box = Box(*b, block.box.space, block.box.extent)
                inside = [w.box for w in words
                          if box.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2)]
                cells.append(Cell(text, union(inside) if inside else box))
                grid.append(Cell(text, box))
                first = i if first is None else first
        if first == 0 and leads_with_row_number([c.text for c in cells]):
            cells, grid = cells[1:], grid[1:]   # the next cell, in the label column's place, names the row
        if cells:
            lines.append((first == 0, cells, grid))
    header: list[list[Cell]] = []
    rows: list[Row] = []
    group, tops = "", True   # a first-column label spanning the rows below it, printed at their top (rule 170)
    for n, (in_first_column, cells, grid) in enumerate(lines):
        first = cells[0]
        # a year in the first column names its row ("年份": 2014, 2015, ...); so does a first text cell right of
        # an empty first column (航天电器: "电子元器件制造业" set once for 销售量, 生产量, 库存量 of one product)
        has_label = ((in_first_column and (not is_number(first.text) or bool(_YEAR.match(first.text))))
                     or (not in_first_column and not _is_value(first.text)))
        rest = cells[1:] if has_label else cells
        values = [c for c in rest if _is_value(c.text) and not (_YEAR.match(c.text) and not rows)]
        if not rows and has_label and rest and all(_NIL.fullmatch(c.text.strip()) for c in rest):
            continue   # rule 228 ``nil_row``: "库存现金 | - | - | - | -" is a row of nils, not the header
        # rule 236 ``period_header`` on grids too: a first line of dates over the columns ("| 2024年12月31日 | 2023年…")
        if not rows and (not values or all(_RANGE.match(c.text.strip()) for c in values)
                         or not header and names_periods([c.text for c in values])):
            data_next = n + 1 < len(lines) and any(_is_value(c.text) for c in lines[n + 1][1][1:])
            if header and has_label and len(cells) == 1 and data_next:  # a section over the first rows
                rows.append(Row(first.text.rstrip(":"), first.box, [], len(rows)))
            else:
                header.append(grid)
            continue
        if has_label and _NOTE.match(first.text):
            continue
        if has_label and not values:
            rows.append(Row(first.text.rstrip(":"), first.box, [], len(rows)))
            continue
        label = first.text if has_label else ""
        texts = [c for c in rest if not any(c is v for v in values)]
        tops = tops and (in_first_column or bool(group))   # a row outside any span: labels centred (rule 135)
        if tops and in_first_column and has_label and texts and _spans(texts[0], values, lines[n + 1:n + 2]):
            group, first, texts = label, texts[0], texts[1:]   # "归属于母公司股东净利润" spans 2024 / 2023 / 2022年度
            label = first.text
        elif in_first_column or not has_label:
            group = ""
        rows.append(Row(label, first.box if has_label else None, values, len(rows), [c.text for c in texts]))
        if group:
            rows[-1].label, rows[-1].section = f"{label} ({group})", group
    section = block.meta.get(SECTION_KEY)
    if isinstance(section, str) and section and rows and rows[0].cells:   # the part before's open section
        rows.insert(0, Row(section, None, [], 0))
    rows = _centred_sections(rows) or _with_sections(rows)
    return Table(block, title, header, [r for r in rows if r.cells])


def _spans(sub: Cell, values: list[Cell], following: list[tuple[bool, list[Cell], list[Cell]]]) -> bool:
    """``spanned_label`` (rule 170): a text cell between a row's label and its values (a period, "销售量") names
    the row when the next line, a row of values too, leaves the first column empty and starts with a text cell
    in that column: the first column's label was printed once for the rows it spans (a note wrapped under the
    values, "较好,为保障产品及时交付, ...", is no such cell)."""
    if not following or following[0][0] or sub.box is None or not values or values[0].box is None:
        return False
    nxt, rest = following[0][1][0], following[0][1][1:]
    return (sub.box.x1 <= values[0].box.x0 and nxt.box is not None and not _is_value(nxt.text)
            and abs(nxt.box.x0 - sub.box.x0) <= max(sub.box.height, 4.0) and any(_is_value(c.text) for c in rest))


def _centred_sections(rows: list[Row]) -> list[Row] | None:
    """``centred_label`` (rule 135): a label set in a column left of the row labels, centred over the rows it
    spans (年报's 产销量情况分析表: "电子元器件制造业 (连接器)" beside 销售量, 生产量, 库存量), is read by the table
    finder as label-only lines between those rows, one per printed line (lines less than a line apart are one
    label); each row takes the label whose centre is nearest its own. None (sections read top-down) unless the
    table opens and ends with rows of values and every label lies left of the row labels."""
    if not rows or not rows[0].cells or not rows[-1].cells or any(r.label_box is None for r in rows):
        return None
    data = [r for r in rows if r.cells]
    lines = [r for r in rows if not r.cells]
    left = min(r.label_box.x0 for r in data if r.label_box is not None) + 1.0
    if not lines or any(r.label_box is None or r.label_box.x1 > left for r in lines):
        return None
    groups: list[list[Row]] = []
    for r in lines:
        last = groups[-1][-1].label_box if groups else None
        if last is not None and r.label_box is not None and r.label_box.y0 - last.y1 <= last.height:
            groups[-1].append(r)
        else:
            groups.append([r])
    named = [(" ".join(r.label for r in g), sum((r.label_box.y0 + r.label_box.y1) / 2 for r in g if r.label_box)
              / len(g)) for g in groups]
    for r in data:
        assert r.label_box is not None
        centre = (r.label_box.y0 + r.label_box.y1) / 2
        r.section = min(named, key=lambda g: abs(g[1] - centre))[0]
        r.label = f"{r.label} ({r.section})"
    return data


def parse_tables(block: Block, page: Page, context: str = "") -> list[Table]:
    """The tables of a table block (usually one; more when layout merged tables or a chart into it).
    ``context``: the block's caption and the title lines above it."""
    title = " ".join(x for x in (str(block.meta.get("caption", "")), context) if x).strip()
    # a glyph the PDF maps to no character (Apple's 10-Q prints its "$" so) stuck to the next column's
    # value ("96,388 �") made it no number
    words = [w for w in words_in(page, block.box) if w.text.strip(_UNMAPPED)]
    grid = _from_grid(block, title, words)
    if grid is not None and grid.rows:  # the table finder's cells: a label over two lines stays one label
        top = min(c.box.y0 for line in grid.header_lines for c in line if c.box) if grid.header_lines else \
            min(r.box.y0 for r in grid.rows if r.box)
        above = [line for line in word_lines([w for w in words if w.box.y1 <= top + 1])   # a nil row is no lead
                 if len(line) < 2 or not all(_NIL.fullmatch(w.text.strip()) for w in line[1:])]
        lead = [" ".join(w.text for w in line) for line in above]
        grid.title = " ".join([title, *lead]).strip()   # "单位：万元" set above the grid, inside the block
        if not grid.header_lines and above:
            grid.header_lines = _period_heads(grid, above[-1])
        return [_finish(_heads_above(grid, block, page, words))]
    tables = [_split_headers(t, words) for t in (_from_words(block, _group_labelled(s.lines), s.title)
                                                  for s in split_stacked(_segments(words, title))
                                                  if s.chart_caption is None)
              if t and t.rows]
    if not tables:
        meta = _from_meta(block, title)
        tables = [meta] if meta is not None else []
    return [_finish(_heads_above(t, block, page, words)) for t in tables]


HEADS_ABOVE_PT = 30.0   # how far above a table block column heads set outside it are looked for (rule 226)
_HEAD_LETTER = re.compile(r"[A-Za-z\u4e00-\u9fff]")


def _is_head(text: str) -> bool:
    """A column head set above a table: words or a year, short, no figure but a year."""
    t = text.strip()
    return bool(_HEAD_LETTER.search(t) or YEAR_CELL.match(t)) and len(text) <= 40 \
        and (not is_number(text) or bool(_YEAR.match(text)))


def _heads_above(table: Table, block: Block, page: Page, inside: list[Word]) -> Table:
    """``heads_above`` (rule 226): column heads that layout left outside the table block ("Three Months Ended | Six
    Months Ended" over Netflix's regional tables, "Fiscal 2023 | Fiscal 2023 vs. Fiscal 2022 | Fiscal 2022" over
    General Mills' net sales) head its value columns: the lowest line just above the block that parts into two or more
    heads over the value columns (words or years, no figure), with the line above it when that one holds heads too."""
    boxes = [c.box for r in table.rows for c in r.cells if c.box is not None]
    if not boxes or not page.words:
        return table
    left = min(b.x0 for b in boxes) - 30
    charts = [b.box for b in page.blocks if b.kind is BlockKind.FIGURE]   # a chart's legend heads no table (248)
    band = [w for w in page.words if w.box.area > 0 and block.box.y0 - HEADS_ABOVE_PT <= w.box.y0 < block.box.y0
            and w.box.x0 >= left and w.box.x1 <= block.box.x1 + 5 and w not in inside
            and not any(c.coverage_of(w.box) >= 0.6 for c in charts)]
    lines = [_cells(line) for line in word_lines(band)][-2:]
    heads = [line for line in lines if line and all(_is_head(c.text) for c in line)]
    if not heads or len(heads[-1]) < 2 or heads[-1] is not lines[-1]:
        return table
    if len(heads) == 2 and len(heads[0]) < len(heads[1]):   # "Fiscal 2023 vs." wrapped over "Fiscal 2022": one head
        low = list(heads[1])
        unders = [[i for i, c in enumerate(low) if up.box and c.box and min(up.box.x1, c.box.x1) > max(up.box.x0,
                                                                                                      c.box.x0)]
                  for up in heads[0]]
        if all(len(under) == 1 for under in unders):   # else heads over groups of columns: a line of their own
            for up, (i,) in zip(heads[0], unders, strict=True):
                low[i] = Cell(f"{up.text} {low[i].text}", union([up.box, low[i].box]))
            heads = [low]
    table.header_lines = [*heads, *table.header_lines]
    return table


def _period_heads(grid: Table, line: list[Word]) -> list[list[Cell]]:
    """``lead_periods`` (rule 215): a grid the finder found without its header row (BoT's "GDP growth (%YoY) | 2021 |
    2022" set white on a dark band) takes the line right above it as its header when the line's years stand one over
    each value column; [] otherwise. A year heads the words after it up to the next year ("2023 年12 月31 日", rule
    228: 星图测控's 货币资金 table, whose first row of nils had been taken for its header)."""
    words = sorted(line, key=lambda w: w.box.x0)
    at = [i for i, w in enumerate(words) if _YEAR.match(w.text.strip()) or _YEAR_DATE.match(w.text.strip())]
    if not at:
        return []   # a line above with no year (广发's 表8 under its title) heads nothing
    periods = [words[i:j] for i, j in zip(at, [*at[1:], len(words)], strict=True)]
    full = [r.cells for r in grid.rows if len(r.cells) == len(periods) and all(c.box is not None for c in r.cells)]
    if len(periods) < 2 or not full:
        return []
    heads = [Cell(" ".join(w.text for w in p), union([w.box for w in p])) for p in periods]
    for head, column in zip(heads, zip(*full, strict=True), strict=True):   # each period over its column's cells
        centre = (head.box.x0 + head.box.x1) / 2
        if not min(c.box.x0 for c in column) - 8 <= centre <= max(c.box.x1 for c in column) + 8:
            return []
    label = words[:at[0]]
    stub = [Cell(" ".join(w.text for w in label), union([w.box for w in label]))] if label else []
    return [[*stub, *heads]]


def _group_labelled(lines: list[list[Cell]]) -> list[list[Cell]]:
    """``spanned_labels`` (rule 198): a group's label printed once beside its rows, given to each of them."""
    spans = spanned_labels(lines)
    if spans is None:
        return lines
    return [[Cell(*spans.labels[i]), *line] if i in spans.labels else line
            for i, line in enumerate(lines) if i not in spans.fragments]


def _split_headers(table: Table, words: list[Word]) -> Table:
    """``header_split``: a header cell over several value columns whose words fall under each column ("平均收益(%)
    超额收益(%) 区间胜率(%) 最大回撤(%)", "Rank IC Rank ICIR", set closer than a cell gap) is one header per
    column, each word joined to the nearest column."""
    if not table.header_lines:
        return table
    widest = max(table.rows, key=lambda r: len(r.cells))
    centres = [(c.box.x0 + c.box.x1) / 2 for c in widest.cells if c.box is not None]
    split: list[Cell] = []
    for cell in table.header_lines[-1]:   # an upper line's cell over several columns spans them
        inside = [x for x in centres if cell.box is not None and cell.box.x0 - 4 <= x <= cell.box.x1 + 4]
        mine = sorted((w for w in words if cell.box is not None
                       and cell.box.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2)),
                      key=lambda w: w.box.x0)
        split += _per_column(cell, mine, inside) if len(inside) >= 2 and len(mine) >= len(inside) else [cell]
    table.header_lines[-1] = split
    return table


def _per_column(cell: Cell, words: list[Word], centres: list[float]) -> list[Cell]:
    """The words of a header over several columns, each joined to the column whose centre is nearest ("Rank IC
    Rank ICIR" over two columns: "Rank IC", "Rank ICIR"); ``[cell]`` unless every column gets a run of words."""
    groups: list[list[Word]] = [[] for _ in centres]
    for w in words:
        x = (w.box.x0 + w.box.x1) / 2
        groups[min(range(len(centres)), key=lambda i: abs(centres[i] - x))].append(w)
    if any(not g for g in groups):
        return [cell]
    return [Cell(" ".join(w.text for w in g), union(w.box for w in g)) for g in groups]


_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?\s*(?:百万|千万|万|亿|千|thousands?|millions?|billions?|trillions?)",
                     re.IGNORECASE)


def _one_row_of_values(table: Table) -> None:
    """``one_row_of_values`` (rule 249): a table of one row whose first cell is a figure under a head of its own
    ("年化收益率 | 年化波动率 | 最大回撤 | Sharpe" over "15.99% | 10.56% | 10.15% | 1.325") has no label column: the
    first figure is a value under its head, not the row's name."""
    if len(table.rows) != 1 or not table.header_lines:
        return
    row = table.rows[0]
    if row.label_box is not None and is_number(row.label) and len(table.header_lines[-1]) == len(row.cells) + 1:
        row.cells.insert(0, Cell(row.label, row.label_box))
        row.label, row.label_box = "", None


def _finish(table: Table) -> Table:
    _one_row_of_values(table)
    title = table.title
    titles = [line[0].text for line in table.header_lines if len(line) == 1]  # "World capacity:" names the table
    if titles and len(titles) < len(table.header_lines):
        table.header_lines = [line for line in table.header_lines if len(line) != 1]
        table.title = " ".join([table.title, *titles]).strip()
    head = " ".join(c.text for line in table.header_lines for c in line)
    # ``amount_in_title``: an amount the announcing sentence states ("前五名客户销售额32,932.48 万元") says no scale
    stated = f"{_AMOUNT.sub(' ', title)} {head}"
    m = _SCALE.search(stated)
    table.scale = (m.group(0) if m else "").strip("()")
    if m:   # "(volume: average shares per day, millions)": the scale of one column
        scoped = _SCOPED.search(stated)
        if scoped and m.start() >= scoped.start() and m.end() <= scoped.end():
            table.scale_of = scoped.group(1).strip()
    table.per_share_apart = bool(_EXCEPT_PER_SHARE.search(f"{title} {head}"))
    u = _UNIT.search(f"{head} {table.title}")
    table.unit = u.group(0) if u else ""
    return table
