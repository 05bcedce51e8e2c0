"""Text layout blocks (paragraph, title, list, caption) from text lines of the PDF or of OCR.

PDF text blocks as MuPDF reports them are sometimes single lines, sometimes a whole table; so
blocks are rebuilt from *lines*: consecutive lines of one column, font and spacing form a
paragraph; an indent, a wider gap, a font change or a new list item starts a new one.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass

from docrag.geometry import Box, union
from docrag.ingestion.textlayer import PageFrame, join_words, to_display_box
from docrag.types import Block, BlockKind

_NUMERAL = r"[\dA-Za-z一二三四五六七八九十]"
CAPTION_RE = re.compile(r"^(figure|fig\.|chart|graph|exhibit|table|source|note|图表|图|表|资料来源|注)\s*"
                        r"([\dA-Za-z一二三四五六七八九十:：.])", re.IGNORECASE)
FIGURE_CAPTION_RE = re.compile(r"^(figure|fig\.|chart|graph|exhibit|图表|图)\s*" + _NUMERAL, re.IGNORECASE)
TABLE_CAPTION_RE = re.compile(r"^(table|图表|表)\s*" + _NUMERAL, re.IGNORECASE)
# "表 2 展示了每个样本区间…", "Figure 2 shows the logarithm …", "图 6 所示。": a sentence that starts with a
# figure's or table's number and goes on to say what it shows is prose about it, not its caption
REFERS_RE = re.compile(r"^\s*(?:图表|图|表|table|figure|fig\.|chart|exhibit)\s*[\dA-Za-z一二三四五六七八九十]+\s*"
                       r"(?:展示|显示|列示|列出|给出|表明|反映|可以看出|可见|所示|呈现|shows?\b|presents?\b|reports?\b|"
                       r"lists?\b|summari[sz]es\b|illustrates?\b|displays?\b|gives?\b|compares?\b|provides?\b|"
                       r"indicates?\b|depicts?\b|plots?\b|suggests?\b|confirms?\b)", re.IGNORECASE)
LIST_RE = re.compile(r"^([•●▪■◦‣\-–*]|\(?\d{1,2}[.)]|\(?[a-z][.)]|[ivx]{1,4}[.)])\s")
# an item's marker for its hanging indent: a list's, or a symbol font's bullet read as a capital ("Q seek long-term
# capital growth through"); a Chinese enumerator ("(三)报告期内的股本和股东变化情况") opens headings more
# often than items
_ITEM_RE = re.compile(LIST_RE.pattern + r"|^[A-Z](?=\s+[a-z])")
_WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")  # CJK characters and full-width forms


JUSTIFIED_GAP_EM = 1.5   # a justified line's words stand at most this many font sizes apart
_LATIN_WORD = re.compile(r"[A-Za-z]{2}")   # ... and are words (a footer's page number, a table's figures are not)
_CJK_END = re.compile(r"^[\u3400-\u9fff]|[\u3400-\u9fff]$")


@dataclass
class TextLine:
    """One line of text in the displayed page's points, with its font size and weight."""

    box: Box
    text: str
    size: float
    bold: bool
    block_no: int = 0


def pdf_text_lines(textdict: dict, frame: PageFrame) -> list[TextLine]:
    """Lines of ``page.get_text("dict")`` (MuPDF order) in the displayed page's points."""
    out: list[TextLine] = []
    for b in textdict.get("blocks", []):
        if b.get("type", 0) != 0:
            continue
        for line in b.get("lines", []):
            toks, sizes, bold, chars = [], [], 0, 0
            for span in line.get("spans", []):
                t = unicodedata.normalize("NFKC", span.get("text", "")).strip()   # as the word layer
                if not t:
                    continue
                toks.append(t)
                sizes.extend([float(span.get("size", 0.0))] * len(t))
                chars += len(t)
                if span.get("flags", 0) & 16 or "bold" in span.get("font", "").lower():
                    bold += len(t)
            if not toks:
                continue
            box = to_display_box(frame, *line["bbox"])
            if box.is_valid():
                found = TextLine(box, join_words(" ".join(toks).split()), statistics.median(sizes),
                                 bold > 0.6 * chars, int(b.get("number", 0)))
                if out and _same_line(out[-1], found):
                    out[-1] = _joined(out[-1], found)
                else:
                    out.append(found)
    return out


def _same_line(prev: TextLine, line: TextLine) -> bool:
    """``justified_words`` (rule 206): MuPDF gives each word of a widely spaced justified line ("Although   inflation
    has   been") a line of its own; the pieces of one block on one baseline, each right after the one before within
    ``JUSTIFIED_GAP_EM`` of their size, each holding a Latin word, are one line (a paragraph's first line had
    become five one-word blocks)."""
    overlap = min(prev.box.y1, line.box.y1) - max(prev.box.y0, line.box.y0)
    gap = line.box.x0 - prev.box.x1
    return (prev.block_no == line.block_no and overlap >= 0.5 * min(prev.box.height, line.box.height)
            and 0 <= gap <= JUSTIFIED_GAP_EM * max(prev.size, line.size)
            and all(_LATIN_WORD.search(t) and not _CJK_END.search(t) for t in (prev.text, line.text)))


def _joined(prev: TextLine, line: TextLine) -> TextLine:
    return TextLine(union([prev.box, line.box]), join_words([*prev.text.split(), *line.text.split()]),
                    max(prev.size, line.size), prev.bold and line.bold, prev.block_no)


