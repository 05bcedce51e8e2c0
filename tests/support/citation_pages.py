"""Pages for citation tests: synthetic PNG pages, and real PDF pages rendered with PyMuPDF.

``render_pdf_pages`` is a small stand-in for ingestion (page image at ``dpi`` + text-layer words in
POINT space) so citation tests do not depend on the OCR/layout stack.
"""

from __future__ import annotations

from pathlib import Path

from docrag.geometry import Box
from docrag.types import Page, TextSource, Word


def synthetic_page(root: Path, doc_id: str = "doc", page_no: int = 1, *, width_pt: float = 612.0,
                   height_pt: float = 792.0, dpi: float = 144.0, words: list[tuple] | None = None,
                   color: tuple[int, int, int] = (255, 255, 255)) -> Page:
    """A page with a flat PNG (each pixel's red channel = x % 256, green = y % 256) and words given
    as ``(x0, y0, x1, y1, text)`` in points."""
    import numpy as np
    from PIL import Image

    w_px, h_px = round(width_pt * dpi / 72), round(height_pt * dpi / 72)
    xs = np.arange(w_px) % 256
    ys = np.arange(h_px) % 256
    arr = np.zeros((h_px, w_px, 3), dtype=np.uint8)
    arr[..., 0] = xs[None, :]
    arr[..., 1] = ys[:, None]
    arr[..., 2] = (page_no * 40) % 256
    rel = f"docs/{doc_id}/images/p{page_no:04d}.png"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(root / rel)
    page_words = [Word(t, Box.points(x0, y0, x1, y1, width_pt, height_pt)) for x0, y0, x1, y1, t in (words or [])]
    return Page(doc_id=doc_id, page_no=page_no, width_pt=width_pt, height_pt=height_pt, image=rel,
                image_width=w_px, image_height=h_px, dpi=dpi, text=" ".join(w.text for w in page_words),
                text_source=TextSource.PDF if page_words else TextSource.NONE, words=page_words,
                file_name=f"{doc_id}.pdf", root=root)


def render_pdf_pages(pdf: Path, root: Path, doc_id: str, dpi: float = 144.0) -> list[Page]:
    """Render every page of ``pdf`` into ``root`` and return Page records with text-layer words."""
    import fitz

    out = []
    with fitz.open(pdf) as doc:
        for i, pg in enumerate(doc, 1):
            rel = f"docs/{doc_id}/images/p{i:04d}.png"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            pix = pg.get_pixmap(dpi=dpi, alpha=False)
            pix.save(root / rel)
            w, h = pg.rect.width, pg.rect.height
            words = [Word(t, Box.points(x0, y0, x1, y1, w, h).ordered().clipped())
                     for x0, y0, x1, y1, t, *_ in pg.get_text("words")]
            words = [wd for wd in words if wd.box.is_valid()]
            out.append(Page(doc_id=doc_id, page_no=i, width_pt=w, height_pt=h, rotation=pg.rotation,
                            image=rel, image_width=pix.width, image_height=pix.height, dpi=dpi,
                            text=" ".join(wd.text for wd in words), text_source=TextSource.PDF,
                            words=words, file_name=pdf.name, root=root))
    return out
