"""Which header heads which column of a table read from words (rule 65 ``header_reach`` of
``docs/extractive-rules.md``).

Values of different rows that overlap form a column; each header line heads a column with the header cell
overlapping it most, so a spanning header ("Unadjusted indexes" over three columns) heads each column it
overlaps and no other. A header over no column takes the nearest one when near; a line of group headers
spread across the table ("多空对冲 | 多头") parts the columns between them; a header alone under a wider
one continues it ("Unadjusted percent / change"); lines of group headers over repeated runs of the line below head
their runs (rule 298 ``nested_groups``). Cells are :class:`~docrag.generation.extractive_tables.Cell`
(``text`` and a ``box`` in PDF points), rows :class:`~docrag.generation.extractive_tables.Row`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

# "绝对收 / 益": a Chinese head wrapped mid-word reads as one word ("绝对收益"), not two (rule 270 ``wrapped_word``)
# (not of figures: "36,000.00 万元" over "刘靖康" are two cells of a form)
_CJK_END, _CJK_START, _DIGIT = re.compile(r"[\u4e00-\u9fff]$"), re.compile(r"[\u4e00-\u9fff]"), re.compile(r"\d")
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


def _spread(line: Sequence[Any], columns: list[tuple[float, float]], below: Sequence[Any] = (),
            above: Sequence[Any] = ()) -> bool:
    """A line of group headers: two or more, fewer than half the columns, the first centred left of the
    columns' middle and the last right of it ("多空对冲" over four columns, "多头" over the next four), none
    of them continued by a header alone under it ("Operating / Income": one column's header, wrapped); not a line
    repeating a text, nor one whose every header continues one of the line ``above`` (rule 241)."""
    centres = [(c.box.x0 + c.box.x1) / 2 for c in line if c.box is not None]
    if len(centres) < 2 or 2 * len(centres) > len(columns):
        return False
    texts = [c.text.strip() for c in line]
    if len(set(texts)) < len(texts):   # "阈值K | 总天数 | 胜率 | 胜率 | 胜率": one column's heads each (rule 241)
        return False
    if any(_wrapped_under(c, below, [line]) is not None for c in below):
        return False
    if above and all(_wrapped_under(c, line, [above]) is not None for c in line):
        return False   # "数 | 次数 | 期": the last lines of "总交/易次/数", each under its column's head (rule 241)
    if _staggered(line, above, below, columns):
        return False   # "年份 | 超额收益 | 信息比" centred beside "绝对收/益 | 指数收/益": one line of heads (rule 269)
    middle = (columns[0][0] + columns[-1][1]) / 2
    return min(centres) < middle < max(centres)


def _overlapped(line: Sequence[Any], columns: list[tuple[float, float]]) -> set[int]:
    """The columns the cells of ``line`` overlap."""
    return {j for c in line if c.box is not None for j, (x0, x1) in enumerate(columns)
            if min(c.box.x1, x1) - max(c.box.x0, x0) > 0}


def _staggered(line: Sequence[Any], above: Sequence[Any], below: Sequence[Any], columns: list[tuple[float, float]]
               ) -> bool:
    """``staggered_heads`` (rule 269): ``line`` stands between the two lines of wrapped heads (each head below continues
    one above) and heads other columns than they do: one line of column heads, the one-line heads centred beside the
    wrapped ones (天风证券's "年份 | 超额收益 | 信息比" between "绝对收 | 指数收 | 相对最" and "益 | 益 | 大回撤"), not
    group headers."""
    if not above or not below or any(_wrapped_under(c, below, [above]) is None for c in below):
        return False
    mine, theirs = _overlapped(line, columns), _overlapped(above, columns)
    return bool(mine and theirs) and not mine & theirs


def column_heads(rows: Sequence[Any], header_lines: Sequence[Sequence[Any]], is_figure: Callable[[str], bool]
                 ) -> tuple[list[tuple[float, float]], list[dict[int, Any]]]:
    """``header_reach``: for each header line, the header cell over each value column: the one overlapping
    the column most (a spanning header, "Unadjusted indexes" over three columns, heads each column it
    overlaps); a header over no column heads the nearest one, when near or clearly nearer than the next
    (a centred "2022" over right-aligned values) and no header of its line overlaps that column. A column
    under no header of a line gets none from it (a month header of the next columns is not its), unless the
    line holds group headers spread across the table (:func:`_spread`): then the runs of like columns below them
    (:func:`_repeated_blocks`, rule 241), else the nearest one, a header spanning columns keeping to its own (rule
    245). ``is_figure`` tells a printed figure (:func:`~docrag.generation.extractive_tables.is_number`)."""
    columns = _columns(rows, is_figure)
    overlaps: list[dict[int, tuple[float, Any]]] = []
    loose_of: list[list[Any]] = []
    for line in header_lines:
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
        overlaps.append(heads)
        loose_of.append(loose)
    out: list[dict[int, Any]] = []
    grouped: set[int] = set()   # lines of group headers: none of them is a wrapped column head
    for i, line in enumerate(header_lines):
        heads, loose = dict(overlaps[i]), loose_of[i]
        below = header_lines[i + 1] if i + 1 < len(header_lines) else []
        # group headers ("多空对冲 | 多头") part the columns between them
        if _spread(line, columns, below, header_lines[i - 1] if i else ()):
            grouped.add(i)
            blocks = _repeated_blocks(line, columns, overlaps[i + 1:])   # rule 241
            # a group header spanning two columns or more heads those it spans ("% Change" over four); the
            # columns under no header take the nearest other one ("Q2" over 2023 and 2022): rule 245
            spans = [h for h in line if h.box is not None and sum(hd is h for _, hd in overlaps[i].values()) >= 2]
            free = [h for h in line if h.box is not None and all(h is not x for x in spans)] \
                or [h for h in line if h.box is not None]
            for j, (x0, x1) in enumerate(columns):
                if blocks is not None:
                    if j in blocks:
                        heads[j] = (0.0, blocks[j])
                    else:
                        heads.pop(j, None)
                elif j not in heads and free:
                    hc = min(free, key=lambda h: abs((h.box.x0 + h.box.x1) / 2 - (x0 + x1) / 2))
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
            if above is not None and above[0] not in grouped:
                k, upper = above
                out[i].update({j: hc for j, h in out[k].items() if h is upper and j not in out[i]})
                pair = upper.text + hc.text   # rule 270 ``wrapped_word``
                if _CJK_END.search(upper.text) and _CJK_START.match(hc.text) and not _DIGIT.search(pair):
                    joined = replace(upper, text=pair)
                    for j in [j for j, h in out[k].items() if h is upper and out[i].get(j) is hc]:
                        out[k][j] = joined
                        del out[i][j]
    for i, heads in _nested_groups(header_lines, columns, out[-1] if out else {}).items():
        out[i] = heads   # rule 298
    return columns, out


def _centre(x0: float, x1: float) -> float:
    return (x0 + x1) / 2


def _nested_groups(header_lines: Sequence[Sequence[Any]], columns: list[tuple[float, float]],
                   bottom: dict[int, Any]) -> dict[int, dict[int, Any]]:
    """``nested_groups`` (rule 298): lines of group headers over runs of the line below that repeat ("Worldwide | U.S. |
    International" over "2022 2021 2020" three times, then over "22/21 21/20" three times; "Year Ended December 31, |
    % Change" over those two runs of three): from the lowest line up, each run of the line below goes to the nearest
    header of the line above; a line is read so when every header gets a contiguous run of groups whose lower heads
    are distinct, and two headers get the same lower heads (the nesting shows). {line index: {column: header}} for
    the lines read so, the lowest first; lines above the first that is not are left as they were."""
    n = len(columns)
    if len(header_lines) < 2 or n < 4 or any(j not in bottom for j in range(n)):
        return {}
    groups = [[j] for j in range(n)]
    keys = [bottom[j].text.strip() for j in range(n)]
    out: dict[int, dict[int, Any]] = {}
    for i in range(len(header_lines) - 2, -1, -1):
        cells = sorted((c for c in header_lines[i] if c.box is not None), key=lambda c: c.box.x0)
        if not 2 <= len(cells) < len(groups):
            break
        owner = [min(range(len(cells)), key=lambda m: abs(_centre(cells[m].box.x0, cells[m].box.x1)
                                                          - _centre(columns[g[0]][0], columns[g[-1]][1])))
                 for g in groups]
        mine = [[k for k, o in enumerate(owner) if o == m] for m in range(len(cells))]
        if not _nested(mine, [tuple(keys[k] for k in ks) for ks in mine]):
            break
        out[i] = {j: cells[m] for m, ks in enumerate(mine) for k in ks for j in groups[k]}
        groups = [[j for k in ks for j in groups[k]] for ks in mine]
        keys = [c.text.strip() for c in cells]
    return out


def _nested(mine: list[list[int]], seqs: list[tuple[str, ...]]) -> bool:
    """Each header owns a contiguous run of groups (``mine``) whose lower heads (``seqs``) are distinct, and two headers
    own the same lower heads."""
    runs = all(ks and ks == list(range(ks[0], ks[-1] + 1)) and len(set(q)) == len(q)
               for ks, q in zip(mine, seqs, strict=True))
    return runs and any(len(q) >= 2 and seqs.count(q) >= 2 for q in seqs)


def _repeated_blocks(line: Sequence[Any], columns: list[tuple[float, float]],
                     lower: Sequence[dict[int, tuple[float, Any]]]) -> dict[int, Any] | None:
    """``repeated_blocks`` (rule 241): the columns each group header of ``line`` heads, when the header lines
    below it head runs of columns alike, one run per group header, each header over its own run ("未来1日 |
    未来3日 | 未来5日" over three runs of "收益率 均值 / 收益率 中位数 / 胜率", after the 阈值K and 总天数 columns
    that no group holds; a right-aligned group header is nearer the next run's first column than its own's).
    None when no such runs are found (then the nearest header heads each column)."""
    cells = sorted((h for h in line if h.box is not None), key=lambda h: h.box.x0)
    k, n = len(cells), len(columns)
    sig = [tuple(d[j][1].text for d in lower if j in d) for j in range(n)]
    for size in range(2, n // k + 1):
        for start in range(n - k * size + 1):
            run = sig[start:start + size]
            if not all(run) or any(sig[start + m * size:start + (m + 1) * size] != run for m in range(1, k)):
                continue
            out: dict[int, Any] = {}
            for m, hc in enumerate(cells):
                own = range(start + m * size, start + (m + 1) * size)
                x0, x1 = columns[own[0]][0], columns[own[-1]][1]
                if not (x0 - 2 <= (hc.box.x0 + hc.box.x1) / 2 <= x1 + 2 or min(hc.box.x1, x1) > max(hc.box.x0, x0)):
                    break
                out.update({j: hc for j in own})
            else:
                return out
    return None


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
