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


def callouts(blocks: Sequence[Block]) -> list[tuple[tuple[Block, ...], Block]]:
    """``(labels, value)`` of a highlights page ("BY REVENUE" over "₹ 7,92,756 crore", "$46.7B" over "Microsoft Cloud
    revenue"): a short block that is mostly a figure with the short label set right above it and the one right
    below it, each overlapping it across (a label below that is another figure's label above is not this one's:
    "COMMUNITY DEVELOPMENT" over "₹ 1,186 crore" over "CSR contribution"). Each is also read as one unit: apart,
    the labels name nothing and the figure says nothing."""
    short = [b for b in blocks if b.kind in (BlockKind.TEXT, BlockKind.TITLE) and b.box.is_valid()
             and len(b.text.split()) <= 8 and "\n" not in b.text.strip()]
    values = [b for b in short if len(b.text.split()) <= 4 and _digit_share(b.text) >= 0.3
              and not _DATE_ONLY.fullmatch(b.text.strip())]   # a cover's "2022 年 6 月" is no figure
    labels = [b for b in short if _digit_share(b.text) < 0.2 and any(c.isalpha() for c in b.text)]
    around: list[tuple[Block, Block | None, Block | None]] = []
    for v in values:
        near = [lb for lb in labels if min(lb.box.x1, v.box.x1) - max(lb.box.x0, v.box.x0)
                >= 0.5 * min(lb.box.width, v.box.width)]
        above = [lb for lb in near if lb.box.y0 < v.box.y0 and v.box.y0 - lb.box.y1 <= 0.6 * v.box.height]
        below = [lb for lb in near if lb.box.y0 > v.box.y0 and lb.box.y0 - v.box.y1 <= 0.6 * v.box.height]
        around.append((v, max(above, key=lambda b: b.box.y1, default=None),
                       min(below, key=lambda b: b.box.y0, default=None)))
    heads = {id(a) for _, a, _ in around if a is not None}
    out = []
    for v, a, b in around:
        below = b if a is None or id(b) not in heads else None   # with no label above, the one below whatever it is
        mine = tuple(x for x in (a, below) if x is not None)
        if mine:
            out.append((mine, v))
    return out
