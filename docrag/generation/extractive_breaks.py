"""What a page break cuts: a sentence (rule 89 ``page_break_sentence`` of ``docs/extractive-rules.md``), and a
table from the line that announces it (rule 108 ``title_before_break``).

Reports run their paragraphs over page breaks: 中国信通院's white paper ends page 2 with "2020 年全球算力总规模达到
429" and starts page 3 with "EFlops，增速达到39%". When both pages are read, the last sentence of a page that
ends without a sentence mark, with nothing but furniture below its block, is joined to the first sentence of
the next page's first text block (nothing but furniture above it): the sentence is scored as printed on its
page, and when it answers it is quoted whole and cites both pages (``extra["continued_on"]``: the next page's
unit).

A sentence cut by a column break is joined the same way to the first sentence atop the next column (rule 208).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from docrag.generation.extractive_tables import Table, parse_number
from docrag.generation.extractive_units import _CJK, Unit
from docrag.geometry import union
from docrag.ingestion.continued_tables import HEADER_KEY
from docrag.ingestion.furniture import is_furniture
from docrag.types import Block, BlockKind, Page

# a sentence that ends: 。.!?！？;；:：… (a closing quote or bracket after it)
_ENDS = re.compile(r"[。．.!?！？;；:：…][\"'”’)）\]」』]*$")
CONTINUED = "continued_on"
_FOOTNOTE = re.compile(r"^(?:\d{1,2}|[*†‡])\s+\S")   # "3 The Bank of Japan indicated ..." under a column
_SHORT_LINE = 30   # characters of a line between a table's title and the table ("单位：万元，%")
HEADER_ON = "header_on"


def _content(page: Page) -> list[Block]:
    return [b for b in page.blocks if b.text.strip() and not is_furniture(b, page)]


def _last(page: Page) -> Block | None:
    return max(_content(page), key=lambda b: b.box.y1, default=None)


def _first(page: Page) -> Block | None:
    return min(_content(page), key=lambda b: b.box.y0, default=None)


def _last_text(page: Page) -> Block | None:
    """The page's lowest block when it is body text (a table or figure below it ends the text)."""
    last = _last(page)
    return last if last is not None and last.kind is BlockKind.TEXT else None


def _first_text(page: Page) -> Block | None:
    first = _first(page)
    return first if first is not None and first.kind is BlockKind.TEXT else None


def join_page_breaks(units: Sequence[Unit]) -> int:
    """Link each sentence cut by a page break to its continuation on the next page read, and each cut by a column
    break to its continuation atop the next column (``extra["continued_on"]``); returns how many were linked."""
    sentences: dict[tuple[str, int], list[Unit]] = {}
    for u in units:
        if u.kind == "sentence" and u.cell is None:
            sentences.setdefault((u.page.doc_id, u.page.page_no), []).append(u)
    n = sum(_join_column_break(mine) for mine in sentences.values())
    for (doc, page_no), mine in sentences.items():
        after = sentences.get((doc, page_no + 1))
        if not after:
            continue
        last, first = _last_text(mine[0].page), _first_text(after[0].page)
        tails = [u for u in mine if u.block is last]
        heads = [u for u in after if u.block is first]
        if not tails or not heads or _ENDS.search(tails[-1].text.strip()):
            continue
        tails[-1].extra[CONTINUED] = heads[0]
        n += 1
    return n


def _join_column_break(mine: list[Unit]) -> int:
    """``column_break_sentence`` (rule 208): a sentence ending the lowest text block of a column without a sentence mark
    goes on atop the next column, in the text block nothing stands above, when that block starts in lower case or
    in Chinese (Banxico's minutes: "... voted in favor of" | "maintaining the target ... at 11.25%.")."""
    page = mine[0].page
    content = [b for b in _content(page) if not _FOOTNOTE.match(b.text)]   # footnotes run on under their column
    kept = {id(b) for b in content}
    n = 0
    texts = {id(u.block): u.block for u in mine if u.block.kind is BlockKind.TEXT and id(u.block) in kept}
    for block in texts.values():
        below = [b for b in content
                 if b is not block and b.box.y0 >= block.box.y1 - 1 and b.box.x_overlap(block.box) > 0]
        tails = [u for u in mine if u.block is block]
        if below or not tails or _ENDS.search(tails[-1].text.strip()) or CONTINUED in tails[-1].extra:
            continue
        right = [b for b in content if b.box.x0 >= block.box.x1 - 2 and b.box.y0 < block.box.y1]
        tops = [b for b in right   # nothing of its column above it
                if not any(o is not b and o.box.y1 <= b.box.y0 + 1 and o.box.x_overlap(b.box) > 0 for o in right)]
        top = min(tops, key=lambda b: (b.box.x0, b.box.y0), default=None)
        heads = [u for u in mine if top is not None and u.block is top]
        if top is None or top.kind is not BlockKind.TEXT or not heads or not re.match(r"[a-z\u3400-\u9fff]",
                                                                                      heads[0].text):
            continue
        tails[-1].extra[CONTINUED] = heads[0]
        n += 1
    return n


