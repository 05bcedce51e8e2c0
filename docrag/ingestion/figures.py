"""Figure detection (embedded images and clusters of vector graphics) and caption linking.

Vector figures are found from *graphic* paths only: curves, diagonal lines and filled shapes
without text in them (bars, pie slices, chart series). Rules and frames (axis-aligned strokes) are
left to table detection; a frame tightly enclosing a cluster (a chart panel) becomes its box. A
cluster of filled rectangles one text line high repeating a few column spans is a table's row
shading (a 10-Q's statements), not a figure (:func:`is_row_shading`).
"""

from __future__ import annotations

import logging
import re

from docrag.geometry import Box, union
from docrag.ingestion.chart_marks import staircase, value_axes
from docrag.ingestion.layout import FIGURE_CAPTION_RE, TABLE_CAPTION_RE
from docrag.ingestion.textlayer import to_display_box
from docrag.types import Block, BlockKind, Word

log = logging.getLogger(__name__)

MIN_FIGURE_SIDE_PT = 24.0     # images/graphics smaller than this on either side are decoration
MIN_FIGURE_AREA = 0.008       # ... or smaller than this fraction of the page
MAX_IMAGE_AREA = 0.9          # an image covering the page is a scan or background, not a figure
BACKGROUND_AREA = 0.4         # an image this large holding most of the page's text is behind it
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


def _is_graphic(d: dict, centers, to_display) -> bool:
    """Curves, diagonal lines, lines drawn as steps, and visible filled shapes with no word centre inside them."""
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
            box = to_display(r.x0, r.y0, r.x1, r.y1)
            cx, cy = centers
            return not bool(((cx >= box.x0) & (cx <= box.x1) & (cy >= box.y0) & (cy <= box.y1)).any())
    return False


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


def is_background(box: Box, words: list[Word], page_area: float) -> bool:
    """An image behind the text (a watermark, a tinted panel): it covers much of the page and most of
    the page's text lies on it (a chart's own labels are a small share of a page's text)."""
    if box.area < BACKGROUND_AREA * page_area:
        return False
    total = sum(len(w.text) for w in words)
    inside = sum(len(w.text) for w in words
                 if box.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2))
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
                and not is_background(box, words, page_area)):
            found.append((box, "image"))
    if drawings:
        import numpy as np

        centers = (np.array([(w.box.x0 + w.box.x1) / 2 for w in words]),
                   np.array([(w.box.y0 + w.box.y1) / 2 for w in words]))
        # graphics and bars drawn as thick strokes: (drawing, half its stroke width when a bar, else 0)
        kept = [(d, half) for d in drawings if (half := _thick(d, frame.width)) or _is_graphic(d, centers, to_display)]
        graphic = [(to_display(*_grown(d["rect"], half)).expanded(0.5).clipped(), len(d.get("items", ())))
                   for d, half in kept]
        panels = _panels(drawings, to_display)
        for box, n, members in _cluster(graphic):
            if n < MIN_GRAPHIC_ITEMS or is_row_shading([_filled_rect(kept[i][0]) for i in members]) \
                    or is_header_tint([kept[i][0] for i in members]):
                continue
            panel = max((p for p in panels if p.contains(box, tol=2.0) and p.area <= 0.5 * page_area
                         and p.area <= 6 * max(box.area, 1.0)), key=lambda p: p.area, default=None)  # outer frame
            box = panel if panel is not None else _with_labels(_with_axes(box, drawings, to_display), words)
            if _big_enough(box, page_area) and box.area <= MAX_IMAGE_AREA * page_area:
                found.append((box, "drawing"))
    blocks = [Block(kind=BlockKind.FIGURE, box=box.clipped(), meta={"source": source}) for box, source in found]
    return _merge(blocks)


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


def _axis_labels(words: list[Word], box: Box) -> list[Word]:
    """Axis labels a little off the plot (a slide's "-3 … 3" left of its axis, its "Q1-19 … Q4-22" under it), out
    of ``_with_labels``' reach: a column of evenly stepped numbers beside the box (a value axis) or a row of
    three or more periods under it, each word within ``LABEL_GAP_PT`` of the box. A table's row of figures
    next to a chart is neither."""
    beside = [w for w in words if box.y0 <= (w.box.y0 + w.box.y1) / 2 <= box.y1
              and (0 <= box.x0 - w.box.x1 <= LABEL_GAP_PT or 0 <= w.box.x0 - box.x1 <= LABEL_GAP_PT)]
    out = [w for axis in value_axes(beside) for w in beside if axis.x0 - 1 <= w.box.x0 and w.box.x1 <= axis.x1 + 1]
    under = [w for w in words if _PERIOD.match(w.text) and box.x0 <= (w.box.x0 + w.box.x1) / 2 <= box.x1
             and 0 <= w.box.y0 - box.y1 <= LABEL_GAP_PT]
    return out + (under if len(under) >= 3 else [])


def _merge(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for b in sorted(blocks, key=lambda b: -b.box.area):
        if any(o.box.coverage_of(b.box) > 0.6 for o in out):
            continue
        out.append(b)
    return out


def attach_captions(blocks: list[Block]) -> None:
    """Link each figure/table to the nearest caption block above or below it (same column)."""
    captions = [b for b in blocks if b.kind in (BlockKind.CAPTION, BlockKind.TEXT, BlockKind.TITLE)]
    used: set[int] = set()
    for target in blocks:
        if target.kind not in (BlockKind.FIGURE, BlockKind.TABLE):
            continue
        pattern = FIGURE_CAPTION_RE if target.kind is BlockKind.FIGURE else TABLE_CAPTION_RE
        best, best_gap = None, CAPTION_GAP_PT
        for c in captions:
            if c.block_id in used or not pattern.match(c.text.strip()):
                continue
            if min(c.box.x1, target.box.x1) - max(c.box.x0, target.box.x0) <= 0:
                continue
            gap = max(target.box.y0 - c.box.y1, c.box.y0 - target.box.y1)
            if target.kind is BlockKind.TABLE and c.box.y0 >= target.box.y1 - 1:
                gap += TABLE_CAPTION_BELOW_PT   # a table's title is printed above it; one below is the next table's
            if gap < best_gap:
                best, best_gap = c, gap
        if best is not None:
            used.add(best.block_id)
            best.kind = BlockKind.CAPTION
            target.meta["caption"] = best.text
            target.meta["caption_block"] = best.block_id
            if not target.text:
                target.text = best.text
