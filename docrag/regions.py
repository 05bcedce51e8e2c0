"""Human-granularity regions of a page: the units a person boxes as evidence.

ViDoRe V3's annotators box the whole paragraph, the whole table with its title and head note, the
whole chart with its caption and legend, one list item, never a lone number. Ingest finds finer or
coarser pieces (a paragraph split at an indent, a run-in heading, a caption block beside its table,
footnote words as separate blocks); :func:`page_regions` puts them together into such units and
numbers them in reading order (1-based). Grounding (:mod:`docrag.grounding`) picks among them and
region-ID citing shows their numbers to a model.

Rules, each named here so a change has one place to go:

* ``furniture``  -- running heads, page numbers and footers (``meta["furniture"]``) are no evidence.
* ``table_head`` -- a table takes its caption (``meta["caption_block"]``) and the short notes and
  titles printed just above it ("[In thousands ...]", "单位：万元"; a caption, a title, a note in
  brackets or one short line), and a "Source:" line just below.
* ``chart_head`` -- a figure takes its nearest caption or title above or below and a "Source:" line.
* ``label_chart`` -- a vector chart layout did not box (a "Figure N" caption with short labels printed
  above it) is one region: caption and labels.
* ``same_unit``  -- text blocks that overlap vertically (a paragraph split at an indent, a run-in
  heading, a line broken into word blocks) are one unit.
* ``grid``       -- a table title ("表：", "Table 3") followed by short pieces set side by side (a
  table the layout read as loose text) is one table, down to the first piece that stands alone.
* ``heading``    -- a title directly above a paragraph (gap under :data:`HEADING_GAP_PT` and 0.6 of
  the paragraph's line height; a run-in heading) joins it.
Pages without layout blocks (image-only pages with OCR words) get one region per paragraph of words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from docrag.geometry import Box, union
from docrag.ingestion.break_captions import CAPTIONS_NEXT_PAGE
from docrag.types import Block, BlockKind, Page, Word

#: Region kinds, as the prompt and the records name them.
PARAGRAPH, TABLE, CHART, LIST, TITLE = "paragraph", "table", "chart", "list", "title"

_KIND = {BlockKind.TEXT: PARAGRAPH, BlockKind.CAPTION: PARAGRAPH, BlockKind.LIST: LIST,
         BlockKind.TITLE: TITLE, BlockKind.TABLE: TABLE, BlockKind.FIGURE: CHART}
_SOURCE = re.compile(r"^\s*[▲△▼■□●•*※]?\s*(source|sources|note|notes|资料来源|数据来源|来源|注)\s*[:：]",
                     re.IGNORECASE)
_HEAD_NOTE = re.compile(r"^\s*[\[(（【]|单位|unit|in (thousands|millions|billions)|this table", re.IGNORECASE)
FIG_CAPTION = re.compile(r"^\s*(?:figure|fig\.|chart|graph|exhibit|图表|圖表|图|圖)\s*[\dA-Z一二三四五六七八九十]",
                         re.IGNORECASE)
_TABLE_TITLE = re.compile(r"^\s*(?:图表|圖表|表|table|exhibit)\s*(?:[\dA-Z一二三四五六七八九十]|[:：])", re.IGNORECASE)
HEAD_OVERLAP_PT = 8.0    # ... or overlap its top by (a slide title touching its chart)
HEAD_GAP_PT = 30.0       # how far above a table or chart its title and head note may sit
SOURCE_GAP_PT = 14.0     # how far below a table or chart its source line may sit
STACK_GAP_PT = 12.0      # a headless table piece this close under a table of its width continues it
HEADING_GAP_PT = 8.0     # a heading this close above a paragraph (or running into it) belongs to it


@dataclass(frozen=True)
class Region:
    """One unit a person would box: its number on the page, kind, box (PDF points) and text."""

    number: int
    kind: str
    box: Box
    text: str
    block_ids: tuple[int, ...] = ()
    label: str = ""               # the caption or title of a table or chart

    def first_words(self, n: int = 8) -> str:
        """The first ``n`` words (CJK: ``3 * n`` characters) of the region's label or text."""
        text = re.sub(r"\s+", " ", (self.label or self.text)).strip()
        if re.search(r"[\u3400-\u9fff]", text[:20]):
            return text[: 3 * n]
        return " ".join(text.split()[:n])