def _joined(tail: Unit, head: Unit) -> str:
    glue = "" if _CJK.search(tail.text[-1:]) or _CJK.search(head.text[:1]) else " "
    return f"{tail.text.rstrip()}{glue}{head.text.lstrip()}"


def quoted_whole(text: str, used: Sequence[Unit]) -> str:
    """The answer ``text`` with each joined sentence it quotes completed by its continuation."""
    for u in used:
        nxt = u.extra.get(CONTINUED)
        if isinstance(nxt, Unit) and u.text in text and _joined(u, nxt) not in text:
            text = text.replace(u.text, _joined(u, nxt), 1)
    return text


def with_continuations(used: Sequence[Unit]) -> list[Unit]:
    """``used`` and, after each sentence quoted whole, the unit it continues on (its page is cited too); after
    each cell read under a header printed on the page before, that header (rule 123 ``table_over_break``)."""
    out: list[Unit] = []
    for u in used:
        out.append(u)
        for nxt in (u.extra.get(CONTINUED), u.extra.get(HEADER_ON)):
            if isinstance(nxt, Unit) and all(nxt is not v for v in out):
                out.append(nxt)
    return out


def join_table_breaks(units: list[Unit]) -> int:
    """``table_over_break`` (rule 123): a table that ends its page (nothing but furniture below) and one that opens
    the next page read (nothing but furniture above), with no title of its own and as many columns, are one table
    printed over a page break (年报 and 招股说明书 run their statements over pages, the header repeated or not; one
    that ingest gave the part before's header, ``continued_tables``, is one whatever its title): its
    parts pair as operands (:meth:`Table.joins`), and a part without a header is read under the first part's, which
    is cited with any of its cells used (``extra["header_on"]``: a unit on the header). Returns how many joined."""
    by_page: dict[tuple[str, int], list[Unit]] = {}
    for u in units:
        if u.cell is not None and u.table is not None:
            by_page.setdefault((u.page.doc_id, u.page.page_no), []).append(u)
    n = 0
    for (doc, page_no), mine in sorted(by_page.items()):
        after = by_page.get((doc, page_no + 1))
        if not after:
            continue
        last, first = _last(mine[0].page), _first(after[0].page)
        a = next((u.table for u in mine if u.block is last), None)
        b = next((u.table for u in after if u.block is first), None)
        linked = b is not None and b.block.meta.get(HEADER_KEY) == page_no   # ingest gave it a's header
        if a is None or b is None or b.title.strip() and not linked or _columns(a) != _columns(b) \
                or b.header_lines and _heads(b) != _heads(a):
            continue
        group = a.parts or [a]
        group.append(b)
        for t in group:
            t.parts = group
        if not b.header_lines and a.header_lines:
            _read_under(a, [u for u in after if u.table is b], next(u for u in mine if u.table is a))
        n += 1
    return n


def _heads(table: Table) -> list[list[str]]:
    return [[c.text for c in line] for line in table.header_lines]


def _columns(table: Table) -> int:
    """The number of values most of the table's rows hold."""
    counts = Counter(len(r.cells) for r in table.rows)
    return counts.most_common(1)[0][0] if counts else 0


def _read_under(a: Table, cells: list[Unit], near: Unit) -> None:
    """The cells of a part with no header of its own take the headers of part ``a`` over the same column, and a
    unit on ``a``'s header (cited with them)."""
    columns = _columns(a)
    row = next((r for r in a.rows if len(r.cells) == columns), None)
    if row is None:
        return
    boxes = [c.box for line in a.header_lines for c in line if c.box is not None]   # none: rows from the layout
    head = Unit(" ".join(c.text for line in a.header_lines for c in line), near.page, near.rank, a.block,
                union(boxes) if boxes else a.block.box, kind="title", table=a)
    for u in cells:
        tc = u.cell
        assert tc is not None
        if len(tc.row.cells) != len(row.cells):
            continue
        at = tc.row.position(tc.cell)
        headers = a.headers_for(row.cells[at], row)
        u.cell = replace(tc, headers=headers, title=a.title)
        u.context = f"{a.title} {' '.join(headers)} {u.context}".strip()
        u.extra[HEADER_ON] = head


