"""Table structure for the ``extractive`` generator: cells with their boxes, row labels and headers.

A table block is rebuilt from the page's words inside its box: words are grouped into lines by
their vertical centre, and a line is cut into cells where the gap between two words is wider than
a space. Leading lines before the first line that has both a row label (a cell in the left column)
and a number are header lines; values of different rows that overlap form a column, and each header
line heads a column with the header cell overlapping it most (so spanning headers such as "Silicon
carbide" over "2009 | 2010" apply to both, :mod:`~docrag.generation.extractive_table_heads`). A line
with a label and no number right after a data line continues that line's label ("Applications and mashups
/ developed by the public"). A ruled grid whose cells the table finder read at ingest is read from those
cells instead, and an image-only table from its stored rows
(:mod:`~docrag.generation.extractive_table_read` picks). Rules (``docs/extractive-rules.md``, 36-37,
60-61, 64-65, 110): row names, geometry, grid cells, units of a title, row numbers, header reach, papers'
figures.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from docrag.generation.extractive_table_heads import column_heads
from docrag.geometry import Box, union
from docrag.ingestion.tables import currency_after_figure
from docrag.ingestion.textlayer import word_lines
from docrag.types import Block, Page, Word

_NUM = re.compile(r"^(?:[-−–(+]|[$€£¥]\s?)*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s?%)?\)?(?:\s?%)?[a-zA-Z]{0,2}$"
                  r"|^\d+(?:\.\d+)?\s*[-–]\s*\d+(?:\.\d+)?$")
_LEADER = re.compile(r"^[.·•…_]+$|^[-–—]{2,}$")
_DOTS = re.compile(r"(?:\s*\.){2,}\s*$|(?:\s*\.){3,}")  # dot leaders of printed tables: "Fraud. . . ."
_NOTE = re.compile(r"^\s*(?:sources?|notes?|footnotes?|资料来源|来源|注)\s*[:：]", re.IGNORECASE)
_NOTE_IN = re.compile(r"\s(?:sources?|notes?)\s*:", re.IGNORECASE)
_YEAR = re.compile(r"^(?:19|20)\d\d[a-z]?$")
_RANGE = re.compile(r"^\d+(?:\.\d+)?%?\s*[-–~]\s*\d+(?:\.\d+)?%?$")   # a bucket: 0.2-0.4, 18-24, 10%-20%
_SCALE = re.compile(r"\b(thousands?|millions?|billions?|trillions?)\b|\((?:in\s+)?(1,000|000s?|mil\.?|bil\.?)\)"
                    r"|百万|千万|万|亿|千|百萬|千萬|萬|億|(?:RMB|HK\$|US\$|\$)\s?['’]\s?000\b", re.IGNORECASE)
# a scale printed over one column: "(in millions)", "（万元）"
_COLUMN_SCALE = re.compile(r"\(in (thousands|millions|billions)\)"
                           r"|[（(](?:单位[:：]\s*)?(百万|千万|万|亿)(?:元|股)?[)）]", re.IGNORECASE)
_PRICE_PER = re.compile(r"\bprice\b.*\bper\b|\bper\s+(?:share|unit)\b|每股|单价|均价", re.IGNORECASE)
_PER_SHARE = re.compile(r"\beps\b|\bper[- ]share\b|\bshares?\b", re.IGNORECASE)
_EXCEPT_PER_SHARE = re.compile(rf"\bexcept\b[^)；;]*?(?:{_PER_SHARE.pattern})", re.IGNORECASE)
_SCOPED = re.compile(r"[(（]\s*([^():：（）,，]{1,24}?)\s*[:：][^()（）]*[)）]")   # "(volume: ..., millions)"
_UNIT = re.compile(r"(\$\s*/\s*\w+|\$/\w+|cents?\s*/\s*\w+|\bmetric tons?\b|\btons?\b|\bpercent\b|%|\bdollars\b|"
                   r"\beuros?\b|\bUSD\b|\bEUR\b|\bbarrels?\b|\bgal(?:lons?)?\b|\bkg\b|\btonnes?\b|美元|欧元|人民币|人民幣"
                   r"|港元|港幣|港币|厘米|%"   # 元 after a bracket or a colon, with its scale (万元); not 元 of 元音
                   r"|(?:(?<=[（(/：:万亿千百萬億\s])|^)[万亿千百萬億]?(?:元|吨|噸)(?=[)）/\s,，、;；]|$))",
                   re.IGNORECASE)


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATE = re.compile(rf"^(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{4}}年\d{{1,2}}月(?:\d{{1,2}}日)?"
                   rf"|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}})$", re.IGNORECASE)


def is_date(text: str) -> bool:
    """True for a printed calendar date: ``2011-02-06``, ``2011/2/6``, ``2011年2月6日``, ``6 February 2011``,
    ``Feb. 6, 2011``. A table's date is a value of its row (not a number: no arithmetic on it)."""
    return bool(_DATE.match(text.strip()))


