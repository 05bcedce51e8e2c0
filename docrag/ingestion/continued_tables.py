"""Tables continued across a page break: the part on the next page gets the header printed above it.

Annual reports (年报) and prospectuses run long tables over several pages and print the header once: the
rows on the next page (航天电器's 产销量 table: "销售量 | 万只 | 217.5 | 186 | 16.94%") then say neither
the year nor the measure of their columns. A header row can also be cut by the break itself (生物股份's
"2020年末 | 2019年末 | 本期末比上年 … 同期末增减(%) | 2018年末": its first line at the foot of one page, the
rest at the top of the next). :func:`link_continued_tables` looks at one document's pages in order and,
where the first content block of a page is a table of the table finder's grid whose columns line up with
the last table of the page before (same count, edges within ``EDGE_TOL_PT``), puts in front of its rows:

- the short text blocks set below that last table, column by column, joined to the table's own first row
  when that row is a header cut short (its value cells empty), or else
- the header rows of that last table (its rows before the first row holding a number).

The rows it adds keep the previous page's words and column extents, on a band 0.5 pt high at the top of
the table (they are not on this page: the table's box and its citations do not change), and
``meta["header_from_page"]`` records the page they come from.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence

from docrag.ingestion.furniture import is_furniture
from docrag.ingestion.tables import _NUMERIC
from docrag.types import Block, BlockKind, Page

log = logging.getLogger(__name__)

EDGE_TOL_PT = 4.0          # column edges of the two parts agree within this
MAX_PIECE_CHARS = 16       # a header piece below the table is short ("2020年末", "末比上年")
HEADER_KEY = "header_from_page"
SECTION_KEY = "section_from_page"   # the section line the rows continue under
_YEAR = re.compile(r"^(?:19|20)\d\d\s*年?(?:末|度)?$")


def _is_value(text: str) -> bool:
    """A number in a cell (the table finder's ``_NUMERIC``); a year is a header, not a value."""
    t = text.strip()
    return bool(_NUMERIC.match(t)) and not _YEAR.match(t)


def _grid(block: Block) -> tuple[list[list[str]], list[list[list[float] | None]]] | None:
    rows, boxes = block.meta.get("rows"), block.meta.get("cell_boxes")
    if block.kind is not BlockKind.TABLE or not isinstance(rows, list) or not isinstance(boxes, list):
        return None
    if len(rows) != len(boxes) or not rows or any(len(r) != len(b) for r, b in zip(rows, boxes, strict=True)):
        return None
    width = len(rows[0])
    if width < 2 or any(len(r) != width for r in rows):
        return None
    return rows, boxes


def _edges(boxes: list[list[list[float] | None]], width: int) -> list[tuple[float, float] | None]:
    """Each column's (left, right) edges: those most of its cells have (a header cell spanning two
    columns is boxed over both); None when no cell of it has a box."""
    out: list[tuple[float, float] | None] = []
    for j in range(width):
        xs = [(round(b[0], 1), round(b[2], 1)) for row in boxes if (b := row[j])]
        out.append(Counter(xs).most_common(1)[0][0] if xs else None)
    return out


def _aligned(a: list[tuple[float, float] | None], b: list[tuple[float, float] | None]) -> bool:
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return len(pairs) >= 2 and all(abs(x[0] - y[0]) <= EDGE_TOL_PT and abs(x[1] - y[1]) <= EDGE_TOL_PT
                                   for x, y in pairs)


def _header_rows(rows: list[list[str]]) -> int:
    """How many leading rows hold no number (a year is a header, not a value)."""
    for n, row in enumerate(rows):
        if any(_is_value(c) for c in row if c):
            return n
    return 0   # no row of numbers: no header to tell apart


def _content(page: Page) -> list[Block]:
    return [b for b in page.blocks if not is_furniture(b, page)]


def _pieces_below(prev: Page, last: Block, edges: list[tuple[float, float] | None]) -> list[str] | None:
    """The short text blocks set below ``last`` on ``prev``, joined per column ([] when nothing is below
    it); None when something else is (a note, a paragraph: the table ended there)."""
    below = sorted((b for b in _content(prev) if b is not last and b.box.y0 >= last.box.y1 - 1.0),
                   key=lambda b: (b.box.y0, b.box.x0))
    if not below:
        return []
    if any(b.kind not in (BlockKind.TEXT, BlockKind.TITLE) for b in below):
        return None
    out = [""] * len(edges)
    for b in below:
        text = "".join(b.text.split())
        centre = (b.box.x0 + b.box.x1) / 2
        col = next((j for j, e in enumerate(edges) if e is not None and e[0] <= centre <= e[1]), None)
        if col is None or len(text) > MAX_PIECE_CHARS:
            return None
        out[col] += text
    return out


def _continue(prev: Page, cur: Page) -> bool:
    content = _content(cur)
    if not content:
        return False
    first = min(content, key=lambda b: b.box.y0)
    tables = [b for b in _content(prev) if b.kind is BlockKind.TABLE]
    grid_now = _grid(first)
    if grid_now is None or not tables or HEADER_KEY in first.meta:
        return False
    last = max(tables, key=lambda b: b.box.y1)
    grid_before = _grid(last)
    if grid_before is None or len(grid_before[0][0]) != len(grid_now[0][0]):
        return False
    rows, boxes = [list(r) for r in grid_now[0]], [list(r) for r in grid_now[1]]
    width = len(rows[0])
    edges_before = _edges(grid_before[1], width)
    if not _aligned(edges_before, _edges(boxes, width)):
        return False
    top = min(b[1] for row in boxes for b in row if b)
    pieces = _pieces_below(prev, last, edges_before)
    if pieces is None:
        return False
    if pieces:   # a header row cut by the page break
        if rows and not any(_is_value(c) for c in rows[0] if c):
            rows[0] = [f"{p}{c}" for p, c in zip(pieces, rows[0], strict=True)]
            boxes[0] = [b or ([e[0], top, e[1], top + 0.5] if p and e else None)
                        for b, p, e in zip(boxes[0], pieces, edges_before, strict=True)]
        else:
            rows.insert(0, pieces)
            boxes.insert(0, [[e[0], top, e[1], top + 0.5] if p and e else None
                             for p, e in zip(pieces, edges_before, strict=True)])
    else:
        n = _head_count(grid_before[0])
        if n == 0 or not any(_is_value(c) for c in rows[0] if c):
            return False   # no header to give, or the part here prints its own
        head = [list(r) for r in grid_before[0][:n]]
        head_boxes = [[[b[0], top, b[2], top + 0.5] if b and t else None for t, b in zip(r, rb, strict=True)]
                      for r, rb in zip(head, grid_before[1][:n], strict=True)]
        rows[:0], boxes[:0] = head, head_boxes
    first.meta.update({"rows": rows, "cell_boxes": boxes, HEADER_KEY: prev.page_no})
    section = _open_section(grid_before[0])
    if section:
        first.meta[SECTION_KEY] = section
    return True


def _open_section(rows: list[list[str]]) -> str:
    """``continued_section``: the last section line of the part before (a row with text in its first cell only,
    "分产品" over 原料药, 染料, ...): the rows continued on the next page are still in it."""
    return next((row[0].strip() for row in reversed(rows[_head_count(rows):]) if _label_only(row)), "")


def _head_count(rows: list[list[str]]) -> int:
    """How many leading rows are the header: those holding no number, less a section line over the first rows
    ("分行业": no header, :func:`_open_section`'s)."""
    n = _header_rows(rows)
    while n and _label_only(rows[n - 1]):
        n -= 1
    return n


def _label_only(row: list[str]) -> bool:
    return bool(row[0].strip()) and not any(c.strip() for c in row[1:]) and not _is_value(row[0])


def link_continued_tables(pages: Sequence[Page]) -> int:
    """Give each table continued from the page before (one document's ``pages``, in page order) the header
    printed above it there; returns how many tables were linked. Run after furniture marking."""
    n = 0
    for prev, cur in zip(pages, pages[1:], strict=False):
        if cur.page_no == prev.page_no + 1 and _continue(prev, cur):
            n += 1
    if n:
        log.debug("%s: %d table(s) continued from the page before", pages[0].doc_id, n)
    return n


__all__ = ["EDGE_TOL_PT", "HEADER_KEY", "SECTION_KEY", "link_continued_tables"]
