"""Highlights pages for the ``extractive`` generator: a figure set apart from its label.

An annual report's highlights page (a press release's key figures) prints each figure as a big block with a
small label right above or below it ("BY REVENUE" over "₹ 7,92,756 crore"). Apart, the label names nothing
and the figure says nothing; :func:`callouts` pairs them so they are also read as one unit (rule 62,
``docs/extractive-rules.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.types import Block, BlockKind


def _digit_share(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    return sum(c.isdigit() for c in chars) / len(chars) if chars else 0.0


_DATE_ONLY = re.compile(r"(?:19|20)\d\d\s*(?:年\s*(?:\d{1,2}\s*月)?|[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?")


def callouts(blocks: Sequence[Block]) -> list[tuple[Block, Block]]:
    """``(label, value)`` pairs of a highlights page ("BY REVENUE" over "₹ 7,92,756 crore", "$46.7B" over
    "Microsoft Cloud revenue"): a short block that is mostly a figure and the short label set right above it
    (else right below it), overlapping it across. Each is also read as one unit: apart, the label names
    nothing and the figure says nothing."""
    short = [b for b in blocks if b.kind in (BlockKind.TEXT, BlockKind.TITLE) and b.box.is_valid()
             and len(b.text.split()) <= 8 and "\n" not in b.text.strip()]
    values = [b for b in short if len(b.text.split()) <= 4 and _digit_share(b.text) >= 0.3
              and not _DATE_ONLY.fullmatch(b.text.strip())]   # a cover's "2022 年 6 月" is no figure
    labels = [b for b in short if _digit_share(b.text) < 0.2 and any(c.isalpha() for c in b.text)]
    out = []
    for v in values:
        near = [lb for lb in labels if min(lb.box.x1, v.box.x1) - max(lb.box.x0, v.box.x0)
                >= 0.5 * min(lb.box.width, v.box.width)]
        above = [lb for lb in near if lb.box.y0 < v.box.y0 and v.box.y0 - lb.box.y1 <= 0.6 * v.box.height]
        below = [lb for lb in near if lb.box.y0 > v.box.y0 and lb.box.y0 - v.box.y1 <= 0.6 * v.box.height]
        label = max(above, key=lambda b: b.box.y1) if above else min(below, key=lambda b: b.box.y0, default=None)
        if label is not None:
            out.append((label, v))
    return out