def carry_table_titles(units: Sequence[Unit]) -> int:
    """``title_before_break``: a table that opens a page, nothing but furniture above it, is announced by the last
    text of the page before ("前海影石最近一年主要财务数据如下：" ends page 4, the table of 营业收入 and 净利润 starts
    page 5): when both pages are read, that text joins the context its cells are scored with (never quoted).
    Returns how many tables took a title."""
    by_page: dict[tuple[str, int], Page] = {(u.page.doc_id, u.page.page_no): u.page for u in units}
    # a page's opening line that ends a sentence the page before began (``join_page_breaks``): its beginning
    begun = {id(t.extra[CONTINUED].block): t.text for t in units if CONTINUED in t.extra}
    carried: dict[int, str] = {}
    for u in units:
        if u.table is None or id(u.block) in carried:
            continue
        before = by_page.get((u.page.doc_id, u.page.page_no - 1))
        above = sorted((b for b in _content(u.page) if b.box.y0 < u.block.box.y0), key=lambda b: b.box.y0)
        last = _last_text(before) if before is not None else None
        if not above and last is not None and not u.table.title.strip():
            title = last.text
        elif above and id(above[0]) in begun and len(above[0].text.strip()) <= 2 * _SHORT_LINE \
                and all(len(b.text.strip()) <= _SHORT_LINE for b in above[1:]):
            # "…顺丰控股持续" | "经营业务相关数据如下：" (and "单位：万元") over the table (rule 108)
            title = re.split(r"[，,;；。]", begun[id(above[0])])[-1]   # the last clause begun on the page before
        else:
            title = ""
        carried[id(u.block)] = re.sub(r"\s+", " ", title).strip()[:120]
    for u in units:
        if carried.get(id(u.block)):
            u.context = f"{carried[id(u.block)]} {u.context}".strip()
    return sum(1 for title in carried.values() if title)


_HEAD_CELL = 12   # a column header carried over a break is a short name ("第一季度"), no figure


def carry_foot_headers(units: Sequence[Unit]) -> int:
    """``header_before_break`` (rule 194): a table opening a page with no column headers, whose header line ("第一季度
    第二季度 第三季度 第四季度") and title ("六、分季度主要财务指标", "单位：元") end the page before (建新股份's
    quarterly table: its rows alone on the next page): when both pages are read, each value takes the header of that
    line standing over its column, and the cells are scored with the title. Returns how many tables took headers."""
    by_page: dict[tuple[str, int], Page] = {(u.page.doc_id, u.page.page_no): u.page for u in units}
    tables: dict[int, list[Unit]] = {}
    for u in units:
        if u.cell is not None and u.cell.cell.box is not None:
            tables.setdefault(id(u.block), []).append(u)
    done = 0
    for cells in tables.values():
        block, page = cells[0].block, cells[0].page
        before = by_page.get((page.doc_id, page.page_no - 1))
        if before is None or any(c.cell.headers for c in cells) or any(
                b.box.y0 < block.box.y0 for b in _content(page) if b is not block):
            continue
        content = _content(before)
        floor = max((b.box.y1 for b in content if b.kind in (BlockKind.TABLE, BlockKind.FIGURE)), default=0)
        foot = [b for b in content if b.box.y0 >= floor and b.kind is not BlockKind.TABLE]
        low = max((b.box.y0 for b in foot), default=0.0)
        line = sorted((b for b in foot if abs(b.box.y0 - low) <= 3), key=lambda b: b.box.x0)
        if len(line) < 2 or any(len(b.text.strip()) > _HEAD_CELL or parse_number(b.text) is not None for b in line):
            continue
        heads = {id(c): next((b.text.strip() for b in line if b.box.x0 - 8 <= (c.cell.cell.box.x0 + c.cell.cell.box.x1)
                              / 2 <= b.box.x1 + 8), None) for c in cells}
        if any(h is None for h in heads.values()) or len(set(heads.values())) < 2:
            continue
        title = " ".join(b.text.strip() for b in sorted(foot, key=lambda b: b.box.y0) if b not in line)
        for c in cells:
            c.cell = replace(c.cell, headers=[heads[id(c)]])   # a copy: parsed tables may be shared
            c.context = f"{title} {heads[id(c)]} {c.context}".strip()
        done += 1
    return done


__all__ = ["CONTINUED", "HEADER_ON", "carry_foot_headers", "carry_table_titles", "join_page_breaks",
           "join_table_breaks", "quoted_whole", "with_continuations"]