@dataclass
class _Unit:
    kind: str
    blocks: list[Block] = field(default_factory=list)
    label: str = ""

    _box: Box | None = None
    _boxed: int = 0

    @property
    def box(self) -> Box:
        """The union of the unit's blocks (kept until blocks are added: grouping asks for it often)."""
        if self._box is None or self._boxed != len(self.blocks):
            self._box, self._boxed = union(b.box for b in self.blocks), len(self.blocks)
        return self._box


def _h_overlap(a: Box, b: Box) -> float:
    """Horizontal overlap as a share of the narrower box."""
    inter = min(a.x1, b.x1) - max(a.x0, b.x0)
    return max(0.0, inter) / max(1e-6, min(a.width, b.width))


def _v_overlap(a: Box, b: Box) -> float:
    inter = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(0.0, inter) / max(1e-6, min(a.height, b.height))


def _gap(upper: Box, lower: Box) -> float:
    return lower.y0 - upper.y1


def _attach_heads(target: Block, free: list[Block]) -> list[Block]:
    """``table_head`` / ``chart_head``: the caption, title and head notes above ``target`` and its
    source line below (removed from ``free``)."""
    taken: list[Block] = []
    caption = str(target.meta.get("caption") or "").strip()
    top = target.box
    for b in sorted(free, key=lambda b: -b.box.y1):        # nearest above first
        near = _h_overlap(b.box, target.box) > 0.3 and -HEAD_OVERLAP_PT <= _gap(b.box, top) <= HEAD_GAP_PT
        one_line = b.box.height < 2 * _line_height([b]) and b.box.height <= 24 and len(b.text) < 120
        heading = b.kind in (BlockKind.CAPTION, BlockKind.TITLE) or _HEAD_NOTE.match(b.text) or one_line
        if (caption and b.text.strip() == caption) or (near and heading):
            taken.append(b)
            top = union([top, b.box])
    bottom = union([target.box, *[b.box for b in taken if b.box.y0 >= target.box.y1 - 1]])
    for b in sorted(free, key=lambda b: b.box.y0):
        if b in taken:
            continue
        if _SOURCE.match(b.text) and _h_overlap(b.box, target.box) > 0.3 and -2 <= _gap(bottom, b.box) <= SOURCE_GAP_PT:
            taken.append(b)
            bottom = union([bottom, b.box])
    for b in taken:
        free.remove(b)
    return taken


_SENTENCE_END = re.compile(r"[.!?。！？:：;；]['\"”’)）]*\s*$")


def _same_unit(u: _Unit, v: _Unit, line_h: float) -> bool:
    """``same_unit``: pieces of one line a few characters apart, blocks overlapping each other
    (a drop cap, a run-in heading), or stacked with no gap where the upper one stops mid-sentence
    (a paragraph split at a hanging indent)."""
    a, b = u.box, v.box
    one_line = max(a.height, b.height) < 2 * line_h
    if _v_overlap(a, b) >= 0.3:
        if one_line and min(abs(b.x0 - a.x1), abs(a.x0 - b.x1)) < 2.5 * line_h:
            return True
        return _h_overlap(a, b) > 0.5
    upper, lower = (u, v) if a.y0 <= b.y0 else (v, u)
    if not (_h_overlap(a, b) > 0.3 and -0.5 * line_h <= _gap(upper.box, lower.box) <= 0.0):
        return False
    last = max(upper.blocks, key=lambda blk: blk.box.y1).text.rstrip()
    first = min(lower.blocks, key=lambda blk: blk.box.y0).text.lstrip()
    return not _SENTENCE_END.search(last) or first[:1].islower()


def _text_units(blocks: list[Block]) -> list[_Unit]:
    """Group text, list, caption and title blocks into units (``same_unit`` then ``heading``)."""
    units = [_Unit(_KIND[b.kind], [b]) for b in sorted(blocks, key=lambda b: (b.box.y0, b.box.x0))]
    changed = True
    while changed:
        changed = False
        for i, u in enumerate(units):
            for j in range(i + 1, len(units)):
                v = units[j]
                line_h = min(_line_height(u.blocks), _line_height(v.blocks))
                if TITLE in (u.kind, v.kind) and u.kind != v.kind:
                    continue
                if _same_unit(u, v, line_h):
                    u.blocks.extend(v.blocks)
                    u.kind = LIST if LIST in (u.kind, v.kind) else u.kind
                    del units[j]
                    changed = True
                    break
            if changed:
                break
    return _join_headings(units)


