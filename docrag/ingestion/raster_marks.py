"""Bars and lines of a chart printed as a picture, as the filled rectangles and strokes a vector chart would draw.

A chart exported as an image often prints no data label: its values exist only as the height of its bars or
the course of its lines. Its OCR'd words give the value axis and the categories
(:mod:`~docrag.ingestion.figure_ocr`); this module finds the bars in its pixels, each a solid region of one colour
(not white, light grey or the near-black of text) that fills its bounding box, and the lines, thin regions of one
colour spanning the plot, traced column by column; it hands them to
:func:`docrag.ingestion.chart_marks.read_series` as fills and strokes, so a picture is read like a drawing (the
same value axis, baseline, category and legend checks). The values are approximate by construction and quoted as
read off the drawing.
"""

from __future__ import annotations

import logging
from typing import Any

from docrag.geometry import Box

log = logging.getLogger(__name__)

COLOUR_STEP = 24          # colours are told apart in steps of this many levels per channel (anti-aliasing)
MIN_COLOUR_SHARE = 0.0015  # a colour covering less of the picture paints no bar
MIN_SIDE_PX = 4           # a bar is at least this many pixels wide and high (a grid line's dash is less)
TINT_STEP = 0.15          # pieces of one bar under a watermark differ by at most this much per channel (0..1) ...
SIDE_PT = 1.5             # ... line up within this many points ...
EDGE_PT = 4.0             # ... and lie at most this many points apart end to end (a line crossing the bar)
MIN_FILL = 0.85           # a bar's pixels fill at least this share of its bounding box
LIGHT_GREY = 200          # every channel at or above this, nearly equal: paper or a grid line
DARK = 90                 # every channel below this, nearly equal: text
MIN_LINE_SHARE = 0.3      # a line's pieces span at least this share of the picture's width ...
MIN_PIECE_SHARE = 0.05    # ... each piece at least this share wide ...
MAX_LINE_FILL = 0.5       # ... and thin: its pixels fill less than this share of its bounding box
LINE_STEP_PT = 1.0        # a line is traced every this many points ...
LINE_TOLERANCE_PT = 0.3   # ... and kept where it turns by more than this (its corners)
MAX_SAMPLE_PX = 8         # a legend's sample of a line: a stroke at most this many pixels high, longer than that ...
MAX_SAMPLE_SHARE = 0.15   # ... and at most this share of the picture's width


def picture_marks(image: Any, box: Box) -> list[dict]:
    """:func:`bar_fills` and :func:`line_strokes` of ``image`` from one pass over its colours."""
    colours = _colours(image)
    return _bars(colours, box) + _lines(colours, box)


def bar_fills(image: Any, box: Box) -> list[dict]:
    """The solid rectangles of ``image`` (a PIL image of ``box``, page points) as PyMuPDF-style fills
    (``{"type": "f", "items": [("re", rect, 1)], "rect": rect, "fill": (r, g, b)}``, page points, colours 0..1)."""
    return _bars(_colours(image), box)


def line_strokes(image: Any, box: Box) -> list[dict]:
    """The lines of ``image`` (a PIL image of ``box``, page points) as PyMuPDF-style strokes
    (``{"type": "s", "items": [("l", p, q), ...], "rect": rect, "color": (r, g, b)}``): per colour, its thin
    regions spanning at least :data:`MIN_LINE_SHARE` of the picture's width together (a line broken where another
    crosses it), traced by the middle of their pixels in each column of pixels, and its legend samples (short
    horizontal strokes of its colour)."""
    return _lines(_colours(image), box)


def _bars(colours: list[tuple[Any, tuple]], box: Box) -> list[dict]:
    import pymupdf
    from scipy import ndimage

    out: list[dict] = []
    for painted, fill in colours:   # one colour for all its bars
        height, width = painted.shape
        sx, sy = box.width / width, box.height / height
        labels, _ = ndimage.label(painted)
        for i, found in enumerate(ndimage.find_objects(labels), 1):
            if found is None:
                continue
            ys, xs = found
            h, w = ys.stop - ys.start, xs.stop - xs.start
            region = labels[found] == i
            if w < MIN_SIDE_PX or h < MIN_SIDE_PX or region.sum() < MIN_FILL * h * w:
                continue
            rect = pymupdf.Rect(box.x0 + xs.start * sx, box.y0 + ys.start * sy,
                                box.x0 + xs.stop * sx, box.y0 + ys.stop * sy)
            out.append({"type": "f", "items": [("re", rect, 1)], "rect": rect, "fill": fill})
    log.debug("picture chart %s: %d solid rectangles", box, len(out))
    return _join_tints(out)