def names_periods(texts: list[str]) -> bool:
    """``period_header``: a table's first line, when its values are two or more dates ("Apr 26, 2026 | Apr 27,
    2025"), heads the period columns below it; it is no row (under a header line, dates are values: "End of LTS")."""
    return len(texts) >= 2 and all(is_date(t) for t in texts)


def is_number(text: str) -> bool:
    """A printed figure: ``1,190,000``, ``-3.5%``, ``(12)``, ``455,000e``, ``1.35 - 1.42``, ``$ 16,148`` (rule 287)."""
    return bool(_NUM.match(text.strip().replace("\u2009", "")))


# a printed interval, "[.77, .85]", "[1.46, 2.12]": a value of its row (a posterior band), no figure to compute with
_INTERVAL = re.compile(r"^\[\s*[-−–]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*,\s*[-−–]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*\]$")


def _is_value(text: str) -> bool:
    """A cell that is a value of its row (a figure, a date or an interval), not a name or a note."""
    return is_number(text) or is_date(text) or bool(_INTERVAL.match(text.strip()))


def parse_number(text: str) -> float | None:
    """The value of a printed figure (``(12)`` is -12, ``1,234.5%`` is 1234.5); None when not one."""
    t = text.strip().replace("\u2009", "").replace("−", "-").replace("–", "-")
    if is_date(t) or _INTERVAL.match(t):
        return None
    neg = t.startswith("(") and t.rstrip(" %％").endswith(")")   # "(2.5)%": a negative rate
    m = re.search(r"-?(?:\d[\d,]*(?:\.\d+)?|(?<!\w)\.\d+)", t)   # ".81": a leading dot (papers)
    if not m:
        return None
    try:
        v = float(m.group(0).replace(",", ""))
    except ValueError:
        return None
    return -v if neg else v


@dataclass
class Cell:
    text: str
    box: Box | None


_LAST_NOTE = re.compile(r"\s*\([^()]*\)\s*$")


@dataclass
class Row:
    label: str
    label_box: Box | None
    cells: list[Cell] = field(default_factory=list)   # value cells, left to right
    index: int = 0
    notes: list[str] = field(default_factory=list)    # the row's other text cells ("Hangul" beside "Hang")
    section: str = ""   # the section line above the row, also appended to ``label``: "Net income (Operating ...)"

    @property
    def own_label(self) -> str:
        """The label without its section ("Total net sales" of "Total net sales ((1) Net sales by category)")."""
        suffix = f" ({self.section})"
        return self.label[:-len(suffix)] if self.section and self.label.endswith(suffix) else self.label

    @property
    def name(self) -> str:
        """The row's own label less a last bracketed note ("Total net sales (1)", a section added by hand:
        "Operating income (Cost of revenue)")."""
        return _LAST_NOTE.sub("", self.own_label)

    def position(self, cell: Cell) -> int:
        """Where ``cell`` is in the row, by identity (equal values repeat: "608 | 608")."""
        return next(i for i, c in enumerate(self.cells) if c is cell)

    @property
    def box(self) -> Box | None:
        boxes = [b for b in [self.label_box, *(c.box for c in self.cells)] if b is not None]
        return union(boxes) if boxes else None


