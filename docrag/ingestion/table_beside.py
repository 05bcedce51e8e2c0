"""A table set in one column of a two-column page: the prose of the other column runs on the same text rows,
so the rows found across the page mix its lines with the table's (JPMorgan's prospectus sets each sub-fund's
"Investor profile" beside its fee table: the share class letters had been read into the prose cells and lost).

:func:`beside_prose` finds a white gutter no word of the table's region crosses, with a column of prose on one
side of it (lines of several words, no figures, many of them off the rows of the other side) that runs on beyond
the region above or below, and gives back the region of the other side: the table.
"""

from __future__ import annotations

import re

from docrag.geometry import Box, in_rows, union
from docrag.types import Word

GUTTER_MIN_PT = 6.0        # the white gap between two page columns
PROSE_MIN_WORDS = 3        # a prose line's words, most lines
ALONE_SHARE = 0.4          # a prose column's lines off the table's rows, at least
TABLE_FIGURES = 0.25       # the table's words holding a figure, at least
HEAD_LINES = 3             # header lines over the table's first row, at most
OFF_ROW_PT = 1.5           # a line whose middle is this far from every table word's is off the table's rows
_FIGURE = re.compile(r"\d")


def _one_cell(line: list[Word]) -> bool:
    """The line's words run a space apart (no gap a table's columns would leave)."""
    ws = sorted(line, key=lambda w: w.box.x0)
    return all(b.box.x0 - a.box.x1 <= max(0.9 * a.box.height, 4.0) for a, b in zip(ws, ws[1:], strict=False))


def _gutters(words: list[Word]) -> list[tuple[float, float]]:
    """The white x-intervals (``GUTTER_MIN_PT`` wide or more) no word crosses."""
    spans = sorted((w.box.x0, w.box.x1) for w in words)
    out, reach = [], spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= GUTTER_MIN_PT:
            out.append((reach, x0))
        reach = max(reach, x1)
    return out


def _is_prose(side: list[Word], table: list[Word]) -> bool:
    """``side`` reads as a column of prose beside ``table``: three lines or more, most of several words, no
    figures, and many of them off the table's rows; the table states figures (a table of marks, "c", "b", "–",
    has long wrapped row labels off its rows too: JPMorgan's derivatives usage table)."""
    lines = in_rows(side)
    if len(lines) < 3 or sum(bool(_FIGURE.search(w.text)) for w in side) > 0.05 * len(side) \
            or sum(bool(_FIGURE.search(w.text)) for w in table) < TABLE_FIGURES * len(table):
        return False
    if sum(len(line) >= PROSE_MIN_WORDS for line in lines) < 0.6 * len(lines):
        return False
    if sum(_one_cell(line) for line in lines) < 0.8 * len(lines):
        return False   # its lines break at wide gaps: columns of a table ("– c c – b"), not prose
    # a row label shares its row's baseline; a prose line beside the rows falls where its own spacing puts it
    mids = [(w.box.y0 + w.box.y1) / 2 for w in table]
    alone = sum(min(abs((line[0].box.y0 + line[0].box.y1) / 2 - y) for y in mids) > OFF_ROW_PT for line in lines)
    return alone >= ALONE_SHARE * len(lines)


def _runs_on(side: Box, region: Box, words: list[Word], gutter: tuple[float, float]) -> bool:
    """The side column goes on above or below ``region``: a line within two line heights of it lies on the
    column's side of the gutter and no word of that line crosses it (a paragraph after a table runs across)."""
    left = side.x1 <= gutter[1]
    reach = 2.5 * max(1.0, min(w.box.height for w in words))
    near = [w for w in words if not region.contains(w.box, tol=1.0)
            and (region.y0 - reach <= w.box.y1 <= region.y0 or region.y1 <= w.box.y0 <= region.y1 + reach)]
    for line in in_rows(near):
        if all((w.box.x1 <= gutter[0] + 0.5) if left else (w.box.x0 >= gutter[1] - 0.5) for w in line) \
                and any(side.x0 - 2.0 <= w.box.x0 <= side.x1 for w in line):
            return True
    return False


def beside_prose(region: Box, words: list[Word]) -> Box | None:
    """The table's part of ``region`` when a page column of prose runs beside it (see the module); else None."""
    mine = [w for w in words if region.contains(w.box, tol=1.0)]
    if len(mine) < 12:
        return None
    for gutter in _gutters(mine):
        left = [w for w in mine if w.box.x1 <= gutter[0] + 0.5]
        right = [w for w in mine if w.box.x0 >= gutter[1] - 0.5]
        for side, table in ((left, right), (right, left)):
            if side and table and _is_prose(side, table) \
                    and _runs_on(union([w.box for w in side]), region, words, gutter):
                return _with_head(union([w.box for w in table]), words, side is right, gutter)
    return None


def _with_head(box: Box, words: list[Word], left: bool, gutter: tuple[float, float]) -> Box:
    """``box`` grown up over the lines right above it on the table's side of the gutter (up to ``HEAD_LINES``):
    its header, set on rows of the prose too, had not been read with the rows."""
    for _ in range(HEAD_LINES):
        reach = 1.5 * max(w.box.height for w in words if box.contains(w.box, tol=1.0))
        mine = [w for w in words if (w.box.x1 <= gutter[0] + 0.5 if left else w.box.x0 >= gutter[1] - 0.5)
                and box.y0 - reach <= w.box.y1 <= box.y0 + 0.5 and not box.contains(w.box, tol=1.0)]
        if not mine:
            break
        box = union([box, *(w.box for w in mine)])
    return box
