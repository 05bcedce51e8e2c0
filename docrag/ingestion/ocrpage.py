"""OCR results (pixels of the OCR'd image) -> words, text and text blocks in page points."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from docrag.geometry import Box, union
from docrag.ingestion.layout import TextLine
from docrag.ingestion.ocr import OcrResult
from docrag.ingestion.textlayer import join_words
from docrag.types import Word

MIN_CONF = 30.0  # Tesseract word confidence (0..100) below which a word is dropped


@dataclass
class PageContent:
    words: list[Word]
    text: str
    lines: list[TextLine]


def ocr_to_page_content(result: OcrResult, width_pt: float, height_pt: float) -> PageContent:
    img_w, img_h = result.image_size
    words: list[Word] = []
    groups: dict[int, list[tuple[str, list[Word]]]] = {}
    for line in result.lines:
        line_words = []
        for w in line.words:
            if w.conf < MIN_CONF:
                continue
            box = Box.pixels(*w.box, img_w, img_h).to_points(width_pt, height_pt).clipped()
            if box.is_valid():
                line_words.append(Word(text=w.text, box=box))
        if line_words:
            words.extend(line_words)
            groups.setdefault(line.block_no, []).append((join_words([w.text for w in line_words]), line_words))
    text_lines: list[TextLine] = []
    texts: list[str] = []
    for block_no, lines in groups.items():
        for t, ws in lines:
            box = union([w.box for w in ws])
            # OCR has no font size: the median word height stands in for it (in points).
            size = round(statistics.median(w.box.height for w in ws), 0)
            text_lines.append(TextLine(box, t, size, False, block_no))
        texts.append("\n".join(t for t, _ in lines))
    return PageContent(words, "\n\n".join(texts), text_lines)