def _join_headings(units: list[_Unit]) -> list[_Unit]:
    """``heading``: a title whose next unit starts within one line below it becomes that unit's label."""
    out: list[_Unit] = []
    for u in sorted(units, key=lambda u: (u.box.y0, u.box.x0)):
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == TITLE and u.kind != TITLE and _h_overlap(prev.box, u.box) > 0.5
                and _gap(prev.box, u.box) <= min(0.6 * _line_height(u.blocks), HEADING_GAP_PT)):
            u.label = " ".join(b.text for b in prev.blocks)
            u.blocks = prev.blocks + u.blocks
            out[-1] = u
            continue
        out.append(u)
    return out


def label_charts(blocks: Sequence[Block]) -> list[tuple[Block, list[Block]]]:
    """Vector charts that layout did not box (a few bars are too few drawings for a figure): a
    "Figure N" caption with the short labels printed above it (data labels, ticks, categories).
    Returns (caption, label blocks) pairs (rule ``label_chart``: such a chart is one region, caption
    and labels; the extractive generator reads the labels as the chart's text)."""
    out = []
    for cap in blocks:
        if cap.kind not in (BlockKind.CAPTION, BlockKind.TEXT, BlockKind.TITLE) or not FIG_CAPTION.match(cap.text):
            continue
        if cap.meta.get(CAPTIONS_NEXT_PAGE):
            continue   # its chart opens the next page (ingest's ``break_captions``): the lines above are not its
        if any(b.kind is BlockKind.FIGURE and min(abs(b.box.y1 - cap.box.y0), abs(cap.box.y1 - b.box.y0)) < 60
               for b in blocks):
            continue
        above = sorted((b for b in blocks if b is not cap and b.box.y1 <= cap.box.y0 + 2
                        and cap.box.y0 - b.box.y1 < 320 and b.kind is not BlockKind.TABLE
                        and b.box.x1 > cap.box.x0 - 80), key=lambda b: -b.box.y1)
        labels: list[Block] = []
        for b in above:
            if len(b.text.split()) > 6 or b.kind is BlockKind.FIGURE:
                break  # body text or another figure: the chart ends here
            labels.append(b)
        if len(labels) >= 3:
            out.append((cap, labels))
    return out


def _line_height(blocks: Sequence[Block]) -> float:
    """A block's line height, estimated from its box and number of text lines."""
    hs = [b.box.height / max(1, b.text.count("\n") + 1) for b in blocks if b.box.height > 0]
    return max(6.0, min(hs) if hs else 10.0)


def word_paragraphs(words: Sequence[Word]) -> list[Block]:
    """Paragraph blocks from bare words (image-only pages): words -> lines -> runs of close lines."""
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: ((w.box.y0 + w.box.y1) / 2, w.box.x0)):
        for line in lines:
            last = line[-1]
            if _v_overlap(last.box, w.box) >= 0.5 and 0 <= w.box.x0 - last.box.x1 < 3 * max(last.box.height, 4):
                line.append(w)
                break
        else:
            lines.append([w])
    boxes = [(union(w.box for w in ln), " ".join(w.text for w in ln)) for ln in lines]
    blocks: list[Block] = []
    for box, text in sorted(boxes, key=lambda bt: (bt[0].y0, bt[0].x0)):
        for b in blocks:
            tail = b.meta["last"]
            if _h_overlap(tail, box) > 0.3 and 0 <= box.y0 - tail.y1 <= 0.8 * box.height:
                b.box, b.text, b.meta["last"] = union([b.box, box]), f"{b.text}\n{text}", box
                break
        else:
            blocks.append(Block(BlockKind.TEXT, box, text, block_id=len(blocks), meta={"last": box}))
    for b in blocks:
        b.meta.pop("last")
    return blocks


def page_regions(page: Page) -> list[Region]:
    """The page's regions in reading order (top to bottom, left column first), numbered from 1."""
    blocks = [b for b in page.blocks if not b.meta.get("furniture") and b.box.area > 0]
    if not blocks and page.words:
        blocks = word_paragraphs(page.words)
    free = [b for b in blocks if b.kind not in (BlockKind.TABLE, BlockKind.FIGURE)]
    units: list[_Unit] = []
    for target in sorted((b for b in blocks if b.kind in (BlockKind.TABLE, BlockKind.FIGURE)),
                         key=lambda b: -b.box.area):
        if any(u.box.coverage_of(target.box) > 0.8 for u in units):
            continue                                   # a piece of a larger table or chart
        heads = _attach_heads(target, free)
        label = str(target.meta.get("caption") or next((h.text for h in heads if h.box.y1 <= target.box.y0 + 1), ""))
        units.append(_Unit(_KIND[target.kind], [target, *heads], label=label.strip()))
    free = [b for b in free if not any(u.box.coverage_of(b.box) > 0.8 for u in units)]
    for caption, labels in label_charts(free):
        if caption in free and all(b in free for b in labels):
            units.append(_Unit(CHART, [caption, *labels], label=caption.text.strip()))
            free = [b for b in free if b is not caption and b not in labels]
    units = _stacked_tables(_grid_tables([*units, *_text_units(free)]), page.width_pt)
    mid, columns = page.width_pt / 2, _two_columns(units, page)

    def order(u: _Unit) -> tuple[int, float, float]:
        box = u.box
        right = columns and box.x0 >= mid - 0.02 * page.width_pt and box.width < 0.55 * page.width_pt
        return (int(right), box.y0, box.x0)

    out = []
    for n, u in enumerate(sorted(units, key=order), start=1):
        text = "\n".join(b.text for b in sorted(u.blocks, key=lambda b: (b.box.y0, b.box.x0)) if b.text)
        out.append(Region(n, u.kind, u.box, text, tuple(b.block_id for b in u.blocks), u.label))
    return out


