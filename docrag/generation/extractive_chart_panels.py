"""Rule 246 ``chart_panels``: one picture holding several small charts is read chart by chart.

A 10-K's "volume trends" page or a broker note's grid of bar charts is often one picture: six panels, each with
its own title ("FedEx Ground Average Daily Package Volume"), its own row of years and its data labels. Read as one
chart, every panel's "2023" is one category and a question naming one panel gets another's labels. Each row of
years set apart (three or more, evenly spaced; a row of two panels side by side is split where the spacing jumps)
makes a panel: the words above it up to the panel above, within its width, and the legend line just under it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import median

from docrag.generation.extractive_chart_labels import _PLAIN_NUMBER, _YEARISH
from docrag.types import Block

_SAME_ROW_PT = 3.0       # year labels of one axis row: centres this close vertically
_PANEL_GAP = 1.6         # a gap between year labels this many times the row's spacing parts two panels
_LEGEND_HEIGHTS = 2.5    # a legend line under an axis row stands within this many label heights of it


@dataclass
class Panel:
    """One small chart of a picture: its title (and legend) words and every word it holds, axis row included."""

    title: str
    words: list[Block]


def _year(b: Block) -> bool:
    return bool(_YEARISH.match(b.text.strip().rstrip("年")))


def _axis_rows(words: list[Block]) -> list[list[Block]]:
    """Rows of three or more year labels, split where the spacing jumps (two panels side by side)."""
    years = sorted((w for w in words if _year(w)), key=lambda w: ((w.box.y0 + w.box.y1) / 2, w.box.x0))
    rows: list[list[Block]] = []
    for w in years:
        cy = (w.box.y0 + w.box.y1) / 2
        if rows and abs(cy - (rows[-1][0].box.y0 + rows[-1][0].box.y1) / 2) <= _SAME_ROW_PT:
            rows[-1].append(w)
        else:
            rows.append([w])
    out: list[list[Block]] = []
    for row in rows:
        row.sort(key=lambda w: w.box.x0)
        centres = [(w.box.x0 + w.box.x1) / 2 for w in row]
        gaps = [b - a for a, b in zip(centres, centres[1:], strict=False)]
        if not gaps:
            continue
        step = median(gaps)
        group = [row[0]]
        for w, gap in zip(row[1:], gaps, strict=True):
            if gap > _PANEL_GAP * step:
                out.append(group)
                group = []
            group.append(w)
        out.append(group)
    return [g for g in out if len(g) >= 3]


def _span(row: list[Block]) -> tuple[float, float]:
    centres = [(w.box.x0 + w.box.x1) / 2 for w in row]
    step = median(b - a for a, b in zip(centres, centres[1:], strict=False))
    return centres[0] - 0.75 * step, centres[-1] + 0.75 * step


def _legend_bottom(row: list[Block], words: list[Block]) -> float:
    """The foot of ``row``'s legend line (words just under the axis row, no figure among them), else the row's."""
    y1 = max(w.box.y1 for w in row)
    height = median(w.box.height for w in row)
    x0, x1 = _span(row)
    under = [w for w in words if x0 <= (w.box.x0 + w.box.x1) / 2 <= x1
             and y1 < w.box.y0 <= y1 + _LEGEND_HEIGHTS * height and not _PLAIN_NUMBER.fullmatch(w.text.strip())]
    return max((w.box.y1 for w in under), default=y1)


def chart_panels(words: list[Block]) -> list[Panel]:
    """The panels of a picture's words (:data:`Panel`), or ``[]`` when it holds fewer than two axis rows."""
    rows = _axis_rows(words)
    if len(rows) < 2:
        return []
    spans = [_span(row) for row in rows]
    bottoms = [_legend_bottom(row, words) for row in rows]
    panels = []
    for k, row in enumerate(rows):
        (x0, x1), bottom = spans[k], bottoms[k]
        top = max((bottoms[m] for m, o in enumerate(rows) if m != k and max(w.box.y1 for w in o) < row[0].box.y0
                   and min(spans[m][1], x1) > max(spans[m][0], x0)), default=float("-inf"))
        held = [w for w in words if x0 <= (w.box.x0 + w.box.x1) / 2 <= x1 and top < w.box.y0 and w.box.y1 <= bottom + 1]
        named = sorted((w for w in held if not _year(w) and not _PLAIN_NUMBER.fullmatch(w.text.strip())),
                       key=lambda w: (round(w.box.y0 / _SAME_ROW_PT), w.box.x0))
        title = re.sub(r"\s+", " ", " ".join(w.text for w in named)).strip()
        if title:
            panels.append(Panel(title, held))
    return panels if len(panels) >= 2 else []


_WORD = re.compile(r"[A-Za-z][A-Za-z&'-]{3,}")


def respelled(title: str, page_text: str) -> str:
    """The text layer's words a panel's OCR'd title spells with its spaces misplaced ("Fed ExExpress" holds the
    page's "FedEx" and "Express"), so the question's words meet them."""
    squeezed = re.sub(r"[^a-z]", "", title.lower())
    return " ".join(sorted({w for w in _WORD.findall(page_text) if w.lower() in squeezed and w not in title.split()}))

