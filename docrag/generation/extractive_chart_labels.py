"""A chart's data labels read from its words: which figure is printed over which axis category (rule 78
``chart_labels``, ``docs/extractive-rules.md``), and which text near a chart is no caption of it (rule 204)."""

from __future__ import annotations

import re

from docrag.generation.extractive_tables import is_number
from docrag.geometry import in_rows
from docrag.regions import FIG_CAPTION as _FIG_CAPTION
from docrag.types import Block, BlockKind

_PLAIN_NUMBER = re.compile(r"[-+−(]?[$€£¥]?[\d,]*\.?\d+\s*%?\)?")
# ``scaled_label`` (rule 205): "$10.6B", "$842M": a currency figure with its scale letter is a data label too (a
# bare "8B" stays an OCR misread)
_SCALED_LABEL = re.compile(r"[-+−(]?[$€£¥]\d[\d,]*(?:\.\d+)?\s?(?:[BMK]|bn|mn)\)?")
_MOST_OFF_AXIS = 2   # labels one bar prints (its figure, its growth) where no axis row names the bars
_AXIS_GAP = 0.8   # axis labels stand this many label heights apart (median); a title's words a space apart
_YEARISH = re.compile(r"^(?:19|20)\d\d[a-z]?$|^(?:fy|q[1-4])\s?\d{2,4}$", re.IGNORECASE)
DENSE_AXIS_PT = 16.0   # ``nearest_category`` (rule 258)
_YEAR_MONTH = re.compile(r"^(?:19|20)\d\d(?:0[1-9]|1[0-2])$")


