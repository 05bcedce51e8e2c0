"""``plot_grid`` (rule 212): a chart's gridlines read as a ruled table.

A line chart drawn with horizontal gridlines and its value axis printed left of them ("$250", "$200", … "$0") is a
ruled grid to the table detector: a "table" whose rows hold one tick each and nothing else. Its plot lines are a
drawing figure, which the table then covered and removed. Such a table is no table: the figure takes its box (the
chart with its axis, legend and notes), up to the next table below (Walmart's performance graph, its values printed
in the table under it)."""

from __future__ import annotations

import re

from docrag.geometry import Box, union
from docrag.types import Block

_TICK = re.compile(r"^[-+−–]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?$")
MIN_TICKS = 4


def tick_values(rows: list[list[str]]) -> list[float]:
    """The values of the rows that hold one figure and nothing else, top to bottom."""
    out = []
    for row in rows:
        filled = [c.strip() for c in row if c.strip()]
        if len(filled) == 1 and _TICK.match(filled[0]):
            out.append(float(re.sub(r"[^\d.\-]", "", filled[0].replace("−", "-").replace("–", "-"))))
    return out


def is_plot_grid(rows: list[list[str]]) -> bool:
    """At least ``MIN_TICKS`` rows of one figure alone, stepping by one amount (an axis: 250, 200, … 0), and no row of
    two figures (a table's row prints a figure per column)."""
    ticks = tick_values(rows)
    if len(ticks) < MIN_TICKS or any(sum(bool(_TICK.match(c.strip())) for c in r) >= 2 for r in rows):
        return False
    steps = {round(b - a, 6) for a, b in zip(ticks, ticks[1:], strict=False)}
    return len(steps) == 1 and 0 not in steps


def plot_grids(figures: list[Block], tables: list[Block]) -> tuple[list[Block], list[Block]]:
    """Figures and tables with each plot grid that covers a drawing figure turned into that figure's box."""
    kept: list[Block] = []
    for t in tables:
        covered = [f for f in figures if f.meta.get("source") == "drawing" and t.box.coverage_of(f.box) > 0.5]
        if not covered or not is_plot_grid(t.meta.get("rows") or []):
            kept.append(t)
            continue
        below = [o.box.y0 for o in tables if o is not t and o.box.y0 > t.box.y0 + 0.5 * t.box.height]
        box = union([t.box, *(f.box for f in covered)])
        if below:
            box = Box(box.x0, box.y0, box.x1, min(box.y1, min(below)), box.space, box.extent)
        for f in covered:
            f.box = box
    return figures, kept
