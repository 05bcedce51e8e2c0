"""Which header heads which column of a table read from words (rule 65 ``header_reach`` of
``docs/extractive-rules.md``).

Values of different rows that overlap form a column; each header line heads a column with the header cell
overlapping it most, so a spanning header ("Unadjusted indexes" over three columns) heads each column it
overlaps and no other. A header over no column takes the nearest one when near; a line of group headers
spread across the table ("多空对冲 | 多头") parts the columns between them; a header alone under a wider
one continues it ("Unadjusted percent / change"). Cells are :class:`~docrag.generation.extractive_tables.Cell`
(``text`` and a ``box`` in PDF points), rows :class:`~docrag.generation.extractive_tables.Row`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

HEADER_REACH_PT = 40.0   # how far a header's centre may sit from its column's when no other header is near


def _columns(rows: Sequence[Any], is_figure: Callable[[str], bool]) -> list[tuple[float, float]]:
    """The value columns' horizontal extents: value cells of different rows that overlap share a column
    (a cell of two values read as one, "2.7 0.2", joins the column its centre falls in)."""
    cells = [c for r in rows for c in r.cells if c.box is not None]
    single = [c.box for c in cells if sum(map(is_figure, c.text.split())) < 2]
    spans: list[list[float]] = []
    for b in sorted(single or [c.box for c in cells], key=lambda b: b.x0):
        if spans and b.x0 < spans[-1][1] - 0.5:
            spans[-1][1] = max(spans[-1][1], b.x1)
        else:
            spans.append([b.x0, b.x1])
    return [(a, b) for a, b in spans]


def _spread(line: Sequence[Any], columns: list[tuple[float, float]], below: Sequence[Any] = ()) -> bool:
    """A line of group headers: two or more, fewer than half the columns, the first centred left of the
    columns' middle and the last right of it ("多空对冲" over four columns, "多头" over the next four), none
    of them continued by a header alone under it ("Operating / Income": one column's header, wrapped)."""
    centres = [(c.box.x0 + c.box.x1) / 2 for c in line if c.box is not None]
    if len(centres) < 2 or 2 * len(centres) > len(columns):
        return False
    if any(_wrapped_under(c, below, [line]) is not None for c in below):
        return False
    middle = (columns[0][0] + columns[-1][1]) / 2
    return min(centres) < middle < max(centres)


def column_heads(rows: Sequence[Any], header_lines: Sequence[Sequence[Any]], is_figure: Callable[[str], bool]
                 ) -> tuple[list[tuple[float, float]], list[dict[int, Any]]]:
    """``header_reach``: for each header line, the header cell over each value column: the one overlapping
    the column most (a spanning header, "Unadjusted indexes" over three columns, heads each column it
    overlaps); a header over no column heads the nearest one, when near or clearly nearer than the next
    (a centred "2022" over right-aligned values) and no header of its line overlaps that column. A column
    under no header of a line gets none from it (a month header of the next columns is not its), unless the
    line holds group headers spread across the table (:func:`_spread`): then the nearest one. ``is_figure``
    tells a printed figure (:func:`~docrag.generation.extractive_tables.is_number`)."""
    columns = _columns(rows, is_figure)
    out: list[dict[int, Any]] = []
    for i, line in enumerate(header_lines):
        heads: dict[int, tuple[float, Any]] = {}
        loose: list[Any] = []
        for hc in line:
            if hc.box is None:
                continue
            hit = False
            for j, (x0, x1) in enumerate(columns):
                over = min(hc.box.x1, x1) - max(hc.box.x0, x0)
                if over > 0.15 * min(hc.box.width, x1 - x0):   # a sliver: the neighbour's (grid cells abut)
                    hit = True
                    if j not in heads or over > heads[j][0]:
                        heads[j] = (over, hc)
            if not hit:
                loose.append(hc)
        below = header_lines[i + 1] if i + 1 < len(header_lines) else []
        if _spread(line, columns, below):   # group headers ("多空对冲 | 多头") part the columns between them
            for j, (x0, x1) in enumerate(columns):
                if j not in heads:
                    hc = min((h for h in line if h.box is not None),
                             key=lambda h: abs((h.box.x0 + h.box.x1) / 2 - (x0 + x1) / 2))
                    heads[j] = (0.0, hc)
            loose = []
        for hc in loose:
            c = (hc.box.x0 + hc.box.x1) / 2
            near = sorted((abs((x0 + x1) / 2 - c), j) for j, (x0, x1) in enumerate(columns))
            if near and (near[0][0] < 15 or near[0][0] < HEADER_REACH_PT
                         and (len(near) == 1 or near[0][0] < 0.5 * near[1][0])) and near[0][1] not in heads:
                heads[near[0][1]] = (0.0, hc)
        out.append({j: hc for j, (_, hc) in heads.items()})
    for i, line in enumerate(header_lines):   # "Unadjusted percent / change": a wrapped header's next line
        for hc in line:
            above = _wrapped_under(hc, line, header_lines[:i])
            if above is not None:
                k, upper = above
                out[i].update({j: hc for j, h in out[k].items() if h is upper and j not in out[i]})
    return columns, out


def _wrapped_under(hc: Any, line: Sequence[Any], above: Sequence[Sequence[Any]]) -> tuple[int, Any] | None:
    """(line index, cell) of the header cell ``hc`` continues: the nearest cell above whose extent holds
    ``hc`` and no other cell of ``hc``'s line ("change" under "Unadjusted percent"; not "Jun." under
    "Unadjusted indexes" beside "Jul" and "Jul.": those head columns of their own)."""
    if hc.box is None:
        return None
    for k in range(len(above) - 1, -1, -1):
        for up in above[k]:
            if up.box is None or not (up.box.x0 - 2 <= hc.box.x0 and hc.box.x1 <= up.box.x1 + 2):
                continue
            if any(o is not hc and o.box is not None and min(o.box.x1, up.box.x1) > max(o.box.x0, up.box.x0)
                   for o in line):
                return None
            return k, up
    return None
