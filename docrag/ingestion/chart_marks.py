"""Values of a vector chart read off its drawing: bars and lines mapped through the value axis.

A chart drawn as vector graphics (a statistics office's release, a 10-K's performance graph, a broker note's
matplotlib figure) often prints no data label: its values exist only as the height of a bar or the vertex of a
line. Read like a person with a ruler: the value axis is a column of evenly stepped tick labels (their centres
give the linear map from a y coordinate to a value); the categories are the row of labels under the plot; a
bar is a filled rectangle standing on a common baseline (a stacked column's segment on another), a line a
stroked polyline with sloped segments; a series is named by the legend entry drawn in its colour. On a
combination chart with a percent axis on one side, bars are read on the amount axis and lines on the percent
axis (a legend's "(右轴)" / "right axis" decides first). What cannot be read safely is not read: two axes
neither in percent, stacks on a dual-axis chart, floating bars, a line off the axis' range (another panel of
the figure), rotated pages (the caller's check).

The result (``Block.meta["series"]``) is approximate by construction and is labelled so wherever it is quoted
(``docrag.generation.extractive_answer``: "read off the drawing").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from statistics import median

from docrag.geometry import Box
from docrag.quantities import quantities
from docrag.types import Word
from docrag.words import BRACKETED, YEAR_CELL

_TICK = re.compile(r"^\(?[-−–]?[$€£¥]?\d[\d,]*(?:\.\d+)?\s*%?\)?$")
MIN_TICKS = 3              # a value axis prints at least this many tick labels ...
STEP_TOLERANCE = 0.02      # ... evenly stepped (values and positions) within this share of a step
MAX_MISSING_TICKS = 2      # ... a tick or two left unread by OCR (fewer than the steps read)
MIN_TICKS_WITH_MISREAD = 4  # a column of more ticks than this may hold one misread tick, left out
MIN_MARKS = 3              # a chart read off its drawing has at least this many bars or line vertices
_SWATCH_GLYPHS = "■□▪▫●◆▲"  # OCR reads a legend's swatch as one of these before its name
UPRIGHT_SHARE = 0.8        # a row of category labels this share of them upright (or slanted) is read so
SLANT_ANCHOR = 0.2         # a slanted label's tick: this share of its box's width in from its right end
LEGEND_GAP_PT = 25.0       # a legend's text starts this close to its colour sample
MAX_SAMPLE_PT = 40.0       # a legend sample (swatch, short line, marker group) is at most this long
LEGEND_BELOW_PT = 30.0     # a legend row printed under a chart stands this close under its box
LEGEND_COLOUR = 0.15       # a legend sample's colour is this close to its series' (per channel)
_LEFT = re.compile(r"左轴|[(（]左[)）]|\bleft(?:\s+|-)(?:hand\s+)?(?:axis|scale)\b|\(lhs\)|\blhs\b", re.IGNORECASE)
_RIGHT = re.compile(r"右轴|[(（]右[)）]|\bright(?:\s+|-)(?:hand\s+)?(?:axis|scale)\b|\(rhs\)|\brhs\b", re.IGNORECASE)
MIN_STEPS = 12             # a line drawn as steps has at least this many segments, a quarter of them each way
MIN_LINE_PT = 8.0          # a data line's path is at least this long (an "x" marker's strokes are shorter)


@dataclass(frozen=True)
class ValueAxis:
    """value = ``a`` + ``b`` · y (page points, y down); ``step`` between ticks; tick ``prefix``/``suffix``."""

    a: float
    b: float
    step: float
    x0: float           # the tick labels' column
    x1: float
    y_top: float        # the top and bottom ticks' centres
    y_bottom: float
    prefix: str = ""
    suffix: str = ""

    def value(self, y: float) -> float:
        return self.a + self.b * y

    def y_of(self, value: float) -> float:
        return (value - self.a) / self.b

    @property
    def decimals(self) -> int:
        """Digits a read value is given with: one finer than the tick step (0.2 -> 2, 50 -> 0)."""
        return max(0, math.ceil(-math.log10(self.step)) + 1) if self.step > 0 else 0


def tick_value(text: str) -> float | None:
    """The figure a tick label prints ("0.5", "$150", "(2)", "45%"), read by :func:`docrag.quantities.quantities`;
    None for a year or any other text. A point OCR left without its decimals ("3." of "3.0") reads as the
    whole number."""
    t = text.strip()
    t = t[:-1] if t.endswith(".") and t[:-1][-1:].isdigit() else t
    if not _TICK.match(t) or YEAR_CELL.match(t):
        return None
    found = quantities(t)
    return found[0].mantissa if len(found) == 1 else None


def _centre_y(b) -> float:
    return (b.y0 + b.y1) / 2


def _centre_x(b) -> float:
    return (b.x0 + b.x1) / 2


def _even_spread(xs: list[float]) -> bool:
    """Positions spaced evenly within a fifth of their median spacing (category labels of an axis)."""
    steps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    return len(steps) >= 2 and all(abs(s - median(steps)) <= 0.2 * median(steps) for s in steps)


def _tick_steps(ys: list[float], vs: list[float]) -> float | None:
    """The value step of tick labels top to bottom (values falling), each gap one step or a whole number of
    them (a tick OCR did not read), the positions' gaps in proportion; None when they are not so stepped."""
    value_steps = [a - b for a, b in zip(vs, vs[1:], strict=False)]
    if not value_steps or min(value_steps) <= 0:
        return None
    unit = min(value_steps)
    counts = [round(s / unit) for s in value_steps]
    if any(abs(s - k * unit) > STEP_TOLERANCE * unit for s, k in zip(value_steps, counts, strict=True)):
        return None
    if sum(counts) - len(counts) > MAX_MISSING_TICKS or sum(counts) - len(counts) >= len(counts):
        return None
    y_steps = [b - a for a, b in zip(ys, ys[1:], strict=False)]
    per_step = median(y / k for y, k in zip(y_steps, counts, strict=True))
    if per_step <= 0 or any(abs(y - k * per_step) > STEP_TOLERANCE * k * per_step + 0.6
                            for y, k in zip(y_steps, counts, strict=True)):
        return None
    return unit


