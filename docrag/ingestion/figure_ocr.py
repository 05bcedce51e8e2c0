"""Words of figures drawn as pictures: charts exported as images carry their title, axis text and data
labels only as pixels. Such a figure (an embedded image with almost no text-layer words inside) is OCR'd
from a rendering of its area, so its words can be searched, read by the offline generator and found by
grounding. Measured on the real dev set (BENCHMARKS.md, "Charts drawn as images"). A vector chart whose letters
are painted as outlines (a matplotlib export with its fonts turned into paths) has no text layer either: it is
OCR'd the same way, and its words kept where they give a value axis, so its marks can be read off the drawing.
"""

from __future__ import annotations

import logging
import re

from docrag.geometry import Box, union
from docrag.ingestion import chart_marks
from docrag.ingestion.ocr import ocr_image
from docrag.ingestion.ocrpage import ocr_to_page_content
from docrag.ingestion.raster_marks import picture_marks
from docrag.ingestion.slanted_labels import slanted_labels
from docrag.ingestion.textlayer import join_words, word_lines
from docrag.types import Block, Word

log = logging.getLogger(__name__)

FIGURE_OCR_DPI = 200        # chart labels are small: read them at this resolution ...
FIGURE_OCR_MAX_PIXELS = 2_500_000   # ... unless the figure is large (a slide's chart): then at this many pixels
MAX_WORDS_INSIDE = 2        # a figure with more text-layer words inside is a vector chart with readable text
MAX_FIGURES_PER_PAGE = 6    # OCR cost stays bounded on pages of thumbnails
MIN_SIDE_PT = 72.0          # smaller images are logos and icons, not charts
OCR_TEXT_CHARS = 1500       # what a figure keeps of its OCR text (in ``meta["ocr_text"]``)
MIN_GLYPHS = 12             # a drawing with this many letters painted as outlines has its text OCR'd ...
MAX_GLYPH_PT = 14.0         # ... a letter's outline being at most this wide and high


def needs_figure_ocr(figure: Block, words: list[Word], drawings: list[dict] = ()) -> bool:
    """A figure large enough to be a chart, with (almost) no text-layer words inside: an image, or a drawing
    whose text is painted as glyph outlines (:func:`outlined_glyphs` of ``drawings``)."""
    source = figure.meta.get("source")
    if source not in ("image", "drawing") or min(figure.box.width, figure.box.height) < MIN_SIDE_PT:
        return False
    if source == "drawing" and outlined_glyphs(figure.box, drawings) >= MIN_GLYPHS:
        return True   # its letters painted as outlines, whatever else it prints as text (rule 256)
    if sum(1 for w in words if figure.box.contains(w.box, tol=1.0)) > MAX_WORDS_INSIDE:
        return False
    return source == "image"


def glyph_boxes(box: Box, drawings: list[dict]) -> list[tuple[float, float, float, float]]:
    """The rectangles of ``drawings`` inside ``box`` that look like letters painted as outlines (a chart exported
    with its fonts turned into paths): small filled shapes of curves and lines, not rectangles."""
    out = []
    for d in drawings:
        r, items = d["rect"], d.get("items", ())
        if (d.get("type") == "f" and 0 < r.height <= MAX_GLYPH_PT and r.width <= MAX_GLYPH_PT
                and any(i[0] == "c" for i in items) and box.x0 <= r.x0 and r.x1 <= box.x1
                and box.y0 <= r.y0 and r.y1 <= box.y1):
            out.append((r.x0, r.y0, r.x1, r.y1))
    return out


def outlined_glyphs(box: Box, drawings: list[dict]) -> int:
    """How many of ``drawings`` inside ``box`` look like letters painted as outlines (:func:`glyph_boxes`)."""
    return len(glyph_boxes(box, drawings))