# a row-number column ("序号", "No.") counts rows: its cells are no values
_SERIAL = re.compile(r"^\s*(?:序号|编号|No\.?|#|S/?N|Sr\.? ?No\.?)\s*$", re.IGNORECASE)


@dataclass
class TableCell:
    """One value of a table with everything that names it."""

    value: str
    row: Row
    cell: Cell
    headers: list[str]
    title: str

    @property
    def header_text(self) -> str:
        return " ".join(self.headers)

    def box(self, fallback: Box) -> Box:
        """The cited region: the row label through the value (the cell and the row that names it)."""
        boxes = [b for b in (self.row.label_box, self.cell.box) if b is not None]
        return union(boxes) if boxes else fallback


_ROW_NUMBER = re.compile(r"^\(?\d{1,3}[.)]?$")


def leads_with_row_number(texts: list[str]) -> bool:
    """``row_number``: a row led by its number ("1 | 智能影像设备生产基地建设项目 | 19,543.30"): the project
    names the row, not "1"."""
    return len(texts) >= 3 and bool(_ROW_NUMBER.match(texts[0].strip())) and not is_number(texts[1])


def without_row_number(cells: list[Cell]) -> list[Cell]:
    """A row's cells without a leading row number (:func:`leads_with_row_number`)."""
    return cells[1:] if leads_with_row_number([c.text for c in cells]) else cells


def is_serial(tc: TableCell) -> bool:
    """``row_number``: the cell sits under a row-number header ("序号", "No.")."""
    return bool(tc.headers) and bool(_SERIAL.match(tc.headers[-1]))