def _axis_of(column: list[tuple[Word, float]]) -> ValueAxis | None:
    """The linear map of a column of tick labels (top to bottom, values falling, evenly stepped, a tick or two
    missing allowed); one misread tick of a long column is left out (OCR's "2.5" for "-2.5")."""
    column = sorted(column, key=lambda t: _centre_y(t[0].box))
    if len(column) < MIN_TICKS:
        return None
    tries = [column] + ([column[:i] + column[i + 1:] for i in range(len(column))]
                        if len(column) > MIN_TICKS_WITH_MISREAD else [])
    for ticks in tries:
        ys = [_centre_y(w.box) for w, _ in ticks]
        vs = [v for _, v in ticks]
        step = _tick_steps(ys, vs)
        if step is not None:
            break
    else:
        return None
    b = (vs[-1] - vs[0]) / (ys[-1] - ys[0])
    a = vs[0] - b * ys[0]
    texts = [w.text.strip() for w, _ in ticks]
    prefix = next((c for c in "$€£¥" if all(c in t for t in texts if t.strip("()-−–0") != "")), "")
    suffix = "%" if all(t.rstrip(")").endswith("%") for t in texts) else ""
    return ValueAxis(a, b, step, min(w.box.x0 for w, _ in ticks),
                     max(w.box.x1 for w, _ in ticks), ys[0], ys[-1], prefix, suffix)


def _same_map(a: ValueAxis, b: ValueAxis) -> bool:
    """Two tick columns that give the same value at both ends of either (a column read whole, and its ticks
    aligned on the other edge: "1 2 3" and "1.5 2.5 3.5" of one axis)."""
    span = abs(a.value(a.y_bottom) - a.value(a.y_top)) or 1.0
    return all(abs(a.value(y) - b.value(y)) <= 0.01 * span for y in (a.y_top, a.y_bottom, b.y_top, b.y_bottom))


def _same_column(a: ValueAxis, b: ValueAxis) -> bool:
    """Two maps read from one column of ticks (with and without a misread tick): their labels overlap."""
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y_top < b.y_bottom and b.y_top < a.y_bottom


def value_axes(words: list[Word]) -> list[ValueAxis]:
    """The value axes among ``words`` (a figure's), left to right: columns of tick labels aligned on their right
    (or left) edge that map y to values differently (one, or two on a dual-axis chart)."""
    ticks = [(w, v) for w in words if (v := tick_value(w.text)) is not None]
    columns: list[list[tuple[Word, float]]] = []
    for edge in (lambda b: b.x1, lambda b: b.x0):
        aligned: list[list[tuple[Word, float]]] = []
        for w, v in sorted(ticks, key=lambda t: edge(t[0].box)):
            if aligned and abs(edge(aligned[-1][-1][0].box) - edge(w.box)) <= 3.0:
                aligned[-1].append((w, v))
            else:
                aligned.append([(w, v)])
        columns.extend(aligned)
    found: list[ValueAxis] = []
    for col in sorted(columns, key=len, reverse=True):   # a column read whole before its right-aligned part
        axis = _axis_of(col)
        if axis is not None and not any(_same_map(axis, f) or _same_column(axis, f) for f in found):
            found.append(axis)
    return sorted(found, key=lambda a: a.x0)


