"""Page images (PNG, JPEG, TIFF) as documents: one page per image (per frame for multi-page TIFF).

A page image's size in points is ``pixels * 72 / dpi``, where ``dpi`` is the image's own
resolution metadata (PNG pHYs, JPEG JFIF/EXIF, TIFF resolution) or :data:`DEFAULT_DPI` when it has
none or an implausible one. The page image is stored at its original pixel size.
"""

from __future__ import annotations

import io
from pathlib import Path

from docrag.errors import FileFailed
from docrag.ingestion.ocr import ocr_image
from docrag.ingestion.ocrpage import ocr_to_page_content
from docrag.ingestion.pdfpage import ocr_page_blocks
from docrag.ingestion.textlayer import detect_lang
from docrag.io import atomic_write_bytes
from docrag.types import Page, TextSource

DEFAULT_DPI = 144.0
MAX_IMAGE_PIXELS = 100_000_000


def image_frames(path: Path) -> int:
    """Number of frames of a page image, or ``FileFailed`` when it cannot be decoded."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            w, h = im.size
            if w * h > MAX_IMAGE_PIXELS:
                raise FileFailed(f"image is too large ({w} x {h} pixels; at most {MAX_IMAGE_PIXELS:,} pixels)")
            if w < 8 or h < 8:
                raise FileFailed(f"image is too small to be a page ({w} x {h} pixels)")
            n = int(getattr(im, "n_frames", 1) or 1)
            im.seek(n - 1)
            im.load()  # decodes the last frame: catches truncated files
    except FileFailed:
        raise
    except Image.DecompressionBombError as exc:
        raise FileFailed(f"image is a decompression bomb ({exc})") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise FileFailed(f"corrupt or truncated image ({exc})") from exc
    return n


def image_dpi(im) -> float:
    """The image's horizontal resolution in dots per inch, or :data:`DEFAULT_DPI`."""
    dpi = im.info.get("dpi")
    try:
        value = float(dpi[0]) if dpi else 0.0
    except (TypeError, ValueError, IndexError):
        value = 0.0
    if not 36.0 <= value <= 2400.0:
        return DEFAULT_DPI
    # PNG stores pixels per metre: 144 dpi reads back as 143.99, 200 as 199.9996
    return float(round(value)) if abs(value - round(value)) < 0.05 else round(value, 2)


def process_image_page(path: Path, page_no: int, staged, opts) -> Page:
    from PIL import Image

    with Image.open(path) as im:
        im.seek(page_no - 1)
        dpi = image_dpi(im)
        rgb = im.convert("RGB")
    buf = io.BytesIO()
    if opts.image_ext == "jpg":
        rgb.save(buf, format="JPEG", quality=90)
    else:
        rgb.save(buf, format="PNG", compress_level=3)
    atomic_write_bytes(staged.staged_image_path(page_no, opts.image_ext), buf.getvalue())
    w_px, h_px = rgb.size
    width_pt, height_pt = w_px * 72.0 / dpi, h_px * 72.0 / dpi
    page = Page(doc_id=staged.document.doc_id, page_no=page_no, width_pt=width_pt, height_pt=height_pt,
                rotation=0, image=staged.image_relpath(page_no, opts.image_ext), image_width=w_px,
                image_height=h_px, dpi=dpi, file_name=staged.document.file_name)
    if opts.ocr_pages:
        ocr_into(page, rgb, opts.langs)
    page.lang = detect_lang(page.text)
    return page


def ocr_into(page: Page, rgb, langs: list[str], keep_text: bool = False) -> Page:
    """OCR the page image ``rgb`` into ``page``: words with boxes and layout blocks (what grounding
    and the extractive generator need); its text too unless ``keep_text`` (a text layer that came
    with the image, such as ViDoRe V3's markdown, reads better than OCR)."""
    content = ocr_to_page_content(ocr_image(_for_ocr(rgb, page.dpi or DEFAULT_DPI), langs),
                                  page.width_pt, page.height_pt)
    page.words = content.words
    if not (keep_text and page.text.strip()):
        page.text = content.text
        page.text_source = TextSource.OCR if content.text.strip() else TextSource.NONE
    page.blocks = ocr_page_blocks(rgb, content, page.width_pt, page.height_pt)
    return page


OCR_DPI = 288               # page images are OCR'd at about this resolution (small print needs it) ...
OCR_MAX_PIXELS = 16_000_000  # ... within this many pixels


def _for_ocr(rgb, dpi: float):
    """Upscale page images below :data:`OCR_DPI` (at most 2.5x) for OCR.

    Measured on a 144-dpi census table page: word recall 0.53 as is, 0.90 at 2x. OCR boxes are
    mapped back through normalized page coordinates, so the scale never leaks out.
    """
    from PIL import Image

    gray = rgb.convert("L")
    scale = min(2.5, OCR_DPI / dpi, (OCR_MAX_PIXELS / (gray.width * gray.height)) ** 0.5)
    if scale > 1.1:
        gray = gray.resize((round(gray.width * scale), round(gray.height * scale)), Image.LANCZOS)
    return gray
