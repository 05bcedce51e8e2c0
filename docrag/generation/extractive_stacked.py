"""``stacked_tables`` (rule 262): two tables set one under the other in one block (Amcor's "Key Financials": GAAP
results, then adjusted non-GAAP results under a head line repeating "2022 $ million | 2023 $ million") are read
apart: the second's head lines are not rows of the first, and its rows take its own column heads."""

from __future__ import annotations

import re

from docrag.generation.extractive_tables import _YEAR, Cell, Segment, is_number
from docrag.geometry import union

_UNIT_HEAD = re.compile(r"^\(?(?:[$€£¥]\s*|US\$\s*)?(?:in\s+)?(?:millions?|thousands?|billions?|m|bn|us cents|cents|"
                        r"元|万元|亿元|百万元)\)?$", re.IGNORECASE)   # not "%": a share column's head beside a year's
_UNIT_NOTE = re.compile(r"\b(?:in )?(?:millions|thousands|billions)\b|单位|币种", re.IGNORECASE)
UNIT_GAP_PT = 12.0   # a unit printed this close after a year heads that year's column with it
HEAD_LINES = 3   # a repeated head line stands this many lines at most below the first line of its heads


def _is_data(line: list[Cell]) -> bool:
    return any(is_number(c.text) and not _YEAR.match(c.text.strip()) for c in line)


def _year_units(line: list[Cell]) -> list[Cell]:
    """``year_unit_head`` (rule 263): a head line's year followed closely by its unit ("2022 $ million") is one
    head, so the column under it is headed by the year, not by "$ million" alone."""
    out: list[Cell] = []
    for c in line:
        prev = out[-1] if out else None
        if (prev is not None and prev.box is not None and c.box is not None and _YEAR.match(prev.text.strip())
                and _UNIT_HEAD.match(c.text.strip()) and 0 <= c.box.x0 - prev.box.x1 <= UNIT_GAP_PT):
            out[-1] = Cell(f"{prev.text.strip()} {c.text.strip()}", union([prev.box, c.box]))
        else:
            out.append(c)
    return out


def _repeats(line: list[Cell], heads: list[set[str]]) -> bool:
    """A head line printed again: two or more of its texts, at least half of one earlier head line's."""
    texts = {c.text.strip() for c in line}
    return any(len(texts & h) >= 2 and 2 * len(texts & h) >= len(h) for h in heads)


def split_stacked(segments: list[Segment]) -> list[Segment]:
    """Each segment cut before the head lines (no figures, up to ``HEAD_LINES`` of them) one of which prints again
    an earlier head line's texts ("2022 $ million | 2023 $ million", "年份 | 一个月 | 三个月 …"), once data rows have
    come between."""
    out: list[Segment] = []
    for seg in segments:
        lines = seg.lines = [line if _is_data(line) else _year_units(line) for line in seg.lines]
        first = next((k for k, line in enumerate(lines) if _is_data(line)), len(lines))
        heads = [{c.text.strip() for c in line} for line in lines[:first] if len(line) >= 2]
        start, seen_data, i = 0, False, 0
        while heads and i < len(lines):
            if not _is_data(lines[i]) and seen_data:
                run = list(range(i, min(i + HEAD_LINES, len(lines))))
                run = run[:next((k for k, j in enumerate(run) if _is_data(lines[j])), len(run))]
                if any(_repeats(lines[j], heads) for j in run):
                    out.append(Segment(_stub_titled(seg.title, lines[start:i], lines[:start]), lines[start:i],
                                       seg.chart_caption))
                    start, seen_data = i, False
                    i = run[-1] + 1
                    continue
            seen_data = seen_data or _is_data(lines[i])
            i += 1
        out.append(Segment(_stub_titled(seg.title, lines[start:], lines[:start]), lines[start:], seg.chart_caption)
                   if start else seg)
    return out


def _stub_titled(title: str, lines: list[list[Cell]], before: list[list[Cell]]) -> str:
    """A stacked table's title: the block's, with the head over its row labels ("超额收益", "Adjusted non-GAAP
    results") naming what its figures are: the first head line's first text not printed over the tables above."""
    printed = {c.text.strip() for line in before for c in line}
    stub = next((line[0].text.strip() for line in lines if not _is_data(line) and len(line) >= 2
                 and line[0].text.strip() not in printed), "")
    unit_note = stub.startswith(("(", "（")) or _UNIT_NOTE.search(stub)   # "(In Millions, Except Per Share Amounts)"
    return f"{title} {stub}".strip() if stub and not _YEAR.match(stub) and not unit_note else title
