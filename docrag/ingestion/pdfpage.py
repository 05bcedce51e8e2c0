"""One PDF page -> one :class:`docrag.types.Page`: image, words, text (or OCR), layout blocks."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from docrag.errors import FileFailed
from docrag.ingestion import chart_marks, figure_ocr, figures, imagelayout, layout, tables
from docrag.ingestion.ocr import ocr_image
from docrag.ingestion.ocrpage import ocr_to_page_content
from docrag.ingestion.plot_grids import plot_grids
from docrag.ingestion.render import Rendered, effective_dpi, render_pymupdf
from docrag.ingestion.textlayer import (
    PageFrame,
    detect_lang,
    extract_lines,
    garbage_ratio,
    join_words,
    looks_like_words,
    page_text,
    text_flags,
    word_lines,
)
from docrag.types import Block, BlockKind, Page, TextSource, Word

log = logging.getLogger(__name__)

MIN_PAGE_PT = 3.0        # the PDF spec's smallest page side (points)
MAX_PAGE_PT = 14400.0    # the PDF spec's largest page side (200 inches)
MIN_BYTES_PER_PAGE = 1   # even compressed, a page takes more than this: a larger /Count lies
MIN_TEXT_CHARS = 10      # fewer non-space characters than this is "no text layer"
OCR_DPI = 288            # pages are OCR'd from a rendering at this resolution ...
OCR_MAX_PIXELS = 16_000_000  # ... unless that would exceed this many pixels


@dataclass(frozen=True)
class PageOptions:
    dpi: float
    renderer: str
    ocr: str            # auto | always | pages | never (pipeline.OCR_MODES)
    langs: list[str]
    image_ext: str

    @property
    def ocr_pages(self) -> bool:
        """Pages without a usable text layer are OCR'd (``always`` OCRs every page)."""
        return self.ocr in ("auto", "pages", "always")

    @property
    def ocr_figures(self) -> bool:
        """Image figures with no words inside (charts drawn as pictures) are OCR'd."""
        return self.ocr in ("auto", "always")