YEAR_LABEL = re.compile(r"(?:19|20)\d\d(?:年|FY|E|A)?")   # a year category label: "2016", "2016年", "2016E"


def _label_row(words: list[Word], below: float, left: float) -> list[tuple[str, float]]:
    """The category labels under the plot: the first row of words below ``below`` (right of the value
    axis), words a small gap apart joined into one label; (label, x centre) left to right."""
    upright = _upright_labels([w for w in words if w.box.y0 >= below - 3 and _centre_x(w.box) >= left])
    if upright:
        return upright
    cands = [w for w in words if w.box.y0 >= below - 3 and _centre_x(w.box) >= left and w.box.height < 3 * w.box.width]
    while cands:   # row by row, top down: the first with MIN_MARKS labels (not a negative bar's data label)
        top = min(w.box.y0 for w in cands)
        height = median(w.box.height for w in cands)
        row = sorted((w for w in cands if w.box.y0 <= top + 0.6 * height), key=lambda w: w.box.x0)
        labels: list[list[Word]] = []
        for w in row:   # two years side by side are two categories however close ("2016年2017年", OCR'd as one)
            years = YEAR_LABEL.fullmatch(w.text.strip()) and YEAR_LABEL.fullmatch(labels[-1][-1].text.strip()) \
                if labels else None
            if labels and w.box.x0 - labels[-1][-1].box.x1 <= 0.4 * height and not years:
                labels[-1].append(w)
            else:
                labels.append([w])
        singles = [[w] for w in row]   # tightly set labels ("9/18 12/18 3/19"): evenly spaced words each
        if len(singles) > len(labels) and _even_spread([_centre_x(w.box) for w in row]):
            labels = singles
        if len(labels) >= MIN_MARKS:
            slanted = _slanted(row)
            return [(" ".join(w.text for w in group).strip(),
                     group[-1].box.x1 - SLANT_ANCHOR * group[-1].box.width if slanted
                     else (group[0].box.x0 + group[-1].box.x1) / 2) for group in labels]
        cands = [w for w in cands if w.box.y0 > top + 0.6 * height]
    return []


def _label_row_above(words: list[Word], above: float, left: float) -> list[tuple[str, float]]:
    """The category labels over the plot (bars hanging from a zero line at its top, labels set on that line): the
    words ending above ``above`` and right of ``left``, upright ones aligned on their foot ("银行", "社会服务" written
    top to bottom), else the row nearest the plot; (label, x centre) left to right, [] when fewer than MIN_MARKS."""
    cands = [w for w in words if w.box.y1 <= above + 3 and _centre_x(w.box) >= left]
    if not cands:
        return []
    foot = max(w.box.y1 for w in cands)
    row = sorted((w for w in cands if w.box.y1 >= foot - 3), key=lambda w: w.box.x0)
    upright = [w for w in row if w.box.height > 1.5 * w.box.width]
    if len(upright) >= MIN_MARKS and len(upright) >= UPRIGHT_SHARE * len(row):
        return [(w.text, _centre_x(w.box)) for w in upright]
    return [(w.text, _centre_x(w.box)) for w in row] if len(row) >= MIN_MARKS and _even_spread(
        [_centre_x(w.box) for w in row]) else []


def _slanted(row: list[Word]) -> bool:
    """Category labels set at a slant (Excel's 45°, "2011年" rising to the right): most words of four characters
    or more in boxes about as high as wide; such a label ends at its tick, its box's right end."""
    long = [w for w in row if len(w.text.strip()) >= 4]
    square = [w for w in long if 0.6 <= w.box.height / max(w.box.width, 1e-6) <= 1.6]
    return len(long) >= MIN_MARKS and len(square) >= UPRIGHT_SHARE * len(row)


