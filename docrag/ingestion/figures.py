"""Figure detection (embedded images and clusters of vector graphics) and caption linking.

Vector figures are found from *graphic* paths only: curves, diagonal lines and filled shapes
without text in them (bars, pie slices, chart series). Rules and frames (axis-aligned strokes) are
left to table detection; a frame tightly enclosing a cluster (a chart panel) becomes its box. A
cluster of filled rectangles one text line high repeating a few column spans is a table's row
shading (a 10-Q's statements), not a figure (:func:`is_row_shading`). A bar printing its data label inside it, and a
line drawn as steps, are graphics too; a row of bars on one baseline is one chart however far apart its bars stand
(:func:`_bar_rows`); a chart grows by its axis labels, its centred title and its swatch legend.
"""

from __future__ import annotations

import logging
import re
from itertools import pairwise

from docrag.geometry import Box, union
from docrag.ingestion.chart_marks import ValueAxis, staircase, tick_value, value_axes
from docrag.ingestion.layout import FIGURE_CAPTION_RE, TABLE_CAPTION_RE
from docrag.ingestion.textlayer import to_display_box
from docrag.types import Block, BlockKind, Word

log = logging.getLogger(__name__)

MIN_FIGURE_SIDE_PT = 24.0     # images/graphics smaller than this on either side are decoration
MIN_FIGURE_AREA = 0.008       # ... or smaller than this fraction of the page
MAX_IMAGE_AREA = 0.9          # an image covering the page is a scan or background, not a figure
BACKGROUND_AREA = 0.4         # an image this large holding most of the page's text is behind it
BLEED = 0.02                  # an image within this share of the page width of both edges runs edge to edge
PANEL_TEXT_CHARS = 200        # ... and is a panel behind the text when this much text lies on it
MIN_GRAPHIC_ITEMS = 6         # a vector figure has at least this many graphic drawing items
CLUSTER_GAP_PT = 12.0         # graphic paths closer than this belong to one figure
THICK_STROKE_PT = 3.0         # a stroke this wide is a bar drawn as a line, not a rule ...
MAX_BAR_WIDTH = 0.08          # ... up to this share of the page width wide ...
MIN_BAR_LENGTH_PT = 2.0       # ... and at least this long (a dot drawn with a huge pen is no bar) ...
MAX_BAR_LENGTH = 0.5          # ... and shorter than this share of the page width (a divider spans the column)
LABEL_GAP_PT = 14.0           # words this close to a figure are its labels (ticks, legend)
SHADING_MIN_RECTS = 8          # row shading: at least this many filled rectangles ...
SHADING_MAX_HEIGHT_PT = 24.0   # ... a text row high (median) ...
SHADING_REPEATS = 3.0          # ... each column span repeated this many times on average
TINT_MIN_LEVEL = 0.75          # a header tint: light fills only (every colour channel this light) ...
TINT_MAX_HEIGHT_PT = 40.0      # ... in a band no higher than a header of two or three lines
TITLE_GAP_PT = 30.0           # a chart's title line or legend line stands this close above / under it ...
TITLE_CENTRED = 0.1           # ... a title centred over it within this share of its width ...
TITLE_FAR_PT = 90.0           # ... or this close when only lines wider than it stand between
_WORDY = re.compile(r"[A-Za-z\u4e00-\u9fff]")
_SWATCHES = "■□▪▫●◆▲"          # a legend entry's swatch printed as a glyph
_DATA_LABEL = re.compile(r"^[-−–(]?[$€£¥]?\d[\d,.]*\s*[%BMK]?\)?$")   # "$21.2", "(0.8)", "49%"
BAR_WIDTH_SPREAD = 0.25       # bars of one row are of one width within this share ...
MAX_BAR_WIDTH_PT = 80.0       # ... each at most this wide (a wider filled rectangle is a panel or a band) ...
MIN_BAR_TALL_PT = 24.0        # ... one of them at least this tall ...
BAR_ROW_GAPS = 3.0            # ... and stand at most this many widths apart
CHART_GAP = 1.5               # a gap this many times a row's median gap parts two charts
LABELLED_BAR_LINES = 2.5      # a bar holding its data label is at least this many label heights tall
_PERIOD = re.compile(r"^(?:Q[1-4]|H[12]|FY)[-'’/ ]?\d{2,4}$|^(?:19|20)\d\d(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?$",
                     re.IGNORECASE)   # "Q1-19", "FY23", "2019", "2013/1/25": a time axis' labels
