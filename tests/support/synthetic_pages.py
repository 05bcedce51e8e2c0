"""Pages with known regions, built in a temp folder (no corpus, no PDF needed).

``make_page(folder, regions)`` draws each region as a solid rectangle of its own colour on a white
page image rendered at ``dpi`` and returns a :class:`docrag.types.Page` whose layout blocks are
those regions (in PDF points). ``color_box(image, rgb)`` finds the pixel box of a colour in an image
as a model server would see it -- after any resizing the client did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from docrag.types import Block, BlockKind, Page


@dataclass
class Region:
    box_pt: tuple[float, float, float, float]
    color: tuple[int, int, int]
    text: str = ""
    kind: BlockKind = BlockKind.TEXT


def make_page(folder: Path, regions: list[Region], *, doc_id: str = "doc0", page_no: int = 1,
              width_pt: float = 612.0, height_pt: float = 792.0, dpi: float = 144.0,
              file_name: str = "synthetic.pdf") -> Page:
    """A page image with one filled rectangle per region, and the regions as its layout blocks."""
    scale = dpi / 72.0
    w, h = round(width_pt * scale), round(height_pt * scale)
    image = Image.new("RGB", (w, h), "white")
    draw = ImageDraw.Draw(image)
    for r in regions:
        x0, y0, x1, y1 = (v * scale for v in r.box_pt)
        draw.rectangle([round(x0), round(y0), round(x1) - 1, round(y1) - 1], fill=r.color)
    rel = f"{doc_id}_p{page_no:04d}.png"
    folder.mkdir(parents=True, exist_ok=True)
    image.save(folder / rel)
    page = Page(doc_id=doc_id, page_no=page_no, width_pt=width_pt, height_pt=height_pt, image=rel,
                image_width=w, image_height=h, dpi=dpi, file_name=file_name, root=folder,
                text=" ".join(r.text for r in regions))
    page.blocks = [Block(r.kind, page.box_pt(*r.box_pt), r.text, block_id=i) for i, r in enumerate(regions)]
    return page


def color_box(image: Image.Image, rgb: tuple[int, int, int], tol: int = 40) -> tuple[int, int, int, int] | None:
    """Pixel box ``(x0, y0, x1, y1)`` (x1/y1 exclusive) of the pixels close to ``rgb``, or None."""
    a = np.asarray(image.convert("RGB"), dtype=np.int16)
    mask = (np.abs(a - np.array(rgb, dtype=np.int16)).max(axis=2) <= tol)
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
