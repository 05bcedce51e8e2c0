"""Page furniture: running headers and footers, page numbers, datelines, margin-band lines, cover titles.

Furniture is printed on the page but says nothing about the document's content, so a generator
must never quote or cite it. :func:`mark_furniture` looks at all pages of one document at once
(a line repeated at the same place on several pages is a running header or footer) and stores the
reason in ``block.meta["furniture"]`` (``"repeated"``, ``"page_number"``, ``"dateline"``,
``"margin"``, ``"cover_title"``); blocks that are not furniture get no key, so page records
written before this module load unchanged and are simply unmarked. :func:`furniture_reason` gives
the single-page part of the verdict for pages that were ingested before marking existed.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Sequence

from docrag.types import Block, BlockKind, Page

log = logging.getLogger(__name__)

FURNITURE_KEY = "furniture"
TOP_BAND = 0.085      # fraction of the page height counted as the top margin band
BOTTOM_BAND = 0.075   # and the bottom one
MARGIN_MAX_WORDS = 14  # longer text in a margin band is content (a footnote that runs low, say)
_REPEAT_TOL = 0.015    # same place: within 1.5% of the page size

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?"
_DATELINE = re.compile(
    rf"^\s*(?:{_WEEKDAY}\s*)?(?:{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|"
    rf"\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}|{_MONTH}\s+\d{{4}}|"
    r"\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?)\s*$", re.IGNORECASE)
_PAGE_NO = re.compile(r"^\s*(?:[-–—]\s*)?(?:page|p\.|第)?\s*(?:\d{1,4}|[ivxlc]{1,6})\s*(?:页)?"
                      r"(?:\s*(?:of|/|共)\s*\d{1,4}\s*页?)?\s*(?:[-–—])?\s*$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
# captions are content, not furniture
_LABEL = re.compile(r"^\s*(?:table|figure|fig\.|chart|exhibit|box|图|表)\s*[\dA-Z]", re.IGNORECASE)


def _norm(text: str) -> str:
    """Text with numbers masked, so ``Page 3`` and ``Page 4`` repeat as one line."""
    return _DIGITS.sub("#", re.sub(r"\s+", " ", text.strip().lower()))


def _in_band(block: Block, page: Page) -> str:
    h = page.height_pt or 1.0
    if block.box.y1 <= TOP_BAND * h:
        return "top"
    if block.box.y0 >= (1 - BOTTOM_BAND) * h:
        return "bottom"
    return ""


def furniture_reason(block: Block, page: Page) -> str:
    """Why ``block`` is furniture judged from its own page alone ('' when it is not): page numbers
    and datelines anywhere near an edge, short lines inside the top or bottom margin band."""
    if block.kind in (BlockKind.TABLE, BlockKind.FIGURE):
        return ""
    text = block.text.strip()
    if not text:
        return ""
    h = page.height_pt or 1.0
    near_edge = block.box.y1 <= 0.09 * h or block.box.y0 >= 0.91 * h
    if near_edge and _PAGE_NO.match(text):
        return "page_number"
    if near_edge and _DATELINE.match(text):
        return "dateline"
    if _LABEL.match(text):
        return ""
    if _in_band(block, page) and len(text.split()) <= MARGIN_MAX_WORDS and len(text) <= 120:
        # the only rows in the margin bands are headers and footers; a table or a paragraph that
        # runs into them would be longer or belong to a larger block
        return "margin"
    return ""


def is_furniture(block: Block, page: Page) -> bool:
    """True when ingest marked ``block`` as furniture, or its own page shows it is."""
    return bool(block.meta.get(FURNITURE_KEY)) or bool(furniture_reason(block, page))


def _repeated(pages: Sequence[Page]) -> set[tuple[int, int]]:
    """``(page index, block index)`` of lines printed at the same place on at least two pages
    (and on at least a third of the pages of a long document)."""
    if len(pages) < 2:
        return set()
    seen: dict[str, list[tuple[int, int, Block, Page]]] = defaultdict(list)
    for pi, page in enumerate(pages):
        for bi, block in enumerate(page.blocks):
            if block.kind in (BlockKind.TABLE, BlockKind.FIGURE) or not block.text.strip():
                continue
            if len(block.text.split()) > 20:
                continue
            seen[_norm(block.text)].append((pi, bi, block, page))
    need = max(2, len(pages) // 3)
    out: set[tuple[int, int]] = set()
    for group in seen.values():
        if len({pi for pi, *_ in group} ) < need:
            continue
        # the same place: cluster by the block's vertical position relative to the page height
        for pi, bi, block, page in group:
            y = block.box.y0 / (page.height_pt or 1.0)
            same = {pj for pj, _, b2, p2 in group
                    if abs(b2.box.y0 / (p2.height_pt or 1.0) - y) <= _REPEAT_TOL}
            if len(same) >= need:
                out.add((pi, bi))
    return out


def _cover_titles(pages: Sequence[Page], repeated: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Cover titles: a title on the first page whose text reappears as a running header later."""
    if len(pages) < 2:
        return set()
    running = {_norm(pages[pi].blocks[bi].text) for pi, bi in repeated}
    return {(0, bi) for bi, b in enumerate(pages[0].blocks)
            if b.kind is BlockKind.TITLE and _norm(b.text) in running}


def mark_furniture(pages: Sequence[Page]) -> int:
    """Mark the furniture blocks of one document's ``pages`` (in page order) in place; returns how
    many blocks were marked. Marks already present are recomputed."""
    pages = list(pages)
    repeated = _repeated(pages)
    cover = _cover_titles(pages, repeated)
    n = 0
    for pi, page in enumerate(pages):
        for bi, block in enumerate(page.blocks):
            block.meta.pop(FURNITURE_KEY, None)
            if (pi, bi) in repeated:
                reason = "repeated"
            elif (pi, bi) in cover:
                reason = "cover_title"
            else:
                reason = furniture_reason(block, page)
            if reason:
                block.meta[FURNITURE_KEY] = reason
                n += 1
    if n:
        log.debug("%s: %d furniture block(s) marked", pages[0].doc_id if pages else "?", n)
    return n