def _upright_labels(words: list[Word]) -> list[tuple[str, float]]:
    """Category labels set upright (Chinese written top to bottom, one label a word): the words hanging from the
    topmost line under the plot, most of them taller than wide; [] when the labels are not so set."""
    if not words:
        return []
    top = min(w.box.y0 for w in words)
    row = sorted((w for w in words if w.box.y0 <= top + 3), key=lambda w: w.box.x0)
    upright = [w for w in row if w.box.height > 1.5 * w.box.width]
    if len(upright) < MIN_MARKS or len(upright) < UPRIGHT_SHARE * len(row):
        return []
    return [(w.text, _centre_x(w.box)) for w in upright]


def _whiteish(c) -> bool:
    return c is None or min(c) >= 0.93


def _paint(colour, opacity) -> tuple | None:
    """A colour as it shows on white paper at ``opacity``: one hue drawn at five opacities is five series."""
    if colour is None or opacity is None or opacity >= 1.0:
        return colour
    return tuple(1.0 - opacity * (1.0 - c) for c in colour)


def _rects_of(d: dict) -> list:
    """The rectangles a filled drawing paints: each rect item (one path may paint every bar of a series), or
    four axis-parallel lines closing one."""
    items = d.get("items", ())
    if items and all(i[0] in ("re", "qu") for i in items):
        return [i[1] if i[0] == "re" else i[1].rect for i in items]
    if 3 <= len(items) <= 4 and all(i[0] == "l" for i in items):
        if all(abs(i[1].x - i[2].x) < 0.5 or abs(i[1].y - i[2].y) < 0.5 for i in items):
            return [d["rect"]]
    return []


def staircase(items) -> bool:
    """A stroked chain of axis-parallel segments running rightwards and stepping both up and down: a data line
    drawn as steps (a daily net-value curve), not a rule, a frame or a grid (their segments go back or apart)."""
    if len(items) < MIN_STEPS or any(i[0] != "l" for i in items):
        return False
    ups = downs = 0
    for prev, item in zip(items, items[1:], strict=False):
        (p, q), end = (item[1], item[2]), prev[2]
        if abs(p.x - end.x) > 0.01 or abs(p.y - end.y) > 0.01 or q.x < p.x - 0.01:
            return False   # a break in the chain, or a step back leftwards
        ups += q.y < p.y - 0.01
        downs += q.y > p.y + 0.01
    return min(ups, downs) >= MIN_STEPS // 4


def _polyline(d: dict) -> list[tuple[float, float]] | None:
    """The vertices of a stroked line (straight or smoothed segments) with a sloped segment: a data line, not
    a rule, a grid line or a marker (a closed shape, or one short stroke of an "x")."""
    items = d.get("items", ())
    if not items or any(i[0] not in ("l", "c") for i in items):
        return None
    ends = [(i[1], i[-1]) for i in items]   # a curve runs from its first point to its last
    if not any(abs(a.x - b.x) > 0.5 and abs(a.y - b.y) > 0.5 for a, b in ends) and not staircase(items):
        return None
    start, end = ends[0][0], ends[-1][1]
    if abs(start.x - end.x) < 0.5 and abs(start.y - end.y) < 0.5:
        return None   # closed: a marker
    if sum(abs(a - b) for a, b in ends) < MIN_LINE_PT:
        return None
    return [(start.x, start.y)] + [(b.x, b.y) for _, b in ends]


def _area_top(d: dict) -> list[tuple[float, float]] | None:
    """The data edge of a filled area (an "超额(右)" band under a line chart): a polygon of straight segments run
    rightwards along the values and back along a flat baseline; None for any other shape (a band between two
    series, a bar, a marker)."""
    items = d.get("items", ())
    if len(items) < 2 * MIN_MARKS or any(i[0] != "l" for i in items):
        return None
    pts = [(items[0][1].x, items[0][1].y)] + [(i[2].x, i[2].y) for i in items]
    turn = max(range(len(pts)), key=lambda i: pts[i][0])
    ahead = pts[:turn + 1]
    back = [p for p in pts[turn + 1:] if abs(p[0] - ahead[-1][0]) >= 0.5]   # not the drop at the right end
    if back and abs(back[-1][0] - ahead[0][0]) < 0.5 and abs(back[-1][1] - ahead[0][1]) < 0.5:
        back = back[:-1]   # the closing edge up to the first value
    if len(ahead) < MIN_MARKS or not back or max(y for _, y in back) - min(y for _, y in back) > 1.0:
        return None
    if any(b[0] < a[0] - 0.5 for a, b in zip(ahead, ahead[1:], strict=False)):
        return None   # the data edge runs rightwards
    return ahead