@dataclass
class Table:
    block: Block
    title: str
    header_lines: list[list[Cell]]
    rows: list[Row]
    unit: str = ""
    scale: str = ""
    scale_of: str = ""   # the column the scale is stated for ("(volume: ..., millions)"); "" = every column
    per_share_apart: bool = False   # "(in millions, except per share data)": per-share rows take no scale
    _heads: tuple[list[tuple[float, float]], list[dict[int, Any]]] | None = field(
        default=None, repr=False, compare=False)   # columns and each header line's cell over each column
    # every part of one table printed over page breaks, this one too (rule 123 ``table_over_break``); [] = one part
    parts: list[Table] = field(default_factory=list, repr=False, compare=False)

    def joins(self, other: Table | None) -> bool:
        """``other`` is this table or another part of it over a page break."""
        return other is self or any(t is other for t in self.parts)

    def scale_for(self, tc: TableCell) -> str:
        """The table's scale when it applies to ``tc``'s column (not to a per-share row the scale excepts)."""
        if self.per_share_apart and _PER_SHARE.search(_EXCEPT_PER_SHARE.sub("", " ".join([*tc.headers, tc.row.label]))):
            return ""
        own = _COLUMN_SCALE.search(" ".join(tc.headers))
        if own is not None:   # ``column_scale``: "(in millions)" over one column of a table "(in thousands)"
            return next(g for g in own.groups() if g).lower()
        if _PRICE_PER.search(" ".join(tc.headers)):
            return ""   # a price per share or unit is never in the table's thousands
        if not self.scale or not self.scale_of:
            return self.scale
        named = unicodedata.normalize("NFKC", " ".join([*tc.headers, tc.row.label])).lower()
        return self.scale if unicodedata.normalize("NFKC", self.scale_of).lower() in named else ""

    def cells(self) -> list[TableCell]:
        out = []
        for row in self.rows:
            for cell in row.cells:
                out.append(TableCell(cell.text, row, cell, self.headers_for(cell, row), self.title))
        return out

    def headers_for(self, cell: Cell, row: Row) -> list[str]:
        if cell.box is None:  # structure from meta rows: align right, spread spanning headers
            idx = row.position(cell)
            n = len(row.cells)
            out = []
            for line in self.header_lines:
                m = len(line)
                if not m:
                    continue
                if n % m == 0:
                    out.append(line[idx // (n // m)].text)
                elif m == n + 1:
                    out.append(line[idx + 1].text)
                elif m > n:
                    out.append(line[m - n + idx].text)
            return [h for h in out if h]
        if self._heads is None:
            self._heads = column_heads(self.rows, self.header_lines, is_number)
        columns, heads = self._heads
        cx = (cell.box.x0 + cell.box.x1) / 2
        col = min(range(len(columns)), key=lambda j: 0.0 if columns[j][0] <= cx <= columns[j][1]
                  else min(abs(cx - columns[j][0]), abs(cx - columns[j][1])), default=None)
        return [line[col].text for line in heads if col in line]


def _cells(line: list[Word]) -> list[Cell]:
    """A line cut into cells where the gap between two words is wider than about a space."""
    line = [w for w in line if not _LEADER.match(w.text)]
    if not line:
        return []
    h = statistics.median(w.box.height for w in line) or 1.0
    groups: list[list[Word]] = [[line[0]]]
    for prev, w in zip(line, line[1:], strict=False):
        gap = w.box.x0 - prev.box.x1
        joined = prev.text in "-–" or w.text in "-–"  # ranges "1.35 - 1.42" stay one cell
        date_end = bool(re.search(r"(?:19|20)\d\d$", prev.text)) and w.text[:1].isalpha()  # "May 21,2009 | May"
        if gap > 0.85 * h and not (joined and gap < 2.5 * h) or (is_number(prev.text) and is_number(w.text)
                                                                 and gap > 0.45 * h) or (date_end and gap > 0.3 * h) \
                or currency_after_figure(prev.text, w.text):   # "55,374 $ 95.89": the sign is the next cell's
            groups.append([w])
        else:
            groups[-1].append(w)
    for i in range(len(groups) - 1, 0, -1):   # "58 | %": a filing prints the percent sign a column apart
        if [w.text for w in groups[i]] == ["%"] and is_number(" ".join(w.text for w in groups[i - 1])):
            groups[i - 1].extend(groups.pop(i))
    return [Cell(" ".join(w.text for w in g), union(w.box for w in g)) for g in groups]


_CAPTION_LINE = re.compile(r"^\s*(?:table|figure|fig\.|chart|exhibit|表|图|圖)\s*[\dA-Z一二三四五六七八九十]",
                           re.IGNORECASE)


_FIGURE_LINE = re.compile(r"^\s*(?:figure|fig\.|chart|图|圖)\s*[\dA-Z一二三四五六七八九十]", re.IGNORECASE)


@dataclass
class Segment:
    title: str
    lines: list[list[Cell]]
    chart_caption: Cell | None = None   # the lines are a chart's labels, captioned below


def _segments(words: list[Word], title: str) -> list[Segment]:
    """Lines of cells, cut where a caption line ("Table 2 ...", "表2 ...") starts another table that
    layout merged into the same block; lines followed by a figure caption are a chart's labels."""
    out = [Segment(title, [])]
    for cells in (c for c in (_cells(line) for line in word_lines(words)) if c):
        text = " ".join(c.text for c in cells)
        if _FIGURE_LINE.match(text) and out[-1].lines and out[-1].chart_caption is None:
            box = union(c.box for c in cells if c.box is not None)
            out[-1].chart_caption = Cell(text, box)
            out.append(Segment("", []))
        elif _CAPTION_LINE.match(text):
            out.append(Segment(text, []))
        else:
            out[-1].lines.append(cells)
    return [s for s in out if s.lines]


def merged_charts(block: Block, page: Page) -> list[tuple[Cell, list[Cell]]]:
    """Charts that layout merged into a table block: (caption, label cells) pairs."""
    words = words_in(page, block.box)
    return [(s.chart_caption, [c for line in s.lines for c in line]) for s in _segments(words, "")
            if s.chart_caption is not None]


def _from_words(block: Block, lines: list[list[Cell]], title: str) -> Table | None:
    if len(lines) < 2:
        return None
    x_left = min(c[0].box.x0 for c in lines if c[0].box is not None)
    span = block.box.width or 1.0
    header: list[list[Cell]] = []
    rows: list[Row] = []
    for cells in lines:
        cells = without_row_number(cells)
        first = cells[0]
        first.text = first.text.rstrip(". ").strip() or first.text
        at_left = first.box.x0 - x_left < 0.12 * span
        has_label = at_left and (not is_number(first.text) or len(cells) >= 3)
        rest = cells[1:] if has_label else cells
        values = [c for c in rest if _is_value(c.text) and not (_YEAR.match(c.text) and not rows)]
        # a first line of ranges ("0-0.2 | 0.2-0.4", "18-24") names the columns: it is their header
        if not rows and (not has_label or not values or all(_RANGE.match(c.text.strip()) for c in values)
                         or not header and names_periods([c.text for c in values])):
            if header and has_label and len(cells) == 1:  # "Ethanol ($/gal)": a section, not a header
                rows.append(Row(first.text.rstrip(":"), first.box, [], len(rows)))
            else:
                header.append(cells)
            continue
        if has_label and _NOTE.match(first.text):
            continue  # "Source: ...", "Note: ...": under the table, not a row of it
        if has_label and not values:
            if rows and len(cells) == 1 and not rows[-1].label.endswith(":") and rows[-1].cells == []:
                rows[-1].label = f"{rows[-1].label} {first.text}"
            elif rows and len(cells) == 1 and first.text[:1].islower():
                rows[-1].label = f"{rows[-1].label} {first.text}"  # a wrapped label continues
                rows[-1].label_box = union([rows[-1].label_box, first.box]) if rows[-1].label_box else first.box
            else:  # a section line ("Ethanol ($/gal)") names the rows below it
                rows.append(Row(first.text.rstrip(":"), first.box, [], len(rows)))
            continue
        if has_label and _NOTE_IN.search(first.text):  # "Total Source: SAVE 2009": the note ran into the label
            first.text = first.text[: _NOTE_IN.search(first.text).start()].strip() or first.text
        label = first.text if has_label else (rows[-1].label if rows else "")
        notes = [c.text for c in rest if not any(c is v for v in values)]
        rows.append(Row(label, first.box if has_label else None, values, len(rows), notes))
    rows = _with_sections(rows)
    return Table(block, title, header, [r for r in rows if r.cells])


def _with_sections(rows: list[Row]) -> list[Row]:
    """Rows without values name a section: prefix it to the labels of the rows below it."""
    section = ""
    pending = ""
    for r in rows:
        if not r.cells:
            if pending:
                section = pending
            pending = r.label
            continue
        if pending and r.label[:1].islower():  # "Murder and nonnegligent / manslaughter": one label
            r.label = f"{pending} {r.label}"
        elif pending:
            section = pending
        pending = ""
        if section:
            r.label = f"{r.label} ({section})"
            r.section = section
    return rows


def words_in(page: Page, box: Box, min_inside: float = 0.6) -> list[Word]:
    """The page's words whose boxes lie mostly inside ``box``."""
    return [w for w in page.words if w.box.area > 0 and w.box.intersection_area(box) / w.box.area >= min_inside]


_RATE = re.compile(r"率|比例|比重|占比|百分比|\b(?:margin|ratio|rate|share|percent(?:age)?)\b|%", re.IGNORECASE)
_NAMED_PERCENT = re.compile(r"\([A-Za-z][^()]*\)\s?$")   # ``named_percent``: "(NH-NL)%" (净新高占比) names a measure


def unit_of(tc: TableCell, table: Table) -> str:
    """The unit of one value: from its row label, else its column headers, else the table's title ("单位：万元，%":
    a rate's row gets %, the others 万元); "99.08%" in a title is a value, "% Change" and "(NH-NL)%" names."""
    for text in (tc.row.label, " ".join(tc.headers)):
        m = _UNIT.search(text)
        if m:
            return m.group(0)
    title = table.title
    units = list(dict.fromkeys(m.group(0) for m in _UNIT.finditer(title)   # "32,932.48 万元" states a value
                               if not (re.search(r"\d\s?$", title[:m.start()])
                                       or m.group(0) == "%" and (re.match(r"\s?[A-Za-z]", title[m.end():])
                                                                 or _NAMED_PERCENT.search(title[:m.start()])))))
    if len(units) > 1 and "%" in units:
        named = " ".join([tc.row.label, *tc.headers])
        return "%" if _RATE.search(named) else next(u for u in units if u != "%")
    return units[0] if units else ""