CAPTION_GAP_PT = 40.0         # how far from a figure/table its caption may be
TABLE_CAPTION_BELOW_PT = 25.0  # a caption below a table counts as this much farther than one above


def _thick(d: dict, page_width: float) -> float:
    """Half the width of a visible stroke drawn as a bar ("0 0 1 RG 28 w 0 0 m 0 -22 l S": a bar chart's
    bar), else 0. Rules and frames are thin; a thick divider under a heading spans the text column."""
    w = d.get("width") or 0.0
    color = d.get("color")
    if d.get("type") != "s" or w < THICK_STROKE_PT or color is None or min(color) >= 0.97:
        return 0.0
    length = max(d["rect"].width, d["rect"].height)
    bar = w <= MAX_BAR_WIDTH * page_width and MIN_BAR_LENGTH_PT <= length < MAX_BAR_LENGTH * page_width
    return w / 2 if bar else 0.0


def _grown(r, half: float) -> tuple[float, float, float, float]:
    """A drawing's rectangle grown by ``half`` (half a bar's stroke width) on every side."""
    return r.x0 - half, r.y0 - half, r.x1 + half, r.y1 + half


def _is_graphic(d: dict, centers, to_display, words: list[Word]) -> bool:
    """Curves, diagonal lines, lines drawn as steps, and visible filled shapes with no word centre inside them
    (or only a bar's data label)."""
    if d.get("type") == "s" and staircase(d.get("items", ())):
        return True
    for item in d.get("items", ()):
        op = item[0]
        if op in ("c", "qu"):
            return True
        if op == "l":
            p, q = item[1], item[2]
            if abs(p.x - q.x) > 0.5 and abs(p.y - q.y) > 0.5:
                return True
    fill = d.get("fill")
    if fill is not None and d.get("type") in ("f", "fs") and min(fill) < 0.97:  # white fills are invisible
        r = d["rect"]
        if min(r.width, r.height) > 3.0:
            cx, cy = centers
            # ``bars_in_one_path`` (rule 254): a path of several rectangles (a column chart's bars painted at once)
            # is tested bar by bar; its bounding box holds the data labels printed over the shorter bars
            parts = _bars_of(d) or [r]
            for part in parts:
                box = to_display(part.x0, part.y0, part.x1, part.y1)
                inside = ((cx >= box.x0) & (cx <= box.x1) & (cy >= box.y0) & (cy <= box.y1)).nonzero()[0]
                if len(inside) and not _labelled_bar(box, [words[i] for i in inside]):
                    return False
            return True
    return False


def _bars_of(d: dict) -> list:
    """``bars_in_one_path`` (rule 254): the rectangles of a path painting three or more bars at once, each at most
    ``MAX_BAR_WIDTH_PT`` wide, standing on one baseline (or hanging from it), of different heights (a table's
    shading bands are of one height); [] for any other path."""
    items = d.get("items", ())
    if len(items) < 3 or not all(i[0] == "re" for i in items):
        return []
    bars = [i[1] for i in items]
    if max(b.width for b in bars) > MAX_BAR_WIDTH_PT or max(b.height for b in bars) - min(b.height for b in bars) <= 2:
        return []
    feet, tops = [b.y1 for b in bars], [b.y0 for b in bars]
    return bars if max(feet) - min(feet) <= 1 or max(tops) - min(tops) <= 1 else []


def _labelled_bar(box: Box, inside: list[Word]) -> bool:
    """A bar printing its data label inside it (a 10-K's "$21.2" in white on a grey column): one or two figures,
    the bar at least ``LABELLED_BAR_LINES`` label heights tall. A shaded table cell holding a figure is about one
    text line high (a heat map's cells), a heading band holds words."""
    if len(inside) > 2 or not all(_DATA_LABEL.match(w.text) for w in inside):
        return False
    return box.height >= LABELLED_BAR_LINES * max(w.box.height for w in inside)


