"""Lists and definition lists of the ``extractive`` generator: re-cutting text blocks by their lines.

* **List items**: a text block in which at least ``_MIN_ITEMS`` lines start an item (options of a
  manual, bullets, numbered steps) gives one unit per item, scored with the list's lead-in line (as a
  cell with its headers) and cited by the item's own lines.
* **Definitions**: an option line ("-c, --cat", "-E encoding, --encoding encoding") and the lines that
  describe it form one unit, across block boundaries: layout analysis often glues a term line to the
  end of the previous description's block, so a question asking "which option ..." would otherwise
  quote the description without the option.

Line boxes come from the page's word layer; a block whose words do not fall into exactly its lines
keeps its own box (and is left to the sentence units).

Rules (``docs/extractive-rules.md``, 30-31; generated-set only): list items, definitions (``_INDENT``).
Option fit (29) was removed: the real dev set's seen split scored no worse without it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from docrag.geometry import Box, union
from docrag.types import Block, BlockKind, Page, Word

# a line that starts a list item: a bullet, an option (-x, --name, %x), "1." / "(2)" / "a)" / "（三）"
# (``decimal_not_item``, rule 199: a line wrapped before "27.29%" or "6.65。" starts no item "27.")
# (``glyph_bullets``, rule 274: Wingdings / Symbol bullets a PDF maps to private-use code points, "\uf09f", "\uf0b7")
_ITEM_START = re.compile(r"^\s*(?:[•·▪◦●■*–—\uf06c\uf0b7\uf09f\uf0d8\uf076\uf0a7\uf0fc\uf06e\uf075]\s*\S"
                         r"|-{1,2}[A-Za-z0-9<]|%\S|\(?\d{1,2}(?:[)、]|\.(?!\d))\s*\S|[a-z][.)]\s"
                         r"|[（(][一二三四五六七八九十]+[）)])")
_MIN_ITEMS = 3
_MAX_LEAD_CHARS = 160


class WordIndex:
    """The page's words sorted by their top edge, so the words inside a block are found without
    scanning the whole page for every block (build one per page and pass it along)."""

    def __init__(self, page: Page) -> None:
        self.words = sorted((w for w in page.words if w.box.area > 0), key=lambda w: w.box.y0)
        self.tops = [w.box.y0 for w in self.words]
        self.tallest = max((w.box.height for w in self.words), default=0.0)

    def inside(self, box: Box) -> list[Word]:
        """The words lying mostly (> 50% of their area) inside ``box``: only words whose top is
        within the tallest word's height above ``box`` can overlap it."""
        lo, hi = bisect_left(self.tops, box.y0 - self.tallest), bisect_right(self.tops, box.y1)
        return [w for w in self.words[lo:hi] if w.box.intersection_area(box) > 0.5 * w.box.area]


def _line_boxes(block: Block, page: Page, n_lines: int, index: WordIndex | None = None) -> list[Box] | None:
    """One box per text line of ``block``, from the page's words (None when the words do not fall
    into exactly ``n_lines`` lines, e.g. a page without a word layer)."""
    words = sorted((index or WordIndex(page)).inside(block.box), key=lambda w: (w.box.y0, w.box.x0))
    rows: list[list[Box]] = []
    for w in words:
        cy = (w.box.y0 + w.box.y1) / 2
        last = rows[-1][-1] if rows else None
        if last is not None and abs((last.y0 + last.y1) / 2 - cy) < 0.5 * max(1.0, w.box.height):
            rows[-1].append(w.box)
        else:
            rows.append([w.box])
    return [union(r) for r in rows] if len(rows) == n_lines else None