def _dashes(d: dict) -> str:
    """A stroke's dash pattern, "" when solid ("[] 0" is PyMuPDF's solid)."""
    dashes = (d.get("dashes") or "").strip()
    return "" if dashes in ("", "[] 0", "[] 0.0") else dashes


@dataclass
class _Series:
    colour: tuple
    kind: str                     # "bar" or "line"
    marks: list                  # bar rectangles, or vertices as zero-size ones (pymupdf.Rect)
    dashes: str = ""             # a line's dash pattern ("" solid)


def _marks(drawings: list[dict], box: Box, left: float, right: float) -> tuple[list[_Series], list[dict]]:
    """Bars and lines inside ``box`` between the plot's ``left`` and ``right`` (its value axes), grouped by
    colour; the drawings left over."""
    import pymupdf

    series: dict[tuple, _Series] = {}
    rest: list[dict] = []
    plot_w = right - left
    for d in drawings:
        r = d["rect"]
        if not (box.x0 - 2 <= r.x0 and r.x1 <= box.x1 + 2 and box.y0 - 2 <= r.y0 and r.y1 <= box.y1 + 2):
            continue
        fill, colour = _paint(d.get("fill"), d.get("fill_opacity")), _paint(d.get("color"), d.get("stroke_opacity"))
        rects = _rects_of(d) if d.get("type") in ("f", "fs") and not _whiteish(fill) else []
        if not rects and d.get("type") == "s" and (d.get("width") or 0) >= 2 and not _whiteish(colour):
            items = d.get("items", ())   # a bar drawn as one thick vertical stroke
            if len(items) == 1 and items[0][0] == "l" and abs(items[0][1].x - items[0][2].x) < 0.5:
                half = d["width"] / 2
                rects = [type(r)(r.x0 - half, r.y0, r.x1 + half, r.y1)]
                fill = colour
        if rects and all(rect.x0 >= left - 1 and rect.x1 <= right + 1 and 0.8 <= rect.width <= 0.3 * plot_w
                         and rect.height > 0.3 for rect in rects):
            key = ("bar", *(round(c, 2) for c in fill))
            series.setdefault(key, _Series(tuple(fill), "bar", [])).marks.extend(
                pymupdf.Rect(rect) for rect in rects)
            continue
        area = _area_top(d) if d.get("type") in ("f", "fs") and not _whiteish(fill) and not rects else None
        if area is not None and area[0][0] >= left - 1 and area[-1][0] <= right + 1 \
                and area[-1][0] - area[0][0] >= 0.3 * plot_w:
            key = ("area", *(round(c, 2) for c in fill))
            series.setdefault(key, _Series(tuple(fill), "line", [])).marks.extend(
                pymupdf.Rect(x, y, x, y) for x, y in area)
            continue
        pts = _polyline(d) if d.get("type") in ("s", "fs") and not _whiteish(colour) else None
        if pts is not None and min(p[0] for p in pts) >= left - 1 and max(p[0] for p in pts) <= right + 1:
            dashes = _dashes(d)
            key = ("line", dashes, *(round(c, 2) for c in colour))   # solid and dashed lines apart
            series.setdefault(key, _Series(tuple(colour), "line", [], dashes)).marks.extend(
                pymupdf.Rect(x, y, x, y) for x, y in pts)
            continue
        rest.append(d)
    return list(series.values()), rest


def _baseline(bars: list, zero: float | None = None) -> float | None:
    """The y coordinate bars stand on (or hang from): the axis' zero line where bars meet it (stacked segments
    share other edges), else the one most bars share, if at least :data:`MIN_MARKS` do."""
    if zero is not None:
        at_zero = [e for b in bars for e in (b.y0, b.y1) if abs(e - zero) <= 1.5]
        if at_zero:
            return median(at_zero)
    edges = [round(b.y1) for b in bars] + [round(b.y0) for b in bars]
    best = max(set(edges), key=lambda e: sum(1 for b in bars if min(abs(b.y1 - e), abs(b.y0 - e)) <= 1.0))
    n = sum(1 for b in bars if min(abs(b.y1 - best), abs(b.y0 - best)) <= 1.0)
    return float(best) if n >= MIN_MARKS else None