def _filled_rect(d: dict) -> tuple[float, float, float] | None:
    """``(x0, x1, height)`` of a fill-only path made of rectangles (no curve, no diagonal), else None."""
    if d.get("type") != "f" or not all(item[0] in ("re", "qu") for item in d.get("items", ())):
        return None
    r = d["rect"]
    return (round(r.x0), round(r.x1), r.height)


def is_row_shading(rects: list[tuple[float, float, float] | None]) -> bool:
    """Filled rectangles only, a text row high, repeating a few column spans: a table's row shading.

    A bar chart's bars each have their own span (vertical bars) or their own length (horizontal ones);
    alternate-row shading repeats the same spans down the table."""
    shapes = [r for r in rects if r is not None]
    if len(shapes) < SHADING_MIN_RECTS or len(shapes) < len(rects):   # a curve or a stroke: no shading
        return False
    heights = sorted(h for _, _, h in shapes)
    spans = {(x0, x1) for x0, x1, _ in shapes}
    return heights[len(heights) // 2] <= SHADING_MAX_HEIGHT_PT and len(shapes) >= SHADING_REPEATS * len(spans)


def is_header_tint(drawings: list[dict]) -> bool:
    """Light filled rectangles only (every colour channel >= ``TINT_MIN_LEVEL``) in a band at most
    ``TINT_MAX_HEIGHT_PT`` high: the tint behind a table's header cells (鼎泰新材's project list, drawn cell by
    cell in grey), not a chart's marks, which are coloured or reach higher."""
    if not drawings:
        return False
    for d in drawings:
        fill = d.get("fill")
        if _filled_rect(d) is None or fill is None or min(fill) < TINT_MIN_LEVEL:
            return False
    top = min(d["rect"].y0 for d in drawings)
    bottom = max(d["rect"].y1 for d in drawings)
    return bottom - top <= TINT_MAX_HEIGHT_PT


def _panels(drawings: list[dict], to_display) -> list[Box]:
    """Rectangles drawn as frames (candidate chart panels)."""
    out = []
    for d in drawings:
        for item in d.get("items", ()):
            if item[0] == "re":
                r = item[1]
                if min(r.width, r.height) > 20:
                    out.append(to_display(r.x0, r.y0, r.x1, r.y1))
    return out


CLUSTER_CELL_PT = 3.0         # resolution of the occupancy grid used for clustering


def _cluster(boxes: list[tuple[Box, int]]) -> list[tuple[Box, int, list[int]]]:
    """Single-link clusters of (box, n_items): boxes closer than CLUSTER_GAP_PT share a cluster;
    each with its summed items and the indices of its members.

    Boxes are painted, grown by half the gap, on a coarse occupancy grid whose connected components
    are the clusters: linear in the number of boxes (pages can carry tens of thousands of paths).
    """
    if not boxes:
        return []
    import numpy as np
    from scipy import ndimage

    w, h = boxes[0][0].extent
    cell = CLUSTER_CELL_PT
    gw, gh = int(w / cell) + 2, int(h / cell) + 2
    grid = np.zeros((gh, gw), dtype=bool)
    pad = CLUSTER_GAP_PT / 2
    spans = []
    for box, _ in boxes:
        x0 = max(0, int((box.x0 - pad) / cell))
        y0 = max(0, int((box.y0 - pad) / cell))
        x1 = min(gw, int((box.x1 + pad) / cell) + 1)
        y1 = min(gh, int((box.y1 + pad) / cell) + 1)
        grid[y0:y1, x0:x1] = True
        spans.append((x0, y0))
    labels, _ = ndimage.label(grid)
    clusters: dict[int, tuple[Box, int, list[int]]] = {}
    for i, ((box, n), (x0, y0)) in enumerate(zip(boxes, spans, strict=True)):
        lab = int(labels[y0, x0])
        if lab in clusters:
            cb, cn, members = clusters[lab]
            members.append(i)   # in place: a cluster can gather thousands of paths
            clusters[lab] = (union([cb, box]), cn + n, members)
        else:
            clusters[lab] = (box, n, [i])
    return list(clusters.values())


def is_background(box: Box, words: list[Word], page_area: float, page_width: float = 0.0) -> bool:
    """An image behind the text (a watermark, a tinted panel): it covers much of the page and most of
    the page's text lies on it (a chart's own labels are a small share of a page's text); or it runs from one edge
    of the page to the other with a paragraph's worth of text on it (``full_bleed_panel``, rule 203: an annual
    report's banner under its letter's opening paragraphs, a half-page panel under a table)."""
    bleeds = page_width and box.x0 <= BLEED * page_width and box.x1 >= (1 - BLEED) * page_width
    if not bleeds and box.area < BACKGROUND_AREA * page_area:
        return False   # most images: no word is counted
    inside = sum(len(w.text) for w in words
                 if box.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2))
    if bleeds:
        return inside >= PANEL_TEXT_CHARS
    total = sum(len(w.text) for w in words)
    return inside >= 200 and inside >= 0.6 * total