def _on_glyphs(found: list[Word], glyphs: list[tuple[float, float, float, float]], typed: list[Word]) -> list[Word]:
    """``outlined_labels`` (rule 256): of the OCR'd words of a drawing that prints its data labels as text and its
    category labels as outlines (东方证券's "1998 … 2019" under bars labelled 6 … 139), those whose centre lies on an
    outlined glyph and on no text-layer word."""
    def on(w: Word, x0: float, y0: float, x1: float, y1: float) -> bool:
        cx, cy = (w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2
        return x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1
    return [w for w in found if any(on(w, *g) for g in glyphs)
            and not any(on(w, t.box.x0, t.box.y0, t.box.x1, t.box.y1) for t in typed)]


def langs_for(page_lang: str, langs: list[str]) -> list[str]:
    """The OCR languages of a page's figures: the page's own language of ``langs`` (a Chinese page's charts
    in Chinese, which reads their digits too; an English page's in English), so Tesseract makes one pass."""
    want = ("ch", "zh", "chi_sim", "cn", "chinese") if page_lang == "zh" else ("en", "eng", "english")
    return [lang for lang in langs if lang in want] or langs


_INTEGER_POINT = re.compile(r"^[-−–]?[$€£¥]?\d[\d,]*\.$")
_DECIMALS = re.compile(r"^\d+%?$")


def join_decimal_parts(words: list[Word]) -> list[Word]:
    """OCR's words with a number it cut at its point ("4." and "0", "-1." and "06") joined again: the whole
    part ends in a point and the decimals follow on its line, closer than a character's height."""
    out: list[Word] = []
    for w in words:
        prev = out[-1] if out else None
        if (prev is not None and _INTEGER_POINT.match(prev.text) and _DECIMALS.match(w.text)
                and abs((prev.box.y0 + prev.box.y1) / 2 - (w.box.y0 + w.box.y1) / 2) <= 0.3 * prev.box.height
                and 0 <= w.box.x0 - prev.box.x1 <= prev.box.height):
            out[-1] = Word(prev.text + w.text, union([prev.box, w.box]))
        else:
            out.append(w)
    return out


_YEARS_RUN = re.compile(rf"(?:{chart_marks.YEAR_LABEL.pattern}\s*){{2,}}")


def split_year_runs(words: list[Word]) -> list[Word]:
    """OCR's words that are several category labels read as one ("2016年2017年2018年2019年": years set closer than
    OCR's word gap) split into one word per year, the run's width shared out by characters."""
    out: list[Word] = []
    for w in words:
        text = w.text.strip()
        years = chart_marks.YEAR_LABEL.findall(text)
        if len(years) < 2 or not _YEARS_RUN.fullmatch(text):
            out.append(w)
            continue
        per_char = w.box.width / max(sum(len(y) for y in years), 1)
        x = w.box.x0
        for y in years:
            out.append(Word(y, Box(x, w.box.y0, x + per_char * len(y), w.box.y1, w.box.space, w.box.extent)))
            x += per_char * len(y)
    return out


def figure_words(page, figures: list[Block], words: list[Word], langs: list[str],
                 drawings: list[dict] = ()) -> list[Word]:
    """OCR the figures of a PyMuPDF ``page`` that need it (:func:`needs_figure_ocr`; ``drawings`` are the page's,
    for charts whose text is outlines); returns their words in page points and sets ``meta["ocr_text"]`` on each
    figure read, and ``meta["series"]`` where a picture's bars and lines can be read off its pixels
    (:mod:`~docrag.ingestion.raster_marks`; a drawing's marks are read by the caller, and its OCR'd words are kept
    only where they give a value axis). Rotated pages are left alone (a clip is given in unrotated coordinates)."""
    import pymupdf
    from PIL import Image

    if page.rotation:
        return []
    out: list[Word] = []
    width, height = page.rect.width, page.rect.height
    for fig in [f for f in figures if needs_figure_ocr(f, words, drawings)][:MAX_FIGURES_PER_PAGE]:
        box = fig.box
        dpi = min(FIGURE_OCR_DPI, 72.0 * (FIGURE_OCR_MAX_PIXELS / max(box.width * box.height, 1.0)) ** 0.5)
        pix = page.get_pixmap(clip=pymupdf.Rect(box.x0, box.y0, box.x1, box.y1), dpi=max(int(dpi), 72), alpha=False)
        image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
        content = ocr_to_page_content(ocr_image(image, langs, sparse=True), box.width, box.height)
        found = split_year_runs(join_decimal_parts([
            Word(w.text, Box.points(box.x0 + w.box.x0, box.y0 + w.box.y0, box.x0 + w.box.x1, box.y0 + w.box.y1,
                                    width, height).clipped()) for w in content.words]))
        typed = [w for w in words if box.contains(w.box, tol=1.0)]
        glyphs = glyph_boxes(box, drawings) if fig.meta.get("source") == "drawing" else []
        if glyphs and len(typed) > MAX_WORDS_INSIDE:   # rule 256: its typed words stay its own
            level = _on_glyphs(found, glyphs, typed)   # outlined labels set level, else at a slant under the plot
            out.extend(level or slanted_labels(image, box, found, langs, foot=min(g[1] for g in glyphs) - 1.0))
            continue
        if fig.meta.get("source") == "drawing" and not chart_marks.value_axes(found):
            continue   # outlined text kept only where it makes a chart readable (a logo's is not a chart's)
        if fig.meta.get("source") == "image":   # categories set at a slant, which OCR does not read level
            found += slanted_labels(image, box, found, langs)
        if found:   # sparse text comes word by word: its lines are rebuilt from the words' positions
            fig.meta["ocr_text"] = "\n".join(join_words([w.text for w in line])
                                             for line in word_lines(found))[:OCR_TEXT_CHARS]
            out.extend(found)
            if fig.meta.get("source") == "image" and chart_marks.value_axes(found):   # marks off the picture
                series = chart_marks.read_series(picture_marks(image, box), found, box)
                # a traced line no legend names is not told from a second axis' line or a panel's: not read
                series = [s for s in series if s["kind"] != "line" or s["name"]]
                if series:
                    fig.meta["series"] = series
        log.debug("figure %s: %d OCR words", fig.box, len(found))
    return out


__all__ = ["figure_words", "langs_for", "needs_figure_ocr"]