def _entries(rest: list[dict], words: list[Word]) -> list[tuple[tuple, str, str]]:
    """A legend's entries: (colour, dash pattern, name) of each small drawing (swatch, short line, marker)
    with words starting just right of it, the name running to the next sample on its row."""
    samples = [d for d in rest if max(d["rect"].width, d["rect"].height) <= MAX_SAMPLE_PT
               and not (_whiteish(d.get("color")) and _whiteish(d.get("fill")))]
    out = []
    for d in samples:
        r = d["rect"]
        cy = (r.y0 + r.y1) / 2
        row = sorted((w for w in words if w.box.y0 - 2 <= cy <= w.box.y1 + 2 and (w.box.x0 >= r.x1 - 1 or (
            w.text[:1] in _SWATCH_GLYPHS and w.box.x0 - 1 <= r.x0 and r.x1 <= w.box.x1))), key=lambda w: w.box.x0)
        if not row or row[0].box.x0 - r.x1 > LEGEND_GAP_PT:
            continue
        stop = min((o["rect"].x0 for o in samples if o["rect"].x0 > r.x1 + 1
                    and o["rect"].y0 - 2 <= cy <= o["rect"].y1 + 2), default=math.inf)
        name = [row[0]]
        for w in row[1:]:
            if w.box.x0 >= stop or w.box.x0 - name[-1].box.x1 > 1.5 * w.box.height or w.text[:1] in _SWATCH_GLYPHS:
                break
            name.append(w)
        stroke = _paint(d.get("color"), d.get("stroke_opacity"))
        colour = _paint(d.get("fill"), d.get("fill_opacity")) if _whiteish(stroke) else stroke
        out.append((tuple(colour), _dashes(d), " ".join(w.text for w in name).lstrip(_SWATCH_GLYPHS).strip()))
    return out


def _names(found: list[_Series], entries: list[tuple[tuple, str, str]]) -> list[str]:
    """Each series' legend name: entries and series paired nearest colour first (a legend's line may be drawn a
    shade off its series'), a line's dash pattern matching, within ``LEGEND_COLOUR``; "" when none is left."""
    def dist(s: _Series, e: tuple[tuple, str, str]) -> float:
        off = max(abs(x - y) for x, y in zip(s.colour, e[0], strict=False)) if len(e[0]) == len(s.colour) else 1.0
        return off + (0.0 if s.kind == "bar" or e[1] == s.dashes else 1.0)
    pairs = sorted(((dist(s, e), i, j) for i, s in enumerate(found) for j, e in enumerate(entries)),
                   key=lambda t: t[0])
    names, used = [""] * len(found), set()
    for d, i, j in pairs:
        if d <= LEGEND_COLOUR and not names[i] and j not in used and entries[j][2] not in names:
            names[i] = entries[j][2]
            used.add(j)
    return names


def _at(xs: list[tuple[float, float]], cx: float, spacing: float) -> float | None:
    """A line's y at ``cx``: its nearest vertex within a third of the category spacing, else interpolated."""
    near = min(xs, key=lambda p: abs(p[0] - cx))
    if abs(near[0] - cx) <= spacing / 3:
        return near[1]
    left = [p for p in xs if p[0] <= cx]
    right = [p for p in xs if p[0] >= cx]
    if not left or not right:
        return None
    (x0, y0), (x1, y1) = left[-1], right[0]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (cx - x0) / (x1 - x0)


# a legend name saying a rate (its bracketed parameters aside: "策略累计表现（多空，单笔3%）" is a net value)
_RATE_NAME = re.compile(r"回撤|率|%|\b(?:drawdown|rate|yield|percent(?:age)?|margin)s?\b", re.IGNORECASE)


def _axis_for(s: _Series, name: str, axes: list[ValueAxis], legend: list[str], lines: bool = False
              ) -> ValueAxis | None:
    """The axis a series is drawn against: the only one; on a dual-axis chart the one its legend names ("(右轴)",
    "right axis"), or the other one when the legend names an axis for other entries only ("超额(右)" beside
    "策略净值"); on a chart of ``lines`` only with one percentage axis, when some legend names say a rate and others not
    ("回撤" beside "策略累计表现"), those on the percentage axis and the others on the other (``rate_named``); else by
    the combination chart's convention, bars on the amount axis and lines on the percentage axis."""
    if len(axes) == 1:
        return axes[0]
    if _LEFT.search(name) or _RIGHT.search(name):
        return axes[0] if _LEFT.search(name) else axes[-1]
    said = " ".join(legend)
    if name and (_RIGHT.search(said) is None) != (_LEFT.search(said) is None):
        return axes[-1] if _LEFT.search(said) else axes[0]
    pct = [a for a in axes if a.suffix == "%"]
    if len(pct) != 1:
        return None
    other = next(a for a in axes if a is not pct[0])
    rated = [bool(_RATE_NAME.search(BRACKETED.sub(" ", e))) for e in legend]
    if lines and name and any(rated) and not all(rated):   # ``rate_named``: "回撤" beside "策略累计表现"
        return pct[0] if _RATE_NAME.search(BRACKETED.sub(" ", name)) else other
    return pct[0] if s.kind == "line" else other