def paragraphs(lines: list[TextLine]) -> list[list[TextLine]]:
    """Group consecutive lines into paragraphs (see module docstring)."""
    if not lines:
        return []
    gaps = [b.box.y0 - a.box.y1 for a, b in zip(lines, lines[1:], strict=False)
            if abs(b.box.y0 - a.box.y1) <= 2 * a.size and a.box.x_overlap(b.box) > 0]
    usual_gap = statistics.median(gaps) if gaps else 2.0
    groups: list[list[TextLine]] = [[lines[0]]]
    for line in lines[1:]:
        cur = groups[-1]
        prev = cur[-1]
        left = min(x.box.x0 for x in cur)
        right = max(x.box.x1 for x in cur)
        em = max(min(prev.size, line.size), 1.0)  # font size: line boxes include leading
        gap = line.box.y0 - prev.box.y1
        # a sentence set in bold inside a paragraph runs on into the plain lines around it ("The Thai economy was
        # projected to expand by 2.6 and 3.0 percent in 2024 and 2025," | "respectively, supported by ..."): one
        # paragraph where a line opens in lower case in the middle of a sentence, or follows a paragraph's full line
        mid_sentence = prev.text.rstrip()[-1:] not in ".:!?;。：！？；"
        runs_on = mid_sentence and (
            line.text[:1].islower()   # or the lines above are a justified paragraph's, full to its right edge
            or len(cur) > 1 and all(x.box.x1 >= right - 0.5 * em for x in cur[-2:]))
        # a list item's lines after its first stand under its text, right of its bullet (a hanging indent)
        item = next((i for i in range(len(cur) - 1, -1, -1) if _ITEM_RE.match(cur[i].text)), None)
        hanging = (item is not None and not _ITEM_RE.match(line.text)
                   and 0 < line.box.x0 - cur[item].box.x0 <= 3 * em
                   and all(abs(x.box.x0 - line.box.x0) <= 0.5 * em for x in cur[item + 1:])
                   and _wraps(prev, lines, em))   # the line above wraps (a heading stops short)
        same = (abs(line.size - prev.size) <= 0.6 and (line.bold == prev.bold or runs_on)
                and line.box.y0 > prev.box.y0 + 0.3 * em
                and gap <= max(usual_gap + 0.6 * em, 0.5 * em)
                and (prev.box.x_overlap(line.box) > 0.3 * min(prev.box.width, line.box.width)
                     # the last line under a paragraph's indented first line (a full line, not a heading)
                     or len(cur) == 1 and 0 < prev.box.x0 - line.box.x0 <= 3 * em and prev.box.width >= 25 * em
                     and mid_sentence and re.search(r"\w", line.text) is not None)
                and not (line.box.x0 > left + 0.5 * em and right - left > 12 * em and not hanging)
                and not (prev.box.x1 < right - 3 * em and prev.text.rstrip()[-1:] in ".:!?。：！？")
                and not (LIST_RE.match(line.text) and not LIST_RE.match(cur[0].text))
                # "图 6 所示。" ending a sentence begun above is no caption
                and not (CAPTION_RE.match(line.text) and not (mid_sentence and REFERS_RE.match(line.text))))
        if same:
            cur.append(line)
        else:
            groups.append([line])
    return groups


def _wraps(line: TextLine, lines: list[TextLine], em: float) -> bool:
    """Whether ``line`` runs (most of the way, as ragged-right text does) to its column's right edge, the furthest
    right that lines of its size starting near it reach: a wrapped line of an item, not a heading that stops short."""
    edge = max((x.box.x1 for x in lines if abs(x.size - line.size) <= 0.6 and abs(x.box.x0 - line.box.x0) <= 3 * em),
               default=line.box.x1)
    return line.box.x1 - line.box.x0 >= 0.75 * (edge - line.box.x0)


def classify(groups: list[list[TextLine]]) -> list[Block]:
    """Blocks of kind title / list / caption / text, decided from font size, weight and wording."""
    if not groups:
        return []
    weights: dict[float, int] = {}   # the body size is the one most text is printed in, by printed width:
    for g in groups:                  # a Chinese character is as wide as two Latin ones
        for line in g:
            width = len(line.text) + len(_WIDE.findall(line.text))
            weights[round(line.size, 1)] = weights.get(round(line.size, 1), 0) + width
    body = max(weights, key=weights.get)
    blocks = []
    for g in groups:
        text = "\n".join(line.text for line in g).strip()
        size = statistics.median(line.size for line in g)
        bold = sum(line.bold for line in g) > len(g) / 2
        n_words = len(text.split())
        short = len(g) <= 3 and n_words <= 20
        if CAPTION_RE.match(g[0].text) and n_words <= 80 and not REFERS_RE.match(text):
            kind = BlockKind.CAPTION
        elif short and (size >= body * 1.15 or (bold and size >= body * 0.95)) and text[-1:] not in ".;,。；，":
            kind = BlockKind.TITLE
        elif sum(bool(LIST_RE.match(line.text)) for line in g) >= max(1, len(g) // 3) and LIST_RE.match(g[0].text):
            kind = BlockKind.LIST
        else:
            kind = BlockKind.TEXT
        blocks.append(Block(kind=kind, box=union([line.box for line in g]), text=text))
    return blocks


IN_REGION = 0.6   # a line (or word) this much inside a table or figure is the region's text


def text_blocks(lines: list[TextLine], exclude: list[Box]) -> list[Block]:
    """Paragraph-level blocks from ``lines``, leaving out lines that lie inside ``exclude`` regions."""
    kept = [ln for ln in lines if not any(r.coverage_of(ln.box) >= IN_REGION for r in exclude)]
    return classify(paragraphs(kept))

