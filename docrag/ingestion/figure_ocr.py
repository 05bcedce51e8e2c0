"""Words of figures drawn as pictures: charts exported as images carry their title, axis text and data
labels only as pixels. Such a figure (an embedded image with almost no text-layer words inside) is OCR'd
from a rendering of its area, so its words can be searched, read by the offline generator and found by
grounding. Measured on the real dev set (BENCHMARKS.md, "Charts drawn as images").
"""

from __future__ import annotations

import logging

from docrag.geometry import Box
from docrag.ingestion import chart_marks
from docrag.ingestion.ocr import ocr_image
from docrag.ingestion.ocrpage import ocr_to_page_content
from docrag.ingestion.raster_marks import bar_fills
from docrag.ingestion.textlayer import join_words, word_lines
from docrag.types import Block, Word

log = logging.getLogger(__name__)

FIGURE_OCR_DPI = 200        # chart labels are small: read them at this resolution ...
FIGURE_OCR_MAX_PIXELS = 2_500_000   # ... unless the figure is large (a slide's chart): then at this many pixels
MAX_WORDS_INSIDE = 2        # a figure with more text-layer words inside is a vector chart with readable text
MAX_FIGURES_PER_PAGE = 6    # OCR cost stays bounded on pages of thumbnails
MIN_SIDE_PT = 72.0          # smaller images are logos and icons, not charts
OCR_TEXT_CHARS = 1500       # what a figure keeps of its OCR text (in ``meta["ocr_text"]``)


def needs_figure_ocr(figure: Block, words: list[Word]) -> bool:
    """An image figure large enough to be a chart, with (almost) no text-layer words inside."""
    if figure.meta.get("source") != "image" or min(figure.box.width, figure.box.height) < MIN_SIDE_PT:
        return False
    return sum(1 for w in words if figure.box.contains(w.box, tol=1.0)) <= MAX_WORDS_INSIDE


def langs_for(page_lang: str, langs: list[str]) -> list[str]:
    """The OCR languages of a page's figures: the page's own language of ``langs`` (a Chinese page's charts
    in Chinese, which reads their digits too; an English page's in English), so Tesseract makes one pass."""
    want = ("ch", "zh", "chi_sim", "cn", "chinese") if page_lang == "zh" else ("en", "eng", "english")
    return [lang for lang in langs if lang in want] or langs


def figure_words(page, figures: list[Block], words: list[Word], langs: list[str]) -> list[Word]:
    """OCR the image figures of a PyMuPDF ``page`` that need it (:func:`needs_figure_ocr`); returns their
    words in page points and sets ``meta["ocr_text"]`` on each figure read, and ``meta["series"]`` where its bars
    can be read off the picture (:mod:`~docrag.ingestion.raster_marks`). Rotated pages are left alone (a clip is
    given in unrotated coordinates)."""
    import pymupdf
    from PIL import Image

    if page.rotation:
        return []
    out: list[Word] = []
    width, height = page.rect.width, page.rect.height
    for fig in [f for f in figures if needs_figure_ocr(f, words)][:MAX_FIGURES_PER_PAGE]:
        box = fig.box
        dpi = min(FIGURE_OCR_DPI, 72.0 * (FIGURE_OCR_MAX_PIXELS / max(box.width * box.height, 1.0)) ** 0.5)
        pix = page.get_pixmap(clip=pymupdf.Rect(box.x0, box.y0, box.x1, box.y1), dpi=max(int(dpi), 72), alpha=False)
        image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
        content = ocr_to_page_content(ocr_image(image, langs, sparse=True), box.width, box.height)
        found = [Word(w.text, Box.points(box.x0 + w.box.x0, box.y0 + w.box.y0, box.x0 + w.box.x1,
                                         box.y0 + w.box.y1, width, height).clipped())
                 for w in content.words]
        if found:   # sparse text comes word by word: its lines are rebuilt from the words' positions
            fig.meta["ocr_text"] = "\n".join(join_words([w.text for w in line])
                                             for line in word_lines(found))[:OCR_TEXT_CHARS]
            out.extend(found)
            if chart_marks.value_axes(found):   # bars without data labels, read off the picture
                series = chart_marks.read_series(bar_fills(image, box), found, box)
                if series:
                    fig.meta["series"] = series
        log.debug("figure %s: %d OCR words", fig.box, len(found))
    return out


__all__ = ["figure_words", "langs_for", "needs_figure_ocr"]
