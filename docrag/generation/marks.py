"""Region-ID citing (set-of-mark prompting): numbered marks on the page images a model is sent.

Models' own coordinates are unreliable (ViDoRe V3: best VLMs pixel F1 0.089, humans 0.602), so with
``cite_by="regions"`` the model points at regions the system already knows instead of drawing
boxes. :func:`mark_images` draws each page's :func:`docrag.regions.page_regions` on a *copy* of the
image that is sent (a thin coloured outline, its number in a small filled tag at the top-left
corner; the stored page image is never touched), and :func:`region_listing` is the text the prompt
puts under each image: every region's number, kind and first words. The reply names region numbers
per image; :mod:`docrag.generation.parse_regions` maps them back to the regions' exact boxes.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from PIL import Image, ImageDraw, ImageFont

from docrag.errors import InputError
from docrag.generation.images import SentImage
from docrag.generation.registry import takes_option
from docrag.geometry import Box
from docrag.regions import CHART, TABLE, TITLE, Region, page_regions

log = logging.getLogger(__name__)

#: How a vision generator asks for citations: region numbers on marked images, or boxes.
CITE_BY = ("regions", "boxes")
DEFAULT_CITE_BY = "regions"
FIRST_WORDS = 8                   # words of a region shown in the prompt (CJK: 3 characters a word)
#: Distinct, saturated outline colours (cycled by region number), each legible under white digits.
PALETTE: tuple[tuple[int, int, int], ...] = (
    (230, 25, 75), (0, 130, 200), (60, 160, 40), (245, 130, 48), (145, 30, 180),
    (0, 150, 150), (200, 30, 200), (128, 90, 20))
_TICK = re.compile(r"[-+$€£¥%.,\d]+|\w")   # an axis tick value or a one-letter label (J F M A ...)
#: The kind a region is called in the prompt, where it differs from :mod:`docrag.regions`' name.
PROMPT_KIND = {TITLE: "heading"}


def check_cite_by(value: str, where: str = "cite_by") -> str:
    """``value`` if it is ``regions`` or ``boxes`` (case-insensitive), else a clear error."""
    v = str(value).strip().lower()
    if v not in CITE_BY:
        raise InputError(f"{where} = {value!r}: use one of {', '.join(CITE_BY)}")
    return v


def cite_by_options(cite_by: str | None, generator: str) -> dict[str, str]:
    """Generator options for a ``--cite-by`` value: ``{"cite_by": ...}`` for generators whose registry
    entry takes it (``openai:``, ``qwen-vl:``), ``{}`` when none was given or the generator reads
    text only (the viewer picks generators per question)."""
    if cite_by is None:
        return {}
    value = check_cite_by(cite_by, "--cite-by")
    return {"cite_by": value} if takes_option(generator, "cite_by") else {}


def line_width(size: tuple[int, int]) -> int:
    """Outline width in pixels: 2 up to 1600 px on the longest side (the default 1024 x 768), else 3."""
    return 2 if max(size) <= 1600 else 3


def label_font(size: tuple[int, int]) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The label font: about 1/56 of the image's longest side, at least 12 px tall."""
    px = max(12, round(max(size) / 56))
    try:
        return ImageFont.load_default(size=px)
    except (ImportError, OSError, TypeError) as exc:   # Pillow without FreeType: the small bitmap font
        log.warning("no scalable font for region labels (%s); using Pillow's bitmap font", exc)
        return ImageFont.load_default()


def region_pixels(region: Region, size: tuple[int, int]) -> Box:
    """The region's box in pixels of an image of ``size`` showing the whole page."""
    return region.box.to_pixels(*size).ordered().clipped()


def draw_marks(image: Image.Image, regions: Sequence[Region]) -> Image.Image:
    """A copy of ``image`` (the whole page) with every region outlined and numbered.

    The tag sits just left of the region's top-left corner when the margin there is free (the text
    stays unobstructed), else inside that corner."""
    out = image.convert("RGB").copy()
    if not regions:
        return out
    draw = ImageDraw.Draw(out)
    size = out.size
    lw = line_width(size)
    font = label_font(size)
    boxes = [region_pixels(r, size) for r in regions]
    for r, px in zip(regions, boxes, strict=True):
        if px.is_valid():
            draw.rectangle(px.coords, outline=PALETTE[(r.number - 1) % len(PALETTE)], width=lw)
    for r, px in zip(regions, boxes, strict=True):
        if not px.is_valid():
            continue
        text = str(r.number)
        bx0, by0, bx1, by1 = draw.textbbox((0, 0), text, font=font)
        tw, th = bx1 - bx0 + 6, by1 - by0 + 4
        tag = (px.x0 - tw - 1, px.y0, px.x0 - 1, px.y0 + th)
        if tag[0] < 0 or any(_overlaps(tag, o) for o in boxes if o is not px):
            tag = (px.x0, px.y0, px.x0 + tw, px.y0 + th)
        draw.rectangle(tag, fill=PALETTE[(r.number - 1) % len(PALETTE)])
        draw.text((tag[0] + 3 - bx0, tag[1] + 2 - by0), text, fill=(255, 255, 255), font=font)
    return out


def _overlaps(tag: tuple[float, float, float, float], box: Box) -> bool:
    return tag[0] < box.x1 and box.x0 < tag[2] and tag[1] < box.y1 and box.y0 < tag[3]


def mark_images(images: Sequence[SentImage]) -> list[SentImage]:
    """Each sent image replaced by a marked copy carrying its page's regions (the page is unchanged)."""
    out = []
    for img in images:
        regions = tuple(page_regions(img.page))
        out.append(replace(img, image=draw_marks(img.image, regions), regions=regions))
    return out


def first_words(region: Region, n: int = FIRST_WORDS) -> str:
    """The first ``n`` words (CJK: ``3 * n`` characters) of a table's or chart's caption, else of the
    region's text (an uncaptioned chart's without its tick values and one-letter labels); ``...``
    when there is more, table cell bars and double quotes left out."""
    source = region.label if region.kind in (TABLE, CHART) and region.label else region.text
    if region.kind == CHART and not region.label:
        source = " ".join(t for t in source.split() if not _TICK.fullmatch(t)) or source
    clean = " ".join(_printable(source).replace("|", " ").replace('"', "'").split())
    head = replace(region, label="", text=clean).first_words(n)
    more = len(head) < len(" ".join(_printable(region.text).split()))
    return head + ("..." if more else "")


def _printable(text: str) -> str:
    """``text`` without control, format and private-use characters (a PDF's bullet glyphs)."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") else ch for ch in text)


def region_listing(index: int, regions: Sequence[Region]) -> str:
    """The prompt text under image ``index``: one line per region, ``#3 table: "first words..."``."""
    if not regions:
        return (f"Regions of image {index}: none are marked on this image; "
                "if it holds evidence, box it under \"coordinates\".")
    lines = [f"Regions of image {index} (number, kind, first words):"]
    lines += [f"#{r.number} {PROMPT_KIND.get(r.kind, r.kind)}: " + (f'"{words}"' if (words := first_words(r))
                                                                   else "(no text)") for r in regions]
    return "\n".join(lines)