def open_pdf(path: Path):
    """Open a PDF or raise ``FileFailed`` with a reason a user understands."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        try:
            str(path).encode("utf-8")
            doc = pymupdf.open(path, filetype="pdf")
        except UnicodeEncodeError:   # a file name that is not UTF-8: MuPDF takes only UTF-8 names
            doc = pymupdf.open(stream=Path(path).read_bytes(), filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for broken files
        raise FileFailed(f"corrupt or unreadable PDF ({exc})") from exc
    try:
        try:
            n_pages = doc.page_count
        except Exception as exc:  # a page tree whose /Count lies: "Invalid number of pages"
            raise FileFailed(f"broken page tree ({exc})") from exc
        if doc.needs_pass:
            raise FileFailed("encrypted PDF that needs a password; decrypt it first (e.g. qpdf --decrypt)")
        if n_pages == 0:
            raise FileFailed("PDF has no pages (empty, or truncated/damaged beyond repair)")
        size = Path(path).stat().st_size
        if n_pages > max(16, size // MIN_BYTES_PER_PAGE):
            raise FileFailed(f"broken page tree: it claims {n_pages:,} pages in a {size:,}-byte file")
        for i in range(n_pages):
            try:
                rect = doc[i].rect
            except Exception as exc:
                raise FileFailed(f"page {i + 1} cannot be read ({exc})") from exc
            w, h = rect.width, rect.height
            if not (MIN_PAGE_PT <= w <= MAX_PAGE_PT and MIN_PAGE_PT <= h <= MAX_PAGE_PT):
                raise FileFailed(f"page {i + 1} has an absurd size ({w:.1f} x {h:.1f} pt; "
                                 f"allowed {MIN_PAGE_PT:g}..{MAX_PAGE_PT:g} pt per side)")
    except BaseException:
        doc.close()
        raise
    return doc


def text_is_garbage(text: str) -> bool:
    """A text layer of junk: replacement/private-use characters, or (given enough tokens to judge)
    few word-like tokens."""
    if not text.strip():
        return False
    if garbage_ratio(text) >= 0.1:
        return True
    chars = [c for c in text if not c.isspace()]
    if len(chars) >= 20 and sum(c.isalnum() for c in chars) < 0.25 * len(chars):
        return True  # symbols only (real pages measured 0.75-0.97 letters/digits, dot leaders included)
    return len(text.split()) >= 20 and looks_like_words(text) < 0.6


def needs_ocr(page, text: str, frame: PageFrame) -> bool:
    """``--ocr auto``: OCR when the text layer is junk, or thin while images (or outlined text) fill the page."""
    if text_is_garbage(text):
        return True
    n_chars = sum(not c.isspace() for c in text)
    if n_chars >= 200:
        return False
    page_area = frame.width * frame.height
    image_area = sum(abs((i["bbox"][2] - i["bbox"][0]) * (i["bbox"][3] - i["bbox"][1])) for i in page.get_image_info())
    if image_area >= 0.5 * page_area and n_chars < 100:
        return True
    if n_chars < MIN_TEXT_CHARS:
        n_paths = sum(len(d.get("items", ())) for d in page.get_cdrawings())
        return image_area >= 0.05 * page_area or n_paths >= 200
    return False


def process_pdf_page(pdf, page_no: int, staged, opts: PageOptions, rendered: Rendered | None = None) -> Page:
    page = pdf[page_no - 1]
    frame = PageFrame.of(page)
    dpi = effective_dpi(frame.width, frame.height, opts.dpi)
    image_path = staged.staged_image_path(page_no, opts.image_ext)
    if rendered is None:
        rendered = render_pymupdf(page, dpi, image_path, opts.image_ext)

    textpage = page.get_textpage(flags=text_flags())
    lines = extract_lines(page, textpage, frame)
    text = page_text(lines)
    need_ocr = opts.ocr == "always" or (opts.ocr_pages and needs_ocr(page, text, frame))

    result = Page(doc_id=staged.document.doc_id, page_no=page_no, width_pt=frame.width, height_pt=frame.height,
                  rotation=frame.rotation, image=staged.image_relpath(page_no, opts.image_ext),
                  image_width=rendered.width, image_height=rendered.height, dpi=rendered.dpi,
                  file_name=staged.document.file_name)
    text_blocks: list[Block]
    text_lines: list[layout.TextLine]
    model_blocks: list[Block] = []
    if need_ocr:
        ocr_img = _ocr_render(page)
        content = ocr_to_page_content(ocr_image(ocr_img, opts.langs), frame.width, frame.height)
        words, text, text_lines = content.words, content.text, content.lines
        result.text_source = TextSource.OCR if text.strip() else TextSource.NONE
        model_blocks = imagelayout.layout_blocks(ocr_img, frame.width, frame.height)
    elif text.strip():
        words = [w for line in lines for w in line.words]
        text_lines = layout.pdf_text_lines(page.get_text("dict", textpage=textpage), frame)
        result.text_source = TextSource.PDF
    else:
        words, text, text_lines = [], "", []
    result.words, result.text = words, text
    result.lang = detect_lang(text)

    drawings = page.get_drawings()
    figure_blocks = figures.detect_figures(page, frame, words, drawings)
    if result.text_source is TextSource.OCR:  # the scanned image holding the OCR'd text is no figure
        figure_blocks = [f for f in figure_blocks if f.meta.get("source") != "image"
                         or sum(f.box.contains(w.box, tol=1.0) for w in words) < 0.3 * len(words)]
    table_blocks = tables.detect_tables(page, frame, words, drawings, [b.box for b in figure_blocks])
    figure_blocks, table_blocks = plot_grids(figure_blocks, table_blocks)   # rule 212
    figure_blocks = [f for f in figure_blocks if f.meta.get("source") == "image"
                     or not any(t.box.coverage_of(f.box) > 0.5 for t in table_blocks)]
    if model_blocks:  # OCR'd page: the layout model's regions replace what text alignment guessed
        table_blocks = _with_model_regions(table_blocks, model_blocks, BlockKind.TABLE)
        figure_blocks = _with_model_regions(figure_blocks, model_blocks, BlockKind.FIGURE)
    if result.text_source is TextSource.PDF and opts.ocr_figures:   # charts drawn as pictures
        drawn = figure_ocr.figure_words(page, figure_blocks, words, figure_ocr.langs_for(result.lang, opts.langs),
                                        drawings)
        if drawn:
            result.words = words = words + drawn
            read = [f.meta["ocr_text"] for f in figure_blocks if "ocr_text" in f.meta]
            result.text = text = "\n\n".join([text, *read])
    if not page.rotation:   # vector charts' values read off the drawing (page and drawing frames agree)
        for fig in figure_blocks:
            if fig.meta.get("source") == "drawing" and (series := chart_marks.read_series(drawings, words, fig.box)):
                fig.meta["series"] = series
    regions = table_blocks + figure_blocks
    text_blocks = layout.text_blocks(text_lines, [b.box for b in regions])
    result.blocks = finish_blocks(text_blocks, regions, words)
    return result


def _with_model_regions(found: list[Block], model: list[Block], kind: BlockKind) -> list[Block]:
    regions = [b for b in model if b.kind is kind]
    kept = [f for f in found if not any(r.box.intersection_area(f.box) > 0.3 * f.box.area for r in regions)]
    return kept + regions


def ocr_page_blocks(image, content, width_pt: float, height_pt: float) -> list[Block]:
    """Layout blocks of a page image: model regions (or aligned-text tables) plus OCR paragraphs."""
    regions = imagelayout.layout_blocks(image, width_pt, height_pt)
    tables_found = tables.detect_tables(None, None, content.words, [])
    regions = _with_model_regions(tables_found, regions, BlockKind.TABLE) + \
        [b for b in regions if b.kind is BlockKind.FIGURE]
    text_blocks = layout.text_blocks(content.lines, [b.box for b in regions])
    return finish_blocks(text_blocks, regions, content.words)


def finish_blocks(text_blocks: list[Block], region_blocks: list[Block], words: list[Word]) -> list[Block]:
    """Blocks in reading order (regions before the first text block below them), with ids and captions.

    A figure's text is its caption, else the words inside it (labels, legend); a table a layout model
    found on a page image, which comes without text, gets the words inside it line by line (an OCR'd
    round-up page was one such table: with no text the extractive generator had nothing to read).
    """
    ordered = list(text_blocks)
    for rb in sorted(region_blocks, key=lambda b: (b.box.y0, b.box.x0)):
        pos = len(ordered)
        for i, tb in enumerate(ordered):
            if tb.box.y0 >= rb.box.y0 and tb.box.x_overlap(rb.box) > 0:
                pos = i
                break
        ordered.insert(pos, rb)
    for i, b in enumerate(ordered):
        b.block_id = i
    figures.attach_captions(ordered)
    for b in ordered:   # a word belongs to a region as a line does (layout.text_blocks): mostly inside it
        if b.kind is BlockKind.FIGURE and not b.text:   # line by line: a title set above the plot comes first
            inside = _once([w for w in words if b.box.coverage_of(w.box) >= layout.IN_REGION])
            b.text = " ".join(join_words([w.text for w in line]) for line in word_lines(inside))[:500]
        elif b.kind is BlockKind.TABLE and not b.text.strip():
            inside = [w for w in words if b.box.coverage_of(w.box) >= layout.IN_REGION]
            b.text = "\n".join(join_words([w.text for w in line]) for line in word_lines(inside))
    return ordered


def _once(words: list[Word]) -> list[Word]:
    """Words without their overprinted copies (a title drawn twice, slightly offset, to look bold)."""
    out: list[Word] = []
    for w in words:
        if not any(o.text == w.text and o.box.iou(w.box) > 0.5 for o in out[-40:]):
            out.append(w)
    return out


def _ocr_render(page):
    """The page as a grayscale PIL image at OCR resolution."""
    import pymupdf
    from PIL import Image

    px = page.rect.width * page.rect.height * (OCR_DPI / 72.0) ** 2
    dpi = OCR_DPI if px <= OCR_MAX_PIXELS else int(OCR_DPI * (OCR_MAX_PIXELS / px) ** 0.5)
    zoom = dpi / 72.0
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    return Image.frombytes("L", (pix.width, pix.height), pix.samples)


__all__ = ["PageOptions", "open_pdf", "process_pdf_page", "finish_blocks", "needs_ocr"]