def detect_figures(page, frame, words: list[Word], drawings: list[dict]) -> list[Block]:
    """Figure blocks: embedded images and clusters of vector graphics (display-frame boxes)."""
    def to_display(*c):
        return to_display_box(frame, *c)

    page_area = frame.width * frame.height
    found: list[tuple[Box, str]] = []
    for info in page.get_image_info():
        box = to_display(*info["bbox"])
        if (box.is_valid() and _big_enough(box, page_area) and box.area <= MAX_IMAGE_AREA * page_area
                and not is_background(box, words, page_area, frame.width)):
            found.append((box, "image"))
    if drawings:
        import numpy as np

        centers = (np.array([(w.box.x0 + w.box.x1) / 2 for w in words]),
                   np.array([(w.box.y0 + w.box.y1) / 2 for w in words]))
        # graphics and bars drawn as thick strokes: (drawing, half its stroke width when a bar, else 0)
        kept = [(d, half) for d in drawings
                if (half := _thick(d, frame.width)) or _is_graphic(d, centers, to_display, words)]
        graphic = [(to_display(*_grown(d["rect"], half)).expanded(0.5).clipped(), len(d.get("items", ())))
                   for d, half in kept]
        panels = _panels(drawings, to_display)
        bridges = [(box, MIN_GRAPHIC_ITEMS) for box in _bar_rows([d for d, _ in kept], drawings, to_display)]
        for box, n, members in _cluster(graphic + bridges):
            members = [i for i in members if i < len(kept)]   # a bar row's bridge is no drawing
            if n < MIN_GRAPHIC_ITEMS or is_row_shading([_filled_rect(kept[i][0]) for i in members]) \
                    or is_header_tint([kept[i][0] for i in members]):
                continue
            panel = max((p for p in panels if p.contains(box, tol=2.0) and p.area <= 0.5 * page_area
                         and p.area <= 6 * max(box.area, 1.0)), key=lambda p: p.area, default=None)  # outer frame
            box = panel if panel is not None else _with_labels(_with_axes(box, drawings, to_display), words)
            if panel is None and _big_enough(box, page_area):   # a rule's bevel stays too thin to be a chart
                box = _with_title_and_legend(box, words)
            if _big_enough(box, page_area) and box.area <= MAX_IMAGE_AREA * page_area:
                found.append((box, "drawing"))
    blocks = [Block(kind=BlockKind.FIGURE, box=box.clipped(), meta={"source": source}) for box, source in found]
    return _merge(blocks)


