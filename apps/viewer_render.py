"""Images for the viewer: page images with boxes drawn on them, and crops of cited boxes.

Boxes arrive in any :class:`~docrag.geometry.Space` (citations and gold boxes are stored in the
page's PDF points); they are mapped onto the image with ``Box.to_pixels`` only, so this module
never does coordinate arithmetic of its own beyond drawing.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docrag.geometry import Box, fit_within
from docrag.io import atomic_write_bytes

if TYPE_CHECKING:
    from PIL import Image

    from docrag.types import Page

PRED_COLOR = (220, 38, 38)     # red: what the model cited
GOLD_COLOR = (22, 163, 74)     # green: the gold evidence
FOCUS_COLOR = (234, 179, 8)    # amber: the matched lines, cells or words inside a cited region

MAX_DISPLAY_SIDE = 1400        # longest side of an image sent to the browser
MIN_CROP_SIDE = 4              # crops smaller than this (pixels) are padded up to it


@dataclass(frozen=True)
class StyledBox:
    """A box to draw, with its colour and a short label (e.g. ``"1"`` or ``"gold"``)."""

    box: Box
    color: tuple[int, int, int]
    label: str = ""
    dashed: bool = False


def _line_width(img_w: int, img_h: int) -> int:
    return max(2, round(max(img_w, img_h) / 400))


def _dashed_rectangle(draw, xy: tuple[float, float, float, float], color, width: int) -> None:
    x0, y0, x1, y1 = xy
    dash = max(6, width * 4)
    for start, end, fixed, horizontal in ((x0, x1, y0, True), (x0, x1, y1, True),
                                          (y0, y1, x0, False), (y0, y1, x1, False)):
        pos = start
        while pos < end:
            stop = min(pos + dash, end)
            seg = (pos, fixed, stop, fixed) if horizontal else (fixed, pos, fixed, stop)
            draw.line(seg, fill=color, width=width)
            pos += 2 * dash


def draw_boxes(image: Image.Image, boxes: Sequence[StyledBox]) -> Image.Image:
    """A copy of ``image`` with every box outlined (translucent fill) and labelled."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    base = image.convert("RGBA")
    overlay = base.copy()
    overlay.putalpha(0)
    fill_draw = ImageDraw.Draw(overlay)
    w, h = base.size
    pixel_boxes = [(sb, sb.box.to_pixels(w, h).ordered().clipped()) for sb in boxes]
    for sb, px in pixel_boxes:
        if px.is_valid():
            fill_draw.rectangle(px.coords, fill=(*sb.color, 40))
    out = PILImage.alpha_composite(base, overlay)
    draw = ImageDraw.Draw(out)
    lw = _line_width(w, h)
    font = label_font(w, h)
    for sb, px in pixel_boxes:
        if not px.is_valid():
            continue
        if sb.dashed:
            _dashed_rectangle(draw, px.coords, sb.color, lw)
        else:
            draw.rectangle(px.coords, outline=sb.color, width=lw)
        if sb.label:
            _label(draw, px, sb, font, w, h, lw)
    return out.convert("RGB")


def label_font(img_w: int, img_h: int):
    """A font whose height is about 1.6% of the page's longest side (>= 14 px): legible once the
    page is scaled to the browser, where the old fixed 10-px bitmap font was a few pixels tall."""
    from PIL import ImageFont

    size = max(14, round(max(img_w, img_h) / 60))
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: only the small bitmap font
        return ImageFont.load_default()


def _label(draw, px: Box, sb: StyledBox, font, img_w: int, img_h: int, lw: int) -> None:
    """A filled tag with the label: predicted labels above the box's top-left corner, gold ones
    below its bottom-left corner (so ``1`` and ``gold`` on the same box never overlap); kept on the page."""
    x0, y0, x1, y1 = draw.textbbox((0, 0), sb.label, font=font)
    tw, th = x1 - x0 + 8, y1 - y0 + 6
    tx = min(max(0.0, px.x0), max(0.0, img_w - tw))
    if sb.dashed:  # gold: under the box, or inside its bottom edge at the page bottom
        ty = px.y1 + lw if px.y1 + lw + th <= img_h else px.y1 - th
    else:
        ty = px.y0 - th - lw if px.y0 - th - lw >= 0 else px.y0
    draw.rectangle((tx, ty, tx + tw, ty + th), fill=sb.color)
    draw.text((tx + 4 - x0, ty + 3 - y0), sb.label, fill=(255, 255, 255), font=font)


def fit_for_display(image: Image.Image, max_side: int = MAX_DISPLAY_SIDE) -> Image.Image:
    """Downscale (never upscale) so the longest side is at most ``max_side`` pixels."""
    size = fit_within(image.width, image.height, max_side, max_side)
    return image if size == image.size else image.resize(size)


def annotate_page(page: Page, predicted: Sequence[Box] = (), gold: Sequence[Box] = (),
                  max_side: int = MAX_DISPLAY_SIDE, focus: Sequence[Box] = ()) -> Image.Image:
    """The page image with gold boxes (green, dashed), predicted boxes (red, numbered) and the
    focus boxes inside them (amber highlight: the matched lines, cells or words)."""
    styled = [StyledBox(b, GOLD_COLOR, "gold", dashed=True) for b in gold]
    styled += [StyledBox(b, FOCUS_COLOR) for b in focus]
    styled += [StyledBox(b, PRED_COLOR, str(i)) for i, b in enumerate(predicted, start=1)]
    return fit_for_display(draw_boxes(page.load_image(), styled), max_side)


def crop_box(image: Image.Image, box: Box, margin_px: int = 4) -> Image.Image | None:
    """The region of ``box`` cut from ``image`` at the image's own resolution (None if empty)."""
    px = box.to_pixels(image.width, image.height).ordered().expanded(margin_px).clipped()
    if not px.is_valid():
        return None
    x0, y0 = int(px.x0), int(px.y0)
    x1 = max(int(round(px.x1)), x0 + MIN_CROP_SIDE)
    y1 = max(int(round(px.y1)), y0 + MIN_CROP_SIDE)
    return image.crop((x0, y0, min(x1, image.width), min(y1, image.height)))


def page_crops(page: Page, boxes: Sequence[Box], max_side: int = MAX_DISPLAY_SIDE) -> list[Image.Image]:
    """Crops of ``boxes`` from the page image (boxes that fall outside the page are skipped)."""
    if not boxes:
        return []
    image = page.load_image()
    crops = (crop_box(image, b) for b in boxes)
    return [fit_for_display(c, max_side) for c in crops if c is not None]


def thumbnail(page: Page, max_side: int = 480) -> Image.Image:
    """A small image of the whole page (for the list of retrieved pages)."""
    return fit_for_display(page.load_image(), max_side)


def gallery_files(items: Sequence[tuple[Image.Image, str]], folder: Path | None = None) -> list[tuple[str, str]]:
    """Gallery items ``(image, caption)`` as ``(path, caption)``: each image written once as a PNG named by its
    content (atomically; the same picture shown again reuses the file). Gradio copies a file into its cache
    under a temporary name and renames it, but rewrites a PIL image's cache file in place each time one is
    shown, so a browser still fetching the first copy got a truncated file ("Too little data for declared
    Content-Length", gradio-app/gradio#10591)."""
    folder = folder or Path(tempfile.gettempdir()) / "docrag-viewer"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for image, caption in items:
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        data = buf.getvalue()
        path = folder / f"{hashlib.sha256(data).hexdigest()[:32]}.png"
        if not path.exists():
            atomic_write_bytes(path, data)
        out.append((str(path), caption))
    return out
