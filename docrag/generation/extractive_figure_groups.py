"""``figure_group`` (rule 253): a chart printed under another one of the same numbered figure ("图 28" over a net-value
curve, its statistics table and a bar chart of yearly returns, one source line under all three) is named by that
figure's caption too, so a question naming "图28的…分年收益柱状图" reads the bar chart."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_chart_labels import prose_block
from docrag.regions import FIG_CAPTION
from docrag.types import Block, BlockKind

_SOURCE = re.compile(r"^\s*(?:数据来源|资料来源|来源|Source)\s*[:：]", re.IGNORECASE)


def group_caption(block: Block, blocks: Sequence[Block], cap: Block | None) -> str:
    """The caption text of a drawn figure or a table: its own (``cap``), with the numbered caption of the drawn figure
    above it in its column prefixed when its own is no numbered caption and only tables and figures stand between the
    two (no caption, paragraph or source line ends the group first). Pictures and scanned pages keep their own."""
    own = re.sub(r"\s+", " ", cap.text).strip() if cap is not None else ""
    drawn = block.kind is BlockKind.TABLE or block.meta.get("source") == "drawing"   # not a picture's or a scan's
    if block.meta.get("caption_block") is not None or FIG_CAPTION.match(own) or not drawn:
        return own
    above = [b for b in blocks if b.kind is BlockKind.FIGURE and b is not block and b.meta.get("caption_block")
             is not None and b.meta.get("source") == "drawing" and b.box.y1 <= block.box.y0
             and b.box.x_overlap(block.box) > 0]
    if not above:
        return own
    top = max(above, key=lambda b: b.box.y1)
    between = [b for b in blocks if b is not top and b is not block and b is not cap and b.box.x_overlap(block.box) > 0
               and b.box.y0 >= top.box.y1 - 1 and b.box.y1 <= block.box.y0 + 1]
    if any(b.kind is BlockKind.CAPTION or prose_block(b) or _SOURCE.match(b.text) for b in between):
        return own
    linked = next((b for b in blocks if b.block_id == top.meta["caption_block"]), None)
    if linked is None or not FIG_CAPTION.match(linked.text.strip()):
        return own
    return " ".join(f"{linked.text} {own}".split())