def _bar_rows(graphics: list[dict], drawings: list[dict], to_display) -> list[Box]:
    """``bar_row``: the span of each row of bars standing on one baseline, so that a column chart whose bars stand
    further apart than ``CLUSTER_GAP_PT`` (a 10-K's three-year chart, each bar 32 points from the next) is one
    figure: at least three filled rectangles sharing their foot within a point, of about one width (within
    ``BAR_WIDTH_SPREAD``), one at least ``MIN_BAR_TALL_PT`` tall (row shading's and a heat map's cells are a
    text line high), at most ``BAR_ROW_GAPS`` widths apart, each a graphic (no word in it but its data label: a
    table's filled cells hold words). Such a row is a chart however few paths draw it; the axis lines among
    ``drawings`` part two charts side by side."""
    shapes = sorted((d["rect"] for d in graphics if d.get("type") in ("f", "fs") and _rectangle(d)
                     and min(d["rect"].width, d["rect"].height) >= 3 and d["rect"].width <= MAX_BAR_WIDTH_PT),
                    key=lambda r: (round(r.y1), r.x0))
    rows: list[list] = []
    for r in shapes:
        if rows and abs(r.y1 - rows[-1][0].y1) <= 1.0:
            rows[-1].append(r)
        else:
            rows.append([r])
    axes = [d["rect"] for d in drawings if d.get("type") == "s" and len(d.get("items", ())) == 1
            and d["items"][0][0] == "l" and d["rect"].height < 0.5 and d["rect"].width > 0]
    out = []
    rows = [sorted(row, key=lambda r: r.x0) for row in rows]   # feet within a point of each other: left to right
    for bars in (part for row in rows for on_axis in _on_axes(row, axes) for part in _charts_apart(on_axis)):
        widths = sorted(b.width for b in bars)
        if len(bars) >= 3 and widths[-1] <= (1 + BAR_WIDTH_SPREAD) * widths[0] \
                and max(b.height for b in bars) >= MIN_BAR_TALL_PT \
                and all(b.x0 - a.x1 <= BAR_ROW_GAPS * widths[0] for a, b in pairwise(bars)):
            out.append(to_display(min(b.x0 for b in bars), min(b.y0 for b in bars), max(b.x1 for b in bars),
                                  max(b.y1 for b in bars)))
    return out


def _on_axes(row: list, axes: list) -> list[list]:
    """A row of bars parted by the axis lines they stand on, when two or more lines carry them (two charts'
    x axes at one height)."""
    under = [a for a in axes if abs(a.y0 - row[0].y1) <= 1.5 and a.x0 <= row[-1].x1 and a.x1 >= row[0].x0]
    if len(under) < 2:
        return [row]
    parts = [[b for b in row if a.x0 - 1 <= (b.x0 + b.x1) / 2 <= a.x1 + 1] for a in under]
    return [p for p in parts if p]


