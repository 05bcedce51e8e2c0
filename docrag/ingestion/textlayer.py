"""Words, lines and page text from a PDF page's own text layer, in the displayed page's points.

PyMuPDF reports text coordinates in the *unrotated* page frame (top-left origin of the cropbox);
:func:`to_display_box` maps them into ``Space.POINT`` of the displayed page with
:func:`docrag.geometry.rotate_box`.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass

from docrag.geometry import Box, rotate_box
from docrag.types import Word

_NUM_HEAD = re.compile(r"^\(?[-+$€£¥]?\d[\d,]*[.,]$")
_NUM_TAIL = re.compile(r"^\d+[%)]?[,;]?$")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
_LATIN = re.compile(r"[A-Za-z]")


def text_flags() -> int:
    import pymupdf

    return pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_PRESERVE_WHITESPACE


@dataclass
class PageFrame:
    """What is needed to map unrotated text coordinates onto the displayed page."""

    rotation: int
    unrot_w: float   # cropbox width/height before rotation
    unrot_h: float
    width: float     # displayed page size (page.rect)
    height: float

    @classmethod
    def of(cls, page) -> PageFrame:
        rot = int(page.rotation) % 360
        w, h = float(page.rect.width), float(page.rect.height)
        uw, uh = (h, w) if rot in (90, 270) else (w, h)
        return cls(rot, uw, uh, w, h)


def to_display_box(frame: PageFrame, x0: float, y0: float, x1: float, y1: float) -> Box:
    """A box of PyMuPDF's unrotated text frame as a clipped ``Space.POINT`` box of the displayed page."""
    box = Box.points(x0, y0, x1, y1, frame.unrot_w, frame.unrot_h).ordered()
    if frame.rotation:
        box = rotate_box(box, frame.rotation, frame.unrot_w, frame.unrot_h)
    return box.clipped()


@dataclass
class Line:
    """A line of words (display frame) with the block it belongs to."""

    block_no: int
    words: list[Word]

    @property
    def text(self) -> str:
        return join_words([w.text for w in self.words])


def join_words(tokens: list[str]) -> str:
    """Join tokens with spaces, except between two CJK tokens."""
    out = ""
    for tok in tokens:
        if out and not (_CJK.search(out[-1]) and _CJK.search(tok[:1] or " ")):
            out += " "
        out += tok
    return out


def join_lines(lines: list[str]) -> str:
    """A cell's wrapped lines as one text: a space between words, none where a line ends or starts in Chinese
    ("……的净利润" + "(元)" is "……的净利润(元)", as a line printed whole reads); :func:`join_words` joins the words
    of one line, where "2019" and "年" stay apart as printed."""
    out = ""
    for line in lines:
        if out and line and not (_CJK.match(out[-1]) or _CJK.match(line[0])):
            out += " "
        out += line
    return out


def word_lines(words: list[Word]) -> list[list[Word]]:
    """Words grouped into lines by vertical centre (within 0.35 of the median word height of a line's
    running centre), each line left to right, lines top to bottom."""
    if not words:
        return []
    h = statistics.median(w.box.height for w in words) or 1.0
    rows: list[list[Word]] = []
    centre = 0.0
    for w in sorted(words, key=lambda w: ((w.box.y0 + w.box.y1) / 2, w.box.x0)):
        cy = (w.box.y0 + w.box.y1) / 2
        if rows and abs(cy - centre) <= 0.35 * h:
            rows[-1].append(w)
            centre += (cy - centre) / len(rows[-1])
        else:
            rows.append([w])
            centre = cy
    return [sorted(r, key=lambda w: w.box.x0) for r in rows]


def extract_lines(page, textpage, frame: PageFrame) -> list[Line]:
    """Lines of words from the text layer, numbers split by extraction re-joined (``11,062. 6``)."""
    raw = page.get_text("words", textpage=textpage)
    lines: dict[tuple[int, int], list[tuple]] = {}
    for w in raw:
        text = _clean(w[4])
        if not text:
            continue
        lines.setdefault((w[5], w[6]), []).append((w[0], w[1], w[2], w[3], text))
    out: list[Line] = []
    for (block_no, _), ws in lines.items():
        ws = _merge_split_numbers(ws)
        words = []
        for x0, y0, x1, y1, text in ws:
            box = to_display_box(frame, x0, y0, x1, y1)
            if box.is_valid():
                words.append(Word(text=text, box=box))
        if words:
            out.append(Line(block_no, words))
    return out


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if ch.isprintable() and not ch.isspace()).strip()


def _merge_split_numbers(ws: list[tuple]) -> list[tuple]:
    """Join ``11,062.`` + ``6`` when the gap between them is far below a space's width."""
    out: list[tuple] = []
    for w in ws:
        if out:
            p = out[-1]
            height = max(p[3] - p[1], 1e-3)
            gap = w[0] - p[2]
            if (-0.5 < gap < 0.35 * height and _NUM_HEAD.match(p[4]) and _NUM_TAIL.match(w[4])):
                out[-1] = (p[0], min(p[1], w[1]), w[2], max(p[3], w[3]), p[4] + w[4])
                continue
        out.append(w)
    return out


def garbage_ratio(text: str) -> float:
    """Share of characters that cannot be real text (replacement chars, private use, controls)."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    bad = 0
    for c in chars:
        cat = unicodedata.category(c)
        if c == "\ufffd" or cat in ("Co", "Cc", "Cs", "Cn"):
            bad += 1
    return bad / len(chars)


_NUMBER_TOKEN = re.compile(r"^[(\[]?[-+–−$€£¥]?\(?\d[\d,.]*\)?%?[)\]]?[,;:.]?$")


def looks_like_words(text: str) -> float:
    """Share of tokens that look like words or numbers (guards against font-encoding junk).

    Tokens without letters or digits (rules, leaders, bullets) are neutral; numbers in
    accounting notation such as ``$(1.2)`` count as words. 1.0 when there is nothing to judge.
    """
    toks = [t for t in text.split() if any(c.isalnum() for c in t)]
    if not toks:
        return 1.0
    ok = 0
    for t in toks:
        alnum = sum(c.isalnum() for c in t)
        if _CJK.search(t) or alnum >= 0.5 * len(t) or _NUMBER_TOKEN.match(t):
            ok += 1
    return ok / len(toks)


def detect_lang(text: str) -> str:
    """"zh" when CJK characters make up at least 30% of the letters, "en" otherwise, "" when empty."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    if cjk + latin == 0:
        return ""
    return "zh" if cjk / (cjk + latin) >= 0.3 else "en"


def page_text(lines: list[Line]) -> str:
    """Lines joined by newlines, blocks separated by a blank line."""
    parts: list[str] = []
    prev_block = None
    for line in lines:
        if prev_block is not None and line.block_no != prev_block:
            parts.append("")
        parts.append(line.text)
        prev_block = line.block_no
    return "\n".join(parts)