def _stacked(bars: list, base: float) -> bool:
    """Every bar off the baseline sits on another bar (a stacked column's segments)."""
    return all(abs(b.y1 - base) <= 1 or any(o is not b and abs(b.y1 - o.y0) <= 1 and min(b.x1, o.x1) - max(b.x0, o.x0)
                                            >= 0.5 * b.width for o in bars) for b in bars)


def _bar_values(s: _Series, axis: ValueAxis, base: float, stacked: bool, cats: list[tuple[str, float]],
                spacing: float) -> list[list]:
    """[category, value] of a bar series: a bar's top (or a hanging bar's foot) through the axis, a stacked
    segment's height."""
    out: list[list] = []
    for b in sorted(s.marks, key=lambda b: b.x0):
        label, cx = min(cats, key=lambda c: abs(c[1] - _centre_x(b)))
        if abs(cx - _centre_x(b)) > max(0.6 * spacing, b.width):
            continue
        if stacked:
            value = axis.value(b.y0) - axis.value(b.y1)
        else:   # a bar rises from the baseline or hangs below it
            value = axis.value(b.y0 if abs(b.y1 - base) <= 1 else b.y1)
        out.append([label, round(value, axis.decimals)])
    return out


def _legend_below(drawings: list[dict], words: list[Word], box: Box) -> list[tuple[tuple, str, str]]:
    """``legend_below``: the legend entries of a row just under the chart's box, within ``LEGEND_BELOW_PT`` and its
    width (华福证券's "— 策略累计表现（多空，单笔3%） — 回撤" under the plot, its samples short lines, not glyphs the
    figure grows by)."""
    def under(x0: float, y0: float, x1: float, y1: float) -> bool:
        return box.x0 - 2 <= x0 and x1 <= box.x1 + 2 and box.y1 - 2 <= y0 and y1 <= box.y1 + LEGEND_BELOW_PT

    return _entries([d for d in drawings if under(*d["rect"])], [w for w in words if under(*w.box.coords)])