def _charts_apart(row: list) -> list[list]:
    """A row of bars split where a gap is wider than ``CHART_GAP`` times the row's median gap: two charts side by
    side on one baseline (Intel's R&D and MG&A charts)."""
    gaps = [b.x0 - a.x1 for a, b in pairwise(row)]
    if len(gaps) < 2:
        return [row]
    wide = CHART_GAP * max(sorted(gaps)[len(gaps) // 2], 1.0)
    parts = [[row[0]]]
    for gap, b in zip(gaps, row[1:], strict=True):
        if gap > wide:
            parts.append([])
        parts[-1].append(b)
    return parts


def _rectangle(d: dict) -> bool:
    """A path painting one rectangle: a ``re`` item, or three or four axis-parallel lines (not an area's outline)."""
    items = d.get("items", ())
    if len(items) == 1 and items[0][0] == "re":
        return True
    return 3 <= len(items) <= 4 and all(i[0] == "l" and (abs(i[1].x - i[2].x) < 0.5 or abs(i[1].y - i[2].y) < 0.5)
                                        for i in items)


def _big_enough(box: Box, page_area: float) -> bool:
    return (box.width >= MIN_FIGURE_SIDE_PT and box.height >= MIN_FIGURE_SIDE_PT
            and box.area >= MIN_FIGURE_AREA * page_area)


def _with_axes(box: Box, drawings: list[dict], to_display) -> Box:
    """Grow a cluster of graphics by the axis-aligned strokes touching it (axes, gridlines)."""
    zone = box.expanded(6.0)
    extra = []
    for d in drawings:
        for item in d.get("items", ()):
            if item[0] == "l":
                p, q = item[1], item[2]
                seg = to_display(min(p.x, q.x), min(p.y, q.y), max(p.x, q.x), max(p.y, q.y))
                if seg.width <= 1.0 or seg.height <= 1.0:
                    seg = seg.expanded(0.5)
                    if zone.intersection_area(seg) > 0 and seg.width <= 2 * box.width and seg.height <= 2 * box.height:
                        extra.append(seg)
    return union([box, *extra]).clipped() if extra else box


def _with_labels(box: Box, words: list[Word]) -> Box:
    """Grow a figure box by the short labels hugging it (axis ticks, legends)."""
    grown = box
    for _ in range(3):
        zone = grown.expanded(LABEL_GAP_PT)
        ticks = {id(w) for w in _axis_labels(words, grown)}
        near = [w for w in words if (zone.intersection_area(w.box) > 0.5 * w.box.area or id(w) in ticks)
                and w.box.width < 0.5 * box.width and not grown.contains(w.box)]
        if not near:
            break
        grown = union([grown, *[w.box for w in near]])
    return grown.clipped()


def _with_title_and_legend(box: Box, words: list[Word]) -> Box:
    """``chart_title``: grow a chart by the title line centred over it (a 10-K's "DCG Revenue $B" 10 points above
    its labels, :func:`_title_above`) and the legend line under it whose entries start with a swatch ("■ Platform
    ■ Adjacent") within ``TITLE_GAP_PT`` and inside the chart's width: what names the chart and its series."""
    grown = [box, *(w.box for w in _title_above(box, words))]
    inside = [w for w in words if box.x0 - 2 <= w.box.x0 and w.box.x1 <= box.x1 + 2 and not box.contains(w.box)]
    below = [w for w in inside if 0 <= w.box.y0 - box.y1 <= TITLE_GAP_PT]
    if below:
        high = min(w.box.y0 for w in below)
        line = [w for w in below if abs(w.box.y0 - high) <= 2]
        if any(w.text[:1] in _SWATCHES for w in line):
            grown += [w.box for w in line]
    return union(grown) if len(grown) > 1 else box


def _title_above(box: Box, words: list[Word]) -> list[Word]:
    """The words of the chart's title: the nearest text line above it that lies within its width, is centred
    over it and is words (no table's row of figures), within ``TITLE_GAP_PT`` -- or within ``TITLE_FAR_PT``
    when only lines wider than the chart stand between (a caption shared by two charts side by side: Intel's
    "Marketing, General, and Administrative $B" stands 83 points above its short bars, under it "(Percentages
    indicate expenses ...)" spans both charts)."""
    above = [w for w in words if 0 <= box.y0 - w.box.y1 <= TITLE_FAR_PT]
    lines = [ln for ln in _text_lines(above) if any(w.box.x1 > box.x0 and w.box.x0 < box.x1 for w in ln)]
    crossed = False
    for line in sorted(lines, key=lambda ln: -max(w.box.y1 for w in ln)):
        x0, x1 = min(w.box.x0 for w in line), max(w.box.x1 for w in line)
        if x0 < box.x0 - 2 or x1 > box.x1 + 2:
            crossed = True   # wider than the chart: a shared caption or the text around it
            continue
        wordy = sum(1 for w in line if _WORDY.search(w.text)) >= 0.6 * len(line)   # no table's row of figures
        close = box.y0 - max(w.box.y1 for w in line) <= TITLE_GAP_PT
        centred = abs((x0 + x1) / 2 - (box.x0 + box.x1) / 2) <= TITLE_CENTRED * box.width
        return line if wordy and centred and x1 - x0 < 0.8 * box.width and (close or crossed) else []
    return []


def _text_lines(words: list[Word]) -> list[list[Word]]:
    """Words chained into printed lines: one baseline (within 2 points) and gaps under three word heights."""
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (round(w.box.y1), w.box.x0)):
        line = next((ln for ln in lines if abs(ln[-1].box.y1 - w.box.y1) <= 2
                     and 0 <= w.box.x0 - ln[-1].box.x1 <= 3 * max(w.box.height, ln[-1].box.height)), None)
        if line is None:
            lines.append([w])
        else:
            line.append(w)
    return lines


def _axis_labels(words: list[Word], box: Box) -> list[Word]:
    """Axis labels a little off the plot (a slide's "-3 … 3" left of its axis, its "Q1-19 … Q4-22" under it), out
    of ``_with_labels``' reach: a column of evenly stepped numbers beside the box (a value axis) or a row of
    three or more periods under it, each word within ``LABEL_GAP_PT`` of the box. A table's row of figures
    next to a chart is neither."""
    beside = [w for w in words if box.y0 <= (w.box.y0 + w.box.y1) / 2 <= box.y1
              and (0 <= box.x0 - w.box.x1 <= LABEL_GAP_PT or 0 <= w.box.x0 - box.x1 <= LABEL_GAP_PT)]
    out = [w for axis in value_axes(beside) for w in words if axis.x0 - 1 <= w.box.x0 and w.box.x1 <= axis.x1 + 1
           and _on_axis(w, axis, box)]
    under = [w for w in words if _PERIOD.match(w.text) and box.x0 <= (w.box.x0 + w.box.x1) / 2 <= box.x1
             and 0 <= w.box.y0 - box.y1 <= LABEL_GAP_PT]
    return out + (under if len(under) >= 3 else [])


def _on_axis(w: Word, axis: ValueAxis, box: Box) -> bool:
    """``axis_ends``: a word of the tick column beside the chart that is one of its ticks -- beside the box, or a step
    or two above or below it where the plot drawn stops short of the axis' ends (华福证券's dual-axis charts: "1.70"
    and "0.50" off the lines' extent, left behind as a "table" with the legend that swallowed the chart)."""
    y = (w.box.y0 + w.box.y1) / 2
    if box.y0 <= y <= box.y1:
        return True
    v = tick_value(w.text)
    reach = 2.5 * abs(axis.step / axis.b) if axis.b else 0.0   # two and a half steps, in points
    return v is not None and box.y0 - reach <= y <= box.y1 + reach and abs(axis.value(y) - v) <= 0.25 * axis.step


def _merge(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for b in sorted(blocks, key=lambda b: -b.box.area):
        if any(o.box.coverage_of(b.box) > 0.6 for o in out):
            continue
        out.append(b)
    return out


def attach_captions(blocks: list[Block]) -> None:
    """Link each figure/table to the nearest caption block above or below it (same column). ``caption_side``: where
    a page's captions stand on one side of their figures only (a white paper's "图 6" under its chart, nothing under
    it), a caption between two figures goes to the figure on that side; else the closest pairs are linked first
    (a broker note's "图表18" 17 points over its chart, not the page header's logo 29 points above it)."""
    captions = [b for b in blocks if b.kind in (BlockKind.CAPTION, BlockKind.TEXT, BlockKind.TITLE)]
    pairs: list[tuple[float, int, int, bool]] = []   # (gap, target, caption, caption below its target)
    for t, target in enumerate(blocks):
        if target.kind not in (BlockKind.FIGURE, BlockKind.TABLE):
            continue
        pattern = FIGURE_CAPTION_RE if target.kind is BlockKind.FIGURE else TABLE_CAPTION_RE
        for k, c in enumerate(captions):
            if not pattern.match(c.text.strip()) or c.box.x_overlap(target.box) <= 0:
                continue
            gap = max(target.box.y0 - c.box.y1, c.box.y0 - target.box.y1)
            below = c.box.y0 >= target.box.y1 - 1
            if target.kind is BlockKind.TABLE and below:
                gap += TABLE_CAPTION_BELOW_PT   # a table's title is printed above it; one below is the next table's
            if gap < CAPTION_GAP_PT:
                pairs.append((gap, t, k, below))
    sides: dict[int, set[bool]] = {}   # caption -> the sides of its figures it stands on
    for _, _, k, below in pairs:
        sides.setdefault(k, set()).add(below)
    votes = [next(iter(x)) for x in sides.values() if len(x) == 1]
    side = None if not votes or votes.count(True) == votes.count(False) else votes.count(True) > votes.count(False)
    linked: set[int] = set()
    used: set[int] = set()
    for _, t, k, _ in sorted(pairs, key=lambda p: (side is not None and p[3] != side, p[0])):
        if t in linked or k in used:
            continue
        linked.add(t)
        used.add(k)
        target, best = blocks[t], captions[k]
        best.kind = BlockKind.CAPTION
        target.meta["caption"] = best.text
        target.meta["caption_block"] = best.block_id
        if not target.text:
            target.text = best.text