def _stacked_tables(units: list[_Unit], page_width: float) -> list[_Unit]:
    """``stacked_tables``: a table piece with no heading of its own right under (or overlapping) a table of
    the same width joins it -- the pieces the table finder or the layout cut one grid into (an annual
    report's 分行业 / 分产品 parts of its 主营业务 table, a quantile table cut at a row of dates). A person
    boxes the grid once; the pieces stay separate blocks for reading."""
    tol = 0.02 * page_width
    for lower in sorted((u for u in units if u.kind == TABLE), key=lambda u: u.box.y0):
        if lower.label or len(lower.blocks) > 1:
            continue
        upper = next((u for u in units if u is not lower and u.kind == TABLE and u.box.y0 < lower.box.y0
                      and lower.box.y0 - u.box.y1 <= STACK_GAP_PT and abs(u.box.x0 - lower.box.x0) <= tol
                      and abs(u.box.x1 - lower.box.x1) <= tol), None)
        if upper is not None:
            upper.blocks.extend(lower.blocks)
            units.remove(lower)
    return units


def _unit_text(u: _Unit) -> str:
    return " ".join(b.text for b in u.blocks if b.text).strip()


def _side_by_side(a: Box, b: Box) -> bool:
    """Two boxes on one line, apart: most of their height shared, hardly any of their width."""
    return _v_overlap(a, b) >= 0.5 and _h_overlap(a, b) < 0.2


def _row_of_pieces(u: _Unit) -> bool:
    """A unit grouped from blocks set side by side on one line (a table row read as text)."""
    return any(_side_by_side(a.box, b.box) for i, a in enumerate(u.blocks) for b in u.blocks[i + 1:])


def _grid_tables(units: list[_Unit]) -> list[_Unit]:
    """``grid``: a table title ("表：...", "Table 3") followed by short pieces set side by side (the
    cells of a table the layout read as text) is one table, down to the first piece that stands alone."""
    for title in [u for u in units if u.kind in (PARAGRAPH, TITLE)]:
        head = _unit_text(title)
        if title not in units or len(head) > 90 or not _TABLE_TITLE.match(head):
            continue
        below = sorted((u for u in units if u is not title and u.box.y0 >= title.box.y1 - 1),
                       key=lambda u: (u.box.y0, u.box.x0))
        taken: list[_Unit] = []
        for u in below:
            beside = any(_side_by_side(u.box, v.box) for v in below if v is not u)
            if u.kind == TITLE or not (beside or u.kind == TABLE or _row_of_pieces(u)):
                break
            taken.append(u)
        lengths = sorted(len(b.text.strip()) for u in taken for b in u.blocks)
        if sum(len(u.blocks) for u in taken) < 4 or lengths[len(lengths) // 2] > 40:
            continue
        grid = _Unit(TABLE, [b for u in (title, *taken) for b in u.blocks], label=head)
        units = [u for u in units if u is not title and u not in taken] + [grid]
    return units


def _two_columns(units: Sequence[_Unit], page: Page) -> bool:
    """Text set in two columns: units wholly left and wholly right of the middle, side by side."""
    mid = page.width_pt / 2
    left = [u.box for u in units if u.box.x1 <= mid + 5]
    right = [u.box for u in units if u.box.x0 >= mid - 5]
    return any(_v_overlap(a, b) > 0.5 for a in left for b in right)


def regions_by_page(pages: Sequence[Page]) -> dict[str, list[Region]]:
    """:func:`page_regions` of each page, by page id."""
    return {p.page_id: page_regions(p) for p in pages}