def list_items(block: Block, page: Page, index: WordIndex | None = None) -> list[tuple[str, Box, str]]:
    """A text block that is a list (at least ``_MIN_ITEMS`` lines start an item: options of a manual,
    bullets, numbered steps) as ``(text, box, lead)`` per item, the lines before the first item
    being the lead-in (quoted as sentences; scored, not quoted, with every item, as a table's headers
    are with its cells). Boxes are the item's lines when the word layer matches the block's lines,
    else the block's. Empty when the block is not a list."""
    lines = [ln for ln in block.text.split("\n") if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if _ITEM_START.match(ln)]
    if len(starts) < _MIN_ITEMS:
        return []
    boxes = _line_boxes(block, page, len(lines), index)
    spans = ([(0, starts[0])] if starts[0] else []) + list(zip(starts, [*starts[1:], len(lines)], strict=True))
    lead = re.sub(r"\s+", " ", " ".join(lines[: starts[0]])).strip()
    lead_ctx = lead[-_MAX_LEAD_CHARS:]
    out = []
    for a, b in spans:
        box = union(boxes[a:b]) if boxes else block.box
        out.append(("\n".join(lines[a:b]), box, "" if a == 0 and starts[0] else lead_ctx))
    return out


# a whole line of option syntax: "-c, --cat", "--usage", "-E encoding, --encoding encoding", "-?, --help"
_OPT = r"-{1,2}[^\s,]+(?:[ =][^\s,-][^\s,]{0,19})?"
_TERM_LINE = re.compile(rf"^\s*{_OPT}(?:,\s*{_OPT})*\s*$")
_OPTION_START = re.compile(r"^\s*-{1,2}[A-Za-z0-9?]")
_ENDS = re.compile(r"[.。!?！？:：;；)）]\s*$")
_MAX_DEFINITION_LINES = 6
_INDENT = 6.0   # points a description is indented under its term


def definitions(blocks: Sequence[Block], page: Page,
                index: WordIndex | None = None) -> tuple[list[tuple[str, str, Box, Block]], dict[int, set[int]]]:
    """Option lines and their descriptions over the page's text blocks (in reading order), as
    ``(term, description, box, first block)``, and the lines they use ``{id(block): {line index}}``
    (those lines are not cut into sentences again). A title ends a definition."""
    index = index or WordIndex(page)
    stream: list[tuple[Block, int, str, Box]] = []
    for block in blocks:
        if block.kind is BlockKind.TITLE:
            stream.append((block, -1, "", block.box))
            continue
        if block.kind is not BlockKind.TEXT:
            continue
        lines = [ln for ln in block.text.split("\n") if ln.strip()]
        boxes = _line_boxes(block, page, len(lines), index)
        if boxes is None:
            stream.append((block, -1, "", block.box))   # unknown line geometry: a boundary
            continue
        stream.extend((block, i, ln, box) for i, (ln, box) in enumerate(zip(lines, boxes, strict=True)))
    def starts_entry(k: int) -> bool:
        """Line ``k`` may begin an entry: it opens its block, the line before it ends a sentence or is
        indented under it (the description of the previous term), or the line after it is indented under
        it (a definition list: "-f, --file=FILE" over "  take PATTERNS from FILE"); an option named inside
        wrapped prose ("... 当使用\n--symbolic\n时 ...") does not."""
        def indented(j: int) -> bool:   # line j (a known line) is indented under line k
            return 0 <= j < len(stream) and stream[j][1] >= 0 and stream[j][3].x0 - stream[k][3].x0 >= _INDENT

        after_sentence = k > 0 and stream[k - 1][1] >= 0 and _ENDS.search(stream[k - 1][2]) is not None
        return stream[k][1] == 0 or after_sentence or indented(k - 1) or indented(k + 1)

    out: list[tuple[str, str, Box, Block]] = []
    used: dict[int, set[int]] = {}
    i = 0
    while i < len(stream):
        block, idx, line, box = stream[i]
        if idx < 0 or not _TERM_LINE.match(line) or not starts_entry(i):
            i += 1
            continue
        j = i + 1
        while j < len(stream) and j - i <= _MAX_DEFINITION_LINES and stream[j][1] >= 0 \
                and not (_OPTION_START.match(stream[j][2]) and starts_entry(j)):
            j += 1
        if j > i + 1:   # a term with at least one line describing it
            part = stream[i:j]
            out.append((line.strip(), " ".join(p[2].strip() for p in part[1:]), union(p[3] for p in part), block))
            for b, k, _, _ in part:
                used.setdefault(id(b), set()).add(k)
        i = j
    return out, used