def _join_tints(fills: list[dict]) -> list[dict]:
    """Bars a watermark printed over or a line crosses, split into pieces of nearly one colour (each channel within
    :data:`TINT_STEP`), joined again: pieces of one width (edges within :data:`SIDE_PT`) that touch end to end or lie
    at most :data:`EDGE_PT` apart are one bar, of the colour of its tallest piece (the segments of a stacked column
    differ by more than a tint). Pieces are grouped by their left edge, then joined top down: linear in the fills."""
    out: list[dict] = []
    group: list[dict] = []
    for f in sorted(fills, key=lambda f: f["rect"].x0) + [None]:
        if f is not None and (not group or f["rect"].x0 - group[-1]["rect"].x0 <= SIDE_PT):
            group.append(f)
            continue
        joined: list[dict] = []
        for g in sorted(group, key=lambda g: g["rect"].y0):
            k = next((k for k in range(len(joined) - 1, -1, -1)
                      if abs(joined[k]["rect"].x1 - g["rect"].x1) <= SIDE_PT), None)   # the piece above, same width
            prev = joined[k] if k is not None else None
            if prev is not None and -SIDE_PT <= g["rect"].y0 - prev["rect"].y1 <= EDGE_PT \
                    and max(abs(x - y) for x, y in zip(prev["fill"], g["fill"], strict=True)) <= TINT_STEP:
                rect = prev["rect"] | g["rect"]
                fill = prev["fill"] if prev["rect"].height >= g["rect"].height else g["fill"]
                joined[k] = {"type": "f", "items": [("re", rect, 1)], "rect": rect, "fill": fill}
            else:
                joined.append(g)
        out.extend(joined)
        group = [f] if f is not None else []
    return out


def _lines(colours: list[tuple[Any, tuple]], box: Box) -> list[dict]:
    import numpy as np
    import pymupdf
    from scipy import ndimage

    out: list[dict] = []
    for painted, colour_of in colours:
        height, width = painted.shape
        sx, sy = box.width / width, box.height / height
        labels, _ = ndimage.label(painted, structure=np.ones((3, 3)))
        thin = np.zeros_like(painted)
        samples = []
        for i, found in enumerate(ndimage.find_objects(labels), 1):
            ys, xs = found
            h, w = ys.stop - ys.start, xs.stop - xs.start
            region = labels[found] == i
            if w >= MIN_PIECE_SHARE * width and region.sum() < MAX_LINE_FILL * h * w:
                thin[found] |= region
            elif h <= MAX_SAMPLE_PX and MAX_SAMPLE_PX < w <= MAX_SAMPLE_SHARE * width:   # a legend's short line
                samples.append((xs.start, xs.stop, (ys.start + ys.stop) / 2))
        columns = np.flatnonzero(thin.any(axis=0))
        if columns.size < MIN_LINE_SHARE * width:
            continue
        for x0, x1, cy in samples:
            a, b = (pymupdf.Point(box.x0 + x * sx, box.y0 + cy * sy) for x in (x0, x1))
            out.append({"type": "s", "items": [("l", a, b)], "rect": pymupdf.Rect(a.x, a.y, b.x, b.y),
                        "color": colour_of, "width": 1.0})
        step = max(1, round(LINE_STEP_PT / sx))
        traced = [(box.x0 + (x + 0.5) * sx, box.y0 + (float(np.flatnonzero(thin[:, x]).mean()) + 0.5) * sy)
                  for x in columns[::step]]
        pts = [pymupdf.Point(x, y) for x, y in _simplified(traced, LINE_TOLERANCE_PT)]
        items = [("l", a, b) for a, b in zip(pts, pts[1:], strict=False)]
        rect = pymupdf.Rect(min(p.x for p in pts), min(p.y for p in pts), max(p.x for p in pts), max(p.y for p in pts))
        out.append({"type": "s", "items": items, "rect": rect, "color": colour_of, "width": 1.0})
    log.debug("picture chart %s: %d lines", box, len(out))
    return out


def _simplified(points: list[tuple[float, float]], tolerance: float) -> list[tuple[float, float]]:
    """A traced line's corners (Ramer-Douglas-Peucker): the points off the straight run between kept ones by more
    than ``tolerance``, so a gently sloped line keeps sloped segments and its turning points."""
    keep = {0, len(points) - 1}
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        (x0, y0), (x1, y1) = points[i], points[j]
        far, at = 0.0, -1
        for k in range(i + 1, j):
            x, y = points[k]
            off = abs(y - (y0 + (y1 - y0) * (x - x0) / (x1 - x0))) if x1 != x0 else abs(y - y0)
            if off > far:
                far, at = off, k
        if far > tolerance:
            keep.add(at)
            stack.extend([(i, at), (at, j)])
    return [points[k] for k in sorted(keep)]


def _colours(image: Any) -> list[tuple[Any, tuple]]:
    """The picture's colours that may paint a mark: per colour (channels in steps of :data:`COLOUR_STEP`; not
    paper, light grey or near-black text and axes) covering :data:`MIN_COLOUR_SHARE` of it or more, the mask of
    its pixels and its mean colour (0..1)."""
    import numpy as np

    px = np.asarray(image.convert("RGB")).astype(np.int16)
    hi, lo = px.max(axis=2), px.min(axis=2)
    ink = ~(((lo >= LIGHT_GREY) & (hi - lo < 16)) | ((hi < DARK) & (hi - lo < 30)))
    level = px // COLOUR_STEP
    key = np.where(ink, level[..., 0] * 1024 + level[..., 1] * 32 + level[..., 2], -1)
    keys, counts = np.unique(key[key >= 0], return_counts=True)
    out = []
    for colour, count in zip(keys, counts, strict=True):
        if count >= MIN_COLOUR_SHARE * key.size:
            painted = key == colour
            out.append((painted, tuple(float(c) / 255 for c in px[painted].mean(axis=0))))
    return out


__all__ = ["bar_fills", "line_strokes", "picture_marks"]
