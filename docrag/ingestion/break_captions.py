"""Figure captions printed at the foot of one page for a chart that opens the next.

Broker notes set "图表 9：…在全部一级行业中均表现较为出色" as the last line of a page and its chart at the top of the
next: on its own page the chart has no numbered caption (the nearest line is its source line, "资料来源：…"), and
the caption has no figure. :func:`link_break_captions` looks at one document's pages in order and, where the lowest
content block of a page is a numbered figure caption no figure or table took and the first content block of the
next page is a figure without a numbered caption, gives that figure the caption: ``meta["caption"]`` (its text)
and ``meta["caption_from_page"]`` (the page it is printed on); the caption gets ``meta["captions_next_page"]``.
The figure's box does not change (the caption is not on its page).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from docrag.ingestion.furniture import is_furniture
from docrag.ingestion.layout import FIGURE_CAPTION_RE, REFERS_RE
from docrag.types import Block, BlockKind, Page

log = logging.getLogger(__name__)

CAPTION_FROM_PAGE = "caption_from_page"
CAPTIONS_NEXT_PAGE = "captions_next_page"


def _content(page: Page) -> list[Block]:
    """The page's blocks but furniture: figures, and text blocks with a box and some text."""
    return [b for b in page.blocks if not is_furniture(b, page)
            and (b.kind is BlockKind.FIGURE or b.box.is_valid() and b.text.strip())]


def _orphan_caption(page: Page, content: list[Block]) -> Block | None:
    """The numbered figure caption ending ``page`` (nothing but furniture below it) that no block took."""
    if not content:
        return None
    last = max(content, key=lambda b: b.box.y1)
    taken = {b.meta.get("caption_block") for b in page.blocks}
    text = last.text.strip()
    if last.kind is BlockKind.FIGURE or last.block_id in taken or not FIGURE_CAPTION_RE.match(text) \
            or REFERS_RE.match(text):   # "图 4 所示。从图 4 我们可以看出…": prose about a figure, not its caption
        return None
    return last


def _opening_figure(content: list[Block]) -> Block | None:
    """The figure opening a page (``content``: its blocks but furniture) when it has no numbered caption."""
    if not content:
        return None
    first = min(content, key=lambda b: b.box.y0)
    if first.kind is not BlockKind.FIGURE or FIGURE_CAPTION_RE.match(str(first.meta.get("caption", "")).strip()):
        return None
    return first


def link_break_captions(pages: Sequence[Page]) -> int:
    """Give each figure opening a page the numbered caption ending the page before (one document's ``pages``,
    in page order); returns how many were linked. Run after furniture marking."""
    contents = [_content(p) for p in pages]   # each page is read once, as the page before and as the next
    n = 0
    for i in range(1, len(pages)):
        prev, cur = pages[i - 1], pages[i]
        if cur.page_no != prev.page_no + 1:
            continue
        caption, figure = _orphan_caption(prev, contents[i - 1]), _opening_figure(contents[i])
        if caption is None or figure is None:
            continue
        figure.meta["caption"] = caption.text
        figure.meta[CAPTION_FROM_PAGE] = prev.page_no
        figure.meta.pop("caption_block", None)
        caption.meta[CAPTIONS_NEXT_PAGE] = True
        n += 1
    if n:
        log.debug("%s: %d figure caption(s) carried over a page break", pages[0].doc_id, n)
    return n


__all__ = ["CAPTIONS_NEXT_PAGE", "CAPTION_FROM_PAGE", "link_break_captions"]
