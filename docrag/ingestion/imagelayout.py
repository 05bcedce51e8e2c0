"""Table and figure regions of page *images* (scans, page PNGs) with rapid-layout's bundled model.

PDF pages with a text layer get tables and figures from their vector content (``tables.py``,
``figures.py``); an image has none, so OCR'd pages use the CDLA layout model that ships inside the
``rapid-layout`` wheel (offline). Without that package, image pages get tables from OCR word
alignment only and no figures.
"""

from __future__ import annotations

import functools
import logging

from docrag.geometry import Box
from docrag.types import Block, BlockKind

log = logging.getLogger(__name__)

MIN_SCORE = 0.5
KINDS = {"table": BlockKind.TABLE, "figure": BlockKind.FIGURE}


@functools.lru_cache(maxsize=1)
def _engine():
    try:
        from rapid_layout import RapidLayout
    except ImportError:
        log.info("rapid-layout is not installed: page images get no figure/table regions from a layout model")
        return None
    previous = logging.root.manager.disable
    logging.disable(logging.INFO)  # it logs every model load at INFO, in colour, on its own handler
    try:
        engine = RapidLayout()
    finally:
        logging.disable(previous)
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("rapid_layout"):
            logging.getLogger(name).setLevel(logging.WARNING)
    return engine


def available() -> bool:
    return _engine() is not None


def layout_blocks(image, width_pt: float, height_pt: float) -> list[Block]:
    """Table and figure blocks (page points) found in a PIL ``image`` of the whole page."""
    engine = _engine()
    if engine is None:
        return []
    out = engine(image.convert("RGB"))
    img_w, img_h = image.size
    blocks = []
    for coords, name, score in zip(out.boxes, out.class_names, out.scores, strict=False):
        kind = KINDS.get(str(name))
        if kind is None or float(score) < MIN_SCORE:
            continue
        box = Box.pixels(*(float(c) for c in coords), img_w, img_h).ordered().clipped()
        box = box.to_points(width_pt, height_pt)
        if box.is_valid():
            blocks.append(Block(kind=kind, box=box, meta={"source": "layout_model", "score": round(float(score), 3)}))
    return blocks
