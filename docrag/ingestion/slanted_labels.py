"""Category labels a picture chart sets at a slant, read by OCR of the band under its plot turned level.

A chart of thirty provinces (中国信通院's "2020年中国部分省份算力规模") sets its names at 45°, rising to the right; OCR
reads no slanted word, so the bars have no names and nothing is read off the picture. When a picture chart has a
value axis and no row of labels under it, the band under its lowest tick is turned 45° clockwise (the labels then
lie level), OCR'd, and each word is put back where its end meets the axis: its tick. The words come back as a row of
small boxes at those ticks, one word per label, which :func:`docrag.ingestion.chart_marks.read_series` reads as
the chart's categories.
"""

from __future__ import annotations

import logging
import math
from statistics import median
from typing import Any

from docrag.geometry import Box
from docrag.ingestion import chart_marks
from docrag.ingestion.ocr import ocr_image
from docrag.types import Word

log = logging.getLogger(__name__)

SLANT_DEG = 45.0           # the labels' slant (Excel's default for crowded categories), rising to the right
MIN_BAND_PT = 12.0         # a band under the plot lower than this holds no slanted label
MIN_LABELS = 4             # fewer level words than this: no slanted labels were found


def _level_words(foot: float, axes: list[chart_marks.ValueAxis], words: list[Word]) -> int:
    """How many words lie under the plot's foot, right of its value axis: labels set level (dates too)."""
    left = axes[0].x1
    return sum(1 for w in words if w.box.y0 >= foot - 3 and w.box.x0 > left)


def slanted_labels(image: Any, box: Box, words: list[Word], langs: list[str], foot: float | None = None) -> list[Word]:
    """The slanted category labels of picture chart ``image`` (a PIL image of ``box``, page points) whose OCR'd
    ``words`` give a value axis but no level label row; [] when there is no such band or nothing is read in it.
    ``foot`` given (the top of a drawing's outlined labels, rule 256), the band under it is read, axis or not."""
    if foot is None:
        axes = chart_marks.value_axes(words)
        if not axes:
            return []
        foot = max(a.y_bottom for a in axes)
        if _level_words(foot, axes, words) >= MIN_LABELS:
            return []
    if box.y1 - foot < MIN_BAND_PT:
        return []
    sx, sy = image.size[0] / box.width, image.size[1] / box.height
    top = int((foot - box.y0) * sy)
    band = image.crop((0, top, image.size[0], image.size[1]))
    turned = band.rotate(-SLANT_DEG, expand=True, fillcolor="white")
    t = math.radians(-SLANT_DEG)
    (bw, bh), (tw, th) = band.size, turned.size
    anchors: list[tuple[str, float, float]] = []
    for line in ocr_image(turned, langs, sparse=True).lines:
        for w in line.words:
            x1, y1, x2, y2 = w.box
            text = w.text.strip()
            if not text or chart_marks.tick_value(text) is not None:
                continue
            dx, dy = x2 - tw / 2, (y1 + y2) / 2 - th / 2   # the word's end: where it meets its tick
            px = dx * math.cos(t) - dy * math.sin(t) + bw / 2
            py = dx * math.sin(t) + dy * math.cos(t) + bh / 2
            if 0 <= px <= bw and 0 <= py <= bh:
                anchors.append((text, box.x0 + px / sx, foot + py / sy))
    if len(anchors) < MIN_LABELS:
        return []
    anchors.sort(key=lambda a: a[1])
    gap = median(b[1] - a[1] for a, b in zip(anchors, anchors[1:], strict=False)) or 1.0
    y = median(a[2] for a in anchors)   # one row, as level labels would stand
    log.debug("picture chart %s: %d slanted labels", box, len(anchors))
    return [Word(text, Box.points(x - 0.3 * gap, y, x + 0.3 * gap, y + 0.3 * gap, *box.extent).clipped())
            for text, x, _ in anchors]


__all__ = ["slanted_labels"]
