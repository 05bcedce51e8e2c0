"""Bars of a chart printed as a picture, as the filled rectangles a vector chart would draw.

A chart exported as an image often prints no data label: its values exist only as the height of its bars. Its
OCR'd words give the value axis and the categories (:mod:`~docrag.ingestion.figure_ocr`); this module finds the
bars in its pixels, each a solid region of one colour (not white, light grey or the near-black of text) that
fills its bounding box, and hands them to :func:`docrag.ingestion.chart_marks.read_series` as fills, so a
picture's bars are read like a drawing's (the same value axis, baseline, category and legend checks; lines are
not read from pixels). The values are approximate by construction and quoted as read off the drawing.
"""

from __future__ import annotations

import logging
from typing import Any

from docrag.geometry import Box

log = logging.getLogger(__name__)

COLOUR_STEP = 24          # colours are told apart in steps of this many levels per channel (anti-aliasing)
MIN_COLOUR_SHARE = 0.0015  # a colour covering less of the picture paints no bar
MIN_SIDE_PX = 4           # a bar is at least this many pixels wide and high (a grid line's dash is less)
MIN_FILL = 0.85           # a bar's pixels fill at least this share of its bounding box
LIGHT_GREY = 200          # every channel at or above this, nearly equal: paper or a grid line
DARK = 90                 # every channel below this, nearly equal: text


def bar_fills(image: Any, box: Box) -> list[dict]:
    """The solid rectangles of ``image`` (a PIL image of ``box``, page points) as PyMuPDF-style fills
    (``{"type": "f", "items": [("re", rect, 1)], "rect": rect, "fill": (r, g, b)}``, page points, colours 0..1)."""
    import numpy as np
    import pymupdf
    from scipy import ndimage

    px = np.asarray(image.convert("RGB")).astype(np.int16)
    height, width, _ = px.shape
    hi, lo = px.max(axis=2), px.min(axis=2)
    ink = ~(((lo >= LIGHT_GREY) & (hi - lo < 16)) | ((hi < DARK) & (hi - lo < 30)))
    level = px // COLOUR_STEP
    key = np.where(ink, level[..., 0] * 1024 + level[..., 1] * 32 + level[..., 2], -1)
    colours, counts = np.unique(key[key >= 0], return_counts=True)
    sx, sy = box.width / width, box.height / height
    out: list[dict] = []
    for colour, count in zip(colours, counts, strict=True):
        if count < MIN_COLOUR_SHARE * width * height:
            continue
        painted = key == colour
        fill = tuple(float(c) / 255 for c in px[painted].mean(axis=0))   # one colour for all its bars
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
    return out


__all__ = ["bar_fills"]
