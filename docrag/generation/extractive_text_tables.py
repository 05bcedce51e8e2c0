"""Rows of text tables as candidate answers (rules 133 and 138, docs/extractive-rules.md).

A table whose cells are mostly words (a voting table, an indicator system, a regulation-by-regulation
comparison) has few or no value cells to score; its rows are its evidence. Each data row printing no figure
(those are read as cells) becomes one candidate: its cells quoted under their headers, scored with the table's
title and its header row (as a cell is with its column headers), and with the row label of the row above when
its own first cell is empty (a label set once for the rows under it). The header row names columns and is no
candidate (it named every column and answered "which unit does X have"). A candidate cites the whole table
(a person boxes the table; grounding finds the cells in it). A plural question answered by one row lists the
rows of its table scoring nearly as well (rule 138, :func:`sibling_rows`). :func:`table_title` (the title and head
notes above a table) serves the value cells of every table too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docrag.generation.extractive_figure_groups import group_caption
from docrag.generation.extractive_tables import is_number
from docrag.geometry import Box
from docrag.regions import FIG_CAPTION
from docrag.types import Block, BlockKind

TEXT_SHARE = 0.75  # a table is a text table when at least this share of its value cells are not figures
MIN_ROWS = 2       # data rows a text table has at least
HEAD_MAX_CHARS = 40  # a first row with a longer cell is a data row: the table has no header
ANNOUNCE_MAX_CHARS = 400   # a text block ending in a colon above a table names it up to this length (rule 225)


@dataclass(frozen=True)
class TableRow:
    """One printed row of a text table: what to quote, what to score it with, where it is."""

    text: str
    context: str
    box: Box           # the table's: a person boxes the table, grounding finds the cells in it
    title: str = ""    # what names the table (the title and head notes above it)


def _above(block: Block, blocks: list[Block], gap: float = 40.0) -> list[Block]:
    """Text, title and caption blocks just above ``block`` (a table's title and head note)."""
    out = []
    for b in blocks:
        if b is block or b.kind in (BlockKind.TABLE, BlockKind.FIGURE):
            continue
        if 0 <= block.box.y0 - b.box.y1 <= gap and b.box.x0 < block.box.x1 and b.box.x1 > block.box.x0:
            out.append(b)
    return out


def _names(b: Block) -> bool:
    """A block that may name the table below it: a title, a caption, a short note or a bracketed head note."""
    return (not FIG_CAPTION.match(b.text)
            and (b.kind in (BlockKind.TITLE, BlockKind.CAPTION)
                 or (len(b.text.split()) <= 8 and len(b.text.strip()) <= 50)
                 or b.text.lstrip().startswith(("[", "(")) or _announces(b.text)))


def _announces(text: str) -> bool:
    """``announcing_sentence`` (rule 225): "The following table details the fee-paid committed and uncommitted credit
    lines we had available as of May 28, 2023:" names the table under it (its cells had no words of the question)."""
    return text.rstrip().endswith((":", "：")) and len(text) <= ANNOUNCE_MAX_CHARS


def _title_text(b: Block) -> str:
    """What a block above a table gives its title: an announcing sentence's last sentence, else its start."""
    text = re.sub(r"\s+", " ", b.text).strip()
    return re.split(r"(?<=[.;。；])\s*", text)[-1][:160] if _announces(b.text) else text[:120]


# a head note that names no table: "√ 适用 □ 不适用", "单位：元", "币种：人民币", "(in thousands, unaudited)"
_HEAD_NOTE = re.compile(r"^\s*(?:[√□☑■]|单位|币种|[(（]?in (?:thousands|millions|billions)\b)", re.IGNORECASE)


def table_title(block: Block, blocks: list[Block]) -> str:
    """Titles and head notes ("[In thousands ...]") above a table name it; body text above does not
    (a chart's "Figure N" caption just above names the chart, not the table). Above head notes alone ("√ 适用 □
    不适用", "单位：元") the title over them names it too (``heading_over_notes``, rule 162)."""
    named = [b for b in _above(block, blocks) if _names(b)]
    near = named
    for _ in range(2):
        if not near or not all(_HEAD_NOTE.match(b.text) for b in near):
            break
        top = min(near, key=lambda b: b.box.y0)
        near = [b for b in _above(top, blocks) if not any(b is n for n in named)]
        named += [b for b in near if b.kind is BlockKind.TITLE and not b.meta.get("furniture")]
    title = " ".join(_title_text(b) for b in blocks if any(b is n for n in named))
    return (title or _figure_statistics(block, blocks) or _captioned_as_figure(block, blocks)
            or group_caption(block, blocks, None))   # rule 253: a table under a chart of its figure


def _captioned_as_figure(block: Block, blocks: list[Block]) -> str:
    """``figure_captioned_table`` (rule 264): a "图 12" caption right above a table that ingest linked to no figure
    captions the table (broker notes number their tables as figures: "图 12 :获奖基金组合的分年绝对收益和超额收益")."""
    linked = {b.meta.get("caption_block") for b in blocks if b.kind is BlockKind.FIGURE}
    return next((re.sub(r"\s+", " ", b.text).strip() for b in _above(block, blocks, 12.0)
                 if b.kind is BlockKind.CAPTION and FIG_CAPTION.match(b.text) and b.block_id not in linked), "")


FIGURE_GAP_PT = 6.0   # ``figure_statistics``: a table this close under a picture is printed in its frame


def _figure_statistics(block: Block, blocks: list[Block]) -> str:
    """``figure_statistics`` (rule 248): a table with no title of its own printed right under a captioned chart
    ("图10" over a strategy's curve, its 年化收益率 / 最大回撤 / Sharpe under it, above the figure's source line) is the
    chart's statistics: the chart's caption names it, so "图10中…年化收益率" reads it."""
    for fig in (b for b in blocks if b.kind is BlockKind.FIGURE):
        over = min(fig.box.x1, block.box.x1) - max(fig.box.x0, block.box.x0)
        caption = str(fig.meta.get("caption") or fig.text)
        if (0 <= block.box.y0 - fig.box.y1 <= FIGURE_GAP_PT and over >= 0.5 * block.box.width
                and FIG_CAPTION.match(caption)):
            return re.sub(r"\s+", " ", caption).strip()
    return ""


def _grid(block: Block) -> list[list[str]]:
    raw = block.meta.get("rows")
    if isinstance(raw, list) and all(isinstance(r, list) for r in raw):
        return [[" ".join(str(c).split()) for c in r] for r in raw]
    return [[" ".join(c.split()) for c in line.split("|")] for line in block.text.splitlines() if line.strip()]


def is_text_table(rows: list[list[str]]) -> bool:
    """At least :data:`MIN_ROWS` data rows under the first, and at least :data:`TEXT_SHARE` of their filled cells
    right of the label column words, not figures (a label-and-value table with some text values is read as cells)."""
    cells = [c for r in rows[1:] for c in r[1:] if c]
    return len(rows) > MIN_ROWS and bool(cells) and sum(not is_number(c) for c in cells) >= TEXT_SHARE * len(cells)


def text_table_rows(block: Block, title: str) -> list[TableRow]:
    """The data rows of table ``block`` when it is a text table (:func:`is_text_table`), else none; ``title`` is
    what names it (:func:`table_title`)."""
    rows = _grid(block)
    if not is_text_table(rows):
        return []
    heads = [c for c in rows[0] if c]
    has_header = all(_is_head(c) for c in heads)
    header = " ".join(heads) if has_header else ""
    out: list[TableRow] = []
    label = ""
    for row in rows[1:] if has_header else rows:
        filled = [c for c in row if c]
        carried = label if not row[0] else ""
        label = row[0] or label
        if len(filled) < 2 <= len(row) or any(is_number(c) for c in row[1:]):
            continue   # a label set once for the rows beside it (a spanning cell); a row of figures is read as cells
        context = " ".join(x for x in (title, header, carried) if x)
        out.append(TableRow(_quoted(row, rows[0] if has_header else []), context, block.box, title))
    return out


def _quoted(row: list[str], head: list[str]) -> str:
    """A row as a person would quote it: its first filled cell, then each other cell under its column's header
    ("算力投入 — 三级指标: IT 支出规模; 单位: 亿元"); a row of two cells as a pair ("Dr. Ashima Goyal — No": the
    first line of a label-and-value table is no header); cells joined as printed when the table has no header."""
    cells = [(head[k] if k < len(head) else "", c) for k, c in enumerate(row) if c]
    if not head:
        return " | ".join(c for _, c in cells)
    rest = "; ".join(f"{h}: {c}" if h and len(head) > 2 else c for h, c in cells[1:])
    return f"{cells[0][1]} — {rest}" if rest else cells[0][1]


def _is_head(cell: str) -> bool:
    """A column header is a short name, not a figure and not a sentence."""
    return len(cell) <= HEAD_MAX_CHARS and not is_number(cell)


_PLURAL_Q = re.compile(r"\bwhich\s+(?:of\s+the\s+)?[a-z]+s\b(?!\s*(?:was|is|has|had)\b)|哪些", re.IGNORECASE)
SIBLING_SHARE = 0.9   # ``sibling_rows`` (rule 138): rows scoring this share of the best are listed with it
MAX_SIBLINGS = 4


def sibling_rows(best: int, units: Sequence[Any], scores: Sequence[float], question: str) -> list[int]:
    """``sibling_rows`` (rule 138): a question asking for several ("which members voted 'No'", "哪些") answered
    by a row of a table of words is answered by every row of that table scoring nearly as well, best first."""
    u = units[best]
    if not u.extra.get("table_row") or not _PLURAL_Q.search(question):
        return []
    near = [i for i, v in enumerate(units) if i != best and v.block is u.block and v.page is u.page
            and v.extra.get("table_row") and scores[i] >= SIBLING_SHARE * scores[best]]
    return sorted(near, key=lambda i: -scores[i])[:MAX_SIBLINGS]