def data_labels(labels: list[Block], *, need_axis: bool = False) -> dict[str, str]:
    """Category label -> the numbers printed in the same column above it, top to bottom (a bar's data
    label, a line's), joined by ", ".

    ``chart_labels``: a year is a category, never a data label; a data label is a plain figure ("$1,034",
    "22%", not an OCR misread such as "8B"); a lone character (an OCR'd legend read a character at a
    time) is no category; where three or more categories share a row set apart (the axis; not the title
    above it, whose words run a space apart), only they are, and no number reaches a category through the
    axis row (a legend under the axis labels). ``need_axis``: without an axis row no label names a bar (a
    drawing's text-layer words: a slide's footer and headline words are no categories)."""
    def year(b: Block) -> bool:   # "2019", "2019年", "201905" (a month: rule 259)
        return bool(_YEARISH.match(b.text.strip().rstrip("年")) or _YEAR_MONTH.match(b.text.strip()))

    cats = [b for b in labels if (year(b) or not is_number(b.text.strip())) and len(b.text.split()) <= 3
            and len(b.text.strip()) >= 2]
    nums = [b for b in labels if not year(b) and (_PLAIN_NUMBER.fullmatch(b.text.strip())
                                                   or _SCALED_LABEL.fullmatch(b.text.strip()))]
    axis = [o for o in cats if _set_apart(o, cats, down=False)]
    if not axis:   # no row of categories: a horizontal bar chart's stand in a column at its left
        across = _bars_across(cats, nums)
        if across or need_axis:
            return across
    out: dict[str, str] = {}
    named = axis or cats

    def under(n: Block, c: Block) -> bool:   # a label over a category, 6 pt of slack either side
        return n.box.y1 <= c.box.y0 + 1 and n.box.x0 - 6 <= (c.box.x0 + c.box.x1) / 2 <= n.box.x1 + 6
    # ``nearest_category`` (rule 258): on an axis of categories less than ``DENSE_AXIS_PT`` apart (bars 10 pt apart),
    # a label over two categories' slack names the nearer
    centres = sorted((c.box.x0 + c.box.x1) / 2 for c in axis)
    pitch = sorted(b - a for a, b in zip(centres, centres[1:], strict=False))
    dense = bool(pitch) and pitch[len(pitch) // 2] < DENSE_AXIS_PT
    nearest = {id(n): min((c for c in named if under(n, c)), default=None,
                          key=lambda c: abs(c.box.x0 + c.box.x1 - n.box.x0 - n.box.x1)) for n in nums} if dense else {}
    for c in named:   # with an axis row, a word off it ("CAB", an OCR misread in a bar) names no bar
        above = [n for n in nums if under(n, c) and (not dense or nearest[id(n)] is c)]
        above = [n for n in above if not any(o is not c and n.box.y1 <= o.box.y0 and o.box.y1 <= c.box.y0 + 1
                                              and o.box.x0 < n.box.x1 and o.box.x1 > n.box.x0 for o in axis)]
        if above and (axis or len(above) <= _MOST_OFF_AXIS):   # a column of more over a word off any axis row is
            # the value axis over a legend word ("14, 12, 10 — Interval"), not a bar's labels
            # every series' label in the column, top to bottom (a bar's figure, then its growth line's)
            column = sorted(above, key=lambda n: n.box.y0)
            column = [n for i, n in enumerate(column) if not any(_overprinted(o, n) for o in column[:i])]
            out[_name(c)] = ", ".join(n.text.strip() for n in column)
    if not axis:
        return out
    # labels over a few categories of an axis row only are stray OCR'd marks, not its data labels; a row without
    # any (a legend row, the axis of a second panel drawn as a line) leaves the labels of another row standing
    kept: dict[str, str] = {}
    for row in in_rows(axis):
        names = [_name(c) for c in row]
        found = {n: out[n] for n in names if n in out}
        if len(found) >= 0.5 * len(row):
            kept.update(found)
    return kept


def _overprinted(a: Block, b: Block) -> bool:
    """One label printed twice at one place (a PDF's bold drawn as two passes: Intel's "$23.0 $23.0")."""
    return a.text.strip() == b.text.strip() and abs(a.box.x0 - b.box.x0) < 1.5 and abs(a.box.y0 - b.box.y0) < 1.5


def _name(category: Block) -> str:
    """A category label's text, its spaces made one."""
    return re.sub(r"\s+", " ", category.text).strip()


def _set_apart(b: Block, cats: list[Block], *, down: bool) -> bool:
    """Whether ``b`` is one of three or more categories in a row (``down``: a column) standing apart, the median
    gap at least ``_AXIS_GAP`` label heights: an axis's labels (a title's words run a space apart)."""
    mid = (b.box.x0 + b.box.x1) / 2 if down else (b.box.y0 + b.box.y1) / 2
    line = sorted((o for o in cats if (o.box.x0 <= mid <= o.box.x1 if down else o.box.y0 <= mid <= o.box.y1)),
                  key=lambda o: o.box.y0 if down else o.box.x0)
    if len(line) < 3:
        return False
    gaps = sorted(n.box.y0 - o.box.y1 if down else n.box.x0 - o.box.x1
                  for o, n in zip(line, line[1:], strict=False))
    heights = sorted(o.box.height for o in line)
    return gaps[len(gaps) // 2] >= _AXIS_GAP * heights[len(heights) // 2]


def _bars_across(cats: list[Block], nums: list[Block]) -> dict[str, str]:
    """Horizontal bars (rule 78 ``chart_labels``, across): three or more categories stacked in a column set apart
    (CAICT's "2021 / 2020 / ... / 2016" down the left of its bars), each bar's figure printed to the right of
    its category, on its row; the figures of a row left to right."""
    axis = [o for o in cats if _set_apart(o, cats, down=True)]
    out: dict[str, str] = {}
    for c in axis:
        cy = (c.box.y0 + c.box.y1) / 2
        row = sorted((n for n in nums if n.box.x0 >= c.box.x1 - 1
                      and abs((n.box.y0 + n.box.y1) / 2 - cy) <= 0.5 * c.box.height), key=lambda n: n.box.x0)
        if row:
            out[_name(c)] = ", ".join(n.text.strip() for n in row)
    return out if axis and len(out) >= 0.5 * len(axis) else {}


_CHART_NOTE = re.compile(r"\s*(?:notes?|sources?|注|资料来源|数据来源)\s*[:：]", re.IGNORECASE)   # the chart's own note


def prose_block(b: Block) -> bool:
    """``prose_no_caption`` (rule 204): a paragraph of sentences below a chart that prints its own title is the
    page's text, not the chart's caption (AMD's letter: "We announced new reporting segments ..."); a note under the
    chart ("Note: Non-GAAP gross profit ... are non-GAAP financial measures.") is the chart's."""
    return (b.kind in (BlockKind.TEXT, BlockKind.CAPTION) and b.text.count("\n") >= 1 and len(b.text) >= 120
            and not _FIG_CAPTION.match(b.text) and not _CHART_NOTE.match(b.text)
            and bool(re.search(r"[a-z]{3}[.;:]\s|[。；]", b.text)))