def read_series(drawings: list[dict], words: list[Word], box: Box) -> list[dict]:
    """The series of the vector chart in ``box`` (page points, unrotated page), each
    ``{"name", "kind", "values": [[category, value], ...], "prefix", "suffix", "decimals"}`` with values rounded
    one digit finer than the axis step (a line adds its highest and lowest vertex, ``"max"`` and ``"min"``, as
    [nearest category, value], and its last, ``"last"``, as [category, value], "" when it ends past the last
    label; a line chart whose categories are not text has no ``values``, only these); ``kind`` "segment" is a
    stacked column's part, its value the segment's height; [] when the chart cannot be read safely."""
    inside = [w for w in words if box.expanded(2).contains(w.box, tol=1.0)]
    axes = value_axes(inside)
    if not axes or len(axes) > 2 or (len(axes) == 2 and axes[1].x0 < axes[0].x1 + 0.5 * box.width):
        return []   # no axis, three, or two that are not the plot's left and right edges
    left, right = axes[0].x1, (axes[1].x0 if len(axes) == 2 else box.x1)
    found, rest = _marks(drawings, box, left, right)
    top, foot = min(a.y_top for a in axes), max(a.y_bottom for a in axes)
    every_bar = [b for s in found if s.kind == "bar" for b in s.marks]
    shared = _baseline(every_bar) if every_bar else None
    if shared is not None and shared > foot and abs(axes[0].value(shared)) <= 0.5 * axes[0].step:
        foot = shared   # the lowest ticks unread ("5", "0"): the bars standing on the axis' zero end the plot
    for s in found:   # a swatch off the plot's height (a legend's) is no bar: it names its series
        if s.kind == "bar":
            rest.extend({"rect": b, "fill": s.colour} for b in s.marks if b.y0 > foot + 2 or b.y1 < top - 2)
            s.marks = [b for b in s.marks if not (b.y0 > foot + 2 or b.y1 < top - 2)]
    found = [s for s in found if s.marks]
    bars = [b for s in found if s.kind == "bar" for b in s.marks]
    zero = axes[0].y_of(0.0) if axes[0].value(foot) - axes[0].step <= 0 <= axes[0].value(top) else None
    base = _baseline(bars, zero) if bars else None
    if bars and base is None:
        return []
    stacked = bool(bars) and any(abs(b.y1 - base) > 1 and abs(b.y0 - base) > 1 for b in bars)
    if stacked and not _stacked(bars, base):   # floating bars (a waterfall's, or bars a watermark cut up): a bar's
        found, stacked = [s for s in found if s.kind != "bar"], False   # height is not its value; lines still are
    if stacked and len(axes) > 1:   # stacks on a dual-axis chart: which axis they use is not told; lines are read
        found = [s for s in found if s.kind != "bar"]
    marks = [b for s in found for b in s.marks]
    if len(marks) < MIN_MARKS:
        return []
    # the category labels: the first row under the lowest tick (under the zero line, or at the plot's foot)
    cats = _label_row([w for w in inside if tick_value(w.text) is None or left + 2 < w.box.x0 < right - 2],
                      foot, left + 1)
    cats = [c for c in cats if c[1] <= right + 1]
    # bars hanging from a zero line at the top: their labels stand above the plot
    if len(cats) < MIN_MARKS and bars and all(b.y0 <= top + 2 for b in bars):
        cats = [c for c in _label_row_above([w for w in inside if tick_value(w.text) is None], top, left + 1)
                if c[1] <= right + 1]
    if len(cats) < MIN_MARKS:
        if bars:
            return []
        cats = []   # a time axis printed as outlines, not text: lines read at their end and extremes only
    spacing = median(b[1] - a[1] for a, b in zip(cats, cats[1:], strict=False)) if len(cats) > 1 else 1.0
    out: list[dict] = []
    entries = _entries(rest, inside) or _legend_below(drawings, words, box)
    names = _names(found, entries)
    for s, name in zip(found, names, strict=True):
        if not name and sum(1 for o, n in zip(found, names, strict=True) if o.kind == s.kind and not n) > 1:
            continue   # two series of a kind no legend names (a legend printed as a picture): not told apart
        axis = _axis_for(s, name, axes, [e[2] for e in entries], all(f.kind == "line" for f in found))
        if axis is None:
            return []   # a dual-axis chart whose series cannot be told apart: none is read
        lo, hi = axis.value(axis.y_bottom) - axis.step, axis.value(axis.y_top) + axis.step
        if base is not None and s.kind == "bar":   # bars standing below the lowest tick read (its "5" and "0" unread)
            lo = min(lo, axis.value(base) - axis.step)
        if s.kind == "bar":
            values = _bar_values(s, axis, base, stacked, cats, spacing)
        else:
            pts = sorted({(round(b.x0, 1), b.y0) for b in s.marks})
            if len(pts) < MIN_MARKS or not all(lo <= axis.value(y) <= hi for _, y in pts):
                continue   # a line off this axis' range: another panel's, or another axis'
            values = [[label, round(axis.value(y), axis.decimals)] for label, cx in cats
                      if pts[0][0] - spacing / 3 <= cx <= pts[-1][0] + spacing / 3
                      and (y := _at(pts, cx, spacing)) is not None]
        if not all(lo <= v[1] <= hi for v in values):
            continue   # a bar beyond the axis: drawn against another axis or panel
        if len({v[0] for v in values}) < min(MIN_MARKS, len(cats)) or len({v[0] for v in values}) != len(values):
            continue
        record = {"name": name, "kind": "segment" if stacked and s.kind == "bar" else s.kind, "values": values,
                  "prefix": axis.prefix, "suffix": axis.suffix, "decimals": axis.decimals}
        if s.kind == "line":   # a line peaks between categories too: its highest and lowest vertex
            for key, pick in (("max", min), ("min", max)):   # y grows downwards
                x, y = pick(pts, key=lambda p: p[1])
                near = min(cats, key=lambda c: abs(c[1] - x), default=("", x))
                record[key] = [near[0], round(axis.value(y), axis.decimals)]
            x, y = pts[-1]   # where it ends: a category's label only when it stands there ("" past the last one)
            near = min(cats, key=lambda c: abs(c[1] - x), default=("", math.inf))
            record["last"] = [near[0] if abs(near[1] - x) <= spacing / 3 else "", round(axis.value(y), axis.decimals)]
        out.append(record)
    return out


__all__ = ["YEAR_LABEL", "ValueAxis", "read_series", "staircase", "value_axes"]
